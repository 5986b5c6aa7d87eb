"""The trained decisions on a search's hits, for ``kgmem explain`` (diagnostics only: they do
not change the ranking or the answer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from kgmem.truth.decisions import Decision, answerability, answerable, attribution
from kgmem.truth.weights import TruthModels


class _Encoder(Protocol):
    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


@dataclass(frozen=True)
class HitDecisions:
    """The decisions about one hit: does it answer the question, and whose fact it states."""

    turn_id: str
    answer: Decision
    attribution: Decision


def explain_hits(
    embedder: _Encoder,
    question: str,
    hits: list[tuple[str, str, str]],
    asker: str = "user",
    models: TruthModels | None = None,
) -> tuple[list[HitDecisions], tuple[bool, float]]:
    """Answerability and attribution of each hit, and the question-level `answerable`.

    Args:
        embedder: the memory's embedder (one batch: the question and every hit's text).
        question: the question asked.
        hits: ``(turn_id, speaker, text)`` per hit, in rank order.
        asker: who asks.
    """
    if not hits:
        return [], (False, 0.0)
    vectors = embedder.encode([question] + [text for _, _, text in hits])
    answers = answerability(
        vectors[0],
        question,
        vectors[1:],
        [text for _, _, text in hits],
        [speaker for _, speaker, _ in hits],
        asker,
        models,
    )
    out = [
        HitDecisions(turn_id, answer, attribution(vec, text, vec, speaker, 1, models))
        for (turn_id, speaker, text), vec, answer in zip(hits, vectors[1:], answers, strict=True)
    ]
    return out, answerable(answers)
