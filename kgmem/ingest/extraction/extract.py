"""Rule-based fact extraction (``source = "extracted"``, no LLM) behind a pluggable interface.

`SpacyExtractor` parses every turn with spaCy (``nlp.pipe``, batched), splits sentences into
clauses (a verb or copula with a subject of its own, or inherited through coordination), and
emits one subject-relation-object `FactRecord` per contentful clause:

- first person (I, me, my, we, our) resolves to the speaker, second person to the addressee —
  the previous different speaker (in a two-person chat, the other speaker);
- the relation is lemma-based snake_case: verb lemma, then particle, then the preposition that
  introduces the object when there is no direct object (``go_to``, ``live_in``, ``be``), with a
  ``not_`` prefix under negation;
- the text is the clause with pronouns rewritten and the verb agreed ("Caroline went to a LGBTQ
  support group yesterday"), short and self-contained so it embeds well with all-MiniLM-L6-v2;
- questions, clauses whose subject is a third-person pronoun or demonstrative (unresolvable
  without coreference), imperatives and greetings yield nothing;
- ``[shared image: <caption>]`` yields "<speaker> shared an image of <caption>";
- a clause holding a spaCy DATE/TIME span gets ``event_time`` from
  ``kgmem.ingest.extraction.dates.resolve_time(clause, reference=turn.observed_at)`` when that
  module exists.

This module is the driver (parsing, entity spans, facts from clauses); the clause grammar is
`kgmem.ingest.extraction.clause`, with its word lists in `kgmem.ingest.extraction.clause_words`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from kgmem.errors import KgmemError
from kgmem.ingest.extraction.clause import Clause, clauses_of
from kgmem.ingest.extraction.clause_nouns import common_word_span, org_modifier
from kgmem.ingest.extraction.entities import EntityResolver, ner_type
from kgmem.ingest.extraction.nlp import DEFAULT_PIPELINE, load_pipeline
from kgmem.ingest.extraction.prose import parsed_prose
from kgmem.models import (
    EntityRecord,
    FactRecord,
    TimeInterval,
    TurnRecord,
)

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "SERIAL_STRIDE",
    "Extraction",
    "FactExtractor",
    "SpacyExtractor",
    "addressees",
    "split_captions",
]


_CAPTION = re.compile(r"\[shared image:\s*(.*?)\s*\]", re.IGNORECASE | re.DOTALL)
_CAPTION_LEAD = re.compile(
    r"^(a|an|the)\s+"
    r"(photo|picture|image|photograph|photography|pic|close up|closeup|screenshot)\s+of\s+",
    re.IGNORECASE,
)
SERIAL_STRIDE = 1000
"""A fact's ``serial`` is ``turn.index * SERIAL_STRIDE + n``: increasing in conversation order,
and the same whether a turn is extracted with its whole conversation or appended later."""
ResolveTime = Callable[[str, datetime], list[TimeInterval]]


@dataclass(frozen=True)
class Extraction:
    """What an extractor produces for one conversation.

    Attributes:
        facts: in conversation order; ``serial`` = ``turn.index * SERIAL_STRIDE + n``
            (n counts the turn's facts from 0), so it increases through the conversation.
        entities: canonical, de-duplicated; speakers first.
        mentions: ``(turn_id, entity_id)`` pairs, unique, for ``(:Turn)-[:MENTIONS]->(:Entity)``.
    """

    facts: list[FactRecord]
    entities: list[EntityRecord]
    mentions: list[tuple[str, str]]


class FactExtractor(Protocol):
    """Anything that turns a conversation's turns into facts, entities and mentions."""

    name: str

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """Extract from ``turns`` (utterance order) of one conversation with these speakers."""
        ...


def split_captions(text: str) -> tuple[str, list[str]]:
    """Split turn text into the utterance and its image captions (leading "a photo of" dropped)."""
    captions = [_CAPTION_LEAD.sub("", m.strip()) for m in _CAPTION.findall(text)]
    return _CAPTION.sub(" ", text).strip(), [c for c in captions if c]


def addressees(turns: Sequence[TurnRecord], speakers: Sequence[str]) -> list[str | None]:
    """Addressee of each turn: the previous different speaker.

    With no previous different speaker (the opening turns), the next different speaker, or in a
    two-person conversation the other speaker; None if nobody else ever speaks.
    """
    result: list[str | None] = []
    last_other: str | None = None
    current: str | None = None
    for turn in turns:
        if turn.speaker != current:
            last_other, current = current, turn.speaker
        result.append(last_other)
    for i, value in enumerate(result):
        if value is not None:
            continue
        speaker = turns[i].speaker
        later = next((t.speaker for t in turns[i + 1 :] if t.speaker != speaker), None)
        others = [s for s in speakers if s != speaker]
        result[i] = later or (others[0] if len(others) == 1 else None)
    return result


def _load_resolve_time() -> ResolveTime | None:
    try:
        from kgmem.ingest.extraction.dates import resolve_time
    except ImportError:
        return None
    return resolve_time


class SpacyExtractor:
    """The rule-based `FactExtractor` (``name = "extracted"``).

    Args:
        pipeline: spaCy pipeline name, loaded lazily on the first `extract` via
            `kgmem.ingest.extraction.nlp.load_pipeline`.
        batch_size: ``nlp.pipe`` batch size.
        max_chars: the most characters of a turn's prose parsed (code blocks and tables are
            never parsed: `kgmem.ingest.extraction.prose`); None = no bound.

    Speed (LoCoMo dev, 1,451 turns, 2 cores): about 6 s per 1,000 turns on an idle machine,
    of which ``nlp.pipe`` is over 85%; 2-3x that while other jobs share the cores.
    """

    name = "extracted"

    def __init__(
        self, pipeline: str = DEFAULT_PIPELINE, batch_size: int = 128, max_chars: int | None = None
    ) -> None:
        self.pipeline = pipeline
        self.batch_size = batch_size
        self.max_chars = max_chars
        self._nlp: Language | None = None
        self._resolve_time: ResolveTime | None = None
        self._dates_checked = False

    def _load(self) -> Language:
        if self._nlp is None:
            self._nlp = load_pipeline(self.pipeline)
        if not self._dates_checked:
            self._resolve_time = _load_resolve_time()
            self._dates_checked = True
        return self._nlp

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """Extract facts, canonical entities and mentions from one conversation.

        Args:
            conversation_id: tenant; prefixes every fact and entity id.
            turns: the conversation's turns in utterance order (any subset works; addressees
                are computed within it).
            speakers: the conversation's speakers (registered as person entities).

        Returns:
            An `Extraction`. Fact ids are ``<conversation_id>:x:<dia_id>:<n>`` with n counting
            the turn's facts from 0, so re-extracting the same input gives the same ids.

        Raises:
            ModelUnavailable: the spaCy pipeline cannot be loaded.
        """
        nlp = self._load()
        resolver = EntityResolver(conversation_id, speakers)
        split = [split_captions(t.text) for t in turns]
        bodies = [parsed_prose(body, self.max_chars) for body, _ in split]
        docs = list(nlp.pipe(bodies, batch_size=self.batch_size))
        not_persons = self._register_persons(resolver, docs, speakers)
        lower = {t.text.casefold() for doc in docs for t in doc if t.is_lower}
        facts: list[FactRecord] = []
        mentions: dict[tuple[str, str], None] = {}
        for turn, (_, captions), doc, addressee in zip(
            turns, split, docs, addressees(turns, speakers), strict=True
        ):
            turn_facts = self._turn_facts(
                turn, doc, captions, addressee, resolver, mentions, not_persons, lower
            )
            for n, clause_fact in enumerate(turn_facts):
                facts.append(
                    clause_fact.model_copy(
                        update={
                            "id": f"{conversation_id}:x:{turn.dia_id}:{n}",
                            "serial": turn.index * SERIAL_STRIDE + n,
                        }
                    )
                )
        return Extraction(facts=facts, entities=resolver.entities(), mentions=list(mentions))

    @staticmethod
    def _register_persons(
        resolver: EntityResolver, docs: Sequence[Doc], speakers: Sequence[str]
    ) -> set[str]:
        """Register PERSON spans longest first (so nicknames find their full name).

        A PERSON span is rejected when every word of it is also written in lower case somewhere
        in the conversation ("Glad", "Guitar", "Nature" opening a sentence): evidence that it is
        a common word, not a name. Speakers are always persons.

        Returns:
            The rejected PERSON surfaces.
        """
        lower = {t.text for doc in docs for t in doc if t.is_lower}
        keep = {s.casefold() for s in speakers}
        names = {ent.text for doc in docs for ent in doc.ents if ent.label_ == "PERSON"}
        rejected = {
            name
            for name in names
            if name.casefold() not in keep
            and (name[:1].islower() or all(w.casefold() in lower for w in name.split()))
        }
        for name in sorted(names - rejected, key=lambda n: (-len(n), n)):
            resolver.resolve(name, "person")
        return rejected

    def _turn_facts(
        self,
        turn: TurnRecord,
        doc: Doc,
        captions: list[str],
        addressee: str | None,
        resolver: EntityResolver,
        mentions: dict[tuple[str, str], None],
        not_persons: set[str],
        lower: set[str],
    ) -> list[FactRecord]:
        speaker = resolver.resolve(turn.speaker, "person")
        token_entity: dict[int, str] = {}
        for ent in doc.ents:
            etype = ner_type(ent.label_)
            if etype == "person" and ent.text in not_persons:
                continue
            if etype not in ("person", "date") and common_word_span(ent, lower):
                continue  # "Pottery's so relaxing": a capitalised common word, not a name
            if ent.label_ == "ORG" and org_modifier(ent):
                continue  # "a new LGBTQ activist group": the group is the thing
            rec = resolver.resolve(ent.text, etype) if etype else None
            if rec is None:
                continue
            mentions[(turn.id, rec.id)] = None
            for tok in ent:
                token_entity[tok.i] = rec.id
        out: list[FactRecord] = []
        seen: set[str] = set()
        for clause in clauses_of(doc, turn.speaker, addressee, token_entity, resolver):
            if clause.text.casefold() in seen:
                continue
            seen.add(clause.text.casefold())
            if clause.informant:
                mentions[(turn.id, clause.informant)] = None
            for entity_id in (*clause.subject_entities, *clause.object_entities):
                if ":e:other:" in entity_id or ":e:concept:" in entity_id:
                    mentions[(turn.id, entity_id)] = None
            out.append(self._fact(turn, clause))
        for caption in captions:
            if speaker is None:
                break
            out.append(
                FactRecord(
                    id="",
                    conversation_id=turn.conversation_id,
                    subject=speaker.id,
                    relation="share_image",
                    object=caption,
                    text=f"{turn.speaker} shared an image of {caption}",
                    source="extracted",
                    cites=(turn.id,),
                    about=((speaker.id, "subject"),),
                    valid_from=turn.observed_at,
                    confidence=0.9,
                    session=turn.session,
                )
            )
        return out

    def _fact(
        self,
        turn: TurnRecord,
        clause: Clause,
    ) -> FactRecord:
        about = {(e, "subject"): None for e in clause.subject_entities}
        about.update({(e, "object"): None for e in clause.object_entities})
        event_time = None
        if clause.date_phrase and self._resolve_time is not None:
            event_time = self._event_time(clause.source_text, turn.observed_at)
        modality = clause.modality
        if (
            modality == "asserted"
            and event_time is not None
            and not clause.past
            and event_time.start > turn.observed_at
        ):
            modality = "planned"  # "I'm seeing the dentist next week"
        return FactRecord(
            id="",
            conversation_id=turn.conversation_id,
            subject=clause.subject_entity or clause.subject_text,
            relation=clause.relation,
            object=clause.object_entity or clause.object_text,
            text=clause.text,
            source="extracted",
            cites=(turn.id,),
            about=tuple(about),
            event_time=event_time,
            valid_from=turn.observed_at,
            confidence=clause.confidence,
            session=turn.session,
            modality=modality,
            informant=clause.informant if modality == "reported" else None,
            reporter=turn.speaker if modality == "reported" else None,
        )

    def _event_time(self, text: str, reference: datetime) -> TimeInterval | None:
        assert self._resolve_time is not None
        try:
            intervals = self._resolve_time(text, reference)
        except KgmemError:
            return None
        return intervals[0] if intervals else None
