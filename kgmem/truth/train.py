"""``kgmem train truth``: fit the four decisions' models on the corpus's train split,
calibrate them on its dev split, and write the weights into the package.

Fitting uses scikit-learn (the optional extra ``kgmem[train]``); the product only reads the
exported arrays (`kgmem.truth.weights`). Deterministic: the corpus order is fixed, L-BFGS has no
randomness, the temperature is a grid search, and the npz has no timestamps. The test split is
never read here beyond its frozen-hash check.

Model: multinomial logistic regression on `kgmem.truth.features` (L2, ``C`` per decision in
`SETTINGS`, chosen on the dev split among 0.3 / 1 / 3; inverse class frequency weights so the
small classes count). Calibration: one temperature per decision minimising the dev split's
negative log-likelihood (Guo et al. 2017, "On Calibration of Modern Neural Networks").
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.embed import Embedder
from kgmem.errors import ModelUnavailable
from kgmem.truth.corpus import LABELS, Row, read_corpus
from kgmem.truth.dataset import VectorCache, features, statement_rows, texts_needed
from kgmem.truth.weights import CORPUS_DIR, WEIGHTS_DIR, LinearModel, corpus_hash, save_models

SETTINGS: dict[str, dict[str, float]] = {
    "relation": {"C": 1.0},
    "request": {"C": 1.0},
    "answerability": {"C": 0.3},
    "attribution": {"C": 1.0},
}
"""L2 strength per decision (scikit-learn's ``C``), each the best dev macro-F1 of 0.3 / 1 / 3
(chosen again when writers w9-w13 joined train, and for relation when its features gained the
stored side's function words and the pair scalars: dev 0.811 / 0.838 / 0.819)."""

TEMPERATURES = np.exp(np.linspace(np.log(0.02), np.log(8.0), 241))
"""Grid of calibration temperatures (0.02-8, log-spaced)."""


def fit_temperature(logits: npt.NDArray[np.float64], gold: npt.NDArray[np.int64]) -> float:
    """The temperature of `TEMPERATURES` with the least negative log-likelihood of ``gold``."""
    best, best_nll = 1.0, np.inf
    for t in TEMPERATURES:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        nll = -float(logp[np.arange(len(gold)), gold].mean())
        if nll < best_nll - 1e-12:
            best, best_nll = float(t), nll
    return best


ACTING = ("forget", "dont_keep", "forget_replace")
"""The request decision's classes the write path acts on (`kgmem.ingest.requests.decision`)."""
PRECISION = 0.95
"""Least dev precision of an acting request class at the chosen threshold."""


def acting_threshold(
    probs: npt.NDArray[np.float32],
    gold: list[str],
    labels: tuple[str, ...],
    addressed: list[bool] | None = None,
) -> dict[str, float | int | None]:
    """The least threshold on the calibrated probability of the predicted class at which the
    acting predictions (predicted class in `ACTING`, probability at or above it; a
    ``forget_replace`` only where ``addressed`` holds, the write path's guard) are the gold
    class with precision at least `PRECISION` on ``probs``' rows, and that precision and recall
    (of the rows whose gold class acts); threshold None when none reaches it."""
    best = probs.argmax(axis=1)
    score = probs.max(axis=1)
    spoken = np.ones(len(best), dtype=bool) if addressed is None else np.array(addressed)
    acts = np.array(
        [
            labels[i] in ACTING and (labels[i] != "forget_replace" or ok)
            for i, ok in zip(best, spoken, strict=True)
        ]
    )
    right = np.array([labels[i] == g for i, g in zip(best, gold, strict=True)])
    positives = sum(g in ACTING for g in gold)
    for t in np.round(np.arange(0.5, 1.0, 0.01), 2):
        chosen = acts & (score >= t)
        if chosen.any() and right[chosen].mean() >= PRECISION:
            hits = int((chosen & right).sum())
            return {
                "threshold": float(t),
                "precision": round(float(right[chosen].mean()), 4),
                "recall": round(hits / max(1, positives), 4),
                "acting": int(chosen.sum()),
            }
    return {"threshold": None, "precision": None, "recall": 0.0, "acting": 0}


def fit_decision(
    decision: str, train: tuple[Any, list[str]], dev: tuple[Any, list[str]]
) -> tuple[LinearModel, dict[str, Any]]:
    """Fit one decision's model on ``train`` and its temperature on ``dev`` (features, labels)."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:  # pragma: no cover - the [train] extra
        raise ModelUnavailable("training needs scikit-learn: pip install 'kgmem[train]'") from exc
    labels = LABELS[decision]
    x, y = train
    model = LogisticRegression(
        C=SETTINGS[decision]["C"], max_iter=5000, class_weight="balanced", tol=1e-6
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x, [labels.index(label) for label in y])
    order = [list(model.classes_).index(i) for i in range(len(labels))]
    weights = model.coef_[order].astype(np.float32)
    bias = model.intercept_[order].astype(np.float32)
    dx, dy = dev
    logits = dx.astype(np.float64) @ weights.T.astype(np.float64) + bias
    gold = np.array([labels.index(label) for label in dy])
    temperature = fit_temperature(logits, gold)
    info: dict[str, Any] = {"C": SETTINGS[decision]["C"], "train_rows": len(y), "dev_rows": len(dy)}
    return LinearModel(labels, weights, bias, temperature), info


def default_cache() -> Path:
    """Where the corpus's vectors are cached between runs (the user cache directory)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("kgmem", appauthor=False)) / "truth-vectors.npz"


def corpus_matrices(
    rows: dict[str, list[Row]], cache: VectorCache
) -> dict[str, dict[str, tuple[Any, list[str]]]]:
    """Features and labels per split and decision."""
    vectors = cache.vectors(texts_needed([r for split in rows.values() for r in split]))
    return {
        split: {d: features(d, [r for r in part if r.decision == d], vectors) for d in LABELS}
        for split, part in rows.items()
    }


def train(
    corpus_dir: Path = CORPUS_DIR,
    out_dir: Path = WEIGHTS_DIR,
    cache_path: Path | None = None,
    embedder: Embedder | None = None,
    *,
    addressed: Callable[[str], bool],
) -> dict[str, Any]:
    """Validate the corpus, fit the four models, write them; returns the manifest written.

    Args:
        addressed: the write path's guard on a decided forget-and-replace, applied to the last
            turn of each request row when the acting threshold is chosen (the turn's text ->
            whether it speaks to the assistant; `kgmem.ingest.requests.decision.addressed`
            over a parse). Passed in by the caller (``kgmem train truth``): training sits below
            the write path and does not import it.

    Raises:
        CorpusError: the first bad row (file and line), or a test file whose hash changed.
        ModelUnavailable: scikit-learn or the embedder is missing.
    """
    rows = read_corpus(corpus_dir)
    embedder = embedder or Embedder()
    cache = VectorCache(embedder, cache_path if cache_path is not None else default_cache())
    mats = corpus_matrices({s: rows[s] for s in ("train", "dev")}, cache)
    models: dict[str, LinearModel] = {}
    infos: dict[str, Any] = {}
    for decision in LABELS:
        models[decision], infos[decision] = fit_decision(
            decision, mats["train"][decision], mats["dev"][decision]
        )
    # the acting threshold of the request decision, on the dev split's request rows and its
    # user statements (what the write path asks about most), all `none`
    said = statement_rows(rows["dev"])
    sx, sy = features("request", said, cache.vectors(texts_needed(said)))
    dx, dy = mats["dev"]["request"]
    probs = models["request"].probabilities(np.vstack([dx, sx]))
    asked = [r for r in rows["dev"] if r.decision == "request"] + said
    infos["request"]["acting_on_dev"] = {
        **acting_threshold(
            probs,
            [*dy, *sy],
            models["request"].labels,
            [addressed(row.data["turns"][-1]["text"]) for row in asked],
        ),
        "statements": len(sy),
    }
    extra = {
        "corpus_sha256": corpus_hash(corpus_dir),
        "embedder": embedder.name,
        "model": "multinomial logistic regression, temperature-calibrated on dev",
        "decisions": infos,
    }
    save_models(models, extra, out_dir)
    import json

    manifest: dict[str, Any] = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    return manifest
