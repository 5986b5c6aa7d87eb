"""The trained answerability decision beside the rules (`kgmem.retrieve.answerable_model`) and
its calibration (`kgmem.bench.answerability`, ``model``): pure, no server."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kgmem.bench.answerability import MODEL_GRID, SHIPPED, Item, calibrate, score
from kgmem.retrieve.answerable_model import TRAINED_K, combine, trained_support
from kgmem.retrieve.question import read_question


def test_combine_overrules_only_past_its_thresholds() -> None:
    assert combine(True, None, 0.9, 0.1) is True  # no person named: the rules stand
    assert combine(False, 0.95, 0.9, None) is True  # rescue
    assert combine(False, 0.85, 0.9, None) is False
    assert combine(True, 0.05, None, 0.1) is False  # abstain
    assert combine(True, 0.15, None, 0.1) is True
    assert combine(False, 0.99, None, None) is False  # both off: the rules


def _unit(seed: int) -> list[float]:
    x = np.random.default_rng(seed).normal(size=384).astype(np.float32)
    return list(x / np.linalg.norm(x))


def test_trained_support_reads_only_asserted_facts_the_person_holds() -> None:
    rows = [
        {"fact_id": "f-other", "conversation_id": "c", "subject": "ana", "speaker": "Ana",
         "cosine": 0.9, "text": "Ana's dog is Rex", "modality": "asserted",
         "embedding": _unit(1)},
        {"fact_id": "f-plan", "conversation_id": "c", "subject": "kai", "speaker": "Kai",
         "cosine": 0.8, "text": "Kai might get a dog", "modality": "hypothetical",
         "embedding": _unit(2)},
        {"fact_id": "f-own", "conversation_id": "c", "subject": None, "speaker": "Kai",
         "cosine": 0.7, "text": "My dog is called Biscuit", "modality": "asserted",
         "embedding": _unit(3)},
    ]  # fmt: skip
    people = {"Kai": "kai", "Ana": "ana"}
    best, fact = trained_support(
        _unit(0), read_question("What is Kai's dog called?"), rows, {"kai"}, lambda c, s: people[s]
    )
    assert fact == "f-own" and 0.0 < best < 1.0
    assert trained_support(None, read_question("q"), rows, {"kai"}, lambda c, s: people[s]) == (
        0.0,
        None,
    )
    assert trained_support(
        _unit(0), read_question("q"), rows[:2], {"kai"}, lambda c, s: people[s]
    ) == (
        0.0,
        None,
    )
    assert TRAINED_K == 20


def test_model_calibration_chooses_thresholds_out_of_sample() -> None:
    def item(conv: str, adversarial: bool, trained: float) -> Item:
        features = {"best_own": 1, "best_other": 0, "asked": 1, "in_memory": True}
        return Item(conv, adversarial, {**features, "trained": trained})

    items = [
        item(c, adv, t)
        for c in ("a", "b", "c")
        for adv, t in ((True, 0.01), (True, 0.04), (False, 0.6), (False, 0.9))
    ]
    assert score(items)["flagged"] == 0  # the rules flag none of these
    report = calibrate(items)
    assert report["model"]["loco"]["recall"] == 1.0
    assert report["model"]["loco"]["precision"] == 1.0
    chosen = report["model"]["in_sample"]
    assert chosen["abstain"] is not None and chosen["rescue"] in (None, 0.8, 0.9, 0.95, 0.98)
    assert replace(SHIPPED, rescue=None, abstain=None) in MODEL_GRID
    assert "model" not in calibrate([replace(i, features={"best_own": 1}) for i in items])
