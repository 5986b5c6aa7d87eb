"""The MCP tools' outputs: pydantic models, so each tool declares its output schema
(`kgmem.mcp`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = [
    "CITE",
    "CurrentValue",
    "ForgetAboutOutput",
    "ForgetOutput",
    "RememberOutput",
    "SearchOutput",
    "TimelineEntry",
    "TimelineOutput",
    "TurnOut",
    "TurnsOutput",
]

#: the note every tool answer that returns turns carries
CITE = "Cite turns by their turn_id; dates are the day the turn was said (UTC)."


class TurnOut(BaseModel):
    """One original conversation turn, citable by ``turn_id``.

    Attributes:
        turn_id: ``<conversation_id>:<local id>``, e.g. ``conv-26:D1:3``.
        date: the day the turn was said, ``YYYY-MM-DD`` (UTC).
        observed_at: full timestamp, ISO 8601 UTC.
        speaker, session, text: the original turn (text never rewritten).
        score: the retrieval score (search only; cosine terms in [-1, 1] plus bonuses).
        offset: steps along ``NEXT`` from the asked turn (``read_turns`` only; 0 = that turn).
        passage: for a long turn (search only), the passage that matched best:
            ``{"start", "end"}``, character offsets into ``text``; None for a short turn.
        why: one line saying why a search hit is here (search only).
        event_date: the day the turn's text dates what it tells (``YYYY-MM-DD``: "yesterday"
            said on 8 May is 7 May), when it names one (search only).
        metadata: the turn's own key/value pairs (`kgmem.metadata`; dates as ``YYYY-MM-DD``;
            search only).
    """

    turn_id: str
    date: str
    observed_at: str
    speaker: str
    session: int
    text: str
    score: float | None = None
    offset: int | None = None
    conversation_id: str | None = None
    source: str | None = None
    passage: dict[str, int] | None = None
    why: str | None = None
    event_date: str | None = None
    metadata: dict[str, Any] | None = None


class SearchOutput(BaseModel):
    """``search_memory``'s answer: turns best first.

    Attributes:
        answerable: False when nothing in memory supports the question for the person it
            names (say so instead of answering from the turns).
        unsupported: the question's key terms nothing about that person carries.
        answer: the fact that gives the asked attribute its value, when there is one
            (`kgmem.retrieve.retriever.SearchResult.answer`: subject, attribute, value,
            value_type, valid_from/valid_to, the cited turn_id, why it won); read it first and
            cite its turn.
        next_cursor: pass it as ``cursor`` (same query and filters) for the next page; None
            when there is none.
        unknown_names: names given (``speaker``) that name nothing in memory; the speakers
            memory holds are then in ``speakers``.
        omitted: hits left out by ``max_tokens`` (they open the next page).
        notes: what else to know (an unknown name, a trimmed page).
        instructions: the user's standing instructions and preferences that apply to this
            request (follow them): ``{"turn_id", "kind", "text", "scope", "valid_from", "why"}``.
        conflicts: statements among the hits that contradict each other (ask the user which
            holds): ``{"turn_ids", "turns": [{"turn_id", "observed_at", "text"}], "why"}``.
        order: ``relevance`` (best first) or ``time`` (oldest first, for an ordering question).
    """

    conversation_id: str
    query: str
    hits: list[TurnOut]
    owner: str | None = None
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    answer: dict[str, Any] | None = None
    next_cursor: str | None = None
    unknown_names: list[str] = Field(default_factory=list)
    speakers: list[str] = Field(default_factory=list)
    omitted: int = 0
    notes: list[str] = Field(default_factory=list)
    note: str = CITE
    instructions: list[dict[str, Any]] = Field(default_factory=list)
    conflicts: list[dict[str, Any]] = Field(default_factory=list)
    order: str = "relevance"


class InstructionsOutput(BaseModel):
    """``instructions``' answer: the user's standing instructions and preferences.

    Attributes:
        instructions: ``{"id", "turn_id", "kind" ("instruction" | "preference"), "text",
            "scope", "valid_from" (ISO 8601 UTC), "why", "similarity"}``; those that apply to
            ``request`` (at most 5), or every one in force when no request was given.
    """

    conversation_id: str
    request: str | None = None
    instructions: list[dict[str, Any]] = Field(default_factory=list)


class TimelineEntry(BaseModel):
    """One session of a conversation, or one document, in ``timeline``.

    Attributes:
        kind: ``session`` (chat or fact-list turns) or ``document``.
        session: the session number (sessions only).
        source: the document's file (documents only).
        first, last: the first and last day a turn of it was said, ``YYYY-MM-DD`` (UTC).
        turns: how many turns (document chunks) it holds.
    """

    conversation_id: str
    kind: str
    session: int | None = None
    source: str | None = None
    first: str
    last: str
    turns: int


class TimelineOutput(BaseModel):
    """``timeline``'s answer: what memory holds, oldest first."""

    conversation_id: str
    owner: str | None = None
    entries: list[TimelineEntry]


