"""Facts as attribute values: which attribute of whom a fact gives a value of, and of what type.

The vocabulary is data (`VOCABULARY_FILE`, ``kgmem/data/attributes.json``): attributes of
everyday personal and work life (residence, employer, occupation, phone, e-mail, partner,
children, pets, a pet's name and breed, what someone is reading, their usual drink, diet,
owned things, the date of a planned thing, a budget, …), each with the predicates and nouns
that state it, the value types it allows and whether it is single- or multi-valued. Attribute
ids are the families of `kgmem.ingest.extraction.supersession`, which derives its families,
their multiplicity and words from this file: one scheme, one key space.

`read_fact` gives one extracted fact its attribute, value and value type, trying in order:

1. **a possessive subject** ("Lena's mobile is 0176 …", "my flat in Leuven is tiny"): the
   head noun of the possessed phrase names the attribute (``nouns``); the holder is the
   owner, not the phrase;
2. **a listed predicate**: the relation's verb phrase (``live_in`` → "live in"), alone, with
   the object's head noun ("sign contract"), with the preposition after it, or a copula's
   preposition inside the object ("a nurse *at* X" → "be at");
3. **a similar predicate**: the same phrases against every listed predicate by embedding
   cosine (all-MiniLM-L6-v2, the ``attribute_similarity`` setting), when an encoder is given;
4. else a **derived** attribute: verb lemma plus preposition or the object's head noun
   (``unsubscribe_from``, ``sign_contract``), which keys nothing.

A listed attribute is kept only when a value of a type it allows is found: the object, an
object-side entity of the fact, or a word of the attribute's ``values`` ("coffee" for a
drink). Types come from `kgmem.ingest.extraction.values`.

Statements a clause parse misses but whose value has a recognisable form are read by
`kgmem.ingest.extraction.value_statements.ValueExtractor`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np

from kgmem.config import shipped_default
from kgmem.ingest.extraction.entities import ABSTRACT, is_abstract_noun
from kgmem.ingest.extraction.values import VALUE_TYPES, ValueType, types_with, value_type
from kgmem.models import FactRecord
from kgmem.store.tenant import key_holder

__all__ = [
    "VOCABULARY_FILE",
    "Attribute",
    "AttributeValue",
    "Vocabulary",
    "assign_attributes",
    "attribute_key",
    "read_fact",
    "thing_of",
    "vocabulary",
]

VOCABULARY_FILE = Path(__file__).resolve().parents[2] / "data" / "attributes.json"

Multiplicity = Literal["single", "multi"]
Encode = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Attribute:
    """One vocabulary entry (see ``kgmem/data/attributes.json``'s ``about``)."""

    id: str
    multiplicity: Multiplicity
    value_types: tuple[ValueType, ...]
    predicates: tuple[str, ...] = ()
    nouns: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    per_thing: bool = False
    evidence: tuple[str, ...] = ()
    relations: tuple[str, ...] = ()
    state_words: tuple[str, ...] = ()

    def allows(self, kind: str) -> bool:
        """Whether a value of type ``kind`` can be this attribute's value."""
        return kind in self.value_types

    def value_word(self, text: str) -> str | None:
        """The longest of the attribute's ``values`` that occurs in ``text`` as words."""
        low = f" {' '.join(_WORDS.findall(text.lower()))} "
        found = [v for v in self.values if f" {v} " in low]
        return max(found, key=len) if found else None


class Vocabulary:
    """The attributes and their lookups (predicate → attributes, noun → attribute)."""

    def __init__(self, attributes: Sequence[Attribute]) -> None:
        self.attributes = {a.id: a for a in attributes}
        self.by_predicate: dict[str, list[Attribute]] = {}
        self.by_noun: dict[str, Attribute] = {}
        for a in attributes:
            for p in a.predicates:
                self.by_predicate.setdefault(p, []).append(a)
            for n in a.nouns:
                self.by_noun.setdefault(n, a)
        self.predicates = tuple(self.by_predicate)
        self._vectors: np.ndarray | None = None

    def noun(self, phrase: str) -> tuple[Attribute, str] | None:
        """The attribute the head of a noun phrase names, and the matched noun (longest
        match at the phrase's end: "passport number" before "number")."""
        words = _WORDS.findall(phrase.lower())
        for size in (3, 2, 1):
            if len(words) >= size:
                tail = " ".join(words[-size:])
                if tail in self.by_noun:
                    return self.by_noun[tail], tail
                if size == 1 and tail.endswith("s") and tail[:-1] in self.by_noun:
                    return self.by_noun[tail[:-1]], tail[:-1]
        return None

    def predicate_vectors(self, encode: Encode) -> np.ndarray:
        """Unit vectors of every listed predicate (encoded once per vocabulary)."""
        if self._vectors is None:
            self._vectors = _unit(encode(list(self.predicates)))
        return self._vectors


def _unit(vectors: np.ndarray) -> np.ndarray:
    arr = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return np.asarray(arr / np.where(norms == 0, 1.0, norms))


@cache
def vocabulary(path: Path = VOCABULARY_FILE) -> Vocabulary:
    """The shipped vocabulary (read once)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for e in data["attributes"]:
        bad = [t for t in e["value_types"] if t not in VALUE_TYPES]
        if bad:
            raise ValueError(f"{path.name}: attribute {e['id']!r} allows unknown types {bad}")
        if e.get("relations") and e["multiplicity"] != "single":
            raise ValueError(f"{path.name}: relations key only a single-valued family: {e['id']!r}")
        out.append(
            Attribute(
                id=e["id"],
                multiplicity=e["multiplicity"],
                value_types=tuple(e["value_types"]),
                predicates=tuple(e.get("predicates", ())),
                nouns=tuple(e.get("nouns", ())),
                values=tuple(e.get("values", ())),
                questions=tuple(e.get("questions", ())),
                per_thing=bool(e.get("per_thing", False)),
                evidence=tuple(e.get("evidence", ())),
                relations=tuple(e.get("relations", ())),
                state_words=tuple(e.get("state_words", ())),
            )
        )
    return Vocabulary(out)


@dataclass(frozen=True)
class AttributeValue:
    """What `read_fact` found: the attribute, its value and type, whose it is."""

    attribute: str
    value: str
    value_type: ValueType
    multiplicity: Multiplicity | None
    holder: str | None = None
    thing: str | None = None
    listed: bool = True


_WORDS = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_PLAIN = re.compile(r"[a-z0-9]+")


def _word_set(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


_POSSESSIVE = re.compile(r"^(?P<owner>[\w .'-]+?)'s\s+(?P<thing>.+)$", re.IGNORECASE)
_PP = re.compile(r"\s+(?P<prep>in|at|to|for|with|from|of|on)\s+(?P<rest>.+)$", re.IGNORECASE)
_DETERMINERS = re.compile(r"^(?:the|a|an|my|our|your|his|her|their|new|old|current)\s+", re.I)
_ORG_HEADS = _word_set(
    "hospital clinic school university college bank company firm agency studio lab office store "
    "shop restaurant cafe café bakery hotel startup group institute centre center practice "
    "pharmacy library museum council ministry department corporation inc ltd gmbh"
)


def _normalise(relation: str) -> str:
    return re.sub(r"[\s\-]+", "_", relation.strip().lower())


def _entity_surface(entity_id: str, text: str) -> str:
    """The surface of an entity id's slug in ``text`` ("lakeview-clinic" → "Lakeview Clinic"),
    else the slug's words."""
    slug = entity_id.rsplit(":", 1)[-1]
    words = [w for w in slug.split("-") if w]
    if words:
        pattern = r"\W+".join(re.escape(w) for w in words)
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return m.group(0)
    return " ".join(words)


def _typed(value: str, entity_id: str | None, text: str = "") -> ValueType:
    """The value's type (`value_type`); a person or organisation the sentence shows to be a
    title (`_work_evidence`) is a ``work``: spaCy's small English model tags one-word titles
    as names; a literal noun phrase headed by an organisation kind ("the dental clinic") is an
    ``organization``."""
    kind = value_type(value, entity_id=entity_id)
    if kind in _PROPER and text and _work_evidence(text, value):
        return "work"
    if (
        kind == "other"
        and _WORDS.findall(value.lower())[-1:]
        and (_WORDS.findall(value.lower())[-1] in _ORG_HEADS)
        and _noun_phrase(value)
    ):
        return "organization"
    return kind


def _candidates(fact: FactRecord) -> list[tuple[str, str | None]]:
    """``(surface, entity id)`` of the fact's possible values: the object, then the other
    object-side entities ("signed the contract with Lakeview Clinic": the clinic).

    An entity inside a literal object phrase that does not head it is a modifier, not the
    value: in "enjoys John's family time" or "loved reading Charlotte's Web" the thing liked is
    the time or the reading, never John or Charlotte.
    """
    out: list[tuple[str, str | None]] = []
    heads: set[str] = set()
    if ":e:" in fact.object:
        surface = _entity_surface(fact.object, fact.text)
        out.append((surface, fact.object))
        heads.add(_head(surface))
    elif fact.object.strip():
        literal = fact.object.strip()
        out.append((literal, None))
        heads.add(_head(literal))
        if pp := _PP.search(literal):
            heads.add(_head(pp["rest"]))
    inside = "" if ":e:" in fact.object else f" {' '.join(_PLAIN.findall(fact.object.lower()))} "
    for entity_id, role in fact.about:
        if role == "object" and entity_id != fact.object:
            surface = _entity_surface(entity_id, fact.text)
            words = _PLAIN.findall(surface.lower())
            if f" {' '.join(words)} " in inside and not heads & set(words):
                continue  # a modifier inside the object phrase
            out.append((surface, entity_id))
    return out


_QUOTED = re.compile(r"[\"“”«»](?P<title>[^\"“”«»]{2,80})[\"“”«»]")
_COPULAR = frozenset(
    {"be", "become", "remain", "stay", "be_now", "change_to", "switch_to", "move_to"}
    | {"be_called", "be_named"}
)
#: value types only some attributes take, distinctive enough that a verb shared with one of
#: the attribute's predicates ("start" of "start reading") and the type name the attribute
_DISTINCTIVE: frozenset[ValueType] = types_with("distinctive")
#: named-entity types spaCy's small English model also gives one-word titles
_PROPER: frozenset[ValueType] = types_with("proper")


_LIGHT_VERBS = frozenset({"", "be", "have", "get", "do", "make", "go", "take"})


@cache
def _noun_phrase(text: str) -> bool:
    """Whether ``text`` parses as a noun phrase (its syntactic root is a noun, proper noun or
    number): "amazing banana split sundae" is one, "encouraging and inspiring" and "building
    up confidence" are not. A phrase that is not names no thing, so it is no attribute's
    value."""
    from kgmem.ingest.extraction.nlp import load_pipeline

    doc = load_pipeline()(text)
    roots = [t for t in doc if t.dep_ == "ROOT"]
    return bool(roots) and roots[0].pos_ in ("NOUN", "PROPN", "NUM", "X")


def _work_evidence(text: str, surface: str) -> bool:
    """Whether ``text`` shows ``surface`` is a title: it is quoted there, or the sentence names
    it with an evidence word of an attribute that takes works ("twenty pages in", "the novel")."""
    if any(m["title"].strip().casefold() == surface.casefold() for m in _QUOTED.finditer(text)):
        return True
    words = f" {' '.join(_WORDS.findall(text.lower()))} "
    for a in vocabulary().attributes.values():
        if a.value_types == ("work",) and any(f" {w} " in words for w in (*a.nouns, *a.evidence)):
            return True
    return False


#: attributes whose value is a thing someone has, does or likes: an abstract noun ("a blast",
#: "support", "their own story") or a literal no entity stands for is no such thing
_THING_VALUED = frozenset({"owned", "hobbies", "likes"})


def _named(surface: str, entity_id: str | None, text: str = "") -> bool:
    """Whether a value is a name (an entity the NER typed, or capitalised words not introduced
    by an indefinite article), not a common noun phrase typed by its head noun ("a new LGBTQ
    activist group": the acronym is a modifier, the article makes it one group of a kind)."""
    if entity_id is not None and not re.search(r":e:(?:concept|other):", entity_id):
        return True
    between = r"(?:(?!(?:at|in|with|for|from|of|on|to|by)\s)[\w-]+\s+){0,2}"
    indefinite = rf"\b(?:a|an|some|another)\s+{between}{re.escape(surface)}"
    if text and re.search(indefinite, text, re.IGNORECASE):
        return False
    return any(w[:1].isupper() for w in re.findall(r"[\w'-]+", surface))


def _pick_value(
    attribute: Attribute,
    values: Sequence[tuple[str, str | None]],
    text: str,
    exclusive: bool = True,
) -> tuple[str, ValueType] | None:
    """The first of ``values`` the attribute takes, with its type, or None.

    Args:
        exclusive: the predicate that matched is listed for this attribute alone. A predicate
            several attributes share ("join": an employer, a club) needs a named value for an
            organisation, not a common noun typed by its head.
    """
    for surface, entity_id in values:
        if attribute.id in _THING_VALUED and (
            entity_id is None or is_abstract_noun(_head(surface)) or _head(surface) in ABSTRACT
        ):
            continue
        kind = _typed(surface, entity_id, text)
        if attribute.values:
            word = attribute.value_word(surface)
            if word is not None:
                return word, "other" if kind not in attribute.value_types else kind
            continue
        if (
            attribute.multiplicity == "single"
            and _singular(_head(surface)) in attribute.nouns
            and not _named(surface, entity_id, text)
        ):
            continue  # "worked on a project", "joined the company": the attribute, no value
        if entity_id is None and kind == "other" and not _noun_phrase(surface):
            continue  # "has been encouraging and inspiring": a quality, not a thing
        if kind == "organization" and not exclusive and not _named(surface, entity_id, text):
            continue
        if (
            kind == "organization"
            and exclusive
            and attribute.value_types == ("work",)
            and entity_id is not None
        ):
            return surface, "work"  # "halfway through Middlemarch": organisations are not read
        if attribute.allows(kind):
            return surface, kind
    if attribute.values and (word := attribute.value_word(text)) is not None:
        return word, "other"
    return None


def _head(phrase: str) -> str:
    words = _WORDS.findall(phrase.lower())
    return words[-1] if words else ""


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def thing_of(core: str, noun: str) -> str:
    """The thing an attribute of a thing belongs to, as key text: the possessed phrase's head
    noun ("flight"), or for a compound noun ("passport number") its words joined by ``-``."""
    words = _WORDS.findall(noun.lower())
    return "-".join(words) if len(words) > 1 else _head(core)


def _person_subject(fact: FactRecord) -> str | None:
    for entity_id, role in fact.about:
        if role == "subject" and ":e:person:" in entity_id:
            return entity_id
    return None


def _phrases(fact: FactRecord) -> list[str]:
    """The fact's predicate phrases, most specific first."""
    rel = _normalise(fact.relation)
    rel = rel[4:] if rel.startswith("not_") else rel
    verb = rel.replace("_", " ")
    out = [verb]
    objects = _candidates(fact)
    if objects:
        surface = objects[0][0]
        head = _head(surface)
        if (head and ":e:" in fact.object) or (head and not _PP.search(surface)):
            m = re.search(
                rf"\b{re.escape(head)}s?\s+(with|at|for|from|in|to|on)\b", fact.text, re.I
            )
            if m:
                out.insert(0, f"{verb} {head} {m.group(1).lower()}")
            out.insert(1 if m else 0, f"{verb} {head}")
        if rel == "be" and (pp := _PP.search(surface)):
            out.insert(0, f"be {pp['prep'].lower()}")
    return out


def read_fact(
    fact: FactRecord, similar: Callable[[str], list[str]] | None = None
) -> AttributeValue | None:
    """The attribute value a fact states (module docstring), or None for a fact with no
    object and no possessive subject.

    Args:
        fact: an extracted fact.
        similar: maps a predicate phrase to the listed predicates close to it by embedding
            (the ``attribute_similarity`` setting); None = exact matches only.
    """
    vocab = vocabulary()
    values = _candidates(fact)
    rel = _normalise(fact.relation)
    rel = rel[4:] if rel.startswith("not_") else rel
    copular = rel in _COPULAR or rel.startswith("be_")  # "… is on the 3rd", "… is called Rex"
    m = _POSSESSIVE.match(fact.subject) if ":e:" not in fact.subject else None
    if m is not None:
        thing_phrase = _DETERMINERS.sub("", m["thing"].strip())
        pp = _PP.search(thing_phrase)
        core = thing_phrase[: pp.start()] if pp else thing_phrase
        found = vocab.noun(core)
        holder = _person_subject(fact)
        if found is not None and holder is not None and copular:
            # only a copula states the possessed thing's value: "Ana's mobile is …", not
            # "Ana's passion inspires Pia"
            attribute, noun = found
            if pp is not None and attribute.allows("place") and pp["prep"].lower() in ("in", "at"):
                place = pp["rest"].strip()
                return AttributeValue(attribute.id, place, "place", attribute.multiplicity, holder)
            picked = _pick_value(attribute, values, fact.text)
            if picked is not None:
                thing = thing_of(core, noun) if attribute.per_thing else None
                return AttributeValue(
                    attribute.id, picked[0], picked[1], attribute.multiplicity, holder, thing
                )
        if holder is not None and values:
            surface, entity_id = values[0]
            return AttributeValue(
                f"{_head(core)}",
                surface,
                _typed(surface, entity_id, fact.text),
                None,
                holder,
                None,
                False,
            )
    phrases = _phrases(fact)
    if values and values[0][1] is None and (pp := _PP.search(values[0][0])):
        values = [(pp["rest"].strip(), None), *values]  # "a nurse at X": X is the value
    for phrase in phrases:
        stating = vocab.by_predicate.get(phrase, ())
        for attribute in stating:
            picked = _pick_value(attribute, values, fact.text, exclusive=len(stating) == 1)
            if picked is not None:
                return AttributeValue(attribute.id, picked[0], picked[1], attribute.multiplicity)
    if values and (by_type := _by_verb_and_type(phrases[-1], values[0], fact.text)) is not None:
        return by_type
    if similar is not None:
        for phrase in phrases:
            for listed in similar(phrase):
                for attribute in vocab.by_predicate.get(listed, ()):
                    picked = _pick_value(attribute, values, fact.text)
                    if picked is not None:
                        return AttributeValue(
                            attribute.id, picked[0], picked[1], attribute.multiplicity
                        )
    if not values:
        return None
    surface, entity_id = values[0]
    derived = phrases[0].replace(" ", "_")
    return AttributeValue(
        derived, surface, _typed(surface, entity_id, fact.text), None, None, None, False
    )


def _by_verb_and_type(verb: str, value: tuple[str, str | None], text: str) -> AttributeValue | None:
    """The attribute an unlisted verb states by its value's type: the one attribute that takes
    only that (distinctive) type and lists a predicate starting with the verb ("starting The
    Left Hand of Darkness": a work, and "start reading" is ``currently_reading``'s)."""
    if verb in _LIGHT_VERBS:
        return None
    kind = _typed(value[0], value[1], text)
    if kind not in _DISTINCTIVE:
        return None
    found = [
        a
        for a in vocabulary().attributes.values()
        if a.value_types == (kind,)
        and any(p == verb or p.startswith(f"{verb} ") for p in a.predicates)
    ]
    if len(found) != 1:
        return None
    return AttributeValue(found[0].id, value[0], kind, found[0].multiplicity)


def _similar(
    encode: Encode, phrases: Sequence[str], similarity: float
) -> Callable[[str], list[str]]:
    """A `read_fact` ``similar`` over ``phrases`` (encoded in one batch): the listed predicates
    at least ``similarity`` alike, at most three."""
    vocab = vocabulary()
    listed = vocab.predicate_vectors(encode)
    todo = sorted({p for p in phrases if p not in vocab.by_predicate})
    near: dict[str, list[str]] = {}
    if todo:
        scores = _unit(encode(todo)) @ listed.T
        for phrase, row in zip(todo, scores, strict=True):
            order = np.argsort(-row)
            near[phrase] = [vocab.predicates[i] for i in order[:3] if row[i] >= similarity]
    return lambda phrase: near.get(phrase, [])


def assign_attributes(
    facts: Sequence[FactRecord],
    encode: Encode | None = None,
    similarity: float = shipped_default("attribute_similarity"),
) -> list[FactRecord]:
    """Copies of ``facts`` with ``attribute``, ``value``, ``value_type``, ``multiplicity``,
    ``holder`` and ``thing`` set by `read_fact` (same order). Facts that already carry an
    attribute, and facts that are not ``extracted``, are returned unchanged.

    Args:
        encode: the embedder's ``encode`` (texts → ``(n, dim)``); None = no similarity step.
        similarity: least cosine of an unlisted predicate phrase to a listed one
            (``KGMEM_ATTRIBUTE_SIMILARITY``).
    """
    todo = [f for f in facts if f.attribute is None and f.source == "extracted"]
    similar = None
    if encode is not None and todo:
        similar = _similar(encode, [p for f in todo for p in _phrases(f)], similarity)
    out = []
    for fact in facts:
        if fact.attribute is not None or fact.source != "extracted":
            out.append(fact)
            continue
        found = read_fact(fact, similar)
        if found is None:
            out.append(fact)
            continue
        out.append(
            fact.model_copy(
                update={
                    "attribute": found.attribute,
                    "value": found.value,
                    "value_type": found.value_type,
                    "multiplicity": found.multiplicity,
                    "holder": found.holder,
                    "thing": found.thing,
                }
            )
        )
    return out


def attribute_key(fact: FactRecord) -> str | None:
    """The supersession key a fact's listed attribute gives, or None.

    ``<holder>|<attribute>`` for a single-valued attribute (``|<thing>`` added for an
    attribute of a thing: ``user|scheduled_date|flight``), ``<holder>|<attribute>|<value head
    word>`` for a multi-valued one; the holder is ``holder`` else ``subject``, folded by
    `kgmem.store.tenant.key_holder` (as `kgmem.ingest.extraction.supersession` keys). Derived
    attributes (no multiplicity) and modalities other than ``asserted`` / ``negated`` key nothing.
    """
    if fact.attribute is None or fact.multiplicity is None:
        return None
    if fact.modality not in ("asserted", "negated"):
        return None
    holder = key_holder(fact.holder or fact.subject)
    if not holder:
        return None
    if fact.multiplicity == "multi":
        head = _head(fact.value or "")
        if len(head) > 3 and head.endswith("s") and not head.endswith("ss"):
            head = head[:-1]
        return f"{holder}|{fact.attribute}|{head}" if head else None
    if fact.thing:
        return f"{holder}|{fact.attribute}|{fact.thing}"
    return f"{holder}|{fact.attribute}"
