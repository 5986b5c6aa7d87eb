"""The question, read once: one `Question` record every part of the read path takes its reading
from (docs/design.md §3.1).

`read_question` applies the surface cues of `kgmem.retrieve.cues` to the question's text and
records what they find: its tokens; the canonical entities and the conversation's speakers it
names; the asking speaker; the time phrases and the resolved interval; the state asked about
(current / past, and the moment of asking); the operators with the rule that fired for each;
the answer slot; and, for a relation-chain question, the compiled chain
(`kgmem.retrieve.chain_parse`); the asked attribute, the thing it is of and the expected value
type (`kgmem.retrieve.asked`, read with the attribute vocabulary the facts were read with).

Each consumer's own view of the words is a named field, so each keeps exactly the stop list and
stemming it had when it tokenised the text itself. Nothing after `read_question` reads the string
as given (``raw`` is kept for display): the views are read from the record's token tuples.
`Question.bm25_words` / `Question.bm25_content_words` (the BM25 query, spaCy's English stop
list; `bm25_terms`) and `Question.state_words` (the supersession families current-value
resolution matches; `state_words`) read ``tokens`` (the ``\\w+`` runs of ``text``).
`Question.answer_terms` (answerability's key terms; the one content stop list, `stop_words`,
spaCy's list plus generic words) reads ``words`` (letter words that keep an inner apostrophe or
hyphen, "mother-in-law"). `Question.walk` is the chain walk's parse of ``text`` (its own name
finder and name-boundary words over character spans; the compiled ``chain`` itself when the
question reads as a chain question). `Question.without_names` is the text the linked engine
embeds: ``text`` without the names of the speakers it names.

**Roles.** In a conversation with a speaker whose role is ``user`` (`kgmem.roles`), "I", "me",
"my", "mine", "myself" and "the user" mean that speaker: the asking speaker joins the named
speakers. The caller may name the asking speaker instead (``asked_by`` of
`kgmem.api.Memory.search`). Chats between named people (LoCoMo) have no user, so nothing
changes for them.

No model is involved and nothing here touches the store: reading costs microseconds and is
fully explainable (``kgmem search --explain`` prints the record).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from kgmem.retrieve import cues as c
from kgmem.retrieve.asked import AskedAttribute, asked_attribute
from kgmem.retrieve.chain_parse import ChainPlan, chain_question, compile_question
from kgmem.retrieve.cues import OPERATORS, Operator, Order, Relation, Slot, State
from kgmem.retrieve.names import EntityLookup, ResolvedEntity, named_speakers, strip_names
from kgmem.retrieve.question_time import TimeReading, read_times, starts_with_time

__all__ = [
    "FIRST_PERSON",
    "GENERIC_WORDS",
    "MAX_TERM_CHARS",
    "Question",
    "answer_terms",
    "asked_words",
    "bm25_terms",
    "letter_words",
    "question_words",
    "read_question",
    "state_words",
    "stop_list",
    "stop_words",
]

#: first-person words and "the user": the asking speaker, when the conversation has one
FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b|\bthe\s+user\b", re.IGNORECASE)
#: the asker asking what the other party said or did ("how did you recommend ...", "what have
#: you suggested", "you mentioned"): that party's turns hold the answer, so it joins the named
#: speakers beside the asker. A request for new advice ("what would you suggest", "can you
#: show me") is not asking about the past and names nobody.
ADDRESSEE_PAST = re.compile(
    r"\b(?:did|have|had)\s+you\b"
    r"|\byou\s+(?:said|told|mentioned|recommended|suggested|advised|proposed|gave|showed|wrote)\b",
    re.IGNORECASE,
)


# --- each consumer's token view ---------------------------------------------------------------
#: longest word a BM25 query keeps: Lucene's standard tokenizer splits a longer token into
#: pieces of 255 characters, each its own clause (a 1 MB "word" made ~4,000 clauses and
#: failed with Lucene's TooManyClauses); no real word is that long
MAX_TERM_CHARS = 255


def question_words(
    text: str, max_terms: int = 32, *, drop: Sequence[str] = (), stop_words: bool = False
) -> list[str]:
    """The words of ``text`` a BM25 query ORs together (`bm25_terms` of its ``\\w+`` runs).

    Args:
        drop, stop_words: as for `bm25_terms`.
    """
    return bm25_terms(re.findall(r"\w+", text), max_terms, drop=drop, stop_words=stop_words)


def bm25_terms(
    tokens: Iterable[str],
    max_terms: int = 32,
    *,
    drop: Sequence[str] = (),
    stop_words: bool = False,
) -> list[str]:
    """The ``tokens`` (``\\w+`` runs, as Lucene's standard tokenizer keeps a word with an
    underscore whole) a BM25 query ORs together: lower-cased, longer than one and at most
    `MAX_TERM_CHARS` characters, at most ``max_terms`` of them, so a query has at most
    ``max_terms`` clauses (Lucene escaping and tenant scoping happen in the store).

    Args:
        drop: names whose words are left out (the speakers the question names: their name is
            in every "Hey Ana!" turn, and the ``speaker`` generator covers their turns).
        stop_words: leave out spaCy's English stop words (``spacy.lang.en.stop_words``; the
            Lucene english analyzer keeps "what", "do", "does", "did", "how", ...).
    """
    dropped = {w.casefold() for name in drop for w in re.findall(r"\w+", name)}
    if stop_words:
        dropped |= stop_list()
    words = [w.lower() for w in tokens if 1 < len(w) <= MAX_TERM_CHARS]
    return [w for w in words if w.casefold() not in dropped][:max_terms]


@functools.cache
def stop_list() -> frozenset[str]:
    """spaCy's English stop words (the word list only; no pipeline loads)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def asked_words(question: str) -> frozenset[str]:
    """The words current-value resolution matches against relation families (`state_words`
    of the ``\\w+`` runs of ``question``)."""
    return state_words(re.findall(r"\w+", question))


