"""Per-question rows of the LoCoMo benchmark (kgmem.bench.per_question): every aggregate
computed from the rows equals the aggregate of the hits themselves."""

from __future__ import annotations

import random
from typing import Any

from kgmem.bench.metrics import QuestionScore, summarize
from kgmem.bench.per_question import (
    answer_summary,
    context_curve,
    gold_ranks,
    grades,
    paired_test,
    scores_of,
    summary_of,
)

KS = (1, 5, 10, 20)


def _row(score: QuestionScore, support_rank: int | None = None) -> dict[str, Any]:
    return {
        "id": score.question_id,
        "category": score.category,
        "gold_ranks": gold_ranks(score.ranked, score.gold),
        "hits": len(score.ranked),
        "in_pool": bool(score.gold) and set(score.gold) <= score.pool,
        "supported_rank": support_rank,
        "candidates": score.candidates,
        "latency_ms": {"read_path": score.latency_ms, "neo4j": score.latency_ms / 2},
        "scores": {},
        "context": {},
    }


def _random_scores(seed: int) -> list[QuestionScore]:
    rng = random.Random(seed)
    out = []
    for n in range(120):
        turns = [f"c:D1:{i}" for i in range(60)]
        ranked = tuple(rng.sample(turns, rng.randint(0, 20)))
        gold = tuple(rng.sample(turns, rng.randint(0, 4)))
        pool = frozenset(ranked) | frozenset(rng.sample(turns, 20))
        out.append(
            QuestionScore(
                question_id=f"c:qa{n}",
                category=rng.randint(1, 4),
                ranked=ranked,
                gold=gold,
                candidates=len(pool),
                latency_ms=rng.uniform(1, 50),
                pool=pool,
            )
        )
    return out


def test_gold_ranks_are_first_occurrences_and_none_when_missing() -> None:
    assert gold_ranks(("a", "b", "a", "c"), ("c", "a", "x", "a")) == [4, 1, None]


def test_aggregates_from_rows_equal_the_aggregates_of_the_hits() -> None:
    for seed in range(3):
        scores = _random_scores(seed)
        rows = [_row(s) for s in scores]
        expected = {k: v.to_dict() for k, v in summarize(scores, KS).items()}
        rebuilt = {k: v.to_dict() for k, v in summarize(scores_of(rows), KS).items()}
        assert rebuilt == expected
        summary = summary_of(rows, KS)
        for key, value in expected.items():
            assert {k: v for k, v in summary[key].items() if k != "ci"} == value


def test_intervals_bracket_each_headline_mean() -> None:
    rows = [_row(s) for s in _random_scores(7)]
    summary = summary_of(rows, KS)
    for key in ("all", "1", "4"):
        for metric in ("all_at", "ndcg_at"):
            for k in ("5", "10"):
                low, high = summary[key]["ci"][metric][k]
                assert low <= summary[key][metric][k] <= high


def test_corrected_gold_replaces_the_gold_of_audited_rows_only() -> None:
    hit = QuestionScore("c:qa0", 4, ("c:D1:1", "c:D1:2"), ("c:D1:9",), pool=frozenset())
    row = _row(hit) | {
        "corrected": {"gold_ranks": gold_ranks(hit.ranked, ("c:D1:2",)), "in_pool": True}
    }
    other = _row(QuestionScore("c:qa1", 4, ("c:D1:1",), ("c:D1:1",), pool=frozenset({"c:D1:1"})))
    raw = summary_of([row, other], (1, 2))["all"]
    fixed = summary_of([row, other], (1, 2), corrected=True)["all"]
    assert raw["all_at"] == {"1": 0.5, "2": 0.5}
    assert fixed["all_at"] == {"1": 0.5, "2": 1.0}
    assert fixed["pool_all"] == 1.0


def test_grades_read_the_gold_and_support_ranks() -> None:
    rows = [
        _row(QuestionScore("c:qa0", 4, ("a", "b"), ("b",)), support_rank=1),
        _row(QuestionScore("c:qa1", 4, ("a", "b"), ("z",)), support_rank=None),
        _row(QuestionScore("c:qa2", 4, ("a",), ())),  # no gold: not graded
    ]
    assert grades(rows, (1, 2)) == {
        "exact_at": {"1": 0.0, "2": 0.5},
        "supported_at": {"1": 0.5, "2": 0.5},
    }


def test_answer_summary_leaves_out_audited_rows_without_a_plain_answer() -> None:
    rows = [
        {"category": 4, "scores": {"extractive": {"f1": 1.0, "em": 1.0}}},
        {
            "category": 4,
            "scores": {"extractive": {"f1": 0.0, "em": 0.0}},
            "corrected": {"scores": {"extractive": {"f1": 0.5, "em": 0.0}}},
        },
        {"category": 1, "scores": {"extractive": {"f1": 0.0, "em": 0.0}}, "corrected": {}},
    ]
    raw = answer_summary(rows, "extractive")
    assert (raw["all"]["n"], raw["all"]["f1"]) == (3, 1 / 3)
    fixed = answer_summary(rows, "extractive", corrected=True)
    assert (fixed["all"]["n"], fixed["all"]["f1"]) == (2, 0.75)
    assert "1" not in fixed
    assert answer_summary(rows, "answer") == {}  # no row has an answer value


def test_context_curve_and_paired_test() -> None:
    def ctx(tokens: int, holds: bool) -> dict[str, Any]:
        return {"tokens": tokens, "words": tokens // 2, "contains_answer": holds}

    rows = [
        {"id": "q0", "gold_ranks": [1], "context": {"1": ctx(10, True), "2": ctx(30, True)}},
        {"id": "q1", "gold_ranks": [2], "context": {"1": ctx(20, False), "2": ctx(50, True)}},
        {"id": "q2", "gold_ranks": [], "context": {"1": ctx(99, False), "2": ctx(99, False)}},
    ]
    curve = context_curve(rows, (1, 2))
    assert curve[0] == {"k": 1, "tokens": 15, "words": 7.5, "all_at": 0.5, "contains_answer": 0.5}
    assert curve[1]["all_at"] == 1.0 and curve[1]["tokens"] == 40
    worse = [{"id": "q0", "gold_ranks": [None]}, {"id": "q1", "gold_ranks": [None]}]
    test = paired_test(worse, rows, 2)
    assert (test["k"], test["row_only"], test["reference_only"]) == (2, 0, 2)
    assert not test["beyond_noise"]  # two questions cannot be told from noise
