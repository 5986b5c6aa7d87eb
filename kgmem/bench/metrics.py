"""Retrieval and answer metrics, as pure functions.

Definitions follow docs/design.md §4. Evidence recall is measured on LoCoMo (Maharana et al.,
"Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024): each question cites
gold evidence turns (``D<session>:<turn>`` dialogue ids); a retriever returns a ranked list of
turn ids and is scored on how many of the gold turns it puts in its top ``k``:

- ``ALL@k``  1 if every gold turn is in the top k, else 0.
- ``ANY@k``  1 if at least one gold turn is in the top k, else 0.
- ``R@k``    |top k ∩ gold| / |gold|.
- ``MRR``    1 / (1-based rank of the first gold turn), 0 if none is retrieved.
- ``NDCG@k`` binary relevance, ``log2(rank + 1)`` discount, ideal list = ``min(|gold|, k)``
  relevant items first (Järvelin & Kekäläinen, TOIS 2002).

Ranked lists are taken as given: ``ranked[:k]`` is the top k even when it holds duplicates, and
a gold id counts once however often it repeats (so no metric exceeds 1). ``k`` larger than the
list simply means the whole list. A question with no gold evidence has no recall; every recall
metric raises `ValueError` for it and `summarize` skips it (counting it in ``n_skipped``).

FactConsolidation (MemoryAgentBench; Hu, Wang, McAuley, ICLR 2026) is scored by
`substring_exact_match`, the SQuAD-style normalisation (Rajpurkar et al., EMNLP 2016) applied to
both sides followed by a substring test.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "CATEGORY_NAMES",
    "MetricSummary",
    "QuestionScore",
    "all_at_k",
    "any_at_k",
    "mrr",
    "ndcg_at_k",
    "normalize_answer",
    "percentile",
    "pool_all",
    "recall_at_k",
    "substring_exact_match",
    "summarize",
]

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
"""LoCoMo question categories as numbered in the released ``locomo10.json`` (docs/design.md §4)."""

# --------------------------------------------------------------------------------------------
# ranked-list metrics
# --------------------------------------------------------------------------------------------


def _gold_set(gold: Collection[str]) -> set[str]:
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("gold evidence is empty: recall is undefined for this question")
    return gold_set


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def _hits_at_k(ranked: Sequence[str], gold: set[str], k: int) -> int:
    return len(gold.intersection(ranked[:k]))


def all_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """ALL@k: 1.0 if every gold id is in ``ranked[:k]``, else 0.0.

    Raises:
        ValueError: ``gold`` is empty or ``k < 1``.
    """
    _check_k(k)
    gold_set = _gold_set(gold)
    return 1.0 if _hits_at_k(ranked, gold_set, k) == len(gold_set) else 0.0


def any_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """ANY@k: 1.0 if at least one gold id is in ``ranked[:k]``, else 0.0.

    Raises:
        ValueError: ``gold`` is empty or ``k < 1``.
    """
    _check_k(k)
    return 1.0 if _hits_at_k(ranked, _gold_set(gold), k) > 0 else 0.0


def recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """R@k = |set(ranked[:k]) ∩ gold| / |gold|, in [0, 1].

    Raises:
        ValueError: ``gold`` is empty or ``k < 1``.
    """
    _check_k(k)
    gold_set = _gold_set(gold)
    return _hits_at_k(ranked, gold_set, k) / len(gold_set)


def mrr(ranked: Sequence[str], gold: Collection[str]) -> float:
    """Reciprocal rank of the first gold id: ``1 / rank`` (1-based), 0.0 if none is ranked.

    Raises:
        ValueError: ``gold`` is empty.
    """
    gold_set = _gold_set(gold)
    for rank, item in enumerate(ranked, start=1):
        if item in gold_set:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """NDCG@k with binary relevance, in [0, 1].

    ``DCG = Σ_{i ≤ k, ranked[i] gold, first occurrence} 1 / log2(i + 1)`` (i 1-based);
    ``IDCG = Σ_{i=1}^{min(|gold|, k)} 1 / log2(i + 1)``.

    Raises:
        ValueError: ``gold`` is empty or ``k < 1``.
    """
    _check_k(k)
    gold_set = _gold_set(gold)
    seen: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], start=1):
        if item in gold_set and item not in seen:
            seen.add(item)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold_set), k) + 1))
    return dcg / ideal


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile of ``values`` by linear interpolation (numpy's default method).

    Args:
        values: a non-empty sample (e.g. per-question latencies in ms).
        q: percentile in [0, 100] (50 = median, 95 = p95).

    Raises:
        ValueError: ``values`` is empty or ``q`` is outside [0, 100].
    """
    if len(values) == 0:
        raise ValueError("percentile of an empty sample")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"q must lie in [0, 100], got {q}")
    return float(np.percentile(np.asarray(values, dtype=float), q, method="linear"))


