"""Unit tests for kgmem.bench.metrics: hand-computed examples, evidence-id cleaning, edge cases."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgmem.bench.metrics import (
    QuestionScore,
    all_at_k,
    any_at_k,
    mrr,
    ndcg_at_k,
    normalize_answer,
    percentile,
    pool_all,
    recall_at_k,
    substring_exact_match,
    summarize,
)
from kgmem.ingest.loaders.locomo import normalize_evidence

VALID = {"D1:3", "D8:6", "D9:17", "D11:26", "D30:5", "D2:1"}

# ----------------------------------------------------------------------------- evidence ids


@pytest.mark.parametrize(
    ("raw", "resolved", "unresolved"),
    [
        (["D1:3"], ["D1:3"], []),
        (["D8:6; D9:17"], ["D8:6", "D9:17"], []),  # two ids in one string
        (["D:11:26"], ["D11:26"], []),  # stray colon
        (["D30:05"], ["D30:5"], []),  # leading zero
        ([" D1:3 "], ["D1:3"], []),  # stray spaces
        (["D 1 : 3"], ["D1:3"], []),
        (["d1:3"], ["D1:3"], []),  # lower case
        (["D99:1"], [], ["D99:1"]),  # points at no turn
        (["D8:6; D99:1"], ["D8:6"], ["D99:1"]),  # half valid
        (["D1:3", "D1:3", "D01:03"], ["D1:3"], []),  # dedupe after canonicalising
        (["D9:17", "D8:6"], ["D9:17", "D8:6"], []),  # order kept
        (["", "  "], [], []),
        (["no id here"], [], ["no id here"]),
        ("D8:6, D2:1", ["D8:6", "D2:1"], []),  # a bare string is one entry
        (None, [], []),
    ],
)
def test_normalize_evidence(
    raw: str | list[str] | None, resolved: list[str], unresolved: list[str]
) -> None:
    assert normalize_evidence(raw, VALID) == (resolved, unresolved)


def test_normalize_evidence_tolerates_non_strings() -> None:
    assert normalize_evidence([7, "D1:3"], VALID) == (["D1:3"], ["7"])  # type: ignore[list-item]


@given(st.lists(st.text(max_size=30), max_size=5) | st.text(max_size=60))
def test_normalize_evidence_never_raises(raw: str | list[str]) -> None:
    resolved, unresolved = normalize_evidence(raw, VALID)
    assert set(resolved) <= VALID
    assert len(resolved) == len(set(resolved))
    assert len(unresolved) == len(set(unresolved))


# ----------------------------------------------------------------------------- ranked metrics

RANKED = ["a", "g1", "b", "g2", "c"]
GOLD = {"g1", "g2", "g3"}


def test_all_any_recall_hand_computed() -> None:
    # top 2 = [a, g1]: 1 of 3 gold -> ALL 0, ANY 1, R 1/3
    assert all_at_k(RANKED, GOLD, 2) == 0.0
    assert any_at_k(RANKED, GOLD, 2) == 1.0
    assert recall_at_k(RANKED, GOLD, 2) == pytest.approx(1 / 3)
    # top 1 = [a]: nothing
    assert any_at_k(RANKED, GOLD, 1) == 0.0
    assert recall_at_k(RANKED, GOLD, 1) == 0.0
    # top 5 holds g1, g2 (g3 not retrievable): R = 2/3, ALL stays 0
    assert recall_at_k(RANKED, GOLD, 5) == pytest.approx(2 / 3)
    assert all_at_k(RANKED, GOLD, 5) == 0.0
    # two gold, both by rank 4
    assert all_at_k(RANKED, {"g1", "g2"}, 4) == 1.0
    assert all_at_k(RANKED, {"g1", "g2"}, 3) == 0.0


def test_mrr_hand_computed() -> None:
    assert mrr(RANKED, GOLD) == pytest.approx(1 / 2)  # first gold g1 at rank 2
    assert mrr(RANKED, {"g2"}) == pytest.approx(1 / 4)
    assert mrr(RANKED, {"a"}) == 1.0
    assert mrr(RANKED, {"zzz"}) == 0.0
    assert mrr([], {"g1"}) == 0.0


def test_ndcg_hand_computed() -> None:
    # k=5: gold at ranks 2 and 4 -> DCG = 1/log2(3) + 1/log2(5) = 0.63093 + 0.43068 = 1.06161
    # ideal: min(|gold|=3, k=5) = 3 ones -> IDCG = 1 + 1/log2(3) + 1/log2(4) = 2.13093
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(RANKED, GOLD, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKED, GOLD, 5) == pytest.approx(0.49819, abs=1e-5)
    # k=2: DCG = 1/log2(3) = 0.63093; IDCG = 1 + 0.63093 = 1.63093 -> 0.38685
    assert ndcg_at_k(RANKED, GOLD, 2) == pytest.approx(0.38685, abs=1e-5)
    # perfect ranking
    assert ndcg_at_k(["g1", "g2", "x"], {"g1", "g2"}, 3) == pytest.approx(1.0)
    # k=1 with more gold than k: ideal holds min(2, 1) = 1 item -> a gold first is perfect
    assert ndcg_at_k(["g1", "x"], {"g1", "g2"}, 1) == pytest.approx(1.0)


def test_k_larger_than_list() -> None:
    assert all_at_k(["g1"], {"g1"}, 100) == 1.0
    assert recall_at_k(["g1"], {"g1", "g2"}, 100) == 0.5
    # DCG = 1 (rank 1); IDCG = 1 + 1/log2(3) = 1.63093 -> 0.61315
    assert ndcg_at_k(["g1"], {"g1", "g2"}, 100) == pytest.approx(0.61315, abs=1e-5)
    assert all_at_k([], {"g1"}, 10) == 0.0


def test_duplicates_in_ranked_count_once() -> None:
    ranked = ["g1", "g1", "g1", "x"]
    assert recall_at_k(ranked, {"g1", "g2"}, 3) == 0.5
    assert all_at_k(ranked, {"g1", "g2"}, 4) == 0.0
    # DCG counts g1 once: 1; IDCG = 1 + 1/log2(3) -> 0.61315, never above 1
    assert ndcg_at_k(ranked, {"g1", "g2"}, 4) == pytest.approx(0.61315, abs=1e-5)
    assert ndcg_at_k(["g1", "g1"], {"g1"}, 2) == pytest.approx(1.0)
    # duplicates take positions: g2 at position 4 is outside the top 3
    assert any_at_k(["x", "x", "x", "g2"], {"g2"}, 3) == 0.0


def test_gold_duplicates_are_a_set() -> None:
    assert recall_at_k(["g1"], ["g1", "g1"], 1) == 1.0


@pytest.mark.parametrize("metric", [all_at_k, any_at_k, recall_at_k, ndcg_at_k])
def test_empty_gold_or_bad_k_raises(metric: object) -> None:
    with pytest.raises(ValueError, match="empty"):
        metric(["a"], set(), 5)  # type: ignore[operator]
    with pytest.raises(ValueError, match="k must be"):
        metric(["a"], {"a"}, 0)  # type: ignore[operator]


def test_mrr_empty_gold_raises() -> None:
    with pytest.raises(ValueError):
        mrr(["a"], [])


# ----------------------------------------------------------------------------- percentile


def test_percentile_linear_interpolation() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    # position = q/100 * (n-1): p50 -> 1.5 -> 20 + 0.5*10 = 25; p95 -> 2.85 -> 30 + 0.85*10 = 38.5
    assert percentile(values, 50) == pytest.approx(25.0)
    assert percentile(values, 95) == pytest.approx(38.5)
    assert percentile(values, 0) == 10.0
    assert percentile(values, 100) == 40.0
    assert percentile([7.0], 95) == 7.0


def test_percentile_errors() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


# ----------------------------------------------------------------------------- summarize


def test_summarize_per_category_and_overall() -> None:
    scores = [
        QuestionScore("q0", 1, ("g1", "x"), ("g1", "g2"), candidates=10, latency_ms=10.0),
        QuestionScore("q1", 1, ("g1", "g2"), ("g1", "g2"), candidates=20, latency_ms=20.0),
        QuestionScore("q2", 4, ("x", "g"), ("g",), candidates=30, latency_ms=30.0),
        QuestionScore("q3", 4, ("x",), (), candidates=99, latency_ms=99.0),  # no gold: skipped
    ]
    result = summarize(scores, ks=(1, 2))
    assert list(result) == ["all", "1", "4"]
    cat1 = result["1"]
    assert cat1.n == 2 and cat1.n_skipped == 0
    # ALL@2: q0 0, q1 1 -> 0.5 ; R@2: q0 1/2, q1 1 -> 0.75 ; R@1: 1/2, 1/2 -> 0.5
    assert cat1.all_at[2] == 0.5
    assert cat1.recall_at[2] == 0.75
    assert cat1.recall_at[1] == 0.5
    assert cat1.mrr == 1.0
    assert cat1.candidates == 15.0
    cat4 = result["4"]
    assert cat4.n == 1 and cat4.n_skipped == 1
    assert cat4.any_at[1] == 0.0 and cat4.any_at[2] == 1.0
    assert cat4.mrr == 0.5
    overall = result["all"]
    assert overall.n == 3 and overall.n_skipped == 1
    # MRR: (1 + 1 + 1/2) / 3 = 0.8333 ; ANY@1: (1 + 1 + 0) / 3
    assert overall.mrr == pytest.approx(2.5 / 3)
    assert overall.any_at[1] == pytest.approx(2 / 3)
    # latency p50 of [10, 20, 30] = 20; p95 -> position 1.9 -> 20 + 0.9*10 = 29
    assert overall.latency_p50_ms == pytest.approx(20.0)
    assert overall.latency_p95_ms == pytest.approx(29.0)
    json.dumps({key: value.to_dict() for key, value in result.items()})


def test_summarize_empty_and_bad_k() -> None:
    assert summarize([], ks=(5,))["all"].n == 0
    with pytest.raises(ValueError):
        summarize([], ks=(0,))


# ----------------------------------------------------------------------------- FactConsolidation


def test_normalize_answer() -> None:
    assert normalize_answer("  The  U.S.A.,  an  Apple! ") == "usa apple"
    assert normalize_answer("Theatre") == "theatre"  # articles only as whole words


@pytest.mark.parametrize(
    ("prediction", "golds", "expected"),
    [
        ("The answer is Paris.", ["paris"], 1.0),
        ("It is the United Kingdom", ["United Kingdom", "UK"], 1.0),
        ("London", ["Paris", "Lyon"], 0.0),
        ("Parisian", ["Paris"], 1.0),  # substring, as the benchmark defines it
        ("anything", ["", "  the "], 0.0),  # empty normalised gold never matches
        ("", ["x"], 0.0),
        ("New   York City", ["new york"], 1.0),
    ],
)
def test_substring_exact_match(prediction: str, golds: list[str], expected: float) -> None:
    assert substring_exact_match(prediction, golds) == expected


def test_pool_all_is_the_ceiling_of_all_at_k() -> None:
    # the pool holds both gold turns although the top 2 holds one: ranking, not generation
    ranked_low = QuestionScore(
        "q0", 1, ("g1", "x", "y", "g2"), ("g1", "g2"), pool=frozenset({"g1", "g2", "x", "y"})
    )
    missing = QuestionScore("q1", 1, ("g1", "x"), ("g1", "g2"), pool=frozenset({"g1", "x"}))
    unrecorded = QuestionScore("q2", 1, ("g1", "g2"), ("g1", "g2"))  # ranked is the pool
    assert pool_all(ranked_low) == 1.0
    assert pool_all(missing) == 0.0
    assert pool_all(unrecorded) == 1.0
    summary = summarize([ranked_low, missing, unrecorded], ks=(2,))["1"]
    assert summary.pool_all == pytest.approx(2 / 3)
    assert summary.all_at[2] == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        pool_all(QuestionScore("q3", 1, ("x",), ()))
