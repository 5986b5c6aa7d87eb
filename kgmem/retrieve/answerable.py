"""Answerability: does anything in memory support the question *for the person it names*?

A question is judged at the level of facts, not of the whole conversation's words: its key
content terms (`content_terms`: the question's words minus question words, function words,
generic verbs and nouns, and the names it resolves) are looked up, Snowball-stemmed, in the
*support* of the persons it names (``read/person_support``): the asserted or negated facts
whose subject is that person and the turns that person spoke (a turn whose only facts are
plans, hypotheticals, questions or reports does not count). A term found nowhere there is
*unsupported*. The question is unanswerable when at least `MIN_UNSUPPORTED` terms are
unsupported and they make up at least `UNSUPPORTED_SHARE` of its terms.

"What keyboard does Sol own?" is unanswerable when the only keyboard is an assistant's
suggestion (a hypothetical about Sol); "What is Uma's parrot called?" when only a dog is
known. LoCoMo's adversarial questions (category 5, Maharana et al., ACL 2024) mostly ask
about the *other* speaker, which is this case; the constants were chosen on the LoCoMo dev
split by leave-one-conversation-out (README "Answerability"). A question that names no person
is always answerable (nothing to check it against).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import snowballstemmer

__all__ = [
    "MIN_UNSUPPORTED",
    "UNSUPPORTED_SHARE",
    "Answerability",
    "content_terms",
    "judge",
    "stems",
    "support_stems",
]

#: an unanswerable question has at least this many unsupported terms ...
MIN_UNSUPPORTED = 1
#: ... making up at least this share of its content terms (dev-calibrated, see module docstring)
UNSUPPORTED_SHARE = 0.5

_STEMMER = snowballstemmer.stemmer("english")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = frozenset(
    """
    a an the and or but if of to in on at by for with from about into over after before
    during since until while as than then so too very just also not no yes
    what when where which who whom whose why how whats
    do does did done doing is are was were be been being am has have had having
    will would could should might may can shall must ought
    i me my mine we us our ours you your yours he him his she her hers they them their theirs
    it its this that these those there here someone something anything everything one ones
    get gets got getting go goes went going gone make makes made take takes took think
    thinks thought feel feels felt say says said tell told know knows knew want wants wanted
    like likes liked usually often ever still now currently these days anymore recently
    kind kinds type types sort sorts thing things stuff way ways lot lots time times
    name names named call calls called first last next new old many much more most some any
    all both each other another same different own
    person people favorite favourite
    """.split()
)
"""Function words, question words, generic verbs and nouns: never key content."""


def stems(words: Iterable[str]) -> list[str]:
    """Lower-cased Snowball English stems (possessive ``'s`` dropped)."""
    clean = [re.sub(r"'s?$", "", w.lower()) for w in words]
    return _STEMMER.stemWords([w for w in clean if w])


def content_terms(question: str, names: Sequence[str] = ()) -> list[str]:
    """The question's key content words, in order, de-duplicated (surface forms).

    Args:
        question: the question.
        names: surfaces of the entities the plan resolved (persons' names are not content).
    """
    named = {w.lower() for n in names for w in _WORD.findall(n)}
    out: dict[str, None] = {}
    for word in _WORD.findall(question):
        low = re.sub(r"'s?$", "", word.lower())
        if len(low) < 3 or low in _STOP or low in named:
            continue
        out.setdefault(low, None)
    return list(out)


@dataclass(frozen=True)
class Answerability:
    """The answerability decision for one question.

    Attributes:
        answerable: False when memory supports too little of the question for its person.
        unsupported: the content terms nothing about the person carries.
        terms: all content terms that were checked.
        persons: the names of the persons the question was checked against.
        reason: a short human-readable explanation.
    """

    answerable: bool
    unsupported: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    persons: tuple[str, ...] = ()
    reason: str = ""


def judge(
    question: str,
    persons: Sequence[str],
    names: Sequence[str],
    support: set[str],
    *,
    min_unsupported: int = MIN_UNSUPPORTED,
    share: float = UNSUPPORTED_SHARE,
) -> Answerability:
    """Decide answerability from the persons' support stems.

    Args:
        question: the question.
        persons: display names of the persons it names (empty: always answerable).
        names: every resolved entity surface in the question (excluded from the terms).
        support: Snowball stems of the persons' support texts (see `stems`).
        min_unsupported / share: the decision thresholds (defaults: the calibrated ones).
    """
    terms = content_terms(question, names)
    if not persons:
        return Answerability(True, (), tuple(terms), (), "names no person")
    if not terms:
        return Answerability(True, (), (), tuple(persons), "no content terms")
    unsupported = tuple(t for t, s in zip(terms, stems(terms), strict=True) if s not in support)
    bad = len(unsupported) >= min_unsupported and len(unsupported) / len(terms) >= share
    reason = (
        f"{len(unsupported)} of {len(terms)} key terms not in anything about "
        f"{', '.join(persons)}"
    )
    return Answerability(not bad, unsupported, tuple(terms), tuple(persons), reason)


def support_stems(texts: Iterable[str]) -> set[str]:
    """Stems of every word of ``texts`` (the support side of `judge`)."""
    out: set[str] = set()
    for text in texts:
        out.update(stems(_WORD.findall(text)))
    return out
