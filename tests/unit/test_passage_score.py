"""A long turn's dense score from its passages (`kgmem.retrieve.generators.with_passage`):
the head's cosine plus a share of the best passage's gain, less the draws of its passages;
a turn without passages keeps its cosine."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.generators import candidate, with_passage

ROW = {
    "turn_id": "c:1",
    "conversation_id": "c",
    "text": "a long answer",
    "speaker": "assistant",
    "session": 1,
    "index": 1,
    "observed_at": datetime(2024, 1, 1, tzinfo=UTC),
    "cosine": 0.40,
}


def _best(cosine: float, head: float, count: int) -> dict[str, dict[str, object]]:
    return {"c:1": {"cosine": cosine, "n": 3, "start": 10, "end": 90, "head": head, "count": count}}


def test_a_short_turn_keeps_its_cosine() -> None:
    c = candidate(ROW, "dense_turns")
    with_passage(c, {}, EngineConfig())
    assert c.cosine == pytest.approx(0.40)
    assert c.passage is None


@pytest.mark.parametrize(
    ("gain", "draws", "expected"),
    [
        (1.0, 0.0, 0.70),  # the best passage's cosine
        (0.0, 0.0, 0.40),  # the head's
        (0.5, 0.0, 0.55),
        (0.5, 0.05, 0.55 - 0.05 * math.sqrt(math.log(5))),
    ],
)
def test_a_long_turn_weighs_its_best_passage_and_its_draws(
    gain: float, draws: float, expected: float
) -> None:
    cfg = replace(EngineConfig(), passage_gain=gain, passage_draws=draws)
    c = candidate({**ROW, "cosine": 0.70}, "dense_passages")
    with_passage(c, _best(0.70, 0.40, 4), cfg)
    assert c.cosine == pytest.approx(expected)
    assert c.passage == {"n": 3, "start": 10, "end": 90, "cosine": 0.7}


def test_a_passage_below_the_head_adds_nothing() -> None:
    cfg = replace(EngineConfig(), passage_gain=0.5, passage_draws=0.0)
    c = candidate(ROW, "dense_turns")
    with_passage(c, _best(0.30, 0.40, 2), cfg)
    assert c.cosine == pytest.approx(0.40)


def test_the_shipped_values_take_the_best_passage() -> None:
    c = candidate(ROW, "dense_turns")
    with_passage(c, _best(0.70, 0.40, 6), EngineConfig())
    assert c.cosine == pytest.approx(0.70)
