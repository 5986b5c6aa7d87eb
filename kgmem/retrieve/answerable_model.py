"""The trained answerability decision on the facts a question reads, beside the rules.

`trained_support` scores the facts nearest the question that the persons it names hold (the
``holder`` rows of ``read/linked_read``, which the rules' holder gap reads too) with
`kgmem.truth.decisions.answerability`, and returns the highest calibrated probability that one
of them *answers* the question (states the asked attribute of the asked holder), with that
fact. Only asserted or negated facts count: a plan, a hypothetical, a question or a report
never answers.

`combine` then lets the decision overrule the rules (`kgmem.retrieve.answerable.decide`) in
both directions, each only past a threshold chosen by leave-one-conversation-out on the LoCoMo
dev split (`kgmem.bench.answerability`, ``model``):

- **rescue**: the rules say unanswerable but some held fact answers with probability of at
  least `RESCUE` (over-abstention: the pet's name is there, in words the key-term match missed);
- **abstain**: the rules say answerable but no held fact answers with probability of at least
  `ABSTAIN` (what the named person holds is only related).

Either is off when its constant is None.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from kgmem.retrieve.question import Question
from kgmem.truth.decisions import answerability
from kgmem.truth.weights import TruthModels

__all__ = ["ABSTAIN", "RESCUE", "TRAINED_K", "combine", "trained_support"]

TRAINED_K = 20
"""Held facts (nearest the question first) the decision scores at most."""
RESCUE: float | None = None
"""Probability of ``answers`` above which a fact the named person holds makes the question
answerable against the rules (None: off). LoCoMo dev LOCO-CV, `kgmem.bench.answerability`."""
ABSTAIN: float | None = None
"""Probability of ``answers`` that some held fact must reach for a question the rules find
answerable to stay answerable (None: off). LoCoMo dev LOCO-CV, `kgmem.bench.answerability`."""
_ASSERTED = ("asserted", "negated", None)


def trained_support(
    vector: Sequence[float] | None,
    question: Question,
    holder: Sequence[Mapping[str, Any]],
    ids: Collection[str],
    person_of: Callable[[str, str], str],
    models: TruthModels | None = None,
) -> tuple[float, str | None]:
    """The best calibrated probability (0-1) that a fact the named persons hold answers the
    question, and that fact's id; ``(0.0, None)`` when they hold none of ``holder``.

    Args:
        vector: the question's embedding (unit norm), or None (nothing is scored).
        question: the question's reading (the decision reads its ``text``).
        holder: ``read/linked_read``'s ``holder`` rows (``fact_id``, ``conversation_id``,
            ``subject``, ``speaker``, ``cosine``, ``text``, ``modality``, ``embedding``), best
            cosine first.
        ids: the person entity ids the question names.
        person_of: ``(conversation id, speaker) -> person entity id``
            (`kgmem.retrieve.answerable.speaker_person`).
    """
    held = [
        row
        for row in holder
        if row.get("embedding") is not None
        and row.get("modality") in _ASSERTED
        and (
            (row.get("subject") and str(row["subject"]) in ids)
            or (
                row.get("speaker")
                and person_of(str(row["conversation_id"]), str(row["speaker"])) in ids
            )
        )
    ][:TRAINED_K]
    if vector is None or not held:
        return 0.0, None
    decisions = answerability(
        np.asarray(vector, dtype=np.float32),
        question.text,
        np.asarray([row["embedding"] for row in held], dtype=np.float32),
        [str(row.get("text") or "") for row in held],
        [str(row.get("speaker") or "") for row in held],
        models=models,
    )
    scores = [d.scores["answers"] for d in decisions]
    best = int(np.argmax(scores))
    return float(scores[best]), str(held[best]["fact_id"])


def combine(
    answerable: bool,
    trained: float | None,
    rescue: float | None = RESCUE,
    abstain: float | None = ABSTAIN,
) -> bool:
    """The rules' verdict ``answerable`` overruled by the trained score ``trained``
    (`trained_support`; None when no person is named: the rules stand), module docstring."""
    if trained is None:
        return answerable
    if not answerable and rescue is not None and trained >= rescue:
        return True
    if answerable and abstain is not None and trained < abstain:
        return False
    return answerable