def state_words(tokens: Iterable[str]) -> frozenset[str]:
    """The words current-value resolution matches against relation families: the lower-cased
    letter runs of ``tokens``, plus each one without a plural "s"
    (`kgmem.retrieve.resolve.relevant_rows`)."""
    asked = {w.lower() for t in tokens for w in re.findall(r"[A-Za-z]+", t)}
    return frozenset(asked | {w[:-1] for w in asked if w.endswith("s")})


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _words(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


GENERIC_WORDS = _words(
    "anymore called calls common currently days different favorite favourite feel feels felt "
    "gets getting goes going gone got having kind kinds knew know knows like liked likes lot "
    "lots makes named names new old ones ought people person recently said says shall sort "
    "sorts stuff takes tell theirs thing things think thinks thought time times told took type "
    "types usually want wanted wants way ways went whats yes"
)
"""Generic verbs, nouns and adverbs that spaCy's English stop list (`stop_list`) lacks and that
say nothing of what a question asks ("What kind of things does she like?")."""


@functools.cache
def stop_words() -> frozenset[str]:
    """The one content stop list: spaCy's English stop words (`stop_list`, the BM25 query's)
    plus `GENERIC_WORDS`. Answerability's key terms (`answer_terms`) and the attribute
    vocabulary's words (`kgmem.retrieve.answerable.attribute_verdict`) leave these out.

    The BM25 query keeps spaCy's list alone: leaving out the generic words too would change
    the query of every question that uses one ("favorite", "time", "kind") and so the ranking.
    The chain parse (`kgmem.retrieve.chain_parse.STOPWORDS`) keeps its own short list of
    closed-class words: it marks where a name may start and end, and a longer list moves the
    base it guesses ("Would Caroline pursue writing" becomes "Caroline pursue writing")."""
    return stop_list() | GENERIC_WORDS


def letter_words(text: str) -> list[str]:
    """The letter words of ``text``, in order: a run of letters with any inner apostrophe or
    hyphen kept whole ("mother-in-law", "Ana's"); digits and underscores end a word."""
    return _WORD.findall(text)


def answer_terms(words: Iterable[str], names: Sequence[str] = ()) -> list[str]:
    """The key content words for answerability among ``words``, in order, de-duplicated
    (surface forms lower-cased, possessive "'s" dropped; `kgmem.retrieve.answerable`).

    Args:
        words: the question's letter words (`letter_words`; `Question.words`).
        names: surfaces of the persons the plan resolved (their names are not content).
    """
    named = {w.lower() for n in names for w in letter_words(n)}
    stops = stop_words()
    out: dict[str, None] = {}
    for word in words:
        low = re.sub(r"'s?$", "", word.lower())
        if len(low) < 3 or low in stops or low in named:
            continue
        out.setdefault(low, None)
    return list(out)


# --- the record -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    """One question, read once. Frozen; the token views are computed on first use.

    Attributes:
        raw: the question as given.
        text: what the cues read: the first 2,000 characters, curly apostrophes straightened.
        tokens: the words of ``text`` (``\\w+`` runs, as written: a word with an underscore
            is one, as Lucene's standard tokenizer keeps it); the BM25 and state views are read
            from them.
        words: the letter words of ``text`` (`letter_words`: an inner apostrophe or hyphen
            kept, "mother-in-law"); answerability's key terms are read from them.
        speakers: the conversation's speakers the question names, as stored, in conversation
            order; the asking speaker last when the question says "I", "me", "my" or "the user".
        named: the speakers the question names by their names (``speakers`` without an asker
            named only by "I", "me", "my" or "the user"): the names the embedded text drops
            (`kgmem.retrieve.names.strip_names`).
        asker: the speaker asking (``asked_by``, else the conversation's ``user``), or None.
        entities: resolved canonical entities, first mention first, one per id.
        times: the time phrases and the resolved ``[start, end)`` interval (`TimeReading`).
        reference: the "now" relative phrases were resolved against (the moment of asking,
            else the conversation's latest turn), or None.
        relation / anchor: ``after`` / ``before`` / ``during`` / ``between`` and the phrase
            after it, if the question relates its answer to another time or event.
        order: ``earliest`` or ``latest``, if asked.
        state: ``current`` or ``past``, if the question asks about a state.
        asked: the answer slot (time, place, person, count, ...).
        operators: the operators that apply, in `OPERATORS` order (always ``semantic``).
        cues: every rule that fired, ``"<operator or field>:<cue>"``.
        chain: the compiled relation chain when the question reads as a chain question.
        attribute: the attribute the question asks for (`kgmem.retrieve.asked`), or None.
        value_type: the type of value expected, or None.
        ask: the whole attribute reading (thing, explicit, attributes that also answer).
    """

    raw: str
    text: str
    tokens: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    speakers: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    asker: str | None = None
    entities: tuple[ResolvedEntity, ...] = ()
    times: TimeReading = field(default_factory=TimeReading)
    reference: datetime | None = None
    relation: Relation | None = None
    anchor: str | None = None
    order: Order | None = None
    state: State | None = None
    asked: Slot = "other"
    operators: tuple[Operator, ...] = ("semantic",)
    cues: tuple[str, ...] = ()
    chain: ChainPlan | None = None
    attribute: str | None = None
    value_type: str | None = None
    ask: AskedAttribute | None = None

    @cached_property
    def bm25_words(self) -> tuple[str, ...]:
        """The BM25 query's words without stop-word removal (`bm25_terms` of ``tokens``)."""
        return tuple(bm25_terms(self.tokens))

    @cached_property
    def bm25_content_words(self) -> tuple[str, ...]:
        """The BM25 query's content words: without spaCy's stop words and the named speakers'
        names (`bm25_terms` of ``tokens``)."""
        return tuple(bm25_terms(self.tokens, drop=self.speakers, stop_words=True))

    @cached_property
    def state_words(self) -> frozenset[str]:
        """The words current-value resolution matches (`state_words` of ``tokens``)."""
        return state_words(self.tokens)

    @cached_property
    def answer_terms(self) -> tuple[str, ...]:
        """Answerability's key terms (`answer_terms` of ``words`` without the persons'
        names)."""
        names = [e.surface for e in self.entities if e.type == "person"]
        return tuple(answer_terms(self.words, names))

    @cached_property
    def without_names(self) -> str:
        """``text`` without the names of the speakers it names (``named``, and a possessive
        "'s" after them; `kgmem.retrieve.names.strip_names`): the text embedded when the
        ``strip_speakers`` setting is on; ``text`` itself when nothing else would be left."""
        return strip_names(self.text, self.named)

    @cached_property
    def walk(self) -> ChainPlan:
        """The chain walk's parse (`kgmem.retrieve.chain_parse.compile_question`): ``chain``
        when the question reads as a chain question, else the parse of ``text`` made on first
        use (the parse works on character spans of ``text``: names, cues and their order)."""
        return self.chain if self.chain is not None else compile_question(self.text)

    def has(self, operator: Operator) -> bool:
        """Whether ``operator`` applies."""
        return operator in self.operators

    def as_dict(self) -> dict[str, Any]:
        """JSON-able record for ``--explain`` (times as ISO 8601; the views included)."""
        span = self.times.time_range
        return {
            "text": self.raw,
            "tokens": list(self.tokens),
            "speakers": list(self.speakers),
            "asker": self.asker,
            "entities": [e.model_dump() for e in self.entities],
            "times": {
                "phrases": list(self.times.phrases),
                "interval": span.model_dump(mode="json") if span is not None else None,
                "year": self.times.year,
                "month": self.times.month,
                "season": self.times.season,
                "weekday": self.times.weekday,
            },
            "reference": self.reference.isoformat() if self.reference else None,
            "relation": self.relation,
            "anchor": self.anchor,
            "order": self.order,
            "state": self.state,
            "asked": self.asked,
            "operators": list(self.operators),
            "cues": list(self.cues),
            "chain": (
                {"relations": self.chain.relations, "base": self.chain.base}
                if self.chain is not None
                else None
            ),
            "attribute": self.attribute,
            "value_type": self.value_type,
            "thing": self.ask.thing if self.ask else None,
            "attribute_explicit": self.ask.explicit if self.ask else None,
            "views": {
                "bm25_words": list(self.bm25_words),
                "bm25_content_words": list(self.bm25_content_words),
                "state_words": sorted(self.state_words),
                "answer_terms": list(self.answer_terms),
            },
        }


# --- reading ----------------------------------------------------------------------------------
class _Cues:
    """The operators that apply and every rule that fired, in firing order."""

    def __init__(self) -> None:
        self.ops: set[str] = {"semantic"}
        self.fired: list[str] = []

    def cue(self, operator: str, what: str) -> None:
        self.ops.add(operator)
        self.fired.append(f"{operator}:{' '.join(what.lower().split())}")

    def note(self, what: str) -> None:
        self.fired.append(what)


def _asked_slot(text: str, cues: _Cues) -> Slot:
    """The answer slot: yes/no for an auxiliary start, else the earliest (longest) slot cue."""
    asked: Slot
    if c.AUX_START.match(text):
        asked = "yes_no"
    else:
        first = min(
            ((m.start(), -len(m.group(0)), slot) for p, slot in c.SLOTS if (m := p.search(text))),
            default=None,
        )
        asked = first[2] if first else "other"
    if asked in ("time", "duration"):
        cues.cue("temporal", f"asks {asked}")
    elif asked == "count":
        cues.cue("aggregate", "asks count")
    return asked


def _entities(text: str, lookup: EntityLookup | None, cues: _Cues) -> tuple[ResolvedEntity, ...]:
    """The canonical entities ``lookup`` finds, one per id; two non-date ones are multi-hop."""
    resolved: dict[str, ResolvedEntity] = {}
    if lookup is not None:
        for surface, entity_id, entity_type in lookup.match(text):
            resolved.setdefault(
                entity_id, ResolvedEntity(surface=surface, id=entity_id, type=entity_type)
            )
    if resolved:
        cues.cue("entity", ", ".join(e.surface for e in resolved.values()))
    if len({e.id for e in resolved.values() if e.type != "date"}) >= 2:
        cues.cue("multi_hop", "two entities")
    return tuple(resolved.values())


def _speakers(
    text: str, speakers: Iterable[str], asker: str | None, cues: _Cues
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The speakers ``text`` names by name, and with them the asking speaker when it speaks
    of itself and the other party of a two-party chat when the asker asks what it said
    (`ADDRESSEE_PAST`)."""
    speakers = tuple(speakers)
    named = named_speakers(text, speakers)
    if named:
        cues.note(f"speaker:{', '.join(named)}")
    held = named
    if asker is not None and asker not in named and (m := FIRST_PERSON.search(text)):
        cues.note(f"speaker:asker {asker} ({' '.join(m.group(0).lower().split())})")
        held = (*held, asker)
    others = [s for s in dict.fromkeys(speakers) if s != asker]
    past = ADDRESSEE_PAST.search(text) if asker is not None and len(others) == 1 else None
    if past and others[0] not in held:
        held = (*held, others[0])
        cues.note(f"speaker:addressee {others[0]} ({' '.join(past.group(0).lower().split())})")
    return named, held


def _relation(text: str, cues: _Cues) -> tuple[Relation | None, str | None]:
    """The first relation word that relates the answer to another time or event, and its
    anchor phrase (a leading "When" asks for a time and relates nothing)."""
    for rel in c.RELATION.finditer(text):
        word = " ".join(rel.group("word").lower().split())
        if word == "when" and not text[: rel.start()].strip(" \t\n\"'(").strip():
            continue
        relation, anchor = c.RELATION_MAP[word], rel.group("anchor").strip()[:120] or None
        if word in ("when", "while"):
            cues.cue("multi_hop", f"{word}-clause")
        else:
            cues.cue("temporal", word)
            if word not in ("around", "during") and anchor and not starts_with_time(anchor):
                cues.cue("multi_hop", f"{word} event")
        return relation, anchor
    return None, None


def _order_and_state(
    text: str, times: TimeReading, cues: _Cues
) -> tuple[Order | None, State | None]:
    """ "Most recent" / "first" ordering and the state asked about: current ("now", "still",
    or present tense without a named time) or past ("did", "was", "used to", ...)."""
    order: Order | None = None
    if cm := c.CURRENT.search(text):
        cues.cue("current_value", cm.group(0))
    if lm := c.LATEST.search(text):
        order = "latest"
        cues.cue("current_value", lm.group(0))
    elif fm := c.FIRST.search(text):
        order = "earliest"
        cues.cue("temporal", fm.group(0))
    state: State | None = None
    if cm:
        state = "current"
    elif pm := c.PAST.search(text):
        state = "past"
        cues.note(f"state:past:{pm.group(0).lower()}")
    elif c.PRESENT.search(text) and times.time_range is None:
        state = "current"
        cues.note("state:current:present tense")
    return order, state


def _shape(text: str, asked: Slot, cues: _Cues) -> None:
    """Aggregate (counts, lists), multi-hop (both, comparatives, relative clauses, possessive
    chains, "X and Y") and inference cues."""
    if (am := c.COUNT.search(text)) and asked != "count":
        cues.cue("aggregate", am.group(0))
    if lm := c.LIST.search(text):
        cues.cue("aggregate", "list: " + lm.group(0))
    for pattern, name in (
        (c.BOTH, None),
        (c.COMPARATIVE, "comparative"),
        (c.RELATIVE_CLAUSE, "relative clause"),
        (c.POSSESSIVE_CHAIN, "possessive chain"),
        (c.NAME_PAIR, "x and y"),
    ):
        if pm := pattern.search(text):
            cues.cue("multi_hop", name or pm.group(0))
    if im := c.INFERENCE.search(text):
        cues.cue("inference", im.group(0))


def read_question(
    question: str,
    *,
    entities: EntityLookup | None = None,
    reference: datetime | None = None,
    speakers: Iterable[str] = (),
    asker: str | None = None,
) -> Question:
    """Read one question. Never raises on any text (errors of ``entities`` propagate).

    Args:
        question: the question (only its first 2,000 characters are read).
        entities: resolves names and aliases to canonical entities; None = no resolution.
        reference: "now" for relative phrases ("last year"), e.g. the conversation's latest
            session date; naive datetimes are taken as UTC. None = relative phrases are noted
            as temporal cues but not resolved to a range.
        speakers: the conversation's speakers; those the question names become
            `Question.speakers`.
        asker: the speaker asking (the conversation's ``user``, or the caller's ``asked_by``);
            first-person words then name it.
    """
    text = question[:2000].replace("\u2019", "'").replace("\u2018", "'")
    if reference is not None and reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    cues = _Cues()
    asked = _asked_slot(text, cues)
    resolved = _entities(text, entities, cues)
    named, speaking = _speakers(text, speakers, asker, cues)
    times = read_times(text, reference)
    for phrase in times.phrases:
        cues.cue("temporal", phrase)
    relation, anchor = _relation(text, cues)
    order, state = _order_and_state(text, times, cues)
    _shape(text, asked, cues)
    # a relation chain: the wh-phrase asks for an entity, the rest is relations and a base
    chain = chain_question(text) if asked in c.CHAIN_SLOTS else None
    ask = asked_attribute(text)
    if ask is not None and asked in ("yes_no", "count"):
        # a yes/no or count question names no value it expects: a value of its attribute
        # supports it ("does the user have a pet?" by the user's dog), its absence refutes
        # nothing (the answer may be "no" or "none")
        ask = replace(ask, explicit=False)
    if chain is not None:
        cues.cue("chain", f"{' > '.join(chain.relations)} from {chain.base}")
    return Question(
        raw=question,
        text=text,
        tokens=tuple(re.findall(r"\w+", text)),
        words=tuple(letter_words(text)),
        speakers=speaking,
        named=named,
        asker=asker,
        entities=resolved,
        times=times,
        reference=reference,
        relation=relation,
        anchor=anchor,
        order=order,
        state=state,
        asked=asked,
        operators=tuple(op for op in OPERATORS if op in cues.ops),
        cues=tuple(dict.fromkeys(cues.fired)),
        chain=chain,
        attribute=ask.attribute if ask else None,
        value_type=ask.value_type if ask else None,
        ask=ask,
    )
