"""Candidate generators: each is a small, named pool of turns with the reason it was added.

A turn enters the pool because its text matched, a fact citing it matched, or a confident typed
link from resolved evidence points to it — never because some list ranked it 47th. Every
generator is one Cypher round trip (statements in ``cypher/read/``) with its cap as a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kgmem.retrieve.plan import QueryPlan
from kgmem.retrieve.score import Candidate
from kgmem.store import Store

if TYPE_CHECKING:
    from kgmem.retrieve.engine import EngineConfig

__all__ = ["attach_fact_scores", "dense_turns", "run_generators", "stateful_hop"]

Params = dict[str, Any]


def _candidate(row: dict[str, Any], generator: str) -> Candidate:
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
    return [_candidate(row, "dense_turns") for row in rows]


def dense_facts(store: Store, params: Params, k: int, sources: list[str] | None) -> list[Candidate]:
    """Top-``k`` facts by cosine; each brings the turns it cites (``read/seed_facts_dense``)."""
    rows = store.read("read/seed_facts_dense", k=k, sources=sources, **params)
    out: list[Candidate] = []
    for row in rows:
        c = _candidate(row, "dense_facts")
        c.fact_cosine = float(row["fact_cosine"])
        c.fact_id = row["fact_id"]
        c.event_time = _event_start(row)
        out.append(c)
    return out


def _event_start(row: dict[str, Any]) -> datetime | None:
    value = row.get("event_time")
    return value if isinstance(value, datetime) else None


def run_generators(
    store: Store, params: Params, qplan: QueryPlan, cfg: EngineConfig
) -> list[list[Candidate]]:
    """Run every enabled seed generator; one pool per generator."""
    pools: list[list[Candidate]] = []
    budgets = qplan.budgets or {}
    if "dense_turns" in cfg.generators:
        pools.append(dense_turns(store, params, cfg.pools["dense_turns"]))
    if "dense_facts" in cfg.generators:
        pools.append(dense_facts(store, params, cfg.pools["dense_facts"], cfg.sources))
    _ = budgets
    return pools


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
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """Hop 2 from resolved evidence (placeholder until the hop generator lands)."""
    return [], []
