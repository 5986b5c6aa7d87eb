"""The grammar of memory requests: a turn's words read as forget / withhold, and the values a
forgotten turn carries (no LLM; the rules are in `kgmem.ingest.requests.rules` and
docs/roles-and-requests.md).

`parse_request` reads one spaCy ``Doc`` into a `ParsedRequest`; `detect` pre-filters a text by
its verbs first; `values` and `mask` find and hide the verbatim values (codes, e-mail addresses)
that copies of a forgotten turn repeat. `kgmem.ingest.requests.rules` plans what each request
removes and re-exports all of this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "FORGOTTEN",
    "ParsedRequest",
    "detect",
    "forget_topic",
    "mask",
    "may_request",
    "parse_request",
    "topic_request",
    "values",
]

Kind = Literal["forget", "withhold"]

FORGOTTEN = "[forgotten]"
"""What a restated value in a request turn's text is replaced by (the one exception to turn
immutability)."""

FORGET_VERBS = frozenset({"forget", "delete", "remove", "erase", "wipe", "purge", "scrub"})
"""Verbs of a forget request (lemmas)."""
KEEP_VERBS = frozenset(
    {"save", "store", "remember", "record", "memorize", "memorise", "log", "keep", "note"}
)
"""Verbs of a do-not-keep request when negated (lemmas)."""
_STANDALONE_KEEP = frozenset({"save", "store", "remember", "record", "memorize", "memorise", "log"})
"""Keep verbs that ask for memory on their own ("don't save this."); "keep" and "note" also
mean physical keeping ("don't keep it, throw it away") and need a memory cue."""
MEMORY_NOUNS = frozenset(
    {"memory", "memories", "record", "records", "note", "notes", "database", "history", "mind"}
)
"""Nouns that make a phrase about the memory itself ("from your memory", "a record of this")."""
TELL_VERBS = frozenset({"tell", "say", "mention", "share", "write", "give", "type", "send"})
"""Verbs of "what I told you about X"."""
INFO_NOUNS = frozenset(
    {
        "number", "address", "name", "password", "pin", "code", "detail", "details", "info",
        "information", "data", "birthday", "birthdate", "email", "phone", "salary", "diagnosis",
        "passcode", "login", "username", "ssn",
    }
)  # fmt: skip
"""Heads of "my X" that are information, so "delete my X" is about memory without a memory cue
("delete my home address"); any other head ("delete my draft email") needs one. "email" counts
only as a compound head ("email address"), see `_info_object`."""
QUANTIFIERS = frozenset({"everything", "anything", "all", "whatever", "what"})
WEAK_LEMMAS = frozenset(
    {
        "number", "name", "address", "detail", "info", "information", "data", "thing", "stuff",
        "everything", "anything", "something", "lot", "bit", "part", "memory", "record", "say",
        "tell", "mention", "share", "time", "way", "whole", "old", "new",
    }
)  # fmt: skip
"""Content lemmas too generic to anchor a match on their own ("number" in "passport number");
the topic's other lemmas are its anchors."""
_CONTENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM", "VERB"})
_POLITE_MODALS = frozenset({"can", "could", "would"})
_NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART"})
_PREFILTER = re.compile(
    r"\b(forget|delete|remove|erase|wipe|purge|scrub|save|store|keep|remember|record|"
    r"memori[sz]e|log|note)",
    re.IGNORECASE,
)
_OFF_RECORD = re.compile(
    r"^\W*(?:(?:but|and|so|ok(?:ay)?|also|just|now)\W+)*"
    r"(?:(?:this|that|it)(?:'s| is)\s+|strictly\s+|all\s+)?off\s+the\s+record\b",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CODE = re.compile(r"(?<![\w@])[A-Za-z0-9$£€]*\d[A-Za-z0-9]*(?:[-./,:+][A-Za-z0-9]+)*")
_YEAR = re.compile(r"(?:19|20)\d\d")
_CLOCK = re.compile(r"\d{1,2}[:.]\d\d")


@dataclass(frozen=True)
class ParsedRequest:
    """A request found in one turn's text.

    Attributes:
        kind: ``forget`` or ``withhold``.
        topic: the words naming what to forget (empty for ``withhold``); kept in memory only,
            never written to the audit record.
        restated: values the request itself restates ("forget that my PIN is 4417" → 4417).
        decided: the trained request decision's class and calibrated probability when it found
            the request where this grammar found none (`kgmem.ingest.requests.decision`).
    """

    kind: Kind
    topic: str = ""
    restated: tuple[str, ...] = ()
    decided: tuple[str, float] | None = None

    @property
    def keeps_turn(self) -> bool:
        """The request turn also states the new value, which stays (a decided
        ``forget_replace``): it is not stored as a request."""
        return self.decided is not None and self.decided[0] == "forget_replace"


# --- grammar -------------------------------------------------------------------------------------


def _lemma(token: Token) -> str:
    return str(token.lemma_).lower()


def _addressed(verb: Token) -> bool:
    """The verb is an imperative (or a polite "can you ...", "I want you to ...")."""
    if verb.tag_ != "VB" or verb.head.lemma_ == "let":
        return False
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    to = any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)
    if subjects:
        if any(s.lower_ != "you" for s in subjects):
            return False
        # "can you forget ...", "I want you to forget ..."; not "did you forget", "will you"
        modals = {c.lower_ for c in verb.children if c.dep_ == "aux" and c.tag_ == "MD"}
        wanted = to and verb.head.lemma_ in {"want", "need", "like"}
        return bool(modals & _POLITE_MODALS) or wanted
    return not to  # "I have to delete the app" is a duty, not a request


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def _memory_cue(tokens: Iterable[Token]) -> bool:
    return any(_lemma(t) in MEMORY_NOUNS or t.lower_ in MEMORY_NOUNS for t in tokens)


