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
    "candidate",
    "attach_fact_scores",
    "dense_facts",
    "dense_turns",
    "entity_turns",
    "expand",
    "fulltext",
    "lucene_query",
    "run_generators",
    "stateful_hop",
    "window_turns",
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


def dense_facts(store: Store, params: Params, k: int, sources: list[str] | None) -> list[Candidate]:
    """Top-``k`` facts by cosine; each brings the turns it cites (``read/seed_facts_dense``)."""
    rows = store.read("read/seed_facts_dense", k=k, sources=sources, **params)
    out: list[Candidate] = []
    for row in rows:
        c = candidate(row, "dense_facts")
        c.fact_cosine = float(row["fact_cosine"])
        c.fact_id = row["fact_id"]
        c.event_time = _event_start(row)
        out.append(c)
    return out


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


def fulltext(store: Store, params: Params, query: str, k: int, sources: list[str] | None) -> list[Candidate]:
    """BM25 over turn text and fact text (each fact brings its cited turns), tenant-scoped."""
    lucene = lucene_query(query)
    if lucene is None or k <= 0:
        return []
    out: list[Candidate] = []
    turn_rows = store.read("read/seed_turns_fulltext", query=lucene, k=k, scan=_SCAN, **params)
    fact_rows = store.read(
        "read/seed_facts_fulltext", query=lucene, k=k, scan=_SCAN, sources=sources, **params
    )
    best = max([float(r["bm25"]) for r in turn_rows + fact_rows] or [1.0]) or 1.0
    for row in turn_rows:
        c = candidate(row, "fulltext")
        c.bonus["bm25"] = float(row["bm25"]) / best
        c.trace["bm25"] = round(float(row["bm25"]), 4)
        out.append(c)
    for row in fact_rows:
        c = candidate(row, "fulltext")
        c.fact_cosine = float(row["fact_cosine"])
        c.fact_id = row["fact_id"]
        c.event_time = _event_start(row)
        c.bonus["bm25"] = float(row["bm25"]) / best
        out.append(c)
    return out


_SCAN = 1000


def entity_turns(
    store: Store, params: Params, entity_ids: list[str], k: int, min_confidence: float
) -> list[Candidate]:
    """Turns that mention, or are cited by facts about, the plan's resolved entities."""
    if not entity_ids or k <= 0:
        return []
    rows = store.read(
        "read/seed_entity_turns", entity_ids=entity_ids, k=k, min_confidence=min_confidence, **params
    )
    out = []
    for row in rows:
        c = candidate(row, "entity")
        c.bonus["entity"] = 1.0
        c.trace["via_entities"] = row["via"]
        out.append(c)
    return out


def window_turns(store: Store, params: Params, qplan: QueryPlan, k: int) -> list[Candidate]:
    """Turns said in, or dated by facts into, the time window the question names."""
    window = qplan.time_range
    if window is None or k <= 0:
        return []
    rows = store.read("read/seed_window_turns", start=window.start, end=window.end, k=k, **params)
    return [candidate(row, "window") for row in rows]


def run_generators(
    store: Store, params: Params, qplan: QueryPlan, cfg: EngineConfig, *, speakers: Sequence[str] = ()
) -> list[list[Candidate]]:
    """Run every enabled seed generator; one pool per generator (budgets from the plan)."""
    pools: list[list[Candidate]] = []
    budgets = qplan.budgets or {}

    def size(name: str) -> int:
        return min(cfg.pools.get(name, 0), budgets.get(name, cfg.pools.get(name, 0)))

    if "dense_turns" in cfg.generators:
        pools.append(dense_turns(store, params, cfg.pools["dense_turns"]))
    if "dense_facts" in cfg.generators:
        pools.append(dense_facts(store, params, cfg.pools["dense_facts"], cfg.sources))
    if "fulltext" in cfg.generators:
        pools.append(fulltext(store, params, qplan.question, cfg.pools["fulltext"], cfg.sources))
    if "entity" in cfg.generators:
        spoken = {s.casefold() for s in speakers}
        ids = [e.id for e in qplan.entities if e.surface.casefold() not in spoken and e.type != "date"]
        pools.append(entity_turns(store, params, ids, cfg.pools["entity"], cfg.link_confidence))
    if "window" in cfg.generators:
        pools.append(window_turns(store, params, qplan, cfg.pools["window"]))
    _ = size
    return pools


def expand(
    store: Store, params: Params, pool: Sequence[Candidate], cfg: EngineConfig
) -> list[Candidate]:
    """Bounded, typed expansion from the resolved evidence: ≤ cap turns through events
    (``MEMBER_OF``) of the seed facts, ≤ cap along ``NEXT`` from the top-3 seed turns."""
    out: list[Candidate] = []
    exclude = [c.turn_id for c in pool]
    ranked = sorted(pool, key=lambda c: -(c.cosine + (c.fact_cosine or 0.0) * cfg.weights.fact))
    if "events" in cfg.generators:
        fact_ids = [c.fact_id for c in ranked if c.fact_id][:10]
        if fact_ids:
            rows = store.read(
                "read/expand_events",
                fact_ids=fact_ids,
                exclude=exclude,
                embedding=params["embedding"],
                k=cfg.pools["events"],
                min_confidence=cfg.link_confidence,
            )
            for row in rows:
                c = candidate(row, "events")
                c.bonus["event"] = 1.0
                c.trace["event_id"] = row["event_id"]
                out.append(c)
    if "timeline" in cfg.generators:
        seeds = [c.turn_id for c in ranked[:3]]
        if seeds:
            rows = store.read(
                "read/expand_timeline",
                turn_ids=seeds,
                exclude=exclude + [c.turn_id for c in out],
                embedding=params["embedding"],
                k=cfg.pools["timeline"],
            )
            out.extend(candidate(row, "timeline") for row in rows)
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
    ranked = sorted(
        (c for c in pool if c.fact_id), key=lambda c: -(c.fact_cosine or 0.0)
    )
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
