"""Word lists of the clause grammar (`kgmem.ingest.extraction.clause`): pronouns, dependency labels,
discourse and light words, contractions and the small closed classes the rules test against.

Each list is English closed-class vocabulary or a spaCy dependency-label set (the labels of
spaCy's English pipelines, ClearNLP style), not phrasing from any dataset.
"""

from __future__ import annotations

import re

__all__ = [
    "CHANGE_VERBS",
    "CLAUSE_DEPS",
    "CONTRACTIONS",
    "DISCOURSE",
    "DROP_DEPS",
    "EMPTY_WORDS",
    "FEELING",
    "FIRST",
    "INTENSIFIERS",
    "IRREGULAR_3SG",
    "LIGHT",
    "LIGHT_IDIOMS",
    "NONFACTUAL_HEADS",
    "OBJECT_CASE",
    "PLURAL_FIRST",
    "POSS_FIRST",
    "POSS_SECOND",
    "QUOTE_CHARS",
    "SECOND",
    "SPACED",
    "SPEECH_ACTS",
    "SUBJ_DEPS",
    "THIRD_SUBJECT",
    "TIME_PREPS",
    "TRAILING_CONJ",
    "VALUE_ENTS",
    "words",
]


def words(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


FIRST = frozenset({"i", "me", "myself", "we", "us", "ourselves"})
PLURAL_FIRST = frozenset({"we", "us", "ourselves"})
SECOND = frozenset({"you", "u", "yourself", "yourselves", "ya"})
POSS_FIRST = frozenset({"my", "mine", "our", "ours"})
POSS_SECOND = frozenset({"your", "yours", "ur"})
CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis"})
SUBJ_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
DROP_DEPS = frozenset({"intj", "punct", "cc", "parataxis", "discourse", "meta"})
DISCOURSE = words(
    "so well anyway anyways btw honestly actually also plus oh yeah now then and but totally "
    "definitely"
)
LIGHT = words(
    "be have do get go agree think guess know see mean say tell feel sound look seem bet hope "
    "wish want need let make keep try love like thank talk chat catch come happen"
)
SPEECH_ACTS = frozenset({"thank", "congratulate", "congrat", "welcome", "bye", "excuse"})
NONFACTUAL_HEADS = frozenset({"hope", "wish", "bet", "imagine", "suppose", "wonder", "if"})
FEELING = frozenset({"love", "like", "hate", "enjoy", "miss", "appreciate", "adore"})
EMPTY_WORDS = words(
    "cool great awesome nice good fun amazing sweet lovely wonderful fantastic incredible true "
    "right sure glad welcome okay ok interesting exciting special happy so really very too much "
    "such a an the that this it just pretty super totally all thing things stuff lot there here "
    "well"
)
CONTRACTIONS = {
    "n't": "not",
    "'ll": "will",
    "'m": "am",
    "'re": "are",
    "'ve": "have",
    "gon": "going",
    "wan": "want",
}
TRAILING_CONJ = re.compile(r"[\s,]+(and|but|or|yet|so|because|cause|'cause|as|while)$", re.I)
SPACED = frozenset({*CONTRACTIONS, "'d", "'s", "na"})
OBJECT_CASE = frozenset({"me", "us", "him", "them", "her"})
INTENSIFIERS = r"^((so|really|very|super|truly|pretty|totally|such|a|an|the)\s+)+"
IRREGULAR_3SG = {
    "be": "is",
    "am": "is",
    "'m": "is",
    "are": "is",
    "'re": "is",
    "have": "has",
    "'ve": "has",
    "do": "does",
    "go": "goes",
    "were": "was",
    "wanna": "wants to",
    "gotta": "has to",
}

QUOTE_CHARS = frozenset("\"'`\u2018\u2019\u201c\u201d")

VALUE_ENTS = frozenset({"MONEY", "QUANTITY", "CARDINAL", "PERCENT", "TIME", "DATE", "ORDINAL"})

LIGHT_IDIOMS: dict[str, frozenset[str]] = {
    "do": frozenset({"job", "favor", "favour", "best", "trick", "justice"}),
    "take": frozenset({"care", "part", "place", "turn", "turns", "advantage", "note"}),
    "make": frozenset({"sense", "difference", "point", "effort", "use", "progress"}),
    "pay": frozenset({"attention", "tribute", "visit"}),
}
"""Light-verb idioms whose object names nothing ("doing an awesome *job*", "take *care*", "make a
*difference*"): no `concept` entity (the fact itself is kept)."""

TIME_PREPS = frozenset({"since", "until", "till", "after", "before", "during", "throughout"})
"""Prepositions whose object is a time or occasion ("since our last *chat*", "after the
*drive*"): no `concept` entity."""

CHANGE_VERBS = frozenset({"move", "relocate", "switch", "change", "transfer", "go", "convert"})

THIRD_SUBJECT = frozenset({"he", "she", "they"})