def _foreign_source(verb: Token) -> bool:
    """'remove my name from the list', 'delete it off my phone': a task, not a memory request."""
    for child in verb.children:
        if (
            child.dep_ == "prep"
            and child.lower_ in {"from", "off", "out"}
            and not _memory_cue(child.subtree)
        ):
            return True
    return False


def _first_person(tokens: Iterable[Token]) -> bool:
    return any(t.lower_ in {"i", "my", "me", "mine", "myself", "we", "our", "us"} for t in tokens)


def _about(tokens: Iterable[Token]) -> Token | None:
    for t in tokens:
        if t.lower_ == "about" and t.dep_ == "prep":
            return t
    return None


def _span_text(tokens: Sequence[Token], drop: set[int]) -> str:
    return " ".join(t.text for t in tokens if t.i not in drop).strip()


def _info_object(noun: Token) -> bool:
    lemma = _lemma(noun)
    if lemma == "email":
        return False
    if lemma in INFO_NOUNS:
        return True
    return any(c.dep_ == "compound" and _lemma(c) in INFO_NOUNS - {"email"} for c in noun.children)


def forget_topic(verb: Token) -> str | None:
    """The topic of a forget request headed by ``verb``, or None when it is not one (any verb:
    the caller checks the lemma; `kgmem.ingest.requests.decision` asks it of every verb of a turn
    the request decision calls a forget)."""
    if _negated(verb) or not _addressed(verb) or _foreign_source(verb):
        return None
    children = list(verb.children)
    objects = [c for c in children if c.dep_ in ("dobj", "obj")]
    clauses = [c for c in children if c.dep_ in ("ccomp", "xcomp", "advcl")]
    subtree = list(verb.subtree)
    # "forget what I said / everything I told you about X": a telling by the user
    tellings = [
        t
        for t in subtree
        if t.pos_ == "VERB"
        and _lemma(t) in TELL_VERBS
        and any(c.dep_ == "nsubj" and c.lower_ in {"i", "we"} for c in t.children)
    ]
    about = _about(subtree)
    quantified = any(_lemma(o) in QUANTIFIERS or o.lower_ in QUANTIFIERS for o in objects)
    if about is not None and (tellings or quantified):
        return _span_text([t for t in about.subtree if t.i != about.i], set())
    if tellings:
        return None  # "forget what I just told you": no topic to match (see the docs)
    # "forget that my PIN is 4417": a first-person clause
    for clause in clauses:
        marks = [c for c in clause.children if c.dep_ == "mark" and c.lower_ == "that"]
        if marks and _first_person(clause.subtree):
            return _span_text(list(clause.subtree), {m.i for m in marks})
    # "delete my passport number (from your memory)"
    for obj in objects:
        owned = any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in obj.children)
        if not owned or obj.pos_ not in {"NOUN", "PROPN"}:
            continue
        inside = {x.i for x in obj.subtree}
        if _info_object(obj) or _memory_cue(t for t in subtree if t.i not in inside):
            drop = {c.i for c in obj.children if c.dep_ == "poss"}
            return _span_text(list(obj.subtree), drop)
    return None


