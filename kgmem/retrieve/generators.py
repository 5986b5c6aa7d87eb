"""Candidate generators: each is a small, named pool of turns with the reason it was added.

A turn enters the pool because its text matched, a fact citing it matched, or a confident typed
link from resolved evidence points to it — never because some list ranked it 47th. Every
generator is one Cypher round trip (statements in ``cypher/read/``) with its cap as a parameter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kgmem.retrieve.plan import QueryPlan
from kgmem.retrieve.score import Candidate
from kgmem.store import Store

if TYPE_CHECKING:
    from kgmem.retrieve.engine import EngineConfig

__all__ = [
    "attach_fact_scores",
    "candidate",
    "dense_turns",
    "expand",
    "lucene_query",
    "seed_pool",
    "stateful_hop",
]

Params = dict[str, Any]


def candidate(row: dict[str, Any], generator: str) -> Candidate:
    return Candidate(
        turn_id=row["turn_id"],
        text=row["text"],
        speaker=row["speaker"],
        session=int(row["session"]),
        index=int(row["index"]),
        observed_at=row["observed_at"],
        cosine=float(row["cosine"]),
        generators={generator},
    )


def dense_turns(store: Store, params: Params, k: int) -> list[Candidate]:
    """Exact top-``k`` turns of the conversation by cosine (``read/search_turns_exact``)."""
    rows = store.read("read/search_turns_exact", k=k, **params)
    return [candidate(row, "dense_turns") for row in rows]


def _event_start(row: dict[str, Any]) -> datetime | None:
    value = row.get("event_time")
    return value if isinstance(value, datetime) else None


_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_query(text: str, max_terms: int = 32) -> str | None:
    """``text`` as a Lucene OR-query of its words, every special character escaped.

    Returns None when nothing searchable is left (the generator is then skipped)."""
    words = [w.lower() for w in re.findall(r"\w+", text) if len(w) > 1][:max_terms]
    if not words:
        return None
    return " ".join(_LUCENE_SPECIAL.sub(r"\\\1", w) for w in words)


_SCAN = 1000
"""How deep the global fulltext indexes are read before filtering by tenant."""


def seed_pool(
    store: Store,
    params: Params,
    qplan: QueryPlan,
    cfg: EngineConfig,
    *,
    speakers: Sequence[str] = (),
    depth: int | None = None,
) -> dict[str, list[Candidate]]:
    """Every enabled seed generator in ONE round trip (``read/seed_pool``).

    Args:
        params: ``conversation_id`` and ``embedding`` (the question's, ``(dim,)`` as a list).
        qplan: the plan (question text for BM25, resolved entities, time window).
        cfg: generators switched on and their pool sizes.
        speakers: the conversation's speakers; they are never entity seeds (they link
            everything).
        depth: if given, every enabled generator returns this many (whole lists, for RRF).

    Returns:
        generator name → its candidates, each with the signal it carries in ``bonus``
        (``bm25`` normalised by the best BM25 score of the query, ``entity`` = 1).
    """

    def k(name: str) -> int:
        if name not in cfg.generators:
            return 0
        return depth if depth is not None else cfg.pools.get(name, 0)

    spoken = {s.casefold() for s in speakers}
    entity_ids = [
        e.id for e in qplan.entities if e.surface.casefold() not in spoken and e.type != "date"
    ]
    window = qplan.time_range if "window" in cfg.generators else None
    ft_query = lucene_query(qplan.question) if k("fulltext") else None
    rows = store.read(
        "read/seed_pool",
        k_turns=k("dense_turns"),
        k_facts=k("dense_facts"),
        sources=cfg.sources,
        ft_query=ft_query,
        k_fulltext=k("fulltext") if ft_query else 0,
        scan=_SCAN,
        entity_ids=entity_ids,
        k_entity=k("entity") if entity_ids else 0,
        min_confidence=cfg.link_confidence,
        start=window.start if window else None,
        end=window.end if window else None,
        k_window=k("window") if window else 0,
        **params,
    )
    best_bm25 = max([float(r["bm25"]) for r in rows if r["bm25"] is not None] or [1.0]) or 1.0
    pools: dict[str, list[Candidate]] = {}
    for row in rows:
        c = candidate(row, row["generator"])
        if row["fact_id"] is not None:
            c.fact_id = row["fact_id"]
            c.fact_cosine = float(row["fact_cosine"])
            c.event_time = _event_start(row)
        if row["bm25"] is not None:
            c.bonus["bm25"] = float(row["bm25"]) / best_bm25
            c.trace["bm25"] = round(float(row["bm25"]), 4)
        if row["via"] is not None:
            c.bonus["entity"] = 1.0
            c.trace["via_entities"] = row["via"]
        pools.setdefault(row["generator"], []).append(c)
    return pools


def expand(
    store: Store, params: Params, pool: Sequence[Candidate], cfg: EngineConfig
) -> list[Candidate]:
    """Bounded, typed expansion from the resolved evidence in one round trip
    (``read/expand_pool``): ≤ cap turns through events (``MEMBER_OF``) of the best 10 seed
    facts, ≤ cap along ``NEXT`` from the top-3 seed turns; never a turn already in the pool."""
    ranked = sorted(pool, key=lambda c: -(c.cosine + (c.fact_cosine or 0.0) * cfg.weights.fact))
    k_events = cfg.pools.get("events", 0) if "events" in cfg.generators else 0
    k_timeline = cfg.pools.get("timeline", 0) if "timeline" in cfg.generators else 0
    fact_ids = [c.fact_id for c in ranked if c.fact_id][:10]
    turn_ids = [c.turn_id for c in ranked[:3]]
    if not ((k_events and fact_ids) or (k_timeline and turn_ids)):
        return []
    rows = store.read(
        "read/expand_pool",
        fact_ids=fact_ids,
        turn_ids=turn_ids,
        exclude=[c.turn_id for c in pool],
        embedding=params["embedding"],
        k_events=k_events,
        k_timeline=k_timeline,
        min_confidence=cfg.link_confidence,
    )
    out: list[Candidate] = []
    for row in rows:
        c = candidate(row, row["generator"])
        if row["event_id"] is not None:
            c.bonus["event"] = 1.0
            c.trace["event_id"] = row["event_id"]
        out.append(c)
    return out


def attach_fact_scores(
    store: Store, params: Params, pool: Sequence[Candidate], cfg: EngineConfig
) -> None:
    """Give every candidate its best citing fact (max cos(fact, q)) in one round trip."""
    if cfg.weights.fact == 0 or not pool:
        return
    rows = store.read(
        "read/citing_facts",
        turn_ids=[c.turn_id for c in pool],
        embedding=params["embedding"],
        sources=cfg.sources,
    )
    best = {row["turn_id"]: row for row in rows}
    for c in pool:
        row = best.get(c.turn_id)
        if row is None or row["fact_cosine"] is None:
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
            k=cfg.pools["hop"],
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
