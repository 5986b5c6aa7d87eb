"""Pydantic records that cross module boundaries: what loaders produce, what the writer stores,
what the read path returns.

Datetimes are timezone-aware (UTC after normalisation). Ids are strings; a turn id is
``<conversation_id>:<dia_id>`` for LoCoMo (e.g. ``conv-26:D1:3``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from kgmem.roles import Role

__all__ = [
    "SOURCE_KINDS",
    "ConversationRecord",
    "EntityRecord",
    "EntityType",
    "EventRecord",
    "FactRecord",
    "FactSource",
    "Granularity",
    "Hit",
    "Modality",
    "QuestionRecord",
    "SessionRecord",
    "SourceKind",
    "TimeInterval",
    "TurnRecord",
]

EntityType = Literal["person", "place", "organization", "work", "date", "concept", "other"]
FactSource = Literal["extracted", "annotation", "llm", "manual"]
Modality = Literal["asserted", "negated", "hypothetical", "planned", "question", "reported"]
"""How a fact's clause holds its content (see `kgmem.ingest.extraction.modality`). Only ``asserted``
and ``negated`` facts take part in current values."""
Granularity = Literal["day", "week", "weekend", "month", "season", "year"]
SourceKind = Literal["chat", "document", "facts"]
"""What a turn's text is: said in a chat, a chunk of a document, or a line of a fact list."""
#: every source kind, in the order docs and errors list them
SOURCE_KINDS: tuple[SourceKind, ...] = ("chat", "document", "facts")


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware")
    return value


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TurnRecord(_Record):
    """One immutable utterance.

    Attributes:
        id: globally unique, ``<conversation_id>:<local id>``.
        conversation_id: tenant / namespace.
        session: 1-based session number.
        index: 0-based position in the whole conversation (utterance order across sessions).
        dia_id: the dataset's local id (LoCoMo ``D1:3``), or the generic format's turn id.
        speaker: who said it.
        text: raw text; an image caption is appended as ``[shared image: <caption>]``.
        observed_at: the session's datetime, timezone-aware.
        role: the speaker's role (`kgmem.roles`): ``user``, ``assistant``, ``system``,
            ``tool``, or None for a named speaker with no role (LoCoMo).
        request: the turn is a memory request (`kgmem.ingest.requests.rules`): stored, never a
            source of facts, never an answer.
        source: where the text came from beyond the conversation itself: a document chunk's
            ``<document>#<heading trail>`` (`kgmem.ingest.loaders.documents`); None for chat turns.
        source_kind: what kind of source the turn is (`SourceKind`): ``chat`` (said in a
            conversation), ``document`` (a chunk of an ingested document) or ``facts`` (a line
            of a fact list); the ``sources`` filter of a search matches it.
        document: a document chunk's document key (its resolved path, or the ``source`` given
            to `kgmem.api.Memory.add_document`); None for other turns.
        metadata: the caller's own flat key/value pairs (`kgmem.metadata`: strings, numbers,
            booleans, dates); None for none. Stored as ``meta_<key>`` properties.
    """

    id: str
    conversation_id: str
    session: int
    index: int
    dia_id: str
    speaker: str
    text: str
    observed_at: datetime
    role: Role | None = None
    request: bool = False
    source: str | None = None
    source_kind: SourceKind = "chat"
    document: str | None = None
    metadata: dict[str, Any] | None = None

    _check_tz = field_validator("observed_at")(_aware)


class SessionRecord(_Record):
    """A session: a dated block of turns. ``started_at`` is timezone-aware."""

    conversation_id: str
    session: int
    started_at: datetime

    _check_tz = field_validator("started_at")(_aware)


class TimeInterval(_Record):
    """A resolved time: ``[start, end)`` in UTC with a granularity and the surface phrase."""

    start: datetime
    end: datetime
    granularity: Granularity
    phrase: str = ""

    _check_tz = field_validator("start", "end")(_aware)


class EntityRecord(_Record):
    """A canonical typed entity, scoped to one conversation (``id`` embeds the conversation), or
    with ``owner`` to all of that owner's conversations (``id`` embeds ``owner:<owner>``, and
    ``conversation_id`` is the thread that wrote it; `kgmem.ingest.writing.threads`)."""

    id: str
    conversation_id: str
    name: str
    type: EntityType
    aliases: tuple[str, ...] = ()
    owner: str | None = None


