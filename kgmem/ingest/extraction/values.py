"""Typed values: what kind of value a fact's object is (a person, a date, an e-mail address …).

`value_type` reads a value's type from, in order:

1. **patterns** for the formats spaCy's English NER does not tag (`PATTERNS`): e-mail
   addresses, URLs, phone numbers (at least seven digits in groups, an optional ``+`` country
   code), amounts of money (a currency sign or code or word next to a number), clock times,
   dates written as ordinals or with a month name, bare numbers;
2. the **entity type** the extractor gave the object (`kgmem.models.EntityType`, itself from
   spaCy's entity labels by `kgmem.ingest.extraction.entities.ner_type`): ``person``, ``place``,
   ``organization``, ``work``, ``date``; a ``concept`` or ``other`` entity is ``other``.

The spellings are those of `kgmem.models.EntityType` where both exist, so a value typed from an
entity and a value typed by a pattern compare equal.

`ValueType` is the one list of value types: `VALUE_TRAITS` says, once per type, what the code
does with it, and every set of types the code uses is `types_with` a trait (or `FORM_TYPES`,
the types a pattern reads) rather than a hand list; ``kgmem/data/attributes.json`` may name only
these types (`kgmem.ingest.extraction.attributes.vocabulary` checks on load).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, get_args

__all__ = [
    "FORM_TYPES",
    "PATTERNS",
    "VALUE_TRAITS",
    "VALUE_TYPES",
    "ValueTrait",
    "ValueType",
    "find_values",
    "types_with",
    "value_type",
]

ValueType = Literal[
    "person",
    "place",
    "organization",
    "work",
    "product",
    "name",
    "date",
    "time",
    "money",
    "number",
    "email",
    "phone",
    "url",
    "other",
]
VALUE_TYPES: tuple[ValueType, ...] = get_args(ValueType)

ValueTrait = Literal["entity", "proper", "whole", "distinctive", "stated", "copula", "self_naming"]
VALUE_TRAITS: Mapping[ValueType, frozenset[ValueTrait]] = MappingProxyType(
    {
        "person": frozenset({"entity", "proper"}),
        "place": frozenset({"entity"}),
        "organization": frozenset({"entity", "proper"}),
        "work": frozenset({"entity", "distinctive"}),
        "product": frozenset(),
        "name": frozenset(),
        "date": frozenset({"entity", "stated", "copula"}),
        "time": frozenset(),
        "money": frozenset({"whole", "distinctive", "stated"}),
        "number": frozenset({"stated", "copula"}),
        "email": frozenset({"whole", "distinctive", "stated", "self_naming"}),
        "phone": frozenset({"whole", "distinctive", "stated", "self_naming"}),
        "url": frozenset({"whole", "distinctive", "stated", "self_naming"}),
        "other": frozenset(),
    }
)
"""What the code does with each `ValueType` (one entry per type, the only place types are
grouped):

- ``entity``: the type of an extractor entity of the same name (`value_type` reads it off an
  entity id);
- ``proper``: a named entity type spaCy's small model also gives one-word titles
  (`kgmem.ingest.extraction.attributes` re-reads such a value as a ``work`` when the sentence
  shows a title);
- ``whole``: a pattern match over half the value or more types the whole value;
- ``distinctive``: only some attributes take it, so a verb shared with one of their predicates
  and the type name the attribute;
