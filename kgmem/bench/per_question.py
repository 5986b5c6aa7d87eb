"""Per-question rows of the LoCoMo benchmark, and every aggregate computed from them.

One row per scored question and engine configuration (JSON-ready)::

    {"id": str, "category": int,
     "gold_ranks": [int|null],        (1-based rank of each distinct gold turn in the hits,
                                       null = not in the top max(k); [] = no gold evidence)
     "hits": int,                     (hits ranked, at most max(k))
     "in_pool": bool,                 (every gold turn among the candidates examined)
     "supported_rank": int|null,      (first hit that SUPPORTS the answer, the SUPPORTED grade)
     "candidates": int, "answerable": bool,
     "answer": str|null,              (the value of SearchResult.answer, if any)
     "extractive": str,               (`kgmem.bench.answers.extractive_answer` of the top k_main)
     "scores": {"answer"|"extractive": {"f1": x, "em": x}},   ("answer" only with a value)
     "context": {"<k>": {"tokens": int, "words": int, "contains_answer": bool}},
     "latency_ms": {"read_path": x, "neo4j": x},
     "corrected": {"gold_ranks", "in_pool", "scores"}}        (audited questions, --gold corrected)

`scores_of` rebuilds each row's `QuestionScore` (gold turns at their ranks among placeholder
ids), so `kgmem.bench.metrics.summarize` over them gives exactly the figures of the hits
themselves: every metric depends only on where the gold turns rank.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kgmem.bench.answers import locomo_em, locomo_f1
from kgmem.bench.metrics import (
    QuestionScore,
    all_at_k,
    ndcg_at_k,
    percentile,
    summarize,
)
from kgmem.bench.stats import bootstrap_interval, mcnemar

__all__ = [
    "answer_scores",
    "context_curve",
    "gold_ranks",
    "intervals",
    "paired_test",
    "scores_of",
    "summary_of",
]

Row = Mapping[str, Any]
CATEGORY_KEYS = ("all", "1", "2", "3", "4")


def gold_ranks(ranked: Sequence[str], gold: Sequence[str]) -> list[int | None]:
    """The 1-based rank of each distinct gold id (first occurrence) in ``ranked``, or None."""
    first: dict[str, int] = {}
    for rank, item in enumerate(ranked, start=1):
        first.setdefault(item, rank)
    return [first.get(g) for g in dict.fromkeys(gold)]


def _score(row: Row, corrected: bool) -> QuestionScore:
    data = row["corrected"] if corrected and "corrected" in row else row
    ranks: list[int | None] = list(data["gold_ranks"])
    gold = tuple(f"gold:{i}" for i in range(len(ranks)))
    ranked = [f"other:{i}" for i in range(row["hits"])]
    for gid, rank in zip(gold, ranks, strict=True):
        if rank is not None:
            ranked[rank - 1] = gid
    in_pool = data["in_pool"]
    return QuestionScore(
        question_id=row["id"],
        category=row["category"],
        ranked=tuple(ranked),
        gold=gold,
        candidates=row["candidates"],
        latency_ms=row["latency_ms"]["read_path"],
        # pool_all reads the pool: every gold id, or none of them
        pool=frozenset(gold if in_pool else ()) | {"pool"},
    )


def scores_of(rows: Sequence[Row], *, corrected: bool = False) -> list[QuestionScore]:
    """The `QuestionScore` of each row (``corrected``: with the audited gold where there is one)."""
    return [_score(row, corrected) for row in rows]


def summary_of(
    rows: Sequence[Row], ks: Sequence[int], *, corrected: bool = False
) -> dict[str, dict[str, Any]]:
    """``summarize`` of the rows, each category's metrics with their intervals (`intervals`)."""
    scores = scores_of(rows, corrected=corrected)
    out = {}
    for key, value in summarize(scores, ks).items():
        out[key] = value.to_dict() | {"ci": intervals(scores, ks, key)}
    return out


def _in(key: str, category: int) -> bool:
    return key == "all" or key == str(category)


def intervals(scores: Sequence[QuestionScore], ks: Sequence[int], key: str) -> dict[str, Any]:
    """Bootstrap 95 % intervals of ALL@k and NDCG@k over the category ``key``'s questions
    with gold evidence: ``{"all_at": {"<k>": [low, high]}, "ndcg_at": {...}}``."""
    group = [s for s in scores if s.gold and _in(key, s.category)]
    if not group:
        return {}
    return {
        "all_at": {
            str(k): bootstrap_interval([all_at_k(s.ranked, s.gold, k) for s in group]) for k in ks
        },
        "ndcg_at": {
            str(k): bootstrap_interval([ndcg_at_k(s.ranked, s.gold, k) for s in group]) for k in ks
        },
    }


