"""The shipped weights of the truth decisions: one multinomial logistic regression per decision,
exported as numpy arrays (inference needs numpy only, never scikit-learn).

Files, in ``kgmem/data/truth/``:

- ``weights.npz``: ``<decision>.W`` (``classes x features`` float32) and ``<decision>.b``
  (``classes``) for each decision of `kgmem.truth.corpus.LABELS`.
- ``manifest.json``: ``corpus_sha256`` (`corpus_hash` of the corpus it was trained on),
  ``weights_sha256`` (of ``weights.npz``), the embedder, and per decision its ``labels`` (row
  order of ``W``), ``temperature`` (fitted on the dev split, `kgmem.truth.train`) and the
  training settings.

`load_models` checks all of it and raises `TruthWeightsInvalid` naming the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.errors import TruthWeightsInvalid
from kgmem.truth.corpus import LABELS

WEIGHTS_DIR = Path(__file__).resolve().parents[1] / "data" / "truth"
CORPUS_DIR = Path(__file__).resolve().parents[2] / "corpus" / "truth"
"""The corpus in a source checkout (absent from an installed wheel, where the manifest's hash is
trusted as shipped)."""


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def corpus_hash(corpus_dir: Path = CORPUS_DIR) -> str:
    """SHA-256 over the corpus: every ``writers/*.jsonl`` (name and bytes, sorted by name) and
    ``splits.json``. Any edit of a row or of the splits changes it."""
    digest = hashlib.sha256()
    for path in [*sorted((corpus_dir / "writers").glob("*.jsonl")), corpus_dir / "splits.json"]:
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class LinearModel:
    """One decision's classifier: calibrated softmax over ``labels``.

    Attributes:
        labels: class names, in the row order of ``weights``.
        weights: ``(classes, features)`` float32.
        bias: ``(classes,)`` float32.
        temperature: logits are divided by it before the softmax (fitted on dev; 1 = none).
    """

    labels: tuple[str, ...]
    weights: npt.NDArray[np.float32]
    bias: npt.NDArray[np.float32]
    temperature: float

    def probabilities(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Calibrated class probabilities: ``(n, features)`` -> ``(n, classes)``, rows sum to 1.

        Raises:
            ValueError: the feature width differs from the weights'.
        """
        if features.shape[1] != self.weights.shape[1]:
            raise ValueError(
                f"{features.shape[1]} features, the model expects {self.weights.shape[1]}"
            )
        # einsum rather than `@`: a 100 x 4000 by 4000 x 7 product is too small for BLAS
        # threads, which cost 5-15 ms in start-up on two busy cores (kgmem bench truth)
        logits = (np.einsum("ij,kj->ik", features, self.weights) + self.bias) / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        out: npt.NDArray[np.float32] = (odds / odds.sum(axis=1, keepdims=True)).astype(np.float32)
        return out


@dataclass(frozen=True)
class TruthModels:
    """The four decisions' models and the manifest they came with."""

    relation: LinearModel
    request: LinearModel
    answerability: LinearModel
    attribution: LinearModel
    manifest: dict[str, Any]

    def model(self, decision: str) -> LinearModel:
        """The model of ``decision`` (a key of `kgmem.truth.corpus.LABELS`)."""
        found: LinearModel = getattr(self, decision)
        return found


def save_models(
    models: dict[str, LinearModel], extra: dict[str, Any], directory: Path = WEIGHTS_DIR
) -> Path:
    """Write ``weights.npz`` and ``manifest.json`` into ``directory``; returns the manifest path.

    ``extra`` goes into the manifest (``corpus_sha256``, the embedder, per-decision settings
    under ``decisions``). The npz is written without compression or timestamps, so the same
    arrays give the same bytes.
    """
    directory.mkdir(parents=True, exist_ok=True)
    weights = directory / "weights.npz"
    arrays: dict[str, Any] = {}
    for name in LABELS:
        arrays[f"{name}.W"] = models[name].weights.astype(np.float32)
        arrays[f"{name}.b"] = models[name].bias.astype(np.float32)
    with weights.open("wb") as handle:
        np.savez(handle, **arrays)
    decisions = {
        name: {
            **extra.get("decisions", {}).get(name, {}),
            "labels": list(models[name].labels),
            "temperature": models[name].temperature,
        }
        for name in LABELS
    }
    manifest = {**extra, "decisions": decisions, "weights_sha256": file_sha256(weights)}
    path = directory / "manifest.json"
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def load_models(directory: Path = WEIGHTS_DIR, corpus_dir: Path | None = CORPUS_DIR) -> TruthModels:
    """Load and check the shipped weights.

    Args:
        directory: where ``weights.npz`` and ``manifest.json`` are.
        corpus_dir: the corpus to compare the manifest's hash with; skipped when None or when
            it does not exist (an installed wheel ships no corpus).

    Raises:
        TruthWeightsInvalid: a file is missing or unreadable, the weights' SHA-256 differs from
            the manifest's, an array is missing or of the wrong shape, or the corpus hash differs.
    """
    manifest_path = directory / "manifest.json"
    weights_path = directory / "weights.npz"
    for path in (manifest_path, weights_path):
        if not path.is_file():
            raise TruthWeightsInvalid(str(path), "missing")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        decisions = manifest["decisions"]
        expected = manifest["weights_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TruthWeightsInvalid(str(manifest_path), f"unreadable ({exc})") from None
    if file_sha256(weights_path) != expected:
        raise TruthWeightsInvalid(str(weights_path), "SHA-256 differs from the manifest's")
    if corpus_dir is not None and (corpus_dir / "splits.json").is_file():
        found = corpus_hash(corpus_dir)
        if manifest.get("corpus_sha256") != found:
            raise TruthWeightsInvalid(
                str(manifest_path),
                f"trained on corpus {str(manifest.get('corpus_sha256'))[:12]}, the corpus in "
                f"{corpus_dir} is {found[:12]}",
            )
    models: dict[str, LinearModel] = {}
    try:
        with np.load(weights_path) as arrays:
            for name in LABELS:
                spec = decisions[name]
                weights = np.asarray(arrays[f"{name}.W"], dtype=np.float32)
                bias = np.asarray(arrays[f"{name}.b"], dtype=np.float32)
                labels = tuple(spec["labels"])
                if weights.shape[0] != len(labels) or bias.shape != (len(labels),):
                    raise ValueError(f"{name}: shapes {weights.shape}/{bias.shape}")
                if set(labels) != set(LABELS[name]):
                    raise ValueError(f"{name}: labels {labels}")
                models[name] = LinearModel(labels, weights, bias, float(spec["temperature"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TruthWeightsInvalid(str(weights_path), f"unreadable ({exc})") from None
    return TruthModels(**models, manifest=manifest)


@lru_cache(maxsize=1)
def shipped_models() -> TruthModels:
    """`load_models` of the package's own weights, loaded once per process (`WEIGHTS_DIR`,
    `CORPUS_DIR` read at call time)."""
    return load_models(WEIGHTS_DIR, CORPUS_DIR)
