"""Answerability: does anything in memory support the question *for the person it names*?

Support is judged at the level of facts, not of the conversation's words. The question's key
content terms (the `kgmem.retrieve.question.Question.answer_terms` view: its
words minus question words, function words, generic verbs and nouns and the names of the
persons it names) are Snowball-stemmed and matched against the
*asserted or negated* facts of the conversation whose subject is a person
(``read/person_support``; hypotheticals, questions and reports never support; a plan
supports only a question about the present or future, `Support.planned`). The
question is **unanswerable** when

- **another person's best fact** covers at least `SWAP_MARGIN` more key terms than the best
  fact about the person the question names, and that best fact covers at most
  `MAX_OWN_SHARE` of the terms — the question asks about someone what memory holds about
  someone else (LoCoMo's adversarial category 5, Maharana et al., ACL 2024, is mostly this); or
- **no key term occurs anywhere** in what memory asserts (facts, and turns that are not only
  plans, hypotheticals, questions or reports): "What is Uma's parrot called?" when only a dog
  is known; "What keyboard does Sol own?" when the only keyboard is an assistant's suggestion.

The terms not found in any fact about the named person are reported as ``unsupported``. A
question that names no person is answerable (there is nothing to hold it against).

Two features say who holds what the question asks:

- the **speaker gap** (retrieval side, read from the ranked pool the speaker seeds fill): when
  the question names exactly one speaker, the best score of a candidate turn said by any other
  *person* (speakers with an ``assistant``, ``system`` or ``tool`` role are not persons: their
  short replies would make every user's own turn look better) minus the best score of a turn
  said by that speaker (without the speaker term);
- the **holder gap** (fact side, `holder_gap`): among the facts closest to the question by
  embedding (the ``holder`` part of ``read/linked_read``, ``pool_holder`` of them), the best cosine
  of a fact held by someone else minus the best cosine of a fact held by a person the question
  names. A fact is held by the named person when its subject or the speaker of the turn it cites is
  that person, else by its subject or speaker (an assistant's suggestion is the assistant's). It
  compares facts with facts, so it does not depend on how long each speaker's turns are.

`decide`: the question is unanswerable when the speaker gap exceeds `SPEAKER_GAP_ALONE`, or
when the fact rule above fires and the holder gap exceeds `HOLDER_GAP_WITH_FACTS` (what the
named person holds is not what the question asks, or someone else holds it better). The rule
and its constants were chosen on the LoCoMo dev split (categories 1-4 against 5) and checked by
leave-one-conversation-out (docs/attributes.md, "Answerability"; `kgmem.bench.answerability`).
"""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import snowballstemmer

from kgmem.ingest.extraction.attributes import Attribute, vocabulary
from kgmem.ingest.extraction.entities import slugify
from kgmem.retrieve.asked import AskedAttribute
from kgmem.retrieve.question import Question, letter_words, stop_words

__all__ = [
    "HOLDER_GAP_WITH_FACTS",
    "JOB",
    "MAX_OWN_SHARE",
    "NOT_PERSONS",
    "SPEAKER_GAP_ALONE",
    "SWAP_MARGIN",
    "Answerability",
    "Support",
    "asker_persons",
    "attribute_verdict",
    "decide",
    "holder_gap",
    "judge",
    "speaker_person",
    "stems",
    "unanswerable",
]

#: another person's best fact must cover this many more key terms than the named person's ...
SWAP_MARGIN = 1
#: ... whose best fact covers at most this share of them (dev-calibrated, see module docstring)
MAX_OWN_SHARE = 0.5
#: speaker gap (score units, see `decide`) above which a question is unanswerable on its own
SPEAKER_GAP_ALONE: float | None = 0.35
#: holder gap (cosine units, see `holder_gap`) above which the fact rule's verdict stands
#: (None: it always stands); dev-calibrated, see the module docstring
HOLDER_GAP_WITH_FACTS: float | None = 0.0
#: roles whose speakers are not persons for the speaker gap (`kgmem.roles`)
NOT_PERSONS = frozenset({"assistant", "system", "tool"})

#: one Snowball stemmer per thread: a stemmer keeps the word being stemmed in the object
#: (``current``, ``cursor``, ...), so threads sharing one corrupt each other's stems or raise
#: IndexError (searches run in worker threads: AsyncMemory, the MCP server, LangGraph's abatch).
#: ``snowballstemmer.stemmer`` returns PyStemmer's C stemmer when it is installed (a dependency:
#: the same stems, about 14x faster, which is most of a long chat's first question), itself
#: documented as not thread-safe.
_STEMMERS = threading.local()


