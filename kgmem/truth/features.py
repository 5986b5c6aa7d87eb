"""Feature vectors of the four truth decisions, built from what the product already computes.

Every input text is represented by its MiniLM vector (`kgmem.embed.Embedder`, unit norm, 384-d),
the vectors the write and read paths have anyway; speakers by their role. Pure numpy, no model
and no word list: the cue words a rule would test are what the trained weights learn from the
vectors (the corpus, `corpus/truth/`, is written so that a cue word alone does not decide).

Shapes (``d`` the embedding dimension, 384 for MiniLM):

- `relation_features`: ``[stored, new, stored - new, stored * new, cos]`` -> ``4d + 1``.
- `request_features`: ``[last, previous or 0, has_previous]`` -> ``2d + 1``.
- `answer_features`: ``[q, f, q * f, |q - f|, cos, role(q), role(f)]`` -> ``4d + 7``.
- `attribution_features`: ``[clause, turn, role(turn), turns / 4]`` -> ``2d + 4``.

Each accepts a batch (leading axis ``n``) so one call scores all of a statement's candidates.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]

ROLES = ("user", "assistant")
"""Speaker roles with their own feature; any other speaker (a name in a group chat) is 'other'."""


def role_vector(speakers: list[str]) -> Matrix:
    """One-hot role per speaker: shape ``(n, 3)`` (user, assistant, other)."""
    out = np.zeros((len(speakers), len(ROLES) + 1), dtype=np.float32)
    for i, speaker in enumerate(speakers):
        name = speaker.strip().lower()
        out[i, ROLES.index(name) if name in ROLES else len(ROLES)] = 1.0
    return out


def _cos(a: Matrix, b: Matrix) -> Matrix:
    out: Matrix = np.sum(a * b, axis=1, keepdims=True, dtype=np.float32)
    return out


def relation_features(stored: Matrix, new: Matrix) -> Matrix:
    """Features of (stored fact, new statement) pairs: ``(n, 4d + 1)`` float32.

    Args:
        stored: ``(n, d)`` unit vectors of the stored facts' texts.
        new: ``(n, d)`` unit vectors of the new statement (the same row repeated for candidates).
    """
    return np.hstack([stored, new, stored - new, stored * new, _cos(stored, new)]).astype(
        np.float32
    )


def request_features(last: Matrix, previous: Matrix | None) -> Matrix:
    """Features of user turns classified as memory requests: ``(n, 2d + 1)`` float32.

    Args:
        last: ``(n, d)`` vectors of the user turn that is classified.
        previous: ``(n, d)`` vectors of the turn before it (zero rows where there is none), or
            None when no turn has one.
    """
    n, d = last.shape
    if previous is None:
        previous = np.zeros((n, d), dtype=np.float32)
    has = (np.abs(previous).sum(axis=1, keepdims=True) > 0).astype(np.float32)
    return np.hstack([last, previous, has]).astype(np.float32)


def answer_features(
    question: Matrix, facts: Matrix, asker: list[str], speakers: list[str]
) -> Matrix:
    """Features of (question, fact) pairs: ``(n, 4d + 7)`` float32.

    Args:
        question: ``(n, d)`` or ``(1, d)`` question vectors (broadcast over the facts).
        facts: ``(n, d)`` fact vectors.
        asker: the question's speaker, one per row or one for all.
        speakers: each fact's speaker, one per row.
    """
    q = np.broadcast_to(question, facts.shape)
    asked = role_vector(asker if len(asker) == len(facts) else asker[:1] * len(facts))
    return np.hstack(
        [q, facts, q * facts, np.abs(q - facts), _cos(q, facts), asked, role_vector(speakers)]
    ).astype(np.float32)


def attribution_features(
    clause: Matrix, turn: Matrix, speakers: list[str], turns: list[int]
) -> Matrix:
    """Features of clauses to attribute: ``(n, 2d + 4)`` float32.

    Args:
        clause: ``(n, d)`` vectors of the clauses.
        turn: ``(n, d)`` vectors of the whole turn each clause is in.
        speakers: who said each turn.
        turns: how many turns of context each has (1-4).
    """
    count = np.asarray(turns, dtype=np.float32).reshape(-1, 1) / 4.0
    return np.hstack([clause, turn, role_vector(speakers), count]).astype(np.float32)