def grades(rows: Sequence[Row], ks: Sequence[int]) -> dict[str, dict[str, float]]:
    """EXACT@k and SUPPORTED@k over the rows with gold evidence (means in [0, 1])."""
    scored = [r for r in rows if r["gold_ranks"]]

    def share(hit: Callable[[Row, int], bool], k: int) -> float:
        return sum(hit(r, k) for r in scored) / len(scored) if scored else 0.0

    def exact(r: Row, k: int) -> bool:
        return any(rank is not None and rank <= k for rank in r["gold_ranks"])

    def supported(r: Row, k: int) -> bool:
        return r["supported_rank"] is not None and r["supported_rank"] <= k

    return {
        "exact_at": {str(k): share(exact, k) for k in ks},
        "supported_at": {str(k): share(supported, k) for k in ks},
    }


def latency(rows: Sequence[Row]) -> dict[str, dict[str, float]]:
    """Read-path and Neo4j p50/p95 over the rows (ms)."""
    return {
        part: {
            "p50": percentile([r["latency_ms"][part] for r in rows], 50),
            "p95": percentile([r["latency_ms"][part] for r in rows], 95),
        }
        for part in ("read_path", "neo4j")
    }


def answer_scores(prediction: str, gold: str, category: int) -> dict[str, float]:
    """``{"f1", "em"}`` of one answer by LoCoMo's scoring (`kgmem.bench.answers`)."""
    return {
        "f1": locomo_f1(prediction, gold, category),
        "em": locomo_em(prediction, gold, category),
    }


def answer_summary(
    rows: Sequence[Row], answerer: str, *, corrected: bool = False
) -> dict[str, Any]:
    """Mean F1 and EM of one answerer (``answer``, ``extractive``, ``reader``) per category,
    with intervals, over the rows it answered; ``corrected``: the audited gold answers, and
    the rows whose audited answer is no plain value left out.

    Returns:
        ``{"all"|"1".."4": {"n", "f1", "f1_ci", "em", "em_ci"}}`` (keys with no row omitted).
    """
    out: dict[str, Any] = {}
    for key in CATEGORY_KEYS:
        values = []
        for r in rows:
            if not _in(key, r["category"]):
                continue
            scores = r["scores"]
            if corrected and "corrected" in r:
                scores = r["corrected"].get("scores")
                if scores is None:
                    continue
            if answerer in scores:
                values.append(scores[answerer])
        if values:
            f1 = [v["f1"] for v in values]
            em = [v["em"] for v in values]
            out[key] = {
                "n": len(values),
                "f1": sum(f1) / len(f1),
                "f1_ci": bootstrap_interval(f1),
                "em": sum(em) / len(em),
                "em_ci": bootstrap_interval(em),
            }
    return out


def context_curve(rows: Sequence[Row], ks: Sequence[int]) -> list[dict[str, Any]]:
    """What the top k cost and give, per k, over the rows with gold evidence: mean tokens (the
    embedder's tokenizer) and words (white-space split) of the turns as a reader gets them,
    ALL@k, and the share whose top k holds the gold answer string (SQuAD-normalised)."""
    scored = [r for r in rows if r["gold_ranks"]]
    n = max(len(scored), 1)
    curve = []
    for k in ks:
        ctx = [r["context"][str(k)] for r in scored]
        curve.append(
            {
                "k": k,
                "tokens": sum(c["tokens"] for c in ctx) / n,
                "words": sum(c["words"] for c in ctx) / n,
                "all_at": sum(
                    all(rank is not None and rank <= k for rank in r["gold_ranks"]) for r in scored
                )
                / n,
                "contains_answer": sum(c["contains_answer"] for c in ctx) / n,
            }
        )
    return curve


def paired_test(rows: Sequence[Row], reference: Sequence[Row], k: int) -> dict[str, Any]:
    """McNemar on ALL@k between two rows' questions (the same questions, matched by id)."""
    mine = {r["id"]: r for r in rows if r["gold_ranks"]}
    theirs = {r["id"]: r for r in reference if r["gold_ranks"]}
    ids = [i for i in mine if i in theirs]

    def hit(r: Row) -> bool:
        return all(rank is not None and rank <= k for rank in r["gold_ranks"])

    return {"k": k, **mcnemar([hit(mine[i]) for i in ids], [hit(theirs[i]) for i in ids])}