def stems(words: Iterable[str]) -> list[str]:
    """Lower-cased Snowball English stems (possessive ``'s`` dropped)."""
    clean = [re.sub(r"'s?$", "", w.lower()) for w in words]
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return [str(w) for w in stemmer.stemWords([w for w in clean if w])]


@dataclass(frozen=True)
class Answerability:
    """The answerability decision for one question.

    Attributes:
        answerable: False when memory supports too little of the question for its person.
        unsupported: the content terms nothing about the person carries.
        terms: all content terms that were checked.
        persons: the names of the persons the question was checked against.
        reason: a short human-readable explanation.
        best_own / best_other: key terms covered by the best fact about the named person /
            about anyone else.
        asked: the number of distinct key-term stems.
        in_memory: whether any key term occurs in what memory asserts.
    """

    answerable: bool
    unsupported: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    persons: tuple[str, ...] = ()
    reason: str = ""
    best_own: int = 0
    best_other: int = 0
    asked: int = 0
    in_memory: bool = True


def unanswerable(
    best_own: int,
    best_other: int,
    asked: int,
    in_memory: bool,
    *,
    margin: int = SWAP_MARGIN,
    own_share: float = MAX_OWN_SHARE,
) -> bool:
    """The decision rule on its features (module docstring): no key term in memory, or another
    person's best fact covers ``margin`` more of the ``asked`` key terms than the named person's
    best fact, which covers at most ``own_share`` of them. ``asked = 0`` is answerable."""
    if asked == 0:
        return False
    if not in_memory:
        return True
    return best_other - best_own >= margin and best_own <= own_share * asked


def decide(
    fact_rule: bool,
    speaker_gap: float | None,
    holder_gap: float | None = None,
    *,
    in_memory: bool = True,
    alone: float | None = SPEAKER_GAP_ALONE,
    with_facts: float | None = HOLDER_GAP_WITH_FACTS,
) -> bool:
    """The final verdict (True = unanswerable) from the fact rule's verdict (`unanswerable`),
    the speaker gap and the holder gap (module docstring).

    Args:
        fact_rule: whether the fact rule says unanswerable.
        speaker_gap: best score of a turn by any other person minus the best score (without
            the speaker term) of a turn by the one speaker the question names; None when the
            question names no single speaker or either side has no candidate.
        holder_gap: `holder_gap`; None when no fact held by someone else is near the question
            (the fact rule's verdict then stands).
        in_memory: whether some key term occurs in memory; when none does, the fact rule's
            verdict stands whatever the holder gap (nothing of the question is there to hold).
        alone: a speaker gap above this is unanswerable by itself (None: never).
        with_facts: the fact rule's verdict needs a holder gap above this (None: no
            condition).
    """
    if alone is not None and speaker_gap is not None and speaker_gap > alone:
        return True
    if not fact_rule:
        return False
    return not in_memory or with_facts is None or holder_gap is None or holder_gap > with_facts


def holder_gap(
    rows: Iterable[Mapping[str, Any]], ids: Collection[str], person_of: Callable[[str, str], str]
) -> float | None:
    """How much better someone else holds what the question asks than the persons it names.

    A fact is held by the named persons when its subject or the speaker of the turn it cites
    is one of them ("my twins start kindergarten", said by the user, is the user's); else by
    its subject or speaker (an assistant's suggestion is the assistant's).

    Args:
        rows: ``read/linked_read``'s ``holder`` rows (``conversation_id``, ``subject``,
            ``speaker``, ``cosine``), the facts closest to the question, best first.
        ids: the person entity ids the question names.
        person_of: ``(conversation id, speaker) -> person entity id`` (`speaker_person`).

    Returns:
        The best cosine of a fact held by someone else minus the best cosine of a fact held by
        a named person, in [-2, 2]; a side holding none of ``rows`` counts the lowest cosine
        read. None when no row has a holder.
    """
    own: float | None = None
    other: float | None = None
    lowest: float | None = None
    for row in rows:
        cosine = float(row["cosine"])
        lowest = cosine if lowest is None else min(lowest, cosine)
        subject = str(row["subject"]) if row.get("subject") else None
        speaker = (
            person_of(str(row["conversation_id"]), str(row["speaker"]))
            if row.get("speaker")
            else None
        )
        if subject in ids or speaker in ids:
            own = cosine if own is None else max(own, cosine)
        elif subject or speaker:
            other = cosine if other is None else max(other, cosine)
    if lowest is None or (own is None and other is None):
        return None
    return round((other if other is not None else lowest) - (own if own is not None else lowest), 6)