def _withholds(verb: Token, sentence: Span) -> bool:
    """A negated keep verb addressed to the memory ("don't save this: ...")."""
    if _lemma(verb) not in KEEP_VERBS or not _negated(verb) or not _addressed(verb):
        return False
    objects = [c for c in verb.children if c.dep_ in ("dobj", "obj")]
    pronoun = any(o.lower_ in {"this", "that", "it"} for o in objects) or any(
        o.lower_ in {"any", "none"} and _about(o.subtree) is None for o in objects
    )
    others = [t for t in verb.subtree if t.i not in {o.i for o in objects}]
    if _memory_cue(t for t in verb.subtree if t.i != verb.i):
        return pronoun or any(_lemma(o) in MEMORY_NOUNS for o in objects)
    if not pronoun or _lemma(verb) not in _STANDALONE_KEEP:
        return False
    modifiers = [c for c in verb.children if c.dep_ in ("prep", "advmod", "advcl", "xcomp")]
    if any(m.lower_ not in {"please", "anywhere", "down"} for m in modifiers):
        return False  # "don't save this for later"
    end = verb.right_edge.i + 1
    after = sentence.doc[end].text if end < len(sentence.doc) else None
    standalone = end >= sentence.end or after in {":", "-", "—", "."}
    return standalone and len(others) <= 6


def parse_request(doc: Doc) -> ParsedRequest | None:
    """The memory request one turn's text makes, or None (pure; see the module docstring).

    Args:
        doc: the turn's text parsed by the project's spaCy pipeline (`kgmem.ingest.extraction.nlp`).
    """
    for sentence in doc.sents:
        if _OFF_RECORD.match(sentence.text):
            return ParsedRequest("withhold")
        for token in sentence:
            if token.pos_ not in {"VERB", "AUX"}:
                continue
            lemma = _lemma(token)
            if lemma in FORGET_VERBS:
                topic = forget_topic(token)
                if topic:
                    return ParsedRequest("forget", topic, values(topic))
            elif lemma in KEEP_VERBS and _withholds(token, sentence):
                return ParsedRequest("withhold")
    return None


_LEADING_VERB = re.compile(
    r"(^|[.!?;:]\s+|\n)(Forget|Delete|Remove|Erase|Wipe|Purge|Scrub)\b",
)


def detect(text: str, nlp: Language) -> ParsedRequest | None:
    """The memory request in one turn's text, or None: `may_request`, then `parse_request`.

    A request verb opening a sentence is lower-cased before parsing: the small English pipeline
    tags a capitalised "Delete what I told you" as a proper noun.
    """
    if not may_request(text):
        return None
    return parse_request(nlp(_LEADING_VERB.sub(lambda m: m.group(1) + m.group(2).lower(), text)))


def may_request(text: str) -> bool:
    """A cheap test before parsing: the text holds a request verb or "off the record"."""
    return bool(_PREFILTER.search(text)) or "off the record" in text.lower()


def topic_request(description: str, nlp: Language) -> ParsedRequest:
    """An explicit ``forget_about(description)``: a full request's topic, else the whole text."""
    parsed = detect(description, nlp)
    if parsed is not None and parsed.kind == "forget":
        return parsed
    return ParsedRequest("forget", description.strip(), values(description))


# --- values and matching -------------------------------------------------------------------------


def values(text: str) -> tuple[str, ...]:
    """Verbatim values in ``text`` whose copies are copies of a secret: e-mail addresses and
    codes with at least four digits (passport, phone, PIN, account numbers, sums). A bare year
    (1900-2099) and a clock time are not values: they recur in unrelated turns."""
    found: list[str] = [m.group(0) for m in _EMAIL.finditer(text)]
    for match in _CODE.finditer(text):
        value = match.group(0).rstrip(".,:")
        if sum(ch.isdigit() for ch in value) < 4 or any(value in f for f in found):
            continue
        if _YEAR.fullmatch(value) or _CLOCK.fullmatch(value):
            continue
        found.append(value)
    return tuple(dict.fromkeys(found))


def _contains(text: str, value: str) -> bool:
    pattern = r"(?<!\w)" + re.escape(value) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def _content_lemmas(doc: Doc | Span) -> set[str]:
    return {
        _lemma(t)
        for t in doc
        if t.pos_ in _CONTENT_POS and not t.is_stop and t.is_alpha | t.like_num and len(t.text) > 1
    }


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every verbatim occurrence of a secret replaced by `FORGOTTEN`."""
    for value in sorted(set(secrets), key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(value) + r"(?!\w)", FORGOTTEN, text, flags=re.I)
    return text


def _names(doc: Doc) -> set[str]:
    """Proper names (people, organisations, places, products) in a turn; an all-capitals word
    ("PIN", "NHS") is an abbreviation, not a name."""
    return {
        e.text
        for e in doc.ents
        if e.label_ in _NAME_LABELS and len(e.text) > 2 and not e.text.isupper()
    }
