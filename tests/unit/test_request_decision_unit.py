"""The request decision's wiring pieces without a server: the shipped threshold is the one the
training chose on dev, the topic of a decided forget, and the decision acting only above it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kgmem.ingest.extraction.nlp import load_pipeline
from kgmem.ingest.requests.decision import THRESHOLD, addressed, decide_requests, decided_topic
from kgmem.truth import decisions
from kgmem.truth.corpus import LABELS
from kgmem.truth.decisions import Decision
from kgmem.truth.weights import shipped_models


@pytest.fixture(scope="module")
def nlp():  # type: ignore[no-untyped-def]
    return load_pipeline()


def test_the_threshold_is_the_one_chosen_on_dev() -> None:
    acting = shipped_models().manifest["decisions"]["request"]["acting_on_dev"]
    assert acting["threshold"] == THRESHOLD and acting["precision"] >= 0.95


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        (
            "Could you get rid of the gym stuff, the Ironworks membership?",
            "gym Ironworks membership",
        ),
        ("Can you drop everything about my old landlord?", "my old landlord"),
        ("Please let all of that slip your mind.", ""),
    ],
)
def test_topic_of_a_decided_forget(nlp, text: str, topic: str) -> None:  # type: ignore[no-untyped-def]
    assert decided_topic(nlp(text)) == topic


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("Swap my old number for 0161 496 0999.", True),
        ("Could you use the new address from now on?", True),
        ("New phone, new number: 0151 444 9876. The old one is dead.", False),
        ("My PIN is 4417.", False),
    ],
)
def test_a_forget_and_replace_must_speak_to_the_assistant(nlp, text: str, spoken: bool) -> None:  # type: ignore[no-untyped-def]
    assert addressed(nlp(text)) is spoken


def _embed(texts: Any) -> np.ndarray:
    return np.eye(len(texts), 384, dtype=np.float32)


def test_only_acting_classes_at_the_threshold_act(nlp, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    said = {
        "a": ("forget", THRESHOLD),
        "b": ("forget", THRESHOLD - 0.01),
        "c": ("instruction", 0.99),
        "d": ("dont_keep", 0.99),
        "e": ("forget_replace", 0.99),
        "f": ("forget_replace", 0.99),
    }
    texts = {
        "a": "Drop the gym stuff.",
        "b": "Drop the gym stuff!",
        "c": "Always be brief.",
        "d": "Keep this between us.",
        "e": "Swap my old number for 0161 496 0999.",
        "f": "New phone, new number: 0151 444 9876. The old one is dead.",
    }

    def decide(last: Any, text: str, previous: Any = None, models: Any = None) -> Decision:
        label, score = said[next(k for k, t in texts.items() if t == text)]
        return Decision(label, score, dict.fromkeys(LABELS["request"], 0.0) | {label: score})

    monkeypatch.setattr(decisions, "memory_request", decide)
    found = decide_requests([(k, t, None) for k, t in texts.items()], nlp=nlp, embed=_embed)
    assert sorted(found) == ["a", "d", "e"]
    assert found["a"].kind == "forget" and found["a"].decided == ("forget", THRESHOLD)
    assert found["d"].kind == "withhold"
    assert found["e"].keeps_turn and found["e"].topic == "old number"  # the grammar's span