@dataclass(frozen=True)
class Support:
    """What memory asserts in one conversation (as of one moment), stemmed.

    Attributes:
        facts: ``(person entity id, stems)`` per asserted/negated fact about a person.
        attributes: ``(person entity id, attribute, thing)`` of the same facts, in the same
            order (`kgmem.ingest.extraction.attributes`; None where a fact has no attribute).
        everything: stems of every asserted fact and every turn that is not only plans,
            hypotheticals, questions or reports.
        planned: stems of the turns whose facts are plans (and no assertion): memory for a
            question about the present or future ("how many kids start kindergarten?"), not
            for one about the past ("what did she bake?").
    """

    facts: tuple[tuple[str, frozenset[str]], ...]
    everything: frozenset[str]
    attributes: tuple[tuple[str, str | None, str | None], ...] = ()
    planned: frozenset[str] = frozenset()

    @cached_property
    def _postings(self) -> dict[str, list[int]]:
        """stem -> positions in `facts` of the facts holding it (built once, on first use)."""
        out: dict[str, list[int]] = defaultdict(list)
        for position, (_, words) in enumerate(self.facts):
            for word in words:
                out[word].append(position)
        return out

    def coverage(self, asked: set[str], ids: set[str]) -> tuple[int, int, frozenset[str]]:
        """How well the facts cover the ``asked`` stems, through an inverted index: the cost
        grows with the facts that share a stem with the question, not with all facts (a scan
        of every fact took ~100 ms per question at 50,000 turns; `kgmem bench scale`).

        Returns:
            ``(best_own, best_other, own_stems)``: the most ``asked`` stems one fact about a
            person in ``ids`` holds, the same for facts about anyone else (0 when none), and
            the ``asked`` stems that some fact about ``ids`` holds.
        """
        counts: Counter[int] = Counter()
        for stem in asked:
            counts.update(self._postings.get(stem, ()))
        best_own = best_other = 0
        own_stems: set[str] = set()
        for position, count in counts.items():
            subject, words = self.facts[position]
            if subject in ids:
                best_own = max(best_own, count)
                own_stems |= asked & words
            else:
                best_other = max(best_other, count)
        return best_own, best_other, frozenset(own_stems)

    @classmethod
    def from_rows(cls, rows: Iterable[dict[str, object]]) -> Support:
        """From ``read/person_support`` rows (kind, subject, text)."""
        facts: list[tuple[str, frozenset[str]]] = []
        attributes: list[tuple[str, str | None, str | None]] = []
        everything: set[str] = set()
        planned: set[str] = set()
        for row in rows:
            words = frozenset(stems(letter_words(str(row["text"]))))
            if row["kind"] == "plan":
                planned |= words
                continue
            everything |= words
            if row["kind"] == "fact" and row["subject"]:
                facts.append((str(row["subject"]), words))
                attribute, thing = row.get("attribute"), row.get("thing")
                attributes.append(
                    (
                        str(row["subject"]),
                        str(attribute) if attribute else None,
                        str(thing) if thing else None,
                    )
                )
        return cls(tuple(facts), frozenset(everything), tuple(attributes), frozenset(planned))


def judge(
    question: Question,
    persons: Sequence[tuple[str, str]],
    support: Support,
    *,
    margin: int = SWAP_MARGIN,
    own_share: float = MAX_OWN_SHARE,
) -> Answerability:
    """Decide answerability (see the module docstring for the rule).

    Args:
        question: the question's reading: its `Question.answer_terms` are the key terms (the
            names of the persons it resolved left out), its ``state`` says whether a plan can
            answer it.
        persons: ``(entity id, surface)`` of each person the question names (none: answerable).
        support: what memory asserts (`Support`).
        margin / own_share: the decision constants (defaults: the calibrated ones).
    """
    names = [surface for _, surface in persons]
    terms = list(question.answer_terms)
    if not persons:
        return Answerability(True, (), tuple(terms), (), "names no person")
    if not terms:
        return Answerability(True, (), (), tuple(names), "no content terms")
    term_stems = stems(terms)
    asked = set(term_stems)
    ids = {entity_id for entity_id, _ in persons}
    best_own, best_other, own_words = support.coverage(asked, ids)
    unsupported = tuple(t for t, s in zip(terms, term_stems, strict=True) if s not in own_words)
    in_memory = bool(asked & support.everything)
    if not in_memory and question.state != "past":
        in_memory = bool(asked & support.planned)  # a plan answers of the present and future
    if not in_memory:
        reason = "no key term occurs in memory"
    elif unanswerable(best_own, best_other, len(asked), True, margin=margin, own_share=own_share):
        reason = (
            f"another person's fact covers {best_other} of {len(asked)} key terms, the best "
            f"fact about {', '.join(names)} {best_own}"
        )
    else:
        return Answerability(
            True,
            unsupported,
            tuple(terms),
            tuple(names),
            f"best fact covers {best_own} of {len(asked)}",
            best_own,
            best_other,
            len(asked),
            in_memory,
        )
    return Answerability(
        False,
        unsupported,
        tuple(terms),
        tuple(names),
        reason,
        best_own,
        best_other,
        len(asked),
        in_memory,
    )