class RememberOutput(BaseModel):
    """``remember``'s answer: the stored turn (cite or forget it by ``turn.turn_id``) and what
    the write path derived from it."""

    conversation_id: str
    turn: TurnOut
    facts: int
    entities: int


class ForgetOutput(BaseModel):
    """``forget_turns``'s answer: the turn ids asked for and what was removed (counts per kind)."""

    conversation_id: str
    turn_ids: list[str]
    removed: dict[str, int] = Field(default_factory=dict)


class ForgetAboutOutput(BaseModel):
    """``forget_about``'s answer: what was removed, as ids and counts (never text).

    ``status`` is ``applied``, ``no_match`` (nothing the user said matches: nothing removed) or
    ``too_broad`` (more turns than the limit would go: nothing removed; use forget_turns).
    """

    conversation_id: str
    status: str
    turn_ids: list[str] = Field(default_factory=list)
    matched: int = 0
    turns: int = 0
    facts: int = 0


class TurnsOutput(BaseModel):
    """``read_turns``'s answer: turns in utterance order."""

    conversation_id: str
    turns: list[TurnOut]
    note: str = CITE


class CurrentValue(BaseModel):
    """``current_value``'s answer. ``found`` is False when memory holds no value.

    Attributes:
        value: the object of the latest fact (an entity id or a literal), if found.
        text: that fact's sentence.
        fact_id, serial, valid_from: the latest fact on the supersession key.
        cites: turn ids the fact was taken from (cite these).
        previous: older values of the same key, oldest first (``{"text", "valid_to"}``).
    """

    conversation_id: str
    entity: str
    relation: str
    found: bool
    value: str | None = None
    text: str | None = None
    fact_id: str | None = None
    serial: int | None = None
    valid_from: str | None = None
    cites: list[str] = Field(default_factory=list)
    previous: list[dict[str, str | None]] = Field(default_factory=list)


class ProfileValue(BaseModel):
    """One attribute value in ``profile`` (docs/attributes.md).

    Attributes:
        attribute: the vocabulary attribute id (``residence``, ``employer``, ``pets`` ...).
        value: the value as said; value_type: its type (``place``, ``email``, ``name`` ...).
        thing: what the attribute is of ("dog" for a dog's name), if any.
        valid_from: when it became true (ISO 8601, UTC), if known.
        cites: turn ids that say it (cite these).
        conversation_id: the thread it was said in.
    """

    attribute: str
    value: str | None = None
    value_type: str | None = None
    thing: str | None = None
    valid_from: str | None = None
    cites: list[str] = Field(default_factory=list)
    conversation_id: str


class ProfileOutput(BaseModel):
    """``profile``'s answer: every current attribute value of an entity, by attribute then
    arrival order. ``found`` is False when memory holds none (or knows no such entity)."""

    conversation_id: str
    entity: str
    found: bool
    values: list[ProfileValue] = Field(default_factory=list)
    note: str = CITE
