"""The retriever template: one `Retriever.search` for every strategy.

`Retriever.search` checks the input, embeds the question (timed apart from the rest), calls the
strategy's `Retriever._rank` and builds the `SearchResult` with its timings, the way
neo4j-graphrag's ``Retriever.search`` wraps ``get_search_results``. A strategy implements only
`_rank`: `kgmem.retrieve.cosine.CosineRetriever` (the baseline),
`kgmem.retrieve.linked.LinkedRetriever` (the product) and, in the benchmark,
`kgmem.bench.fusion.FusionRetriever`.

Nothing here imports the driver; Cypher runs through `kgmem.store.Store` by statement name.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from kgmem.config import DEFAULT_K
from kgmem.embed import Embedder
from kgmem.errors import MalformedInput
from kgmem.models import Hit
from kgmem.retrieve.chain import ChainResult, StoreFactSource
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.context import ConversationContext
from kgmem.retrieve.plan import QueryPlan
from kgmem.retrieve.question import Question, read_question
from kgmem.retrieve.scope import Scope, SearchFilters
from kgmem.retrieve.sources import attach_metadata, with_sources
from kgmem.retrieve.standing import Order, asks_order, check_order, serve_standing
from kgmem.store import Store
from kgmem.turns import check_unicode

__all__ = ["Ranking", "Request", "Retriever", "SearchResult"]


class SearchResult(BaseModel):
    """Hits for one question with everything needed to audit them.

    Attributes:
        hits: ranked, best first, at most ``k``.
        plan: the query plan (operators, resolved entities/dates) as JSON.
        question: the question as read once (`kgmem.retrieve.question.Question.as_dict`:
            tokens, named speakers, the asking speaker, times, state, operators); empty for a
            strategy that does not read it.
        candidates: how many distinct turns the scorer examined.
        timings_ms: ``embed`` (query embedding), ``neo4j`` (round trips), ``total``,
            ``read_path`` (everything after the embedding).
        hops: the stateful hop's rewritten queries, if any.
        current: for questions about a current or past state (``plan.state``), one decision
            per supersession key the question names: the chosen fact (``mode`` current: the
            latest visible value; past: the value valid then), why, and the key's other values.
        as_of: the moment the question was asked (UTC), if given: turns observed after it were
            invisible and relative dates in the question resolved against it.
        answerable: False when nothing in memory supports the question for the person it
            names (see `kgmem.retrieve.answerable`); a reader should abstain.
        unsupported: the question's key terms that nothing about that person carries.
        answerability: the decision's detail (terms checked, persons, reason).
        chain: for ``chain`` questions whose walk found a path, the answer path
            (`kgmem.retrieve.chain.ChainResult.as_dict`: answer, base, hops with relation,
            fact id, object and cited turns, cost, relaxations); None otherwise.
        answer: when the question asks for an attribute and a value of it was chosen, the
            fact that answers (`kgmem.retrieve.answer`): ``subject``, ``attribute``,
            ``value``, ``value_type``, ``valid_from`` / ``valid_to`` (ISO 8601 or None),
            ``turn_id`` (the cited turn), ``fact_id``, ``text``, ``why``, ``key``,
            ``negated`` (True: the value was retracted, ``why`` says so); None
            otherwise, and always None when the question is unanswerable.
        conversation_id: the conversation searched ('' for an owner search: each hit names
            its own ``conversation_id``).
        owner: the owner whose conversations were searched, if the search named one.
        filters: the search filters that were set (`kgmem.retrieve.scope.SearchFilters`;
            a metadata filter as ``where``: ``{key: {op: value}}``).
        notes: what the caller should know about how the hits were found (a metadata filter:
            inside the vector index, or over a widened pool; `kgmem.metadata_search`).
        instructions: the user's standing instructions and preferences in force that apply to
            the request, at most `EngineConfig.max_instructions`, best first:
            ``{"id", "turn_id", "kind" ("instruction" | "preference"), "text", "scope",
            "valid_from" (UTC), "why", "similarity"}`` (`kgmem.retrieve.standing.applicable`).
        conflicts: conflicting statements with a hit at either end (the other is brought into
            the hits): ``{"turn_ids", "turns": [{"turn_id", "observed_at", "session",
            "speaker", "text"}] (oldest first), "why", "score"}``; the agent should ask.
        order: ``relevance`` (best first) or ``time`` (oldest first: an ordering question, or
            ``order="time"``).
    """

    query: str
    conversation_id: str
    k: int
    engine: str
    hits: list[Hit]
    plan: dict[str, Any] = Field(default_factory=dict)
    question: dict[str, Any] = Field(default_factory=dict)
    candidates: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)
    hops: list[dict[str, Any]] = Field(default_factory=list)
    current: list[dict[str, Any]] = Field(default_factory=list)
    as_of: datetime | None = None
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    answerability: dict[str, Any] = Field(default_factory=dict)
    chain: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    owner: str | None = None
    filters: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    instructions: list[dict[str, Any]] = Field(default_factory=list)
    conflicts: list[dict[str, Any]] = Field(default_factory=list)
    order: str = "relevance"


@dataclass(frozen=True)
class Reading:
    """The question read once before it is embedded: the `Question`, and the version of the
    conversation context it was read against (a stale context means reading it again)."""

    question: Question
    context_version: str | None


@dataclass(frozen=True)
class Request:
    """One checked search request as `Retriever._rank` receives it.

    Attributes:
        query: the question as given.
        conversation_id: the conversation ('' for an owner search).
        k: hits wanted (>= 1).
        as_of: the moment of asking (timezone-aware) or None.
        asked_by: the speaker asking, if the caller names one.
        params: ``conversation_id`` and ``embedding`` (the query vector as a list), the
            parameters every read statement shares.
        scope: the conversations searched (one, or all of an owner's).
        filters: the caller's search filters.
        reading: the question as the strategy read it (`Retriever.reading`), read once
            before anything ranks, also for a precomputed embedding.
    """

    query: str
    conversation_id: str
    k: int
    as_of: datetime | None
    asked_by: str | None
    params: dict[str, Any]
    scope: Scope
    filters: SearchFilters
    reading: Reading


@dataclass
class Ranking:
    """What a strategy's `Retriever._rank` returns: the whole ranked pool and its audit."""

    hits: list[Hit]
    plan: QueryPlan
    candidates: int
    question: dict[str, Any] = field(default_factory=dict)
    hops: list[dict[str, Any]] = field(default_factory=list)
    current: list[dict[str, Any]] = field(default_factory=list)
    answerability: dict[str, Any] = field(default_factory=dict)
    chain: ChainResult | None = None
    answer: dict[str, Any] | None = None


class Retriever(ABC):
    """Answers "what bears on this question?" for one conversation at a time.

    Args:
        store: an open store.
        embedder: the same embedder used at ingest.
        config: the retrieval configuration.
        contexts: conversation id -> cached `ConversationContext`, shared with (and
            invalidated by) the owning `kgmem.api.Memory`'s writes.
        chain_sources: conversation id -> the chain walk's entity names (cached like contexts).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: EngineConfig,
        *,
        contexts: dict[str, ConversationContext] | None = None,
        chain_sources: dict[str, StoreFactSource] | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config
        self.contexts = contexts if contexts is not None else {}
        self.chain_sources = chain_sources if chain_sources is not None else {}

    def embed(self, query: str) -> npt.NDArray[np.float32]:
        """The query vector ``(dim,)`` float32."""
        return self.embedder.encode_one(query)

    def query_text(self, query: str, conversation_id: str | Scope) -> str:
        """The text this strategy embeds for ``query`` in a conversation or `Scope`."""
        return self.reading(query, conversation_id)[0]

    def reading(
        self,
        query: str,
        conversation_id: str | Scope,
        *,
        as_of: datetime | None = None,
        asked_by: str | None = None,
    ) -> tuple[str, Reading]:
        """The text this strategy embeds for ``query`` and the question as it read it (here:
        the question read without a conversation context, and its ``text``)."""
        question = read_question(query)
        return question.text, Reading(question, None)

    def _warm(self) -> None:  # noqa: B027  # a hook: most strategies need nothing
        """Load what the strategy needs once, before the timed part (nothing here)."""

    @abstractmethod
    def _rank(self, request: Request) -> Ranking:
        """Rank the conversation's turns for ``request`` (the strategy)."""

    def search(
        self,
        query: str,
        conversation_id: str | None,
        k: int = DEFAULT_K,
        *,
        embedding: npt.NDArray[np.float32] | None = None,
        as_of: datetime | None = None,
        asked_by: str | None = None,
        owner: str | None = None,
        filters: SearchFilters | None = None,
        order: Order | None = None,
    ) -> SearchResult:
        """Rank the conversation's (or the owner's conversations') turns for ``query``.

        Args:
            query: the question (any text; empty is allowed and matches weakly).
            conversation_id: the tenant to search; other conversations are never read. None
                with ``owner``: every conversation of the owner, ranked together.
            k: number of hits (1 or more).
            embedding: a precomputed ``(dim,)`` float32 embedding of `query_text` (benchmarks).
            as_of: the moment of asking (timezone-aware; naive is UTC): later turns are
                invisible, relative dates and "current" resolve against it. None: now (every
                turn visible; relative dates against the conversation's latest turn, its "now").
            asked_by: the speaker asking, whom "I", "me", "my" and "the user" in the question
                mean (None: the conversation's speaker whose role is ``user``, `kgmem.roles`).
            owner: search all of this owner's conversations in one read (with
                ``conversation_id``: that conversation, which must belong to the owner).
            filters: speakers, sessions, observed-time range, source kinds
                (`kgmem.retrieve.scope.SearchFilters`), applied inside the index.
            order: ``"relevance"`` (best first) or ``"time"`` (the top ``k`` oldest first);
                None: ``time`` for an ordering question (`kgmem.retrieve.standing.asks_order`).

        Returns:
            a `SearchResult`; ``timings_ms`` separates query embedding from Neo4j time.

        Raises:
            MalformedInput: ``k`` < 1, ``query`` is not valid Unicode (a lone UTF-16
                surrogate), or ``asked_by`` is not a speaker of the conversation.
            ConversationNotFound: the conversation holds no turns.
            StoreError: Neo4j failed (see `kgmem.errors`).
        """
        if k < 1:
            msg = "k must be at least 1"
            raise MalformedInput(msg, conversation_id=conversation_id, argument="k")
        order = check_order(order)
        # before anything reads the store: a bad query is the caller's error first
        check_unicode([query], file="query", cid=conversation_id)
        scope = Scope(conversation_id=conversation_id, owner=owner)
        filters = filters or SearchFilters()
        if as_of is not None and (as_of.tzinfo is None or as_of.utcoffset() is None):
            as_of = as_of.replace(tzinfo=UTC)
        self._warm()
        vector, reading, embed_ms = self._vector(query, scope, embedding, as_of, asked_by)
        t_embed = time.perf_counter()
        db0 = self.store.timing.ms
        cid = conversation_id or ""
        params = {"conversation_id": cid, "embedding": vector.tolist()}
        request = Request(query, cid, k, as_of, asked_by, params, scope, filters, reading)
        ranking = self._rank(request)
        ranking.hits = with_sources(self.store, ranking.hits[:k])  # document chunks' file#heading
        hits, instructions, conflicts, used = self._standing(request, vector, ranking.hits, order)
        ranking.hits = hits
        self._attach_metadata(request, hits)
        t_end = time.perf_counter()
        timings = {
            "embed": round(embed_ms, 3),
            "neo4j": round(self.store.timing.ms - db0, 3),
            "total": round((t_end - t_embed) * 1000 + embed_ms, 3),
            "read_path": round((t_end - t_embed) * 1000, 3),
        }
        result = self._result(request, ranking, timings)
        return result.model_copy(
            update={"instructions": instructions, "conflicts": conflicts, "order": used}
        )

    def _vector(
        self,
        query: str,
        scope: Scope,
        embedding: npt.NDArray[np.float32] | None,
        as_of: datetime | None,
        asked_by: str | None,
    ) -> tuple[npt.NDArray[np.float32], Reading, float]:
        """The query vector, the question as read before it was embedded (`reading`: read once,
        the context first; for a precomputed ``embedding`` too, which is not embedded again)
        and the milliseconds the embedding took."""
        if embedding is not None:
            return embedding, self.reading(query, scope, as_of=as_of, asked_by=asked_by)[1], 0.0
        _ = self.embedder.query_backend  # loaded (ONNX built) outside the timed embedding
        text, reading = self.reading(query, scope, as_of=as_of, asked_by=asked_by)
        t0 = time.perf_counter()
        vector = self.embed(text)
        return vector, reading, (time.perf_counter() - t0) * 1000

    def _standing(
        self,
        request: Request,
        vector: npt.NDArray[np.float32],
        hits: list[Hit],
        order: Order | None,
    ) -> tuple[list[Hit], list[dict[str, Any]], list[dict[str, Any]], Order]:
        """The hits (conflict partners brought in, time order for an ordering search), the
        instructions that apply and the conflicts (`kgmem.retrieve.standing.serve_standing`,
        one round trip, or none when the context has them cached; none for a relevance-ordered
        search of a scope whose context says it holds no instruction or conflict)."""
        context = self.contexts.get(request.scope.key)
        question = request.reading.question
        used: Order = order or ("time" if asks_order(question) else "relevance")
        if context is not None and not context.standing and used == "relevance":
            return hits, [], [], used
        return serve_standing(
            self.store,
            conversation_id=request.conversation_id,
            question=question,
            vector=vector,
            hits=hits,
            as_of=request.as_of,
            order=order,
            limit=self.config.max_instructions,
            similarity=self.config.instruction_similarity,
            cache=context.standing_reads if context is not None else None,
        )

    def _attach_metadata(self, request: Request, hits: list[Hit]) -> None:
        """Each hit's turn metadata (`kgmem.retrieve.sources.attach_metadata`: one round trip; none
        when the scope's context says no turn carries metadata)."""
        context = self.contexts.get(request.scope.key)
        if context is None or context.metadata:
            attach_metadata(self.store, hits)

    def _result(
        self, request: Request, ranking: Ranking, timings: dict[str, float]
    ) -> SearchResult:
        """The `SearchResult` of a ranking: the top ``k`` hits, the plan and the audit."""
        return SearchResult(
            query=request.query,
            conversation_id=request.conversation_id,
            k=request.k,
            engine=self.config.engine,
            hits=ranking.hits[: request.k],
            plan=ranking.plan.model_dump(mode="json"),
            question=ranking.question,
            candidates=ranking.candidates,
            timings_ms=timings,
            hops=ranking.hops,
            current=[
                {k: v for k, v in d.items() if k not in ("winner_turns", "other_turns")}
                | {"turns": d["winner_turns"]}
                for d in ranking.current
            ],
            as_of=request.as_of,
            answerable=ranking.answerability.get("answerable", True),
            unsupported=ranking.answerability.get("unsupported", []),
            answerability=ranking.answerability,
            chain=ranking.chain.as_dict() if ranking.chain is not None else None,
            answer=ranking.answer,
            owner=request.scope.owner,
            filters=request.filters.as_dict(),
        )
