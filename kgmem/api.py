"""`Memory`: the one public entry point. The CLI, the MCP server and the reader are thin
layers over it.

Example:
    >>> from kgmem import Memory, Settings
    >>> with Memory.from_settings(Settings()) as memory:      # doctest: +SKIP
    ...     memory.add_turns("chat-1", [{"speaker": "Ana", "text": "I moved to Lisbon."}])
    ...     result = memory.search("Where does Ana live?", "chat-1", k=5)
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import MalformedInput
from kgmem.ids import checks_ids
from kgmem.ingest.documents import Document as Document
from kgmem.ingest.documents import DocumentReport as DocumentReport
from kgmem.ingest.pipeline import AppendHook as AppendHook
from kgmem.ingest.pipeline import FactSources as FactSources
from kgmem.ingest.pipeline import IngestReport as IngestReport
from kgmem.ingest.pipeline import Progress as Progress
from kgmem.memory_facts import MemoryFacts
from kgmem.memory_forgetting import MemoryForgetting
from kgmem.memory_standing import MemoryStanding
from kgmem.memory_writes import MemoryWrites
from kgmem.metadata import check_where
from kgmem.metadata_search import attach_metadata, filtered_search
from kgmem.models import ConversationRecord as ConversationRecord
from kgmem.retrieve.chain import ChainResult as ChainResult
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.engine import retriever_for
from kgmem.retrieve.retriever import Retriever, SearchResult
from kgmem.retrieve.scope import Scope, SearchFilters
from kgmem.retrieve.standing import check_order
from kgmem.retrieve.warm import warm_planner, warm_read_path
from kgmem.store import Store
from kgmem.store.schema import await_search_indexes
from kgmem.truth.weights import shipped_models

__all__ = ["MAX_QUERY_CHARS", "Memory"]

#: the longest search query accepted, in characters: a question is a sentence or two, the
#: embedder reads at most ``Settings.embed_max_chars`` of it, and the BM25 query keeps at most
#: 32 words of at most 255 characters (`kgmem.retrieve.generators.question_words`)
MAX_QUERY_CHARS = 10_000


class Memory(MemoryWrites, MemoryForgetting, MemoryFacts, MemoryStanding):
    """Long-term conversational memory in Neo4j.

    Build with `Memory.from_settings`; the constructor touches neither the network nor the
    models (both load on first use). Call `close` (or use ``with``) when done.

    Args:
        store: the Neo4j seam.
        embedder: the sentence embedder (shared by ingest and search).
        settings: the settings the pieces were built from.
    """

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> Memory:
        """A memory configured from ``KGMEM_*`` settings (read now, not at import)."""
        settings = settings or Settings()
        shipped_models()  # before a driver exists: bad weights raise with nothing to close
        embedder = Embedder(
            settings.embedder,
            batch_size=settings.embed_batch_size,
            max_chars=settings.embed_max_chars,
            backend=settings.embedding_backend,
            cache_dir=settings.embedding_cache_dir,
        )
        return cls(Store.from_settings(settings), embedder, settings)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- read ----------------------------------------------------------------------------------
    def engine(self, config: EngineConfig | None = None) -> Retriever:
        """The retriever of ``config``'s strategy over this memory (default: the shipped
        configuration): a `kgmem.retrieve.cosine.CosineRetriever` or
        `kgmem.retrieve.linked.LinkedRetriever`. Retrievers share this memory's
        per-conversation context cache, which every write here invalidates."""
        return retriever_for(
            self.store,
            self.embedder,
            config or EngineConfig.from_settings(self.settings),
            contexts=self._contexts,
            chain_sources=self._chain_sources,
        )

    @checks_ids
    def search(
        self,
        query: str,
        conversation_id: str | None = None,
        k: int = 10,
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
            asked_by: the speaker asking (one of the conversation's speakers): "I", "me",
                "my" and "the user" in ``query`` mean this speaker. None = the conversation's
                speaker whose role is ``user`` (`kgmem.roles`), if any.
            owner: search all conversations of this owner (see `add_turns`); with a
                ``conversation_id``, that conversation must belong to the owner.
            speakers: only turns said by these speakers (a name or a list).
            sessions: only turns of these session numbers.
            between: ``(start, end)``: only turns observed in that range (inclusive; None for
                an open end; naive datetimes are UTC).
            sources: only turns of these source kinds: ``chat``, ``document``, ``facts``.
            conversations: with ``owner``: only these of the owner's conversations, still in
                one read (the LangGraph store searches a namespace prefix this way).
            where: only turns whose metadata passes this filter (`kgmem.metadata.check_where`:
                ``{key: value}``, ``{key: [values]}``, ``{key: {"gte": 3, "lt": 5}}``; all keys
                must hold). Declared keys (``Settings.metadata_filter_keys``) filter inside the
                vector index; others the best ``Settings.metadata_pool`` hits, and
                ``notes`` says so (`kgmem.metadata_search`, docs/metadata.md).
            order: ``"relevance"`` (best first) or ``"time"`` (the top ``k``, oldest first);
                None: ``time`` for an ordering question ("in what order did I ...",
                `kgmem.retrieve.standing.asks_order`), else ``relevance``.

        Returns:
            `SearchResult` with hits (turn id, text, speaker, session, observed_at UTC, score,
            terms, trace, metadata), the plan, candidates examined, timings in ms,
            current/past value decisions, the answerability signal (``answerable``,
            ``unsupported``), the standing instructions that apply (``instructions``),
            conflicting statements among the hits (``conflicts``), the ``order`` used and
            ``notes``.

        Raises:
            MalformedInput: ``query`` is not a string, is longer than `MAX_QUERY_CHARS`, or is
                not valid Unicode; neither a conversation nor an owner; a bad filter
                (`kgmem.retrieve.scope.SearchFilters.of`, `kgmem.metadata.check_where`); an
                ``order`` other than ``relevance``, ``time`` or None.
            ConversationNotFound: the conversation holds no turns, or belongs to another
                owner than ``owner`` (`kgmem.errors.OwnerNotFound`: the owner holds none).
            IndexNotOnline: on this memory's first search, a search index is still populating
                after `kgmem.store.schema.INDEX_WAIT_S` (or failed).
        """
        check_query(query, conversation_id)
        given: dict[str, Any] = {"speakers": speakers, "sessions": sessions, "between": between}
        given |= {"sources": sources, "conversations": conversations}
        filters = SearchFilters.of(**given)
        conditions = check_where(where) if where is not None else None
        Scope(conversation_id=conversation_id, owner=owner)  # checked before any read
        checked_order = check_order(order)
        asked: dict[str, Any] = {"as_of": as_of, "asked_by": asked_by, "owner": owner}
        if conditions is not None:
            search = {"config": config, "order": checked_order, **asked, **given}
            return filtered_search(self, query, conversation_id, k, conditions, filters, search)
        self._await_indexes()
        result = self.engine(config).search(
            query, conversation_id, k, filters=filters, order=checked_order, **asked
        )
        attach_metadata(self.store, result.hits)
        return result

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
        self._await_indexes()
        plans_ms = warm_read_path(self.store)
        t0 = time.perf_counter()
        _ = self.embedder.query_backend  # loads the model (and builds the ONNX encoder)
        model_ms = round((time.perf_counter() - t0) * 1000, 1)
        return {"plans_ms": plans_ms, "model_ms": model_ms, "planner_ms": warm_planner()}

    def _await_indexes(self) -> None:
        """Wait for the search indexes on this memory's first read (`IndexNotOnline` after
        `kgmem.store.schema.INDEX_WAIT_S`)."""
        if not self._indexes_online:  # once per Memory: a populating index misses turns
            await_search_indexes(self.store)
            self._indexes_online = True

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