JOB = frozenset({"employer", "occupation"})
"""Attributes that answer each other's questions: "what does Dan do for work" is answered by
a job title or by an employer."""


def _attribute_words(attribute: Attribute) -> frozenset[str]:
    """Stems of the words that state an attribute (its nouns, predicates' content words,
    value words and question words), without the content stop list."""
    words = [
        w
        for phrase in (*attribute.nouns, *attribute.predicates, *attribute.values)
        for w in letter_words(phrase)
    ]
    words += list(attribute.questions)
    stops = stop_words()
    kept = [w for w in words if w.lower() not in stops and len(w) > 2]
    return frozenset(stems(kept))


def attribute_verdict(
    asked: AskedAttribute | None,
    persons: Sequence[tuple[str, str]],
    support: Support,
) -> Answerability | None:
    """Answerability by the asked attribute (docs/attributes.md), or None when it has no
    opinion (no attribute asked, no person named).

    - **Answerable** when a fact about a named person gives the asked attribute (or one that
      answers it, `JOB`) a value, for the asked thing when the attribute is of a thing: the
      value supports the question without sharing its words.
    - For an *explicit* ask (`kgmem.retrieve.asked.AskedAttribute.explicit`) with no such
      fact: **unanswerable** when no fact about the person names the thing ("no daughter of
      the user is in memory"), or when none of the facts that name it (or, with no thing, none
      at all) says anything of the attribute (its nouns, predicates, value words): "no name of
      the user's dog is in memory". Facts are the person's own: an assistant's suggestion is
      the assistant's (`kgmem.ingest.pipeline.own_facts`), never the user's item.
    """
    if asked is None or not persons:
        return None
    ids = {entity_id for entity_id, _ in persons}
    holder = ", ".join(dict.fromkeys(surface for _, surface in persons))  # one per thread
    accept = {asked.attribute, *asked.also}
    if accept & JOB:
        accept |= JOB
    own = [
        (words, attr)
        for (subject, words), attr in zip(support.facts, support.attributes, strict=False)
        if subject in ids
    ]
    for _, (_, attribute, thing) in own:
        if attribute in accept and (asked.thing is None or thing is None or thing == asked.thing):
            return Answerability(
                True, (), (), tuple(holder.split(", ")), f"{attribute} is in memory"
            )
    if not asked.explicit:
        return None
    vocab = vocabulary()
    entry = vocab.attributes.get(asked.attribute)
    if entry is None:
        return None
    label = asked.attribute.replace("_", " ")
    names = tuple(dict.fromkeys(surface for _, surface in persons))
    candidates = [words for words, _ in own]
    if asked.thing:
        thing_stems = set(stems(asked.thing.split("-")))
        candidates = [w for w in candidates if thing_stems <= w]
        thing = asked.thing.replace("-", " ")
        if not candidates:
            return Answerability(False, (thing,), (), names, f"no {thing} of {holder} is in memory")
        if entry.per_thing and thing_stems & _attribute_words(entry) == thing_stems:
            return None  # the thing is the attribute itself ("passport number"): it is there
        if asked.attribute == "owned":
            return None  # the person's own fact names the thing
        wanted = _attribute_words(entry) - thing_stems
        if any(wanted & w for w in candidates):
            return None
        return Answerability(
            False, (label,), (), names, f"no {label} of {holder}'s {thing} is in memory"
        )
    wanted = _attribute_words(entry)
    if any(wanted & w for w in candidates):
        return None
    return Answerability(False, (label,), (), names, f"no {label} of {holder} is in memory")


def asker_persons(
    conversation_id: str, question: Question, persons: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """``(entity id, name)`` of the speakers the question names ("my", "the user", a name)
    that ``persons`` lacks: a speaker is a person entity of the conversation
    (`kgmem.ingest.extraction.entities.EntityResolver` ids; ``conversation_id`` is the entity scope,
    the owner's ``owner:<owner>`` in an owned conversation: `kgmem.store.tenant.entity_scope`),
    so "What is my passport number?" is checked against the user's own facts."""
    have = {surface.casefold() for _, surface in persons}
    out = []
    for speaker in question.speakers:
        if speaker.casefold() not in have:
            out.append((speaker_person(conversation_id, speaker), speaker))
    return out


def speaker_person(conversation_id: str, speaker: str) -> str:
    """The person entity id of a speaker of a conversation (`kgmem.ingest.extraction.entities`)."""
    return f"{conversation_id}:e:person:{slugify(speaker)}"