- ``stated``: `kgmem.ingest.extraction.value_statements` reads it next to an attribute noun;
- ``copula``: it may follow a copula there ("the flight is on the 16th");
- ``self_naming``: the value alone says which attribute it is of (an e-mail address).
"""


def types_with(trait: ValueTrait) -> frozenset[ValueType]:
    """The value types that have ``trait`` (see `VALUE_TRAITS`), e.g. ``types_with("whole")``
    → email, phone, url, money."""
    return frozenset(kind for kind, traits in VALUE_TRAITS.items() if trait in traits)


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_ORDINAL = r"(?:[12]?[0-9]|3[01])(?:st|nd|rd|th)"
_CURRENCY = (
    r"(?:[$€£¥₹]|usd|eur|gbp|chf|euros?|dollars?|pounds?|francs?|yen|rupees?|bucks|quid"
    r"|kr|sek|nok|dkk|pln|zloty)"
)
_NUMBER = r"\d{1,3}(?:[,.\s]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?(?:\s?[km]\b)?"

PATTERNS: tuple[tuple[ValueType, re.Pattern[str]], ...] = (
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+|\b[\w-]+\.(?:com|org|net|io|dev)/\S*")),
    (
        "money",
        re.compile(
            rf"(?:{_CURRENCY}\s?(?:{_NUMBER}))|(?:\b(?:{_NUMBER})\s?{_CURRENCY}\b)", re.IGNORECASE
        ),
    ),
    ("date", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    ("phone", re.compile(r"(?<![\w-])\+?\(?\d[\d()]{0,5}(?:[\s.-]?\d{2,5}){2,4}(?![\w-])")),
    (
        "time",
        re.compile(
            r"\b(?:[01]?\d|2[0-3])(?::[0-5]\d)\s?(?:am|pm)?\b|\b\d{1,2}\s?(?:am|pm)\b", re.I
        ),
    ),
    (
        "date",
        re.compile(
            rf"\b(?:(?:the\s+)?{_ORDINAL}(?:\s+of\s+{_MONTH})?|{_MONTH}\s+{_ORDINAL}"
            rf"|{_MONTH}\s+\d{{1,2}}\b|\d{{1,2}}\s+{_MONTH}|\d{{4}}-\d{{2}}-\d{{2}}|{_WEEKDAY}"
            rf"|(?:next|this|last)\s+(?:week|month|year|{_WEEKDAY})|tomorrow|tonight|today)\b",
            re.IGNORECASE,
        ),
    ),
    ("number", re.compile(r"\b(?=[A-Z0-9-]*\d[A-Z0-9-]*\d[A-Z0-9-]*\d)[A-Z0-9]+(?:-[A-Z0-9]+)+\b")),
    ("number", re.compile(r"\b\d+(?:[.,]\d+)?\b")),
)
"""Value formats by pattern, most specific first (an e-mail address before a URL, money before
a phone number, a phone number before a bare number)."""

FORM_TYPES: frozenset[ValueType] = frozenset(kind for kind, _ in PATTERNS)
"""The value types a pattern reads (`find_values`): a value of one of them is recognised by its
form alone (date, time, money, number, e-mail, phone, URL)."""
_WHOLE = types_with("whole")

_ENTITY_TYPE = re.compile(r":e:(?P<type>[a-z]+):")
_BY_ENTITY: dict[str, ValueType] = {kind: kind for kind in types_with("entity")}
_DIGITS = re.compile(r"\d")
_LEAD = re.compile(r"^(?:(?:at|on|in|for|by|to|is|of|about|around)\s+)+", re.IGNORECASE)


def _phone_like(text: str) -> bool:
    return len(_DIGITS.findall(text)) >= 7


def find_values(text: str) -> list[tuple[ValueType, int, int, str]]:
    """Every pattern-typed value in ``text``, left to right, non-overlapping (the most
    specific pattern wins where two overlap).

    Returns:
        ``(value_type, start, end, surface)`` per value; a "phone" needs seven digits or more.
    """
    taken: list[tuple[int, int]] = []
    out: list[tuple[ValueType, int, int, str]] = []
    for kind, pattern in PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            surface = m.group(0).strip()
            if not surface or any(start < b and a < end for a, b in taken):
                continue
            if kind == "phone" and not _phone_like(surface):
                continue
            taken.append((start, end))
            out.append((kind, start, end, surface))
    return sorted(out, key=lambda v: v[1])


def value_type(value: str, *, entity_id: str | None = None) -> ValueType:
    """The type of one value.

    Args:
        value: the value's surface text ("lena@example.org", "the 16th", "Lakeview Clinic").
        entity_id: the value's canonical entity id, if it is an entity
            (``<cid>:e:<type>:<slug>``); its type is used when no pattern matches the whole
            value.

    Returns:
        A `ValueType`; ``other`` when nothing types it.
    """
    text = _LEAD.sub("", value.strip())
    for kind, start, end, _ in find_values(text):
        covered = text[:start].strip(" ,;:") == "" and len(text[end:].strip(" .,;:!?")) <= 2
        strong = kind in _WHOLE and (end - start) >= len(text) // 2
        if covered or strong:
            return kind
    if entity_id is not None and (m := _ENTITY_TYPE.search(entity_id)):
        return _BY_ENTITY.get(m["type"], "other")
    return "other"
