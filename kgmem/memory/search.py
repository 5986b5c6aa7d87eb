"""The read path of a memory: `search`, `warm`, and the retrievers they run
(`kgmem.api.Memory` delegates here)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from kgmem.config import DEFAULT_K, Settings
from kgmem.embed import Embedder
from kgmem.errors import MalformedInput
from kgmem.ids import checks_ids
from kgmem.memory.caches import ReadCaches
from kgmem.memory.owners import Owners
from kgmem.memory.schema import SchemaKeeper
from kgmem.metadata import check_where
from kgmem.metadata_search import filtered_search
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.engine import retriever_for
from kgmem.retrieve.retriever import Retriever, SearchResult
from kgmem.retrieve.scope import Scope, SearchFilters
from kgmem.retrieve.standing import check_order
from kgmem.retrieve.warm import warm_planner, warm_read_path
from kgmem.store import Store

__all__ = ["MAX_QUERY_CHARS", "Searcher", "check_query"]

#: the longest search query accepted, in characters: a question is a sentence or two, the
#: embedder reads at most ``Settings.embed_max_chars`` of it, and the BM25 query keeps at most
#: 32 words of at most 255 characters (`kgmem.retrieve.question.bm25_terms`)
MAX_QUERY_CHARS = 10_000


class Searcher:
    """Searches one store with the retriever a configuration names, waiting for the search
    indexes once, and sharing ``caches`` with every retriever it builds.

    Args:
        store: the Neo4j seam.
        embedder: embeds questions.
        settings: the default retrieval configuration (`EngineConfig.from_settings`).
        schema: waited on before the first read.
        caches: the per-conversation read context that writes drop.
        owners: whose conversations an owner's metadata-filtered search reads.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        schema: SchemaKeeper,
        caches: ReadCaches,
        owners: Owners,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.schema = schema
        self.caches = caches
        self.owners = owners

    def owner_conversations(self, owner: str) -> list[str]:
        return self.owners.owner_conversations(owner)

    owner_conversations.__doc__ = Owners.owner_conversations.__doc__

    def engine(self, config: EngineConfig | None = None) -> Retriever:
        """The retriever of ``config``'s strategy over this memory (default: the shipped
        configuration): a `kgmem.retrieve.cosine.CosineRetriever` or
        `kgmem.retrieve.linked.LinkedRetriever`. Retrievers share this memory's
        per-conversation context cache, which every write here invalidates."""
        return retriever_for(
            self.store,
            self.embedder,
            config or EngineConfig.from_settings(self.settings),
            contexts=self.caches.contexts,
            chain_sources=self.caches.chain_sources,
        )

    @checks_ids
    def search(
        self,
        query: str,
        conversation_id: str | None = None,
        k: int = DEFAULT_K,
        *,
        config: EngineConfig | None = None,
        as_of: datetime | None = None,
        asked_by: str | None = None,
        owner: str | None = None,
        speakers: Sequence[str] | str | None = None,
        sessions: Sequence[int] | int | None = None,
        between: Sequence[datetime | None] | None = None,
        sources: Sequence[str] | str | None = None,
        conversations: Sequence[str] | None = None,
        where: Mapping[str, Any] | None = None,
        order: str | None = None,
    ) -> SearchResult:
        """The turns that bear on ``query``, best first, each with its score terms and trace.

        Every filter is optional and applied inside the vector index (docs/scopes-and-filters.md):
        a filtered search ranks all turns that pass it, not a filtered default top-k.

        Args:
            query: a question or any text.
            conversation_id: the conversation to search (others are never read); None with
                ``owner``: all of the owner's conversations, in one read with one ranking
                (each hit names its ``conversation_id``).
            k: number of hits.
            config: retrieval configuration (default: the shipped best dev configuration).
            as_of: the moment the question is asked (timezone-aware datetime; naive = UTC):
                turns observed after it are invisible, relative dates in the question resolve
                against it and "current" means current then. None = now.
            asked_by: the speaker asking, whom "I", "me", "my" and "the user" in ``query`` mean
                (None: the conversation's speaker whose role is ``user``, `kgmem.roles`).
            owner: search all conversations of this owner (see `add_turns`); with a
                ``conversation_id``, that conversation must belong to the owner.
            speakers / sessions / between / sources / conversations: only turns said by these
                speakers (a name or a list), of these session numbers, observed in ``(start,
                end)`` (inclusive; None an open end; naive = UTC), of these source kinds
                (``chat``, ``document``, ``facts``), of these of ``owner``'s conversations.
            where: only turns whose metadata passes this filter (``{key: value}``, ``{key:
                [values]}``, ``{key: {"gte": 3, "lt": 5}}``; all must hold; docs/metadata.md):
                inside the vector index for ``Settings.metadata_filter_keys``, else over the
                best ``Settings.metadata_pool`` hits, said in ``notes``.
            order: ``"relevance"`` (best first) or ``"time"`` (the top ``k``, oldest first);
                None: ``time`` for an ordering question ("in what order did I ...",
                `kgmem.retrieve.standing.asks_order`), else ``relevance``.

        Returns:
            `SearchResult`: hits (turn id, text, speaker, session, observed_at UTC, score,
            terms, trace, metadata), plan, candidates, timings in ms, current/past values,
            ``answerable``/``unsupported``, ``instructions``, ``conflicts``, ``order``, ``notes``.

        Raises:
            MalformedInput: ``query`` is not a string, is longer than `MAX_QUERY_CHARS`, or is
                not valid Unicode; neither a conversation nor an owner; a bad filter
                (`kgmem.retrieve.scope.SearchFilters.of`, `kgmem.metadata.check_where`); an
                ``order`` other than ``relevance``, ``time`` or None.
            ConversationNotFound: the conversation holds no turns, or belongs to another
                owner than ``owner`` (`kgmem.errors.OwnerNotFound`: the owner holds none).
            IndexNotOnline: a search index still populating (or failed) on the first search.
        """
        check_query(query, conversation_id)
        given: dict[str, Any] = dict(speakers=speakers, sessions=sessions, between=between)
        given |= {"sources": sources, "conversations": conversations}
        filters = SearchFilters.of(**given)
        conditions = check_where(where) if where is not None else None
        Scope(conversation_id=conversation_id, owner=owner)  # checked before any read
        checked_order = check_order(order)
        asked: dict[str, Any] = {"as_of": as_of, "asked_by": asked_by, "owner": owner}
        if conditions is not None:
            search = {"config": config, "order": checked_order, **asked, **given}
            return filtered_search(self, query, conversation_id, k, conditions, filters, search)
        self.schema.await_indexes()
        return self.engine(config).search(
            query, conversation_id, k, filters=filters, order=checked_order, **asked
        )

    def warm(self) -> dict[str, Any]:
        """Get ready to answer at once, for a service to call at start-up: wait for the search
        indexes, compile the read path's query plans on the server
        (`kgmem.retrieve.warm.warm_read_path`: a few round trips that read nothing, 1-2 ms
        each when the plans are cached already), load the embedding model and read one
        question with relative dates (the date parser's data, about 0.1 s once per process).
        Without it, the first search pays for all four (the plans only after a server start
        that was not `kgmem neo4j start`, which warms them itself).

        Returns:
            ``{"plans_ms": {statement: ms}, "model_ms": float, "planner_ms": float}``
            (``plans_ms`` is empty when nothing could be warmed: a server problem there is only
            logged; ``planner_ms``: the question reader's first use, `warm_planner`).

        Raises:
            IndexNotOnline: as on the first search.
            ModelUnavailable: the embedding model cannot load (as the first search would).
        """
        self.schema.await_indexes()
        plans_ms = warm_read_path(self.store)
        t0 = time.perf_counter()
        _ = self.embedder.query_backend  # loads the model (and builds the ONNX encoder)
        model_ms = round((time.perf_counter() - t0) * 1000, 1)
        return {"plans_ms": plans_ms, "model_ms": model_ms, "planner_ms": warm_planner()}

    def evidence_cypher(self, result: SearchResult) -> str:
        """A ready-to-paste Neo4j Browser statement drawing ``result``'s evidence subgraph."""
        from kgmem.retrieve.evidence import evidence_cypher

        return evidence_cypher(result)

    def conversations(self) -> list[dict[str, Any]]:
        """Every stored conversation with its turn count and first/last timestamps."""
        return self.store.read("read/list_conversations")

    @checks_ids
    def counts(self, conversation_id: str) -> dict[str, int]:
        """Node/edge counts of one conversation (turns, next, facts, cites, entities, events)."""
        rows = self.store.read("read/count_conversation", conversation_id=conversation_id)
        return {k: int(v) for k, v in rows[0].items()}

    @checks_ids
    def turns_around(
        self, conversation_id: str, turn_id: str, window: int = 0
    ) -> list[dict[str, Any]]:
        """A turn with ``window`` turns said before and after it, in conversation order
        (``read/evidence_turn_window``; ``window`` is capped at 10): dicts with ``turn_id``,
        ``speaker``, ``session``, ``observed_at`` (UTC), ``text`` and ``offset``
        (-window..window, 0 = the turn). Empty when the conversation holds no such turn."""
        return self.store.read(
            "read/evidence_turn_window",
            conversation_id=conversation_id,
            turn_id=turn_id,
            window=window,
        )


def check_query(query: object, conversation_id: str | None = None) -> None:
    """Check a search query before anything is read (every surface that searches calls it).

    Raises:
        MalformedInput: ``query`` is not a string or is longer than `MAX_QUERY_CHARS`
            (``argument`` ``query``).
    """
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        size = f"{len(query):,} characters" if isinstance(query, str) else "not a string"
        raise MalformedInput(
            f"the search query is {size}; a query is a string of at most "
            f"{MAX_QUERY_CHARS:,} characters (kgmem.api.MAX_QUERY_CHARS)",
            conversation_id=conversation_id,
            argument="query",
        )