# --------------------------------------------------------------------------------------------
# aggregation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionScore:
    """One question's retrieval outcome, the input of `summarize`.

    Attributes:
        question_id: e.g. ``conv-26:qa0``.
        category: LoCoMo category (see `CATEGORY_NAMES`).
        ranked: retrieved turn ids, best first.
        gold: normalised gold turn ids (same id space as ``ranked``); empty = not scorable.
        candidates: candidate turns the scorer examined for this question.
        latency_ms: wall time of the retrieval, in milliseconds.
        pool: the ids of every candidate turn the scorer examined (the pool the ranking is
            drawn from); empty = not recorded (``pool_all`` then uses ``ranked``).
    """

    question_id: str
    category: int
    ranked: tuple[str, ...]
    gold: tuple[str, ...]
    candidates: int = 0
    latency_ms: float = 0.0
    pool: frozenset[str] = frozenset()


def pool_all(score: QuestionScore) -> float:
    """Pool ALL: 1.0 if every gold turn is among the candidates the scorer examined, else 0.0;
    the ceiling of ALL@k for any scorer over that pool (so it separates what candidate
    generation missed from what ranking missed). Without a recorded pool, ``ranked`` is the pool.

    Raises:
        ValueError: ``gold`` is empty.
    """
    gold = _gold_set(score.gold)
    return 1.0 if gold <= (score.pool or set(score.ranked)) else 0.0


@dataclass
class MetricSummary:
    """Means of each metric over a group of questions (all values in [0, 1] unless noted).

    Attributes:
        n: questions scored (with non-empty gold).
        n_skipped: questions in the group with no gold evidence (not scored).
        all_at / any_at / recall_at / ndcg_at: ``{k: mean}``.
        mrr: mean reciprocal rank.
        candidates: mean candidates examined (count): the pool size.
        pool_all: share of questions whose every gold turn is in the pool (`pool_all`).
        latency_p50_ms / latency_p95_ms: latency percentiles in ms (0.0 when n == 0).
    """

    n: int = 0
    n_skipped: int = 0
    all_at: dict[int, float] = field(default_factory=dict)
    any_at: dict[int, float] = field(default_factory=dict)
    recall_at: dict[int, float] = field(default_factory=dict)
    ndcg_at: dict[int, float] = field(default_factory=dict)
    mrr: float = 0.0
    candidates: float = 0.0
    pool_all: float = 0.0
    latency_p50_ms: float = 0.0
    latency_p95_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``k`` keys become strings)."""
        out = asdict(self)
        for name in ("all_at", "any_at", "recall_at", "ndcg_at"):
            out[name] = {str(k): v for k, v in out[name].items()}
        return out


def _summarize_group(scores: Sequence[QuestionScore], ks: Sequence[int]) -> MetricSummary:
    scored = [s for s in scores if s.gold]
    summary = MetricSummary(n=len(scored), n_skipped=len(scores) - len(scored))
    if not scored:
        return summary

    def mean(values: Iterable[float]) -> float:
        return float(np.mean(list(values)))

    for k in ks:
        summary.all_at[k] = mean(all_at_k(s.ranked, s.gold, k) for s in scored)
        summary.any_at[k] = mean(any_at_k(s.ranked, s.gold, k) for s in scored)
        summary.recall_at[k] = mean(recall_at_k(s.ranked, s.gold, k) for s in scored)
        summary.ndcg_at[k] = mean(ndcg_at_k(s.ranked, s.gold, k) for s in scored)
    summary.mrr = mean(mrr(s.ranked, s.gold) for s in scored)
    summary.candidates = mean(float(s.candidates) for s in scored)
    summary.pool_all = mean(pool_all(s) for s in scored)
    latencies = [s.latency_ms for s in scored]
    summary.latency_p50_ms = percentile(latencies, 50)
    summary.latency_p95_ms = percentile(latencies, 95)
    return summary


def summarize(
    per_question: Sequence[QuestionScore], ks: Sequence[int] = (5, 10, 20)
) -> dict[str, MetricSummary]:
    """Mean of each metric per LoCoMo category and overall.

    Args:
        per_question: one `QuestionScore` per question (any categories; filter category 5
            beforehand if adversarial questions should not count, as in docs/design.md §4).
        ks: cut-offs, each >= 1.

    Returns:
        ``{"all": summary over every question, "1": category 1, "2": ..., }`` with one key per
        category present, in ascending order. Questions with empty gold are skipped and counted
        in ``n_skipped``.

    Raises:
        ValueError: some ``k < 1``.
    """
    for k in ks:
        _check_k(k)
    result = {"all": _summarize_group(per_question, ks)}
    for category in sorted({s.category for s in per_question}):
        group = [s for s in per_question if s.category == category]
        result[str(category)] = _summarize_group(group, ks)
    return result


# --------------------------------------------------------------------------------------------
# answers (FactConsolidation)
# --------------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, drop ASCII punctuation, drop a/an/the, collapse spaces."""
    text = text.lower().translate(_PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def substring_exact_match(prediction: str, golds: Sequence[str]) -> float:
    """MemoryAgentBench FactConsolidation score for one question: 1.0 or 0.0.

    1.0 if some normalised gold answer is a substring of the normalised prediction
    (see ../shared/data/README.md). Gold answers that normalise to the empty string are
    ignored (they would match anything).
    """
    normalized_prediction = normalize_answer(prediction)
    for gold in golds:
        normalized_gold = normalize_answer(gold)
        if normalized_gold and normalized_gold in normalized_prediction:
            return 1.0
    return 0.0
