"""Memory requests the trained request decision finds where the grammar finds none.

The grammar (`kgmem.ingest.requests.grammar`) knows the verbs and shapes it was written for; a
request in other words ("could you drop everything about my old gym", "scrap what you have on
my landlord and put down the new one") passes it by. For each user turn the grammar leaves
alone, the request decision (`kgmem.truth.decisions.memory_request`, the turn and the turn before
it) is asked; when it says ``forget``, ``dont_keep`` or ``forget_replace`` with a calibrated
probability of at least `THRESHOLD`, the turn is treated as that request:

- ``dont_keep``: the turn is withheld, as the grammar's "don't save this".
- ``forget`` and ``forget_replace``: the topic comes from the grammar's own span logic applied to
  any verb of the turn (`kgmem.ingest.requests.grammar.forget_topic`), else from the turn's nouns,
  names and numbers that name a thing (not a pronoun, a quantifier or the memory itself). It is
  matched against the earlier turns exactly as a grammar request's topic
  (`kgmem.ingest.requests.rules`).
  A ``forget_replace`` turn also states the new value, so it stays an ordinary turn (its facts
  are kept); a ``forget`` turn is stored as a request, without facts.

A ``none`` (or any other class) never removes a request the grammar found: the decision is
only asked where the grammar found nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from kgmem.ingest.requests.grammar import (
    MEMORY_NOUNS,
    QUANTIFIERS,
    ParsedRequest,
    forget_topic,
    values,
)

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["ACTS", "THRESHOLD", "addressed", "decide_requests", "decided_topic"]

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]

THRESHOLD = 0.9
"""Least calibrated probability of an acting class; chosen on the corpus's dev split (w5) as
the lowest threshold whose precision (the predicted class is the gold class) is at least 0.95
(docs/truth.md)."""

ACTS = {"forget": "forget", "dont_keep": "withhold", "forget_replace": "forget"}
"""The decision's classes that act, and the grammar's request kind each becomes."""

_NOT_TOPIC = MEMORY_NOUNS | QUANTIFIERS | {"thing", "stuff", "something", "lot", "bit", "time"}
"""Nouns that name no thing to forget ("all that stuff", "your notes")."""
_TOPIC_POS = frozenset({"NOUN", "PROPN", "NUM"})
_SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "u", "ur"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})


def addressed(doc: Doc) -> bool:
    """The turn speaks to the assistant: it holds a second-person word, or one of its sentences
    is in the imperative (its root a bare verb without a subject). The guard on a decided
    ``forget_replace``, never a trigger: "New phone, new number: ... The old one is dead."
    states a new value and asks nothing, though the decision may read it as forget-and-replace
    (the class nearest a plain update). `kgmem.truth.train` chooses `THRESHOLD` with it."""
    if any(t.lower_ in _SECOND_PERSON for t in doc):
        return True
    return any(
        s.root.tag_ == "VB" and not any(c.dep_ in _SUBJECTS for c in s.root.children)
        for s in doc.sents
    )


def decided_topic(doc: Doc) -> str:
    """What a decided forget request is about: the grammar's topic of any verb of the turn
    (`forget_topic`), else the turn's nouns, names and numbers that name a thing (not a
    pronoun, a quantifier or the memory itself), in order; empty when none. (Noun phrases alone
    miss a phrase the small parser leaves unattached: "..., the Ironworks membership?".)"""
    for token in doc:
        if token.pos_ == "VERB":
            topic = forget_topic(token)
            if topic:
                return topic
    words = [
        t.text
        for t in doc
        if t.pos_ in _TOPIC_POS
        and not t.is_stop
        and str(t.lemma_).lower() not in _NOT_TOPIC
        and t.lower_ not in _NOT_TOPIC
    ]
    return " ".join(dict.fromkeys(words)).strip()


def decide_requests(
    turns: Sequence[tuple[str, str, str | None]],
    *,
    nlp: Language,
    embed: Embed,
    threshold: float = THRESHOLD,
) -> dict[str, ParsedRequest]:
    """The decided requests among ``turns`` (pure but for the shipped weights).

    Args:
        turns: ``(turn id, text, previous turn's text or None)`` of each user turn the grammar
            found no request in.
        nlp: the spaCy pipeline (for the topic of a forget).
        embed: the sentence embedder's ``encode`` (rows unit-norm).
        threshold: least calibrated probability of an acting class (`THRESHOLD`).

    Returns:
        turn id -> the request to apply (``ParsedRequest.decided`` holds the class and its
        probability), for the turns decided to be an acting request (a ``forget_replace`` only
        when it speaks to the assistant, `addressed`); a forget whose topic is empty is left
        out: there is nothing to match.

    Raises:
        TruthWeightsInvalid: the shipped weights do not load.
    """
    from kgmem.truth.decisions import memory_request

    if not turns:
        return {}
    texts = sorted({t for _, text, prev in turns for t in (text, prev) if t})
    vectors = dict(zip(texts, embed(texts), strict=True))
    out: dict[str, ParsedRequest] = {}
    for turn_id, text, prev in turns:
        decision = memory_request(vectors[text], text, vectors[prev] if prev else None)
        if decision.label not in ACTS or decision.score < threshold:
            continue
        doc = nlp(text)
        if decision.label == "forget_replace" and not addressed(doc):
            continue
        decided = (decision.label, round(decision.score, 4))
        if ACTS[decision.label] == "withhold":
            out[turn_id] = ParsedRequest("withhold", decided=decided)
            continue
        topic = decided_topic(doc)
        if topic:
            out[turn_id] = ParsedRequest("forget", topic, values(topic), decided)
    return out
