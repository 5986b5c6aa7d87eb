"""The read path: plan → seeds → expansion → one scorer → (hop) → hits with traces.

Engines:
- ``cosine``: the conversation's exact top-k turns by cos(turn, q) (the baseline).
- ``linked``: small generator pools (dense turns, dense facts → cited turns, and the
  generators of `kgmem.retrieve.generators`) merged by turn id and scored once by
  `kgmem.retrieve.score.score_candidates`.
(Reciprocal-rank fusion of whole lists, measured worse than the single scorer, is a negative
row of the benchmark: `kgmem.bench.fusion`.)

Nothing here imports the driver; Cypher runs through `kgmem.store.Store` by statement name.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import ConversationNotFound
from kgmem.models import Hit
from kgmem.retrieve import generators as gen
from kgmem.retrieve.answerable import Support, decide, judge
from kgmem.retrieve.chain import ChainResult, StoreFactSource, follow_chain
from kgmem.retrieve.plan import (
    GENERATORS,
    EntityIndex,
    Planner,
    QueryPlan,
    named_speakers,
    plan,
)
from kgmem.retrieve.resolve import order_hits, relevant_rows, resolve_state
from kgmem.retrieve.score import (
    Candidate,
    ScoreWeights,
    TimeWindow,
    merge_candidates,
    score_candidates,
)
from kgmem.store import Store
from kgmem.turns import check_unicode

__all__ = ["ALL_GENERATORS", "EngineConfig", "SearchEngine", "SearchResult"]

EngineName = Literal["cosine", "linked"]
FactSourceChoice = Literal["annotation", "extracted", "both"]

#: every generator the linked engine knows, in ablation order (the planner budgets the same set)
ALL_GENERATORS = GENERATORS


@dataclass(frozen=True)
class EngineConfig:
    """One frozen retrieval configuration (a row of the ablation table).

    Attributes:
        engine: ``cosine`` or ``linked``.
        generators: generator names switched on (see `ALL_GENERATORS`).
        weights: scorer weights (0 switches a term off).
        fact_sources: which fact sources the fact generators read.
        pools: pool size per generator (turns per pool).
        link_confidence: the least confidence of a fact the entity generator and event
            expansion follow.
        max_hops: the stateful hop's limit.
        bm25_content_words: the BM25 query leaves out stop words and the named speakers'
            names (`kgmem.retrieve.generators.question_words`), which match every greeting turn.
        strip_speakers: embed the question without the named speakers' names
            (`SearchEngine.query_text`), so the vector carries what is asked, not who.
    """

    engine: EngineName = "linked"
    generators: frozenset[str] = frozenset({"dense_turns", "dense_facts"})
    weights: ScoreWeights = field(default_factory=ScoreWeights)
    fact_sources: FactSourceChoice = "both"
    pools: dict[str, int] = field(
        default_factory=lambda: {
            "dense_turns": 40,
            "dense_facts": 20,
            "fulltext": 10,
            "speaker": 20,
            "entity": 10,
            "window": 10,
            "events": 8,
            "hop": 8,
        }
    )
    link_confidence: float = 0.5
    max_hops: int = 2
    bm25_content_words: bool = False
    strip_speakers: bool = False

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        engine: EngineName = "linked",
        fact_sources: FactSourceChoice = "both",
        generators: Sequence[str] | None = None,
    ) -> EngineConfig:
        """The shipped default (best dev configuration) with pools and weights from settings."""
        chosen = frozenset(generators) if generators is not None else DEFAULT_GENERATORS
        return cls(
            engine=engine,
            generators=chosen,
            weights=ScoreWeights(
                fact=settings.w_fact,
                adjacent=settings.w_adjacent,
                time=settings.w_time,
                signals=(
                    ("bm25", settings.w_bm25),
                    ("entity", settings.w_entity),
                    ("event", settings.w_event),
                    ("hop", settings.w_hop),
                    ("chain", settings.w_chain),
                    ("speaker", settings.w_speaker),
                ),
            ),
            fact_sources=fact_sources,
            pools={
                "dense_turns": settings.pool_turns,
                "dense_facts": settings.pool_facts,
                "fulltext": settings.pool_fulltext,
                "speaker": settings.pool_speaker,
                "entity": settings.pool_entity,
                "window": settings.pool_fulltext,
                "events": settings.expand_events,
                "hop": settings.expand_events,
            },
            link_confidence=settings.link_confidence,
            max_hops=settings.max_hops,
            bm25_content_words=settings.bm25_content_words,
            strip_speakers=settings.strip_speakers,
        )

    def with_(self, **changes: Any) -> EngineConfig:
        return replace(self, **changes)

    @property
    def sources(self) -> list[str] | None:
        return None if self.fact_sources == "both" else [self.fact_sources]


#: the shipped default generator set (the best dev configuration; see docs/benchmarks.md)
DEFAULT_GENERATORS = frozenset({"dense_turns", "dense_facts", "fulltext", "speaker"})


class SearchResult(BaseModel):
    """Hits for one question with everything needed to audit them.

    Attributes:
        hits: ranked, best first, at most ``k``.
        plan: the query plan (operators, resolved entities/dates) as JSON.
        candidates: how many distinct turns the scorer examined.
        timings_ms: ``embed`` (query embedding), ``neo4j`` (round trips), ``total``.
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
    """

    query: str
    conversation_id: str
    k: int
    engine: str
    hits: list[Hit]
    plan: dict[str, Any] = Field(default_factory=dict)
    candidates: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)
    hops: list[dict[str, Any]] = Field(default_factory=list)
    current: list[dict[str, Any]] = Field(default_factory=list)
    as_of: datetime | None = None
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    answerability: dict[str, Any] = Field(default_factory=dict)
    chain: dict[str, Any] | None = None


@dataclass(frozen=True)
class ConversationContext:
    """What the planner knows about the conversation being searched (``support``: cached
    answerability support stems per (persons, as_of))."""

    speakers: tuple[str, ...]
    latest: datetime | None
    entities: EntityIndex
    version: str | None = None
    support: dict[datetime | None, Support] = field(default_factory=dict)


class SearchEngine:
    """Answers "what bears on this question?" for one conversation at a time.

    Args:
        store: an open store.
        embedder: the same embedder used at ingest.
        config: the retrieval configuration.
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
        self.planner = Planner(**config.pools)
        # conversation id -> context; shared with (and invalidated by) the owning Memory's writes
        self.contexts = contexts if contexts is not None else {}
        # conversation id -> the chain walk's entity names (one read, cached like contexts)
        self.chain_sources = chain_sources if chain_sources is not None else {}

    def _context(self, conversation_id: str) -> ConversationContext:
        """Speakers, entity index and latest timestamp of a conversation.

        One round trip (``read/conversation_context``). `search` calls it only without a
        cached copy, or when ``read/linked_read`` (which returns the Conversation node's write
        version in the same round trip) shows that the cached copy is stale, so the cache stays
        correct when another process writes to the same conversation and a search with a fresh
        cache is one round trip.

        Raises:
            ConversationNotFound: the conversation holds no turns.
        """
        cached = self.contexts.get(conversation_id)
        rows = self.store.read(
            "read/conversation_context",
            conversation_id=conversation_id,
            known_version=cached.version if cached is not None else None,
        )
        row = rows[0]
        if not row["changed"] and cached is not None:
            return cached
        self.chain_sources.pop(conversation_id, None)  # its entity names may be stale too
        if not row["speakers"]:
            self.contexts.pop(conversation_id, None)
            raise ConversationNotFound(conversation_id)
        entries = []
        for e in row["entities"]:
            for name in [e["name"], *e["aliases"]]:
                entries.append((name, e["id"], e["type"]))
        context = ConversationContext(
            speakers=tuple(row["speakers"]),
            latest=row["latest"],
            entities=EntityIndex(entries),
            version=row["version"],
        )
        if row["version"] is not None:  # unversioned (pre-2026 data): never cached
            self.contexts[conversation_id] = context
        return context

    def _plan_and_read(
        self,
        query: str,
        params: dict[str, Any],
        cfg: EngineConfig,
        context: ConversationContext,
        as_of: datetime | None,
    ) -> tuple[QueryPlan, list[str], gen.LinkedPools]:
        """Plan ``query`` against ``context`` and run the plan's one `linked_read` round trip."""
        qplan = self.planner.plan(
            query,
            entities=context.entities,
            reference=as_of or context.latest,
            speakers=context.speakers,
        )
        # the plan is what runs: a generator switched off has budget 0 (shown by --explain)
        qplan = qplan.model_copy(
            update={
                "budgets": {
                    name: (budget if name in cfg.generators else 0)
                    for name, budget in qplan.budgets.items()
                }
            }
        )
        current_ids = [e.id for e in qplan.entities] if qplan.state is not None else []
        pools = gen.linked_read(
            self.store,
            params,
            qplan,
            cfg,
            speakers=context.speakers,
            current_entity_ids=current_ids,
            as_of=as_of,
        )
        return qplan, current_ids, pools

    @staticmethod
    def _resolve_state(
        qplan: QueryPlan, pool: list[Candidate], pools: gen.LinkedPools
    ) -> tuple[list[Candidate], list[dict[str, Any]]]:
        """Current or past value per supersession key about the plan's entities
        (`resolve_state`) over the keyed facts `linked_read` returned (already restricted to
        what was visible at ``as_of``); the chosen values' turns join the pool if they are not
        in it yet."""
        rows = relevant_rows(qplan.question, pools.keyed)
        if not rows:
            return pool, []
        by_id = {c.turn_id: c for c in pool}
        wanted = sorted({t for row in rows for t in row["cites"]} - set(by_id))
        joined = [pools.keyed_turns[t] for t in wanted if t in pools.keyed_turns]
        pools.attach_fact_scores(joined)
        by_id.update({c.turn_id: c for c in joined})
        decisions = resolve_state(
            rows,
            by_id,
            mode=qplan.state or "current",
            window=qplan.time_range,
            anchor=qplan.anchor if qplan.relation == "before" else None,
        )
        return list(by_id.values()), decisions

    def answerability(
        self,
        conversation_id: str,
        qplan: QueryPlan,
        context: ConversationContext,
        as_of: datetime | None = None,
        hits: Sequence[Hit] = (),
    ) -> dict[str, Any]:
        """Whether memory supports ``qplan``'s question for the persons it names
        (`kgmem.retrieve.answerable.judge`, then `decide` with the speaker gap of ``hits``,
        the whole ranked pool; one round trip, cached per conversation when ``as_of`` is None).

        Returns:
            ``{"answerable", "unsupported", "terms", "persons", "reason", "best_own",
            "best_other", "asked", "in_memory", "fact_rule", "speaker_gap"}`` (the last six:
            the rules' features, for calibration; `kgmem.retrieve.answerable.unanswerable`).
        """
        persons = [(e.id, e.surface) for e in qplan.entities if e.type == "person"]
        support = context.support.get(as_of)
        if support is None and persons:
            rows = self.store.read(
                "read/person_support", conversation_id=conversation_id, as_of=as_of
            )
            support = Support.from_rows(rows)
            if as_of is None:  # cached until the conversation is written to
                context.support[as_of] = support
        decision = judge(qplan.question, persons, support or Support((), frozenset()))
        gap = speaker_gap(hits, qplan.speakers)
        answerable = not decide(not decision.answerable, gap)
        reason = decision.reason
        if answerable != decision.answerable:
            reason = (
                f"what others said matches the question better than what {qplan.speakers[0]} "
                f"said (speaker gap {gap:.2f})"
                if not answerable
                else f"{decision.reason}; but {qplan.speakers[0]}'s own turns match nearly as "
                f"well (speaker gap {gap:.2f})"
            )
        return {
            "answerable": answerable,
            "unsupported": list(decision.unsupported),
            "terms": list(decision.terms),
            "persons": list(decision.persons),
            "reason": reason,
            "best_own": decision.best_own,
            "best_other": decision.best_other,
            "asked": decision.asked,
            "in_memory": decision.in_memory,
            "fact_rule": not decision.answerable,
            "speaker_gap": gap,
        }

    def _chain(
        self,
        qplan: QueryPlan,
        pool: list[Candidate],
        params: dict[str, Any],
        cfg: EngineConfig,
    ) -> tuple[list[Candidate], ChainResult | None]:
        """Walk the plan's relation chain (`follow_chain`: the entity names once per
        conversation, then one round trip per hop level) and give every turn its facts cite
        the ``chain`` signal and a trace of its hop: hop i of n gets ``score · i / n`` (the
        path's score is ``1 / (1 + cost)``), so the last hop, whose object is the answer, ranks
        first. Cited turns not yet in the pool join it (one round trip, ``read/chain_turns``).
        Returns the pool unchanged and None when the walk finds no path."""
        cid = params["conversation_id"]
        source = self.chain_sources.get(cid)
        if source is None:
            source = self.chain_sources[cid] = StoreFactSource(self.store, cid)
        result = follow_chain(source, cid, qplan.question)
        if result.answer is None or not result.turn_ids:
            return pool, None
        by_id = {c.turn_id: c for c in pool}
        wanted = [t for t in result.turn_ids if t not in by_id]
        if wanted:
            rows = self.store.read(
                "read/chain_turns",
                conversation_id=cid,
                turn_ids=wanted,
                embedding=params["embedding"],
                sources=cfg.sources,
            )
            for row in rows:
                joined = gen.candidate(row, "chain")
                if row["fact_id"] is not None and row["fact_cosine"] is not None:
                    joined.fact_id, joined.fact_cosine = row["fact_id"], float(row["fact_cosine"])
                by_id[joined.turn_id] = joined
        subject = result.base
        for n, hop in enumerate(result.hops, start=1):
            for turn_id in hop.cites:
                c = by_id.get(turn_id)
                if c is None:  # a turn forgotten since the fact was written
                    continue
                c.generators.add("chain")
                share = result.score * n / len(result.hops)  # the answer's hop gets it all
                c.bonus["chain"] = max(c.bonus.get("chain", 0.0), share)
                c.trace.setdefault(
                    "chain",
                    {
                        "hop": n,
                        "subject": subject,
                        "relation": hop.relation,
                        "object": hop.object_name,
                        "fact_id": hop.fact_id,
                        "latest": hop.latest,
                    },
                )
            subject = hop.object_name
        return list(by_id.values()), result

    def embed(self, query: str) -> npt.NDArray[np.float32]:
        return self.embedder.encode_one(query)

    def query_text(
        self, query: str, conversation_id: str, config: EngineConfig | None = None
    ) -> str:
        """The text the engine embeds for ``query``: with ``strip_speakers`` (linked engine), the
        question without the names of the conversation's speakers it names, so the vector
        carries what is asked and the ``speaker`` generator and term carry who (every turn and
        fact about a speaker is close to her name; measured on the LoCoMo dev split);
        otherwise ``query`` itself. Reads the conversation context when not cached.

        Raises:
            ConversationNotFound: the conversation holds no turns (linked engine only).
        """
        cfg = config or self.config
        if cfg.engine != "linked" or not cfg.strip_speakers:
            return query
        cached = self.contexts.get(conversation_id)
        context = cached if cached is not None else self._context(conversation_id)
        return strip_names(query, named_speakers(query, context.speakers))

    def search(
        self,
        query: str,
        conversation_id: str,
        k: int = 10,
        *,
        embedding: npt.NDArray[np.float32] | None = None,
        config: EngineConfig | None = None,
        as_of: datetime | None = None,
    ) -> SearchResult:
        """Rank the conversation's turns for ``query``.

        Args:
            query: the question (any text; empty is allowed and matches weakly).
            conversation_id: the tenant to search; other conversations are never read.
            k: number of hits (1 or more).
            embedding: a precomputed query embedding ``(dim,)`` float32 (benchmarks reuse it);
                it should embed `query_text`, which is what the engine embeds itself.
            config: override the engine's configuration for this call (ablations).
            as_of: the moment the question is asked (timezone-aware; naive is read as UTC).
                Turns observed after it are invisible, relative dates in the question resolve
                against it, and "current" means current at that moment. None: now, i.e. every
                turn is visible and relative dates resolve against the conversation's latest
                turn (the memory's own "now"; the wall clock would put old conversations years
                away).

        Returns:
            a `SearchResult`; ``timings_ms`` separates query embedding from Neo4j time.

        Raises:
            ValueError: ``k`` < 1.
            MalformedInput: ``query`` is not valid Unicode (a lone UTF-16 surrogate).
            ConversationNotFound: the conversation holds no turns.
            StoreError: Neo4j failed (see `kgmem.errors`).
        """
        if k < 1:
            raise ValueError("k must be at least 1")
        # before anything reads the store: a bad query is the caller's error first
        check_unicode([query], file="query", cid=conversation_id)
        if as_of is not None and (as_of.tzinfo is None or as_of.utcoffset() is None):
            as_of = as_of.replace(tzinfo=UTC)
        cfg = config or self.config
        if cfg.bm25_content_words:
            gen.question_words("", stop_words=True)  # load the stop list once, outside the timing
        if embedding is None:
            _ = self.embedder.model  # load once, outside the timed query embedding
            text = self.query_text(query, conversation_id, cfg)  # context read, if any, first
        t0 = time.perf_counter()
        vector = embedding if embedding is not None else self.embed(text)
        t_embed = time.perf_counter()
        db0 = self.store.timing.ms
        params = {"conversation_id": conversation_id, "embedding": vector.tolist()}
        hops: list[dict[str, Any]] = []
        current: list[dict[str, Any]] = []
        answerability: dict[str, Any] = {}
        chain: ChainResult | None = None
        if cfg.engine == "cosine":
            qplan = plan(query)
            pool = gen.dense_turns(self.store, params, k)
            if not pool:
                raise ConversationNotFound(conversation_id)
            hits = score_candidates(pool, ScoreWeights(fact=0.0, adjacent=0.0, time=0.0))
            for hit in hits:
                hit.terms = {"cosine": hit.terms["cosine"]}
            n_candidates = len(pool)
        else:
            cached = self.contexts.get(conversation_id)
            context = cached if cached is not None else self._context(conversation_id)
            qplan, current_ids, pools = self._plan_and_read(query, params, cfg, context, as_of)
            if cached is not None and pools.context_version != cached.version:
                # another writer changed the conversation since the context was cached: the
                # plan may miss its new entities, so re-read the context and run again
                self.contexts.pop(conversation_id, None)
                context = self._context(conversation_id)
                qplan, current_ids, pools = self._plan_and_read(query, params, cfg, context, as_of)
            merged = merge_candidates([*pools.seeds.values(), pools.expanded])
            if cfg.weights.fact != 0:
                pools.attach_fact_scores(merged)
            if "hop" in cfg.generators and qplan.budgets.get("hop", 0) > 0:
                extra, hops = gen.stateful_hop(
                    self.store, params, qplan, merged, cfg, speakers=context.speakers
                )
                if extra:
                    merged = merge_candidates([merged, extra])
                    gen.citing_facts(self.store, params, extra, cfg)
            if qplan.speakers:  # who said it: turns of a speaker the question names
                for c in merged:
                    if c.speaker in qplan.speakers:
                        c.bonus["speaker"] = 1.0
            if as_of is not None:  # the hop's extra turns too (linked_read filters its own)
                merged = [c for c in merged if _aware(c.observed_at) <= as_of]
            if current_ids:
                merged, current = self._resolve_state(qplan, merged, pools)
            if qplan.has("chain") and as_of is None:
                merged, chain = self._chain(qplan, merged, params, cfg)
            elif qplan.has("chain"):  # the walk reads current values, not values as of a moment
                qplan = qplan.model_copy(
                    update={
                        "operators": tuple(o for o in qplan.operators if o != "chain"),
                        "cues": (*qplan.cues, "chain:off (as_of)"),
                    }
                )
            day = qplan.time_range
            window = TimeWindow(
                year=qplan.named_year,
                month=qplan.named_month,
                day=(day.start, day.end)
                if day is not None and day.granularity in ("day", "weekend")
                else None,
            )
            hits = order_hits(score_candidates(merged, cfg.weights, window), current)
            n_candidates = len(merged)
            answerability = self.answerability(conversation_id, qplan, context, as_of, hits)
        t_end = time.perf_counter()
        return SearchResult(
            query=query,
            conversation_id=conversation_id,
            k=k,
            engine=cfg.engine,
            hits=hits[:k],
            plan=qplan.model_dump(mode="json"),
            candidates=n_candidates,
            timings_ms={
                "embed": round((t_embed - t0) * 1000, 3),
                "neo4j": round(self.store.timing.ms - db0, 3),
                "total": round((t_end - t0) * 1000, 3),
                "read_path": round((t_end - t_embed) * 1000, 3),
            },
            hops=hops,
            current=[
                {k: v for k, v in d.items() if k not in ("winner_turns", "other_turns")}
                | {"turns": d["winner_turns"]}
                for d in current
            ],
            as_of=as_of,
            answerable=answerability.get("answerable", True),
            unsupported=answerability.get("unsupported", []),
            answerability=answerability,
            chain=chain.as_dict() if chain is not None else None,
        )


def speaker_gap(hits: Sequence[Hit], speakers: Sequence[str]) -> float | None:
    """The best score of a hit said by anyone but the one speaker the question names minus
    the best score (without its ``speaker`` term) of a hit said by that speaker; None unless
    exactly one speaker is named and both sides have a hit (`kgmem.retrieve.answerable.decide`).
    Scores are the scorer's sums (unbounded; typically within [-1, 3])."""
    if len(speakers) != 1:
        return None
    own = [h.score - h.terms.get("speaker", 0.0) for h in hits if h.speaker == speakers[0]]
    other = [h.score for h in hits if h.speaker != speakers[0]]
    if not own or not other:
        return None
    return round(max(other) - max(own), 6)


def strip_names(question: str, names: Sequence[str]) -> str:
    """``question`` without the words of ``names`` (and a possessive "'s" after them); the
    question itself when nothing else would be left."""
    out = question
    for name in names:
        for word in re.findall(r"[^\W_]+", name):
            out = re.sub(rf"\b{re.escape(word)}(?:['\u2019]s)?\b", " ", out, flags=re.IGNORECASE)
    out = " ".join(out.split())
    return out if re.search(r"[^\W_]", out) else question


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
