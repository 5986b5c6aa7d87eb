"""Reciprocal-rank fusion of the benchmark's negative row (`kgmem.bench.fusion`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.bench.fusion import RRF_K, fuse
from kgmem.retrieve.score import Candidate

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def cand(
    tid: str,
    index: int,
    *,
    cosine: float = 0.0,
    fact: float | None = None,
    bm25: float | None = None,
    generator: str = "dense_turns",
) -> Candidate:
    c = Candidate(
        turn_id=tid,
        text=tid,
        speaker="A",
        session=1,
        index=index,
        observed_at=T0,
        cosine=cosine,
        generators={generator},
    )
    c.fact_cosine = fact
    if bm25 is not None:
        c.bonus["bm25"] = bm25
    return c


def test_each_list_is_ranked_by_its_own_score_and_ranks_add_up() -> None:
    lists = {
        "dense_turns": [cand("a", 0, cosine=0.2), cand("b", 1, cosine=0.9)],
        "dense_facts": [
            cand("b", 1, fact=0.5, generator="dense_facts"),
            cand("a", 0, fact=0.8, generator="dense_facts"),
            cand("a", 0, fact=0.1, generator="dense_facts"),  # a turn counts once per list
        ],
        "fulltext": [cand("c", 2, bm25=1.0, generator="fulltext")],
    }
    hits = fuse(lists)
    scores = {h.turn_id: h.score for h in hits}
    assert scores["a"] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1), abs=1e-6)
    assert scores["b"] == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 2), abs=1e-6)
    assert scores["c"] == pytest.approx(1 / (RRF_K + 1), abs=1e-6)
    assert [h.turn_id for h in hits] == ["a", "b", "c"]  # a tie breaks by turn index
    assert set(hits[0].terms) == {"rrf"}


def test_no_lists_no_hits() -> None:
    assert fuse({}) == []