class FactRecord(_Record):
    """One atomic statement citing the turn(s) it came from.

    Attributes:
        subject / relation / object: the triple; ``object`` is an entity id or a literal.
        text: a short self-contained sentence (what gets embedded).
        cites: turn ids this fact came from (``CITES`` edges).
        about: ``(entity_id, role)`` pairs, role ``subject`` or ``object`` (``ABOUT`` edges).
        event_time: when the text dates it (resolved against the session date), if it does.
        valid_from / valid_to: validity interval; ``valid_to`` is set when superseded.
        key: supersession key ``<subject>|<relation>`` for single-valued relations, else None.
        serial: arrival order within the conversation (higher = newer).
        confidence: extractor confidence in [0, 1].
        source: ``extracted`` | ``annotation`` | ``llm`` | ``manual``.
        modality: ``asserted`` (default), ``negated``, ``hypothetical``, ``planned``,
            ``question`` or ``reported``; see `kgmem.ingest.extraction.modality`.
        informant: for ``reported`` facts, who the content came from (entity id or name:
            "Pia" in "Pia told me she can't stand jazz"); the subject is who it is about.
        reporter: for ``reported`` facts, the speaker who passed it on.
        attribute: the attribute the fact gives a value of (`kgmem.ingest.extraction.attributes`): a
            listed one of ``kgmem/data/attributes.json`` ("employer", "phone"), or a derived
            ``<verb lemma>_<preposition or head noun>`` for an unlisted predicate; None when
            not read.
        value: the value's surface ("Lakeview Clinic", "0151 444 9876").
        value_type: `kgmem.ingest.extraction.values.ValueType` of the value ("organization",
        "phone"). multiplicity: ``single`` (one current value per subject) or ``multi`` (values
            accumulate); None for a derived attribute.
        holder: whose attribute it is (entity id), when that differs from ``subject``: the
            owner in "my mobile is …" (subject "user's mobile").
        thing: for attributes of a thing the holder has (a date of a planned thing, a pet's
            name), the thing's head noun ("flight").
    """

    id: str
    conversation_id: str
    subject: str
    relation: str
    object: str
    text: str
    source: FactSource
    cites: tuple[str, ...] = ()
    about: tuple[tuple[str, str], ...] = ()
    event_time: TimeInterval | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    key: str | None = None
    serial: int = 0
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    session: int | None = None
    modality: Modality = "asserted"
    informant: str | None = None
    reporter: str | None = None
    attribute: str | None = None
    value: str | None = None
    value_type: str | None = None
    multiplicity: Literal["single", "multi"] | None = None
    holder: str | None = None
    thing: str | None = None


class EventRecord(_Record):
    """Something that happened; groups the facts about it (``MEMBER_OF``)."""

    id: str
    conversation_id: str
    name: str
    time: TimeInterval | None = None
    fact_ids: tuple[str, ...] = ()


class QuestionRecord(_Record):
    """A benchmark question with normalised gold evidence turn ids.

    Attributes:
        id: ``<conversation_id>:qa<n>`` with n counting from 0 in file order.
        category: LoCoMo category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
            5 adversarial).
        evidence: normalised gold turn ids (full ids, ``<conversation_id>:D<s>:<t>``).
        unresolved_evidence: raw evidence entries that point at no turn.
    """

    id: str
    conversation_id: str
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...] = ()
    unresolved_evidence: tuple[str, ...] = ()


class ConversationRecord(_Record):
    """A whole conversation as a loader produces it.

    Attributes:
        owner: the user, agent or team whose memory the conversation belongs to (one owner's
            conversations are searched together: `kgmem.api.Memory.search` ``owner=``); None
            for a conversation of its own.
    """

    conversation_id: str
    speakers: tuple[str, ...]
    sessions: tuple[SessionRecord, ...]
    turns: tuple[TurnRecord, ...]
    facts: tuple[FactRecord, ...] = ()
    questions: tuple[QuestionRecord, ...] = ()
    owner: str | None = None


class Hit(BaseModel):
    """One retrieved turn with its score and the score's terms.

    Attributes:
        turn_id, text, speaker, session, observed_at: the original turn.
        conversation_id: the conversation (thread) the turn belongs to; an owner search ranks
            the turns of all the owner's conversations together.
        source: for a document chunk, its ``<document>#<heading trail>``
            (`kgmem.ingest.loaders.documents`); None for chat turns.
        score: the final score (sum of ``terms``); cosine terms lie in [-1, 1].
        terms: each scorer term's value, e.g. ``{"cosine": 0.41, "fact": 0.12}``.
        trace: provenance: which generator brought the turn in, fact ids, hop path, event times.
        passage: for a turn longer than the embedder's window (stored as passages,
            `kgmem.ingest.extraction.passages`), the passage that matched best: ``{"n", "start",
            "end", "cosine"}`` with ``text[start:end]`` its text; its cosine is the turn's
            ``cosine`` term. None for a turn that is one passage.
        metadata: the turn's metadata (`kgmem.metadata`; ``{}`` for none): strings, numbers,
            booleans, `datetime.date` and UTC datetimes.
    """

    model_config = ConfigDict(extra="forbid")

    turn_id: str
    text: str
    speaker: str
    session: int
    observed_at: datetime
    score: float
    conversation_id: str = ""
    source: str | None = None
    terms: dict[str, float] = Field(default_factory=dict)
    trace: dict[str, Any] = Field(default_factory=dict)
    passage: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
