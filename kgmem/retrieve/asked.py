"""The attribute a question asks for, read with the attribute vocabulary of
`kgmem.ingest.extraction.attributes` (the same data the facts were read with).

`asked_attribute` finds, in order:

1. an **attribute noun of a thing**: "the name of my dog", "my daughter's name", "what breed
   is the user's dog" (attribute ``name`` / ``breed``, thing ``dog`` / ``daughter``);
2. an **attribute noun of a person**: "my email address", "Lena's phone number", "my passport
   number", "my flight" asked with *when* (the date of a planned thing);
3. a **possession**: "what shoes does the user own" (attribute ``owned``, thing ``shoes``);
4. the attribute whose **question words** the question uses: "what does Dan do for work"
   (``employer`` and ``occupation`` both answer it), "where does she live" (``residence``).

Only readings 1-3 are *explicit*: they name what must be in memory for the question to be
answerable (`kgmem.retrieve.answerable.attribute_verdict`); reading 4 only lets a fact of that
attribute support the question without sharing its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgmem.ingest.extraction.attributes import Attribute, vocabulary

__all__ = ["AskedAttribute", "asked_attribute"]

_OWNER = r"(?:my|our|the\s+user's|(?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*'s|his|her|their)"
_OF_THING = re.compile(
    rf"\b(?:the\s+)?(?P<attr>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+of\s+{_OWNER}\s+"
    r"(?P<thing>[a-z][\w-]*)\b"
)
_THINGS_ATTR = re.compile(rf"\b{_OWNER}\s+(?P<thing>[a-z][\w-]*)'s\s+(?P<attr>[a-z][\w-]*)\b")
_ATTR_IS_THING = re.compile(
    rf"^\s*(?:what|which)\s+(?P<attr>[a-z][\w-]*)\s+(?:is|are|was|were)\s+{_OWNER}\s+"
    r"(?P<thing>[a-z][\w-]*)\b",
    re.IGNORECASE,
)
_OWN_NOUN = re.compile(rf"\b{_OWNER}\s+(?P<noun>(?:[a-z][\w-]*\s+){{0,2}}[a-z][\w-]*)")
_POSSESSION = re.compile(
    r"^\s*(?:what|which)\s+(?P<thing>(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*)\s+(?:does|do|did)\s+"
    rf"(?:{_OWNER[3:-1]}|the\s+user|[A-Z][\w-]*|i|we|you|he|she|they)\s+"
    r"(?P<verb>own|have|drive|wear|use)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z][a-z'-]*")


@dataclass(frozen=True)
class AskedAttribute:
    """What a question asks for.

    Attributes:
        attribute: the vocabulary attribute id (``name``, ``email``, ``owned`` …).
        value_type: the value type expected (the attribute's first allowed type).
        thing: the thing the attribute is of ("dog", "daughter", "shoes"), if any.
        explicit: the question names the attribute (readings 1-3 of the module docstring).
        also: further attributes that answer it (``occupation`` beside ``employer``).
    """

    attribute: str
    value_type: str
    thing: str | None = None
    explicit: bool = True
    also: tuple[str, ...] = ()


def _named(noun: str) -> Attribute | None:
    found = vocabulary().noun(noun)
    return found[0] if found is not None else None


def _ask(attribute: Attribute, thing: str | None, explicit: bool = True) -> AskedAttribute:
    return AskedAttribute(attribute.id, attribute.value_types[0], thing, explicit)


def asked_attribute(text: str) -> AskedAttribute | None:
    """The attribute ``text`` asks for (module docstring), or None."""
    vocab = vocabulary()
    low_start = text.lstrip().lower()
    for pattern in (_OF_THING, _THINGS_ATTR, _ATTR_IS_THING):
        m = pattern.search(text)
        if m is None:
            continue
        attribute = _named(m["attr"].lower())
        if attribute is not None and attribute.per_thing:
            return _ask(attribute, m["thing"].lower())
    for m in _OWN_NOUN.finditer(text):
        noun = " ".join(w for w in m["noun"].lower().split() if w not in _AFTER_NOUN)
        words = noun.split()
        lead = vocab.by_noun.get(words[0]) if words else None
        if lead is not None and lead.per_thing and len(words) > 1:  # "favorite book"
            return _ask(lead, words[-1])
        # the longest prefix of the phrase that the vocabulary names: "email address"
        for size in range(len(words), 0, -1):
            attribute = _named(" ".join(words[:size]))
            if attribute is None:
                continue
            if attribute.id == "scheduled_date" and not low_start.startswith(("when", "what day")):
                break
            thing = "-".join(words[:size]) if attribute.per_thing and size > 1 else None
            if attribute.per_thing and thing is None:
                thing = words[size - 1]
            return _ask(attribute, thing)
    if m := _POSSESSION.search(text):
        thing = m["thing"].lower().split()[-1]
        return _ask(vocab.attributes["owned"], thing)
    said = set(_WORD.findall(text.lower()))
    named = [a for a in vocab.attributes.values() if set(a.questions) & said]
    if named and not any(a.id in ("scheduled_date", "likes", "owned") for a in named[:1]):
        first = named[0]
        return AskedAttribute(
            first.id,
            first.value_types[0],
            None,
            False,
            tuple(a.id for a in named[1:]),
        )
    return None


def _word_set(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


_AFTER_NOUN = _word_set(
    "to from in at for with on of is are was were be do does did now currently these days"
)
