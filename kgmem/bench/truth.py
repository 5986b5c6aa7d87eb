"""``kgmem bench truth``: the truth decisions on the corpus's frozen test split, dev beside.

Per decision and split: per-class precision and recall, macro-F1 with a 95 % bootstrap interval
(1,000 resamples of rows, seed 0, percentile method), accuracy, and expected calibration error
(ECE: 15 equal-width bins of the top-label probability, Naeini et al. 2015 / Guo et al. 2017).
Scores come from the shipped weights through `kgmem.truth.weights`, exactly as the product
reads them; the test split is read only here, never by training.

Beside them, `agreement`: how a second annotator's labels of a sample of train and dev rows
(`kgmem.truth.agreement`) agree with the writers', the same figures and Cohen's kappa. It is
the figure a model's is read against: labels two readers disagree on cannot be learned.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.embed import Embedder
from kgmem.truth.agreement import Judgement, read_agreement
from kgmem.truth.corpus import LABELS, read_corpus
from kgmem.truth.dataset import VectorCache
from kgmem.truth.features import HASH_WIDTH, PAIR_WIDTH
from kgmem.truth.train import corpus_matrices, default_cache
from kgmem.truth.weights import CORPUS_DIR, TruthModels, shipped_models

BOOTSTRAP = 1000
BINS = 15
CANDIDATES = 20
"""Stored facts a new statement is compared with at most (the holder's nearest)."""
FACTS_READ = 100
"""Facts a question's answerability is decided over in the latency figure (a search reads
fewer: k plus its neighbours)."""


def macro_f1(gold: npt.NDArray[np.int64], pred: npt.NDArray[np.int64], classes: int) -> float:
    """Unweighted mean of the per-class F1 (a class never gold nor predicted counts 0)."""
    f1s = []
    for c in range(classes):
        tp = float(np.sum((pred == c) & (gold == c)))
        fp = float(np.sum((pred == c) & (gold != c)))
        fn = float(np.sum((pred != c) & (gold == c)))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return float(np.mean(f1s))


def ece(probs: npt.NDArray[np.float32], gold: npt.NDArray[np.int64], bins: int = BINS) -> float:
    """Expected calibration error of the top-label probability."""
    conf = probs.max(axis=1)
    right = probs.argmax(axis=1) == gold
    edges = np.linspace(0.0, 1.0, bins + 1)
    total = 0.0
    for low, high in itertools.pairwise(edges):
        inside = (conf > low) & (conf <= high)
        if inside.any():
            total += inside.mean() * abs(float(conf[inside].mean()) - float(right[inside].mean()))
    return total


def cohen_kappa(gold: npt.NDArray[np.int64], pred: npt.NDArray[np.int64], classes: int) -> float:
    """Cohen's kappa of two labellings: observed agreement corrected for the agreement their
    label frequencies give by chance (Cohen 1960); 1 = identical, 0 = chance, 1.0 when both
    use one label only."""
    observed = float(np.mean(gold == pred))
    chance = float(sum(np.mean(gold == c) * np.mean(pred == c) for c in range(classes)))
    return 1.0 if chance >= 1.0 else (observed - chance) / (1.0 - chance)


def label_figures(
    labels: tuple[str, ...], gold: npt.NDArray[np.int64], pred: npt.NDArray[np.int64]
) -> dict[str, Any]:
    """``n``, macro-F1 with its 95 % bootstrap interval, accuracy and per-class precision and
    recall of ``pred`` against ``gold`` (indices into ``labels``)."""
    k = len(labels)
    rng = np.random.default_rng(0)
    samples = [
        macro_f1(gold[idx], pred[idx], k)
        for idx in (rng.integers(0, len(gold), len(gold)) for _ in range(BOOTSTRAP))
    ]
    per_class = {}
    for c, name in enumerate(labels):
        tp = int(np.sum((pred == c) & (gold == c)))
        predicted, actual = int(np.sum(pred == c)), int(np.sum(gold == c))
        per_class[name] = {
            "n": actual,
            "precision": round(tp / predicted, 4) if predicted else 0.0,
            "recall": round(tp / actual, 4) if actual else 0.0,
        }
    return {
        "n": len(gold),
        "macro_f1": round(macro_f1(gold, pred, k), 4),
        "macro_f1_ci95": [round(float(np.percentile(samples, q)), 4) for q in (2.5, 97.5)],
        "accuracy": round(float(np.mean(pred == gold)), 4),
        "per_class": per_class,
    }


def score_split(
    labels: tuple[str, ...], probs: npt.NDArray[np.float32], gold_labels: list[str]
) -> dict[str, Any]:
    """The figures of one decision on one split (`label_figures` and ECE)."""
    gold = np.array([labels.index(g) for g in gold_labels])
    out = label_figures(labels, gold, probs.argmax(axis=1))
    out["ece"] = round(ece(probs, gold), 4)
    return out


def agreement(judgements: list[Judgement]) -> dict[str, Any]:
    """Per decision, a second annotator's labels against the writers' (`label_figures` with
    the writers' labels as gold, and Cohen's kappa), over every annotator's judgements of that
    decision; decisions nobody judged are left out."""
    out: dict[str, Any] = {}
    for decision, labels in LABELS.items():
        mine = [j for j in judgements if j.row.decision == decision]
        if not mine:
            continue
        gold = np.array([labels.index(j.row.label) for j in mine])
        pred = np.array([labels.index(j.label) for j in mine])
        out[decision] = {
            "annotators": sorted({j.annotator for j in mine}),
            **label_figures(labels, gold, pred),
            "kappa": round(cohen_kappa(gold, pred, len(labels)), 4),
        }
    return out


def decision_latency(models: TruthModels, repeats: int = 200) -> dict[str, Any]:
    """Milliseconds per call (median and p95 over ``repeats``) of each decision function as the
    product calls it, features included, given the vectors the write/read path already holds:
    a new statement against `CANDIDATES` stored facts, a question over `FACTS_READ` facts, one
    request and one attribution. Budgets: 2 ms per statement, 5 ms per question."""
    from kgmem.truth.decisions import answerability, attribution, memory_request, relation

    rng = np.random.default_rng(0)
    d = (models.relation.weights.shape[1] - 1 - 2 * HASH_WIDTH - PAIR_WIDTH) // 4

    def unit(n: int) -> npt.NDArray[np.float32]:
        x = rng.normal(size=(n, d)).astype(np.float32)
        out: npt.NDArray[np.float32] = x / np.linalg.norm(x, axis=1, keepdims=True)
        return out

    stored, facts, one = unit(CANDIDATES), unit(FACTS_READ), unit(2)
    speakers = ["user", "assistant"] * (FACTS_READ // 2)
    # texts of a typical length (the function-word features tokenise them)
    said = "I'm not at the old place any more, we moved to the flat near the river in May."
    asked = "Where does the user live now, and since when?"
    # distinct texts on every call (digits are not tokens), so no call is served by the
    # function-word cache: the figure is the cold cost
    fresh = iter(range(10**9))

    warm = [f"{said} warm" for _ in range(FACTS_READ)]

    def texts(n: int = FACTS_READ) -> list[str]:
        return [f"{said} {next(fresh)}" for _ in range(n)]

    calls: dict[str, Callable[[], object]] = {
        "relation_per_statement": lambda: relation(
            stored, one[0], f"{said} {next(fresh)}", texts(CANDIDATES), models
        ),
        "answerability_per_question": lambda: answerability(
            one[0], asked, facts, texts(), speakers, "user", models
        ),
        # the same stored facts read again: their function words come from the cache
        "answerability_per_question_warm": lambda: answerability(
            one[0], asked, facts, warm, speakers, "user", models
        ),
        "request_per_turn": lambda: memory_request(one[0], said, one[1], models),
        "attribution_per_clause": lambda: attribution(one[0], said, one[1], "user", 2, models),
    }
    out: dict[str, Any] = {"candidates": CANDIDATES, "facts_read": FACTS_READ}
    for name, call in calls.items():
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            call()
            times.append(1000 * (time.perf_counter() - start))
        out[name] = {
            "p50_ms": round(float(np.median(times)), 3),
            "p95_ms": round(float(np.percentile(times, 95)), 3),
        }
    return out


def run_truth_bench(
    corpus_dir: Path = CORPUS_DIR,
    models: TruthModels | None = None,
    cache_path: Path | None = None,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Figures per decision on the test and dev splits, and the second annotators' agreement
    with the writers (`agreement`; JSON-ready).

    Raises:
        CorpusError: a bad row or a test file whose frozen hash changed.
        TruthWeightsInvalid: the shipped weights do not load.
    """
    models = models or shipped_models()
    rows = read_corpus(corpus_dir)
    cache = VectorCache(embedder or Embedder(), cache_path or default_cache())
    mats = corpus_matrices({s: rows[s] for s in ("dev", "test")}, cache)
    decisions: dict[str, Any] = {}
    for decision in LABELS:
        model = models.model(decision)
        out = {}
        for split in ("test", "dev"):
            x, gold = mats[split][decision]
            out[split] = score_split(model.labels, model.probabilities(x), gold)
        out["gap_points"] = round(100 * (out["dev"]["macro_f1"] - out["test"]["macro_f1"]), 1)
        decisions[decision] = out
    return {
        "bench": "truth",
        "corpus_sha256": models.manifest.get("corpus_sha256"),
        "model": models.manifest.get("model"),
        "bootstrap": BOOTSTRAP,
        "ece_bins": BINS,
        "decisions": decisions,
        "agreement": agreement(
            read_agreement(corpus_dir, [row for split in rows.values() for row in split])
        ),
        "latency": decision_latency(models),
    }
