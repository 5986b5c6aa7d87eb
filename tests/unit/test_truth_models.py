"""The shipped truth weights and the decision functions (pure numpy, no server)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from kgmem.bench.truth import ece, macro_f1, score_split
from kgmem.config import Settings
from kgmem.errors import ModelUnavailable, TruthWeightsInvalid
from kgmem.truth import weights as weights_module
from kgmem.truth.corpus import LABELS
from kgmem.truth.decisions import (
    answerability,
    answerable,
    attribution,
    memory_request,
    relation,
)
from kgmem.truth.features import function_words
from kgmem.truth.train import fit_temperature
from kgmem.truth.weights import (
    CORPUS_DIR,
    WEIGHTS_DIR,
    corpus_hash,
    file_sha256,
    load_models,
)

D = 384


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.normal(size=(n, D)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_shipped_weights_match_the_corpus_hash() -> None:
    manifest = json.loads((WEIGHTS_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["corpus_sha256"] == corpus_hash(CORPUS_DIR)
    assert manifest["weights_sha256"] == file_sha256(WEIGHTS_DIR / "weights.npz")
    load_models()  # and every array has its shape


def test_shipped_weights_are_small() -> None:
    size = sum(p.stat().st_size for p in WEIGHTS_DIR.iterdir())
    assert size <= 20 * 1024 * 1024


def _copy(tmp_path: Path) -> Path:
    out = tmp_path / "truth"
    shutil.copytree(WEIGHTS_DIR, out)
    return out


def test_missing_weights_name_the_file(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    (directory / "weights.npz").unlink()
    with pytest.raises(TruthWeightsInvalid, match=r"weights\.npz: missing") as info:
        load_models(directory)
    assert info.value.file.endswith("weights.npz")
    assert isinstance(info.value, ModelUnavailable)


def test_corrupt_weights_are_refused(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    path = directory / "weights.npz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TruthWeightsInvalid, match="SHA-256"):
        load_models(directory)


def test_weights_of_another_corpus_are_refused(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    manifest["corpus_sha256"] = "0" * 64
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(TruthWeightsInvalid, match=r"manifest\.json: trained on corpus 000000"):
        load_models(directory)


def test_memory_refuses_to_start_without_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgmem.api import Memory

    directory = _copy(tmp_path)
    (directory / "manifest.json").unlink()
    monkeypatch.setattr(weights_module, "WEIGHTS_DIR", directory)
    weights_module.shipped_models.cache_clear()
    try:
        with pytest.raises(TruthWeightsInvalid, match=r"manifest\.json"):
            Memory.from_settings(Settings())
    finally:
        weights_module.shipped_models.cache_clear()


def test_decisions_give_calibrated_distributions() -> None:
    rng = np.random.default_rng(1)
    stored, new = _unit(rng, 5), _unit(rng, 1)[0]
    said = ["I work at Acme.", "I'm at Acme", "Acme pays me", "My job is at Acme", "Hi"]
    rel = relation(stored, new, "Not at Acme any more, I joined Globex in May.", said)
    assert len(rel) == 5 and relation(np.zeros((0, D), np.float32), new, "x", []) == []
    with pytest.raises(ValueError, match="4 stored texts for 5"):
        relation(stored, new, "x", said[:4])
    for d in rel:
        assert d.label in LABELS["relation"]
        assert abs(sum(d.scores.values()) - 1) < 1e-4 and d.score == max(d.scores.values())
    req = memory_request(_unit(rng, 1)[0], "please forget my old number")
    assert req.label in LABELS["request"]
    assert memory_request(_unit(rng, 1)[0], "ok", _unit(rng, 1)[0]).label in LABELS["request"]
    facts = answerability(
        _unit(rng, 1)[0],
        "What's my dog called?",
        _unit(rng, 3),
        ["a", "b", "c"],
        ["user", "assistant", "Ana"],
    )
    assert len(facts) == 3
    ok, score = answerable(facts)
    assert ok == (score > 0.5) and 0 <= score <= 1
    assert answerable([]) == (False, 0.0)
    att = attribution(_unit(rng, 1)[0], "you might like it", _unit(rng, 1)[0], "assistant", 2)
    assert att.label in LABELS["attribution"]


def test_function_words_keep_structure_not_topic() -> None:
    a, b, c = function_words(
        ["Not at Acme any more.", "Not at Globex any more.", "I also joined Acme."]
    )
    assert np.array_equal(a, b)  # content words are placeholders
    assert not np.array_equal(a, c)
    assert function_words([""]).sum() == 0


def test_temperature_fit_undoes_a_known_scale() -> None:
    rng = np.random.default_rng(0)
    true = rng.normal(size=(4000, 3)) * 2
    probs = np.exp(true) / np.exp(true).sum(axis=1, keepdims=True)
    gold = np.array([rng.choice(3, p=p) for p in probs])
    assert fit_temperature(true * 3, gold) == pytest.approx(3, rel=0.1)


def test_bench_metrics() -> None:
    gold = np.array([0, 0, 1, 1, 2])
    assert macro_f1(gold, gold, 3) == 1.0
    assert macro_f1(gold, np.array([0, 0, 1, 1, 1]), 3) == pytest.approx((1 + 0.8 + 0) / 3)
    sure = np.eye(3, dtype=np.float32)[gold]
    assert ece(sure, gold) == 0.0
    report = score_split(("a", "b", "c"), sure, ["a", "a", "b", "b", "c"])
    assert report["macro_f1"] == 1.0 and report["per_class"]["c"]["recall"] == 1.0
    lo, hi = report["macro_f1_ci95"]
    assert lo <= 1.0 <= hi + 1e-9


def test_explain_hits_scores_every_hit() -> None:
    from kgmem.truth.explain import explain_hits

    class Encoder:  # deterministic unit vectors: explain_hits only batches and forwards them
        def encode(self, texts: list[str]) -> np.ndarray:
            rng = np.random.default_rng(len(texts))
            return _unit(rng, len(texts))

    hits = [
        ("S1:1", "user", "My dog Biscuit ate my slipper."),
        ("S1:2", "assistant", "Try a crate."),
    ]
    out, (ok, best) = explain_hits(Encoder(), "What's my dog called?", hits)
    assert [h.turn_id for h in out] == ["S1:1", "S1:2"]
    assert best == max(h.answer.scores["answers"] for h in out) and ok == (best > 0.5)
    assert explain_hits(Encoder(), "q", []) == ([], (False, 0.0))
