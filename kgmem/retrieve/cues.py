"""The surface cues a question is read by: generic English patterns for dates, relations,
states, counts, lists, comparisons and the answer slot (docs/design.md §3.1).

The cue lists were written from the LoCoMo question taxonomy (Maharana et al., ACL 2024:
single-hop, multi-hop, temporal, open-domain) and are generic English; nothing is specific to a
conversation. `kgmem.retrieve.question` applies them.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from kgmem.time import MONTH_ABBREVIATIONS, MONTHS, NUMBERS, SEASONS, WEEKDAYS

__all__ = ["OPERATORS", "Operator", "Order", "Relation", "Slot", "State"]

Operator = Literal[
    "semantic",
    "entity",
    "temporal",
    "current_value",
    "multi_hop",
    "chain",
    "aggregate",
    "inference",
]
OPERATORS: tuple[Operator, ...] = get_args(Operator)
Slot = Literal[
    "time", "duration", "place", "person", "count", "reason", "manner", "thing", "yes_no", "other"
]
Relation = Literal["after", "before", "during", "between"]
Order = Literal["earliest", "latest"]
State = Literal["current", "past"]


# --------------------------------------------------------------------------------------------
# surface cues (generic English; LoCoMo question taxonomy)
# --------------------------------------------------------------------------------------------

# full month names ("Jan" is often a name)
QUESTION_MONTHS = MONTHS | {"sept": MONTH_ABBREVIATIONS["sept"]}
AMBIGUOUS_MONTHS = {"may", "march"}  # also verbs: need a date context or a mid-sentence capital

_NUMBER_ALT = "|".join(
    sorted((w for w, n in NUMBERS.items() if 0 < n <= 30), key=len, reverse=True)
)
_SEASON_ALT = "|".join(SEASONS)
_MONTH_ALT = "|".join(sorted(QUESTION_MONTHS, key=len, reverse=True))
_PREP = r"in|during|since|until|by|before|after|of|on|early|late|mid|around|last|this|next"
DATE = re.compile(
    rf"(?:\b(?P<prep>{_PREP})\s+(?:the\s+)?)?"
    rf"(?:(?P<dbefore>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?"
    rf"\b(?P<month>{_MONTH_ALT})\b\.?"
    rf"(?:\s+(?P<dafter>\d{{1,2}})(?:st|nd|rd|th)?\b)?"
    rf"(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)
YEAR = re.compile(r"(?<![\d/:-])\b(?:19|20)\d\d\b(?![\d/:])")
WEEKDAY = re.compile(rf"\b({'|'.join(WEEKDAYS)})s?\b", re.IGNORECASE)
SEASON = re.compile(
    r"\b(?:(?P<prep>in|during|the|this|last|next|over)\s+)?"
    rf"(?P<season>{_SEASON_ALT})\b",
    re.IGNORECASE,
)
SEASON_YEAR = re.compile(rf"(?:{_SEASON_ALT})\s+(?:of\s+)?(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE)
RELATIVE = re.compile(  # cues only: `kgmem.time` resolves them
    r"\b(?P<which>last|this|past|previous)\s+(?P<unit>year|month|week|weekend)\b"
    r"|\b(?P<n>\d{1,3}|"
    + _NUMBER_ALT
    + r"|(?:a\s+)?couple\s+of|(?:a\s+)?few)\s+(?P<unit2>year|month|week|day)s?\s+"
    r"(?:ago|before|earlier)\b"
    r"|\bthe\s+(?P<unit3>year|month|week|weekend|day)\s+before\b"
    r"|\b(?P<day>yesterday|today)\b",
    re.IGNORECASE,
)
RELATION = re.compile(
    r"\b(?P<word>after|before|prior\s+to|since|until|during|while|around|between|when)\b"
    r"(?=\s+(?P<anchor>[^?.!;,]*))",
    re.IGNORECASE,
)
RELATION_MAP: dict[str, Relation] = {
    **dict.fromkeys(("after", "since"), "after"),
    **dict.fromkeys(("before", "prior to", "until"), "before"),
    **dict.fromkeys(("during", "while", "around", "when"), "during"),
    "between": "between",
}

_C = re.IGNORECASE
CURRENT = re.compile(
    r"\b(still|now|nowadays|currently|current|anymore|these\s+days|"
    r"at\s+the\s+moment|at\s+present|presently)\b",
    _C,
)
LATEST = re.compile(
    r"\b(most\s+recent(ly)?|recently|recent|latest|newest|last\s+time|"
    r"the\s+last(?!\s+(year|month|week|weekend|day|night|summer|winter|"
    r"spring|fall|autumn|few|couple)))\b",
    _C,
)
PAST = re.compile(
    r"\b(did|was|were|had|used\s+to|previously|formerly|before|earlier|back\s+then|"
    r"in\s+the\s+past|originally|at\s+first)\b",
    _C,
)
PRESENT = re.compile(r"\b(does|do|is|are|am|has|have)\b", _C)
LAST_WEEKDAY = re.compile(rf"\blast\s+({'|'.join(WEEKDAYS)})\b", _C)
FIRST = re.compile(r"\b(first|earliest|initially|originally)\b", _C)
COUNT = re.compile(
    r"\b(how\s+many|how\s+much|how\s+often|how\s+frequently|number\s+of|"
    r"(?:many|multiple|several|\d+|two|three|four|five)\s+times|every|"
    r"all\s+the|list)\b",
    _C,
)
# "what <plural noun> has X done", "what kinds of X does Y", "what are X's Ys", "where has X
# been": answers gathered over several turns (most LoCoMo multi-hop questions are of this kind).
LIST = re.compile(
    r"\b(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\s+(?:[\w+-]+\s+){1,2}"
    r"|(?:[\w+-]+\s+)?[a-z][\w+-]*[^s'\W]s(?:/\w+)?\s+)"
    r"(?:has|have|had|does|do|did|is|are|were)\b|^\W*what\s+are\b"
    r"|^\W*(?:what|where|which|who)\s+(?:(?!(?:do|does|did|is|are|was|were|when|while|if|that"
    r"|he|she|they|it|i|we|you)\s)[\w+.'/-]+\s+){0,4}?(?:has|have)\s",
    _C,
)
INFERENCE = re.compile(
    r"\b(would|might|likely|unlikely|probably|possibly|could|considered|"
    r"personality|traits?|attributes?|if)\b",
    _C,
)
BOTH = re.compile(
    r"\b(both|in\s+common|same|similar|differ(?:ent|ence)?|each\s+other|"
    r"compared?\s+(?:to|with))\b",
    _C,
)
COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|better|worse|\w{3,}er)\s[^?]{0,80}?\bthan\b"
    r"|\b(?:more|less)\s[^?]{0,80}?\bor\b",
    _C,
)
RELATIVE_CLAUSE = re.compile(
    r"\b(?:the|a|an|that|this|her|his|their)\s+(?:[\w-]+\s+){1,3}?"
    r"(?:that|who|which|whom|whose)\s+\w+",
    _C,
)
POSSESSIVE_CHAIN = re.compile(
    r"(?:\w(?:'s|s')|\b(?:her|his|their))\s+(?:[\w-]+\s+){0,2}?"
    r"[\w-]+(?:'s|s')(?!\w)",
    _C,
)
NAME_PAIR = re.compile(r"\b[A-Z][\w'-]+\s+and\s+[A-Z][\w'-]+")
AUX_START = re.compile(
    r"^\W*(do|does|did|is|are|was|were|would|will|can|could|has|have|"
    r"had|should|might|may|shall)\b",
    _C,
)
_SLOT_PATTERNS: tuple[tuple[str, Slot], ...] = (
    (r"\bhow\s+(many|much|often|frequently)\b", "count"),
    (r"\bhow\s+long\s+ago\b", "time"),
    (r"\bhow\s+long\b", "duration"),
    (r"\bwhen\b|\b(what|which)\s+(time|date|day|year|month|season|holiday|week|age)\b", "time"),
    (
        (
            r"\bwhere\b|\b(what|which)\s+(city|cities|country|countries|state|states|place"
            r"|places|town|area|areas|location|park|restaurant)\b"
        ),
        "place",
    ),
    (r"\b(who|whom|whose)\b", "person"),
    (r"\bwhy\b", "reason"),
    (r"\bhow\b", "manner"),
    (r"\b(what|which)\b", "thing"),
)
#: answer slots a relation chain can fill (an entity: who, where, what, which)
CHAIN_SLOTS: frozenset[Slot] = frozenset({"person", "place", "thing", "other"})
SLOTS = tuple((re.compile(pattern, _C), slot) for pattern, slot in _SLOT_PATTERNS)
