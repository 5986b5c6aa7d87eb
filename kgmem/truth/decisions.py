"""The four truth decisions, one function each, with typed input and a calibrated score.

Inputs are the MiniLM vectors the write and read paths already hold (unit norm, ``(d,)`` or
``(n, d)`` float32), the texts they embed (for their function words) and speakers' roles;
outputs are `Decision` values whose ``score`` is the calibrated probability of the chosen label
(temperature fitted on the corpus's dev split, `kgmem.truth.train`). Classes:
`kgmem.truth.corpus.LABELS`; their meaning: ``corpus/truth/BRIEF.md``.
Models default to the shipped weights (`kgmem.truth.weights.shipped_models`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kgmem.truth.features import (
    answer_features,
    attribution_features,
    relation_features,
    request_features,
)
from kgmem.truth.weights import LinearModel, TruthModels, shipped_models

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Decision:
    """One decision.

    Attributes:
        label: the most probable class.
        score: its calibrated probability, 0-1.
        scores: every class's calibrated probability (sums to 1).
    """

    label: str
    score: float
    scores: dict[str, float]


def _decide(model: LinearModel, features: Vector) -> list[Decision]:
    probs = model.probabilities(features)
    out = []
    for row in probs:
        best = int(np.argmax(row))
        scores = {label: float(p) for label, p in zip(model.labels, row, strict=True)}
        out.append(Decision(model.labels[best], float(row[best]), scores))
    return out


def _matrix(vectors: Vector) -> Vector:
    return np.atleast_2d(np.asarray(vectors, dtype=np.float32))


def relation(
    stored: Vector,
    new: Vector,
    new_text: str,
    stored_texts: Sequence[str],
    models: TruthModels | None = None,
) -> list[Decision]:
    """How a new statement relates to each stored fact of the same holder.

    Args:
        stored: ``(k, d)`` vectors of the candidate facts (the holder's nearest, at most 20).
        new: ``(d,)`` vector of the new statement.
        new_text: the new statement.
        stored_texts: the ``k`` candidates' texts, in the rows' order.

    Returns:
        one `Decision` per candidate, labels `kgmem.truth.corpus.RELATION_LABELS`.

    Raises:
        ValueError: ``stored_texts`` is not one text per row of ``stored``.
    """
    stored = _matrix(stored)
    if not len(stored):
        return []
    if len(stored_texts) != len(stored):
        raise ValueError(f"{len(stored_texts)} stored texts for {len(stored)} stored vectors")
    news = np.broadcast_to(np.asarray(new, dtype=np.float32), stored.shape)
    return _decide(
        (models or shipped_models()).relation,
        relation_features(stored, news, [new_text], list(stored_texts)),
    )


def memory_request(
    last: Vector,
    text: str,
    previous: Vector | None = None,
    models: TruthModels | None = None,
) -> Decision:
    """Whether a user turn is a memory request, and which kind.

    Args:
        last: ``(d,)`` vector of the user turn.
        text: the user turn.
        previous: ``(d,)`` vector of the turn before it, if any.

    Returns:
        a `Decision` over `kgmem.truth.corpus.REQUEST_LABELS` (``none``: not a request).
    """
    prev = None if previous is None else _matrix(previous)
    feats = request_features(_matrix(last), prev, [text])
    return _decide((models or shipped_models()).request, feats)[0]


def answerability(
    question: Vector,
    question_text: str,
    facts: Vector,
    fact_texts: list[str],
    speakers: list[str],
    asker: str = "user",
    models: TruthModels | None = None,
) -> list[Decision]:
    """Whether each fact states the asked attribute of the asked holder.

    Args:
        question: ``(d,)`` vector of the question.
        question_text: the question.
        facts: ``(n, d)`` vectors of the facts read for it.
        fact_texts: their texts.
        speakers: each fact's speaker (``user``, ``assistant`` or a name).
        asker: who asks.

    Returns:
        one `Decision` per fact over `kgmem.truth.corpus.ANSWER_LABELS`; the question is
        answerable when some asserted fact ``answers`` (`answerable`).
    """
    facts = _matrix(facts)
    if not len(facts):
        return []
    feats = answer_features(
        _matrix(question), facts, [asker], speakers, [question_text], fact_texts
    )
    return _decide((models or shipped_models()).answerability, feats)


def answerable(decisions: list[Decision]) -> tuple[bool, float]:
    """Question-level answerability from `answerability`'s per-fact decisions: the highest
    calibrated probability of ``answers`` among the facts, and whether it exceeds one half."""
    best = max((d.scores["answers"] for d in decisions), default=0.0)
    return best > 0.5, best


def attribution(
    clause: Vector,
    clause_text: str,
    turn: Vector,
    speaker: str,
    turns: int = 1,
    models: TruthModels | None = None,
    turn_text: str | None = None,
) -> Decision:
    """Whose fact a clause states.

    Args:
        clause: ``(d,)`` vector of the clause.
        clause_text: the clause.
        turn: ``(d,)`` vector of the whole turn holding it.
        speaker: who said the turn.
        turns: turns of context (1-4).
        turn_text: the whole turn (default: the clause, for a clause that is the turn).

    Returns:
        a `Decision` over `kgmem.truth.corpus.ATTRIBUTION_LABELS`.
    """
    feats = attribution_features(
        _matrix(clause),
        _matrix(turn),
        [speaker],
        [turns],
        [clause_text],
        [clause_text if turn_text is None else turn_text],
    )
    return _decide((models or shipped_models()).attribution, feats)[0]
