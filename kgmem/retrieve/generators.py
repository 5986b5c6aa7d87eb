"""Candidate generators: each is a small, named pool of turns with the reason it was added.

A turn enters the pool because its text matched, a fact citing it matched, or a confident typed
link from resolved evidence points to it — never because some list ranked it 47th. All seed
generators, the bounded expansion, the citing facts and the current-value input run in ONE
Cypher round trip (``cypher/read/linked_read``), each with its cap (the plan's budget) as a
parameter; only the stateful hop (off by default) adds a round trip per hop.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.plan import QueryPlan
from kgmem.retrieve.scope import EARLIEST, LATEST, Bounds, SearchFilters
from kgmem.retrieve.score import Candidate, merge_candidates
from kgmem.store import Store
from kgmem.store.tenant import owner_token, scope_query, tenant_token
from kgmem.turns import conversation_of

__all__ = [
    "LINKED_READ_SCALARS",
    "LinkedPools",
    "ReadScope",
    "candidate",
    "citing_facts",
    "dense_turns",
    "empty_scope",
    "linked_read",
    "linked_read_parameters",
    "pool_of",
    "stateful_hop",
]

Params = dict[str, Any]


@dataclass(frozen=True)
class ReadScope:
    """The scope and filter parameters of ``read/linked_read`` (`kgmem.retrieve.scope`).

    Attributes:
        owner: the scope's owner ('' for a conversation without one).
        conversation_ids: the conversations searched (one, or all of the owner's).
        by_owner: an owner-wide search (BM25 then filters by the owner's token).
        bounds: the always-present filter values.
        filtered: a caller's filter is set (BM25 asks Lucene for more hits).
    """

    owner: str
    conversation_ids: tuple[str, ...]
    by_owner: bool
    bounds: Bounds
    filtered: bool = False

    def params(self) -> Params:
        return {
            "owner": self.owner,
            "conversation_ids": list(self.conversation_ids),
            "owner_scope": self.by_owner,
            **self.bounds.params(),
        }

    def lucene(self, words: list[str]) -> str | None:
        """The BM25 query of ``words`` inside this scope (`kgmem.store.tenant`); None when the
        scope holds no conversation (a ``conversations`` filter that matched none)."""
        if not self.conversation_ids:
            return None
        token = owner_token(self.owner) if self.by_owner else tenant_token(self.conversation_ids[0])
        return scope_query(token, words)


def conversation_scope(store: Store, conversation_id: str, as_of: datetime | None) -> ReadScope:
    """The unfiltered `ReadScope` of one conversation (reads its context: one round trip)."""
    from kgmem.retrieve.context import read_context

    context = read_context(store, conversation_id, {})
    return ReadScope(
        owner=context.owner,
        conversation_ids=(conversation_id,),
        by_owner=False,
        bounds=Bounds.of(
            SearchFilters(), speakers=context.speakers, sessions=context.sessions, as_of=as_of
        ),
    )


def candidate(row: dict[str, Any], generator: str) -> Candidate:
    """The `Candidate` of a turn row (``turn_id, text, speaker, session, index, observed_at,
    cosine``, optionally ``conversation_id`` and ``source``)."""
    return Candidate(
        turn_id=row["turn_id"],
        conversation_id=row.get("conversation_id") or conversation_of(row["turn_id"]),
        source=row.get("source"),
        text=row["text"],
        speaker=row["speaker"],
        session=int(row["session"]),
        index=int(row["index"]),
        observed_at=row["observed_at"],
        cosine=float(row["cosine"]),
        generators={generator},
    )


def with_passage(c: Candidate, best: dict[str, dict[str, Any]], cfg: EngineConfig) -> None:
    """A long turn's dense score (`kgmem.ingest.extraction.passages`): its head's cosine ``h``
    (the turn's own vector) plus ``cfg.passage_gain`` of its best passage's gain over the head,
    less ``cfg.passage_draws * sqrt(ln(1 + n))`` for its ``n`` passages (the best of n noisy
    draws is high by chance; `kgmem.config.Settings.passage_draws`). ``c`` also takes the best
    passage's offsets (``n, start, end, cosine``). A turn without passages is left as it is.
    Cosines in [-1, 1]."""
    row = best.get(c.turn_id)
    if row is None:
        return
    cosine = float(row["cosine"])
    c.passage = {
        "n": int(row["n"]),
        "start": int(row["start"]),
        "end": int(row["end"]),
        "cosine": round(cosine, 6),
    }
    head = float(row["head"]) if row.get("head") is not None else c.cosine
    gain = max(0.0, cosine - head)
    draws = math.sqrt(math.log1p(int(row.get("count") or 1)))
    c.cosine = head + cfg.passage_gain * gain - cfg.passage_draws * draws


def dense_turns(store: Store, params: Params, k: int) -> list[Candidate]:
    """Exact top-``k`` turns of the conversation by cosine (``read/search_turns_exact``)."""
    rows = store.read("read/search_turns_exact", k=k, **params)
    return [candidate(row, "dense_turns") for row in rows]


def _event_start(row: dict[str, Any]) -> datetime | None:
    value = row.get("event_time")
    return value if isinstance(value, datetime) else None


@dataclass
class LinkedPools:
    """What one `linked_read` round trip returns, as candidates.

    Attributes:
        seeds: generator name → its candidates, each with the signal it carries in ``bonus``
            (``bm25`` normalised by the best BM25 score of the query, ``entity`` = 1).
        expanded: turns reached by bounded expansion (``events``), never seeds.
        keyed: current/past-value input rows (``fact_id, key, serial, valid_from, text,
            object, modality, cites``).
        keyed_turns: turn id → candidate for every turn a keyed fact cites, with its best
            citing fact (`LinkedPools.attach_fact_scores`).
        citing: turn id → its best citing fact (``fact_id, fact_cosine, event_time, ...``).
        context_version: the conversation's write version when the read ran (None for data
            written before versions existed); the engine re-plans when it differs from the
            version of the planner context it used.
        holder: the facts nearest the question with who holds each (``fact_id,
            conversation_id, subject, speaker, cosine``, best first; the input of
            `kgmem.retrieve.answerable.holder_gap`); empty unless the read asked for them
            (``holder_k`` > 0).
    """

    seeds: dict[str, list[Candidate]] = field(default_factory=dict)
    expanded: list[Candidate] = field(default_factory=list)
    keyed: list[dict[str, Any]] = field(default_factory=list)
    keyed_turns: dict[str, Candidate] = field(default_factory=dict)
    citing: dict[str, dict[str, Any]] = field(default_factory=dict)
    context_version: str | None = None
    holder: list[dict[str, Any]] = field(default_factory=list)

    def attach_fact_scores(self, pool: Sequence[Candidate]) -> None:
        """Give every candidate its best citing fact (max cos(fact, q)) and its event time."""
        for c in pool:
            row = self.citing.get(c.turn_id)
            if row is None or row.get("fact_cosine") is None:
                continue
            if c.fact_cosine is None or row["fact_cosine"] > c.fact_cosine:
                c.fact_cosine = float(row["fact_cosine"])
                c.fact_id = row["fact_id"]
            if row.get("event_time") is not None:
                c.event_time = row["event_time"]
                c.trace.setdefault(
                    "event_time",
                    {
                        "start": row["event_time"].isoformat(),
                        "end": row["event_end"].isoformat() if row.get("event_end") else None,
                        "granularity": row.get("event_granularity"),
                        "phrase": row.get("event_phrase"),
                    },
                )


_DATETIME_FIELDS = {
    "seeds": ("observed_at", "event_time"),
    "expanded": ("observed_at",),
    "citing": ("event_time", "event_end"),
    "keyed": ("valid_from",),
    "turns": ("observed_at",),
}


def _parse_datetimes(row: dict[str, Any]) -> None:
    """Turn the ISO 8601 strings ``read/linked_read`` returns for datetimes back into aware
    datetimes, in place (the statement returns strings because the driver's DateTime
    hydration cost more than the rest of the client side; stored values are UTC)."""
    for part, fields in _DATETIME_FIELDS.items():
        for item in row[part]:
            for name in fields:
                value = item.get(name)
                if isinstance(value, str):
                    # a value stored with a zone id prints as '...Z[UTC]': the offset is kept
                    item[name] = datetime.fromisoformat(value.partition("[")[0])


def linked_read(
    store: Store,
    params: Params,
    qplan: QueryPlan,
    cfg: EngineConfig,
    *,
    scope: ReadScope,
    speakers: Sequence[str] = (),
    current_entity_ids: Sequence[str] = (),
    as_of: datetime | None = None,
    depth: int | None = None,
    holder_k: int = 0,
    holder_conversation_ids: Sequence[str] | None = None,
) -> LinkedPools:
    """Seeds, bounded expansion, citing facts and current-value input in ONE round trip
    (``read/linked_read`` with `linked_read_parameters`), every index scoped to the conversation
    inside the index.

    Args:
        store: where to read.
        scope: the conversations searched and the filters, applied inside the vector index
            (one conversation unfiltered: `conversation_scope`, one more round trip).
        params, qplan, cfg, speakers, current_entity_ids, as_of, depth, holder_k,
            holder_conversation_ids: as for `linked_read_parameters`.

    Returns:
        a `LinkedPools`.
    """
    bound = linked_read_parameters(
        params,
        qplan,
        cfg,
        scope=scope,
        speakers=speakers,
        current_entity_ids=current_entity_ids,
        as_of=as_of,
        depth=depth,
        holder_k=holder_k,
        holder_conversation_ids=holder_conversation_ids,
    )
    return _pools(store.read("read/linked_read", **bound)[0], cfg)


#: the parameters of ``read/linked_read`` passed on their own: integers, floats and the
#: embedding, whose plan-cache key never varies; every other value travels inside ``q``
LINKED_READ_SCALARS = frozenset(
    {
        "embedding",
        "k_turns",
        "k_facts",
        "k_fulltext",
        "ft_limit",
        "k_speaker",
        "k_entity",
        "k_window",
        "k_events",
        "min_confidence",
        "w_fact",
        "k_holder",
    }
)


def linked_read_parameters(
    params: Params,
    qplan: QueryPlan,
    cfg: EngineConfig,
    *,
    scope: ReadScope,
    speakers: Sequence[str] = (),
    current_entity_ids: Sequence[str] = (),
    as_of: datetime | None = None,
    depth: int | None = None,
    holder_k: int = 0,
    holder_conversation_ids: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The parameters of ``read/linked_read`` for one question (pure: no round trip).

    Every value whose type or size varies between questions (the scope and filters, the BM25
    query, the id lists, the window and ``as_of``, which may be None) travels inside ONE map,
    ``q``; the others (`LINKED_READ_SCALARS`) are integers, floats and the embedding. Neo4j
    keys its plan cache on each parameter's type and a string's or list's size bucket; a map
    has one type whatever it holds, so every question of one embedding size shares one plan
    (as separate parameters: about a dozen plans after each server start, 0.3-0.6 s each).

    Args:
        params: ``conversation_id`` and ``embedding`` (the question's, ``(dim,)`` as a list).
        qplan: the plan: its ``budgets`` are the pool sizes, its entities and time window
            feed the entity and window generators.
        cfg: which generators are switched on (a generator off has budget 0) and the weights.
        scope: the conversations searched and the filters (`ReadScope`).
        speakers: the conversation's speakers (never entity seeds: `_entity_seeds`).
        current_entity_ids: entities whose keyed facts current-value resolution needs (empty
            when the plan has no ``current_value`` operator).
        as_of: turns observed after this moment (timezone-aware) are invisible; None = all.
        depth: if given, every enabled seed generator returns this many (whole lists, for the
            reciprocal-rank-fusion row of the benchmark).
        holder_k: how many of the facts nearest the question to return with who holds each
            (`LinkedPools.holder`, for answerability's holder gap); 0 reads none.
        holder_conversation_ids: the threads those facts come from, whatever the filters
            (default: the scope's).

    Returns:
        ``{"q": {...}, "embedding": [...], "k_turns": int, ...}``.
    """

    def k(name: str) -> int:
        return _budget(name, qplan, cfg, depth)

    entity_ids = _entity_seeds(qplan, speakers)
    window = qplan.time_range if k("window") else None
    ft_query, k_fulltext, ft_limit = _fulltext(qplan, cfg, scope, k("fulltext"))
    allowed = set(scope.bounds.speakers)
    flat: dict[str, Any] = {
        "k_turns": k("dense_turns"),
        "k_facts": k("dense_facts"),
        "sources": cfg.sources,
        "ft_query": ft_query,
        "ft_fact_query": ft_query,
        "k_fulltext": k_fulltext,
        "ft_limit": max(ft_limit, 1),
        "named_speakers": [s for s in qplan.speakers if s in allowed],
        "k_speaker": k("speaker") if qplan.speakers else 0,
        "entity_ids": entity_ids,
        "k_entity": k("entity") if entity_ids else 0,
        "min_confidence": float(cfg.link_confidence),
        "start": window.start if window else None,
        "end": window.end if window else None,
        "k_window": k("window") if window else 0,
        "k_events": 0 if depth is not None else k("events"),
        "w_fact": float(cfg.weights.fact),
        "current_entity_ids": list(current_entity_ids),
        "as_of": as_of,
        "embedding": params["embedding"],
        "k_holder": holder_k,
        "holder_conversation_ids": list(
            scope.conversation_ids if holder_conversation_ids is None else holder_conversation_ids
        ),
        **scope.params(),
    }
    out: dict[str, Any] = {n: v for n, v in flat.items() if n in LINKED_READ_SCALARS}
    out["q"] = {n: v for n, v in flat.items() if n not in LINKED_READ_SCALARS}
    return out


def _budget(name: str, qplan: QueryPlan, cfg: EngineConfig, depth: int | None) -> int:
    """A generator's pool size: 0 when it is off, ``depth`` for whole lists, else the plan's
    budget (the configured pool by default)."""
    if name not in cfg.generators:
        return 0
    return depth if depth is not None else qplan.budgets.get(name, cfg.pools.get(name, 0))


def _entity_seeds(qplan: QueryPlan, speakers: Sequence[str]) -> list[str]:
    """The plan's entity ids that seed the entity generator: no speaker (they link
    everything) and no date."""
    spoken = {s.casefold() for s in speakers}
    return [e.id for e in qplan.entities if e.surface.casefold() not in spoken and e.type != "date"]


def _fulltext(
    qplan: QueryPlan, cfg: EngineConfig, scope: ReadScope, budget: int
) -> tuple[str | None, int, int]:
    """The BM25 query of the question's words in ``scope`` (`ReadScope.lucene`), the fulltext
    budget (0 without a query, or with ``budget`` 0) and the index limit (widened when filters
    drop hits after the index)."""
    reading = qplan.reading
    words = (
        list(reading.bm25_content_words if cfg.bm25_content_words else reading.bm25_words)
        if budget
        else []
    )
    ft_query = scope.lucene(words)
    k_fulltext = budget if ft_query else 0
    ft_limit = (
        min(cfg.fulltext_filtered_max, cfg.fulltext_filtered_factor * k_fulltext)
        if scope.filtered
        else k_fulltext
    )
    return ft_query, k_fulltext, ft_limit


def empty_scope(conversation_id: str) -> ReadScope:
    """A scope of one conversation that admits no turn (no speaker, session or kind): what the
    plan warm-up (`kgmem.retrieve.warm`) reads with, in the shape of a real question's."""
    return ReadScope(
        owner="",
        conversation_ids=(conversation_id,),
        by_owner=False,
        bounds=Bounds(speakers=(), sessions=(), kinds=(), start=EARLIEST, end=LATEST),
    )


def _pools(row: dict[str, Any], cfg: EngineConfig) -> LinkedPools:
    """The `LinkedPools` of one ``read/linked_read`` row: each seed with its signals (BM25
    normalised by the query's best BM25 score, entity links), the expansion with its event,
    the keyed facts and their turns, the citing facts and the context version."""
    _parse_datetimes(row)
    out = LinkedPools()
    seeds = row["seeds"]
    best_bm25 = max([float(r["bm25"]) for r in seeds if r["bm25"] is not None] or [1.0]) or 1.0
    for r in seeds:
        c = candidate(r, r["generator"])
        if r["fact_id"] is not None:
            c.fact_id = r["fact_id"]
            c.fact_cosine = float(r["fact_cosine"])
            c.event_time = _event_start(r)
        if r["bm25"] is not None:
            c.bonus["bm25"] = float(r["bm25"]) / best_bm25
            c.trace["bm25"] = round(float(r["bm25"]), 4)
        if r["via"] is not None:
            c.bonus["entity"] = 1.0
            c.trace["via_entities"] = r["via"]
        out.seeds.setdefault(r["generator"], []).append(c)
    for r in row["expanded"]:
        c = candidate(r, r["generator"])
        if r["event_id"] is not None:
            c.bonus["event"] = 1.0
            c.trace["event_id"] = r["event_id"]
        out.expanded.append(c)
    out.keyed = list(row["keyed"])
    out.keyed_turns = {r["turn_id"]: candidate(r, "current_value") for r in row["turns"]}
    out.citing = {r["turn_id"]: r for r in row["citing"]}
    best = {r["turn_id"]: r for r in row.get("passages") or ()}
    for c in [c for pool in out.seeds.values() for c in pool] + out.expanded:
        with_passage(c, best, cfg)
    for c in out.keyed_turns.values():
        with_passage(c, best, cfg)
    # a keyed fact's turn joins the pool only through current-value resolution, with its best
    # citing fact (`kgmem.retrieve.resolve.current_values`)
    out.attach_fact_scores(list(out.keyed_turns.values()))
    out.context_version = row["context_version"]
    out.holder = list(row["holder"])
    return out


def citing_facts(
    store: Store, params: Params, pool: Sequence[Candidate], cfg: EngineConfig
) -> None:
    """Best citing fact of each candidate in one extra round trip (``read/citing_facts``); only
    for turns that arrive after `linked_read`, i.e. through the stateful hop."""
    if cfg.weights.fact == 0 or not pool:
        return
    rows = store.read(
        "read/citing_facts",
        turn_ids=[c.turn_id for c in pool],
        embedding=params["embedding"],
        sources=cfg.sources,
    )
    LinkedPools(citing={row["turn_id"]: row for row in rows}).attach_fact_scores(pool)


def stateful_hop(
    store: Store,
    params: Params,
    qplan: QueryPlan,
    pool: Sequence[Candidate],
    cfg: EngineConfig,
    *,
    speakers: Sequence[str] = (),
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """Hop 2 from the nodes hop 1 resolved, as a structured query (no text re-embedded).

    Hop 1 = the best facts of the pool. The non-speaker entities they are ABOUT become hop 2's
    subject set; hop 2 fetches facts about those entities (inside the question's time window if
    it names one) and the turns they cite, capped at ``cfg.pools["hop"]``. At most
    ``cfg.max_hops - 1`` further hops; each rewritten query is returned for the trace.
    """
    hops: list[dict[str, Any]] = []
    found: list[Candidate] = []
    if cfg.max_hops < 2:
        return found, hops
    ranked = sorted((c for c in pool if c.fact_id), key=lambda c: -(c.fact_cosine or 0.0))
    fact_ids = [c.fact_id for c in ranked[:3] if c.fact_id]
    seen_entities: set[str] = set()
    exclude = [c.turn_id for c in pool]
    window = qplan.time_range
    for hop in range(2, cfg.max_hops + 1):
        if not fact_ids:
            break
        rows = store.read("read/facts_entities", fact_ids=fact_ids, speakers=list(speakers))
        entity_ids = sorted({r["entity_id"] for r in rows} - seen_entities)
        if not entity_ids:
            break
        seen_entities.update(entity_ids)
        query = {
            "hop": hop,
            "from_facts": fact_ids,
            "entity_ids": entity_ids,
            "entities": sorted({r["name"] for r in rows if r["entity_id"] in entity_ids}),
            "window": [window.start.isoformat(), window.end.isoformat()] if window else None,
        }
        hits = store.read(
            "read/hop_entity_facts",
            conversation_id=params["conversation_id"],
            entity_ids=entity_ids,
            relations=None,
            start=window.start if window else None,
            end=window.end if window else None,
            exclude=exclude,
            embedding=params["embedding"],
            k=qplan.budgets.get("hop", cfg.pools["hop"]),
            min_confidence=cfg.link_confidence,
        )
        query["turns"] = [r["turn_id"] for r in hits]
        hops.append(query)
        for row in hits:
            c = candidate(row, "hop")
            c.bonus["hop"] = 1.0
            c.trace["hop"] = {"n": hop, "entity_id": row["entity_id"], "fact_id": row["fact_id"]}
            found.append(c)
            exclude.append(c.turn_id)
        fact_ids = [r["fact_id"] for r in hits if r["fact_id"]][:3]
    return found, hops


def pool_of(
    store: Store,
    pools: LinkedPools,
    qplan: QueryPlan,
    cfg: EngineConfig,
    *,
    params: Params,
    speakers: Sequence[str],
    hop: bool,
    as_of: datetime | None,
    roles: Mapping[str, str] | None = None,
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """The pool of one `linked_read`: its seeds and expansion merged with their best citing
    facts, the stateful hop's turns (when ``hop``: one conversation, unfiltered; and the plan
    budgets it), the ``speaker`` signal on the turns of the speakers the question names, each
    turn's speaker role from ``roles`` (speaker -> role; the exchange term pairs them), and
    only turns visible at ``as_of``. Returns the pool and the hop's rewritten queries."""
    merged = merge_candidates([*pools.seeds.values(), pools.expanded])
    if cfg.weights.fact != 0:
        pools.attach_fact_scores(merged)
    hops: list[dict[str, Any]] = []
    if hop and "hop" in cfg.generators and qplan.budgets.get("hop", 0) > 0:
        extra, hops = stateful_hop(store, params, qplan, merged, cfg, speakers=speakers)
        if extra:
            merged = merge_candidates([merged, extra])
            citing_facts(store, params, extra, cfg)
    role_of = roles or {}
    for c in merged:  # a user's turn and the assistant's reply form an exchange
        c.role = role_of.get(c.speaker)
    if qplan.speakers:  # who said it: turns of a speaker the question names
        for c in merged:
            if c.speaker in qplan.speakers:
                c.bonus["speaker"] = 1.0
    if as_of is not None:  # the hop's extra turns too (linked_read filters its own)
        merged = [c for c in merged if _aware(c.observed_at) <= as_of]
    return merged, hops


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
