"""Request and response bodies of the HTTP API (`kgmem.service`): pydantic models, so the
OpenAPI document states every field, its type and its range."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from kgmem.api import MAX_QUERY_CHARS
from kgmem.ids import MAX_ID_CHARS
from kgmem.steer import DEFAULT_K, MAX_K, MAX_PHRASE_CHARS, MAX_TOKENS

__all__ = [
    "AddDocument",
    "AddTurns",
    "DocumentOut",
    "ErrorOut",
    "FactQuery",
    "ForgetAbout",
    "ForgetTurns",
    "Health",
    "IngestOut",
    "ProfileQuery",
    "ScopeQuery",
    "SearchHitOut",
    "SearchOut",
    "SearchQuery",
    "TurnIn",
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorOut(BaseModel):
    """Every error: its kgmem type, the message, and the argument or field at fault."""

    error: str = Field(description="the kgmem error type, e.g. MalformedInput")
    message: str
    argument: str | None = Field(default=None, description="the argument or field at fault")
    reason: str | None = Field(default=None, description="InvalidCursor: forged/mismatched/stale")
    request_id: str | None = None


class TurnIn(_Body):
    """One turn to append."""

    speaker: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    text: str = Field(min_length=1, max_length=200_000)
    id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    session: int | None = Field(default=None, ge=1, le=1_000_000)
    observed_at: AwareDatetime | None = None
    source: str | None = Field(default=None, max_length=4096)
    source_kind: str | None = Field(default=None, description="chat (default), document or facts")


class AddTurns(_Body):
    """``POST /turns``: append turns to a conversation (created if new)."""

    conversation_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    turns: list[TurnIn] = Field(min_length=1, max_length=1000)
    session: int | None = Field(default=None, ge=1, le=1_000_000)
    observed_at: AwareDatetime | None = None
    roles: dict[str, str] | None = None
    requests: bool | None = None
    owner: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)


class IngestOut(BaseModel):
    """What a write did (`kgmem.ingest.report.IngestReport`, without timings)."""

    conversation_id: str
    turns_written: int
    facts_written: int
    entities: int
    turn_ids: list[str]
    withheld: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    not_applied: list[str] = Field(default_factory=list)


class AddDocument(_Body):
    """``POST /documents``: a Markdown or plain-text document, given as text (never a path)."""

    text: str = Field(min_length=1, max_length=200_000)
    source: str = Field(min_length=1, max_length=4096, description="name and identity")
    conversation_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    owner: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    observed_at: AwareDatetime | None = None


class DocumentOut(BaseModel):
    """What ``POST /documents`` did (`kgmem.ingest.documents.DocumentReport`)."""

    conversation_id: str
    document: str
    chunks: int
    kept: int
    written: list[str]
    removed: list[str]
    facts_written: int
    facts_removed: int


class ScopeQuery(_Body):
    """One conversation, or an owner's conversations (an owner token may leave both out)."""

    conversation_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    owner: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)


class SearchQuery(ScopeQuery):
    """``POST /search``: the options of `kgmem.steer.Options`."""

    query: str = Field(max_length=MAX_QUERY_CHARS)
    k: int = Field(default=DEFAULT_K, ge=1, le=MAX_K)
    cursor: str | None = Field(default=None, max_length=8192)
    exact: str | None = Field(default=None, min_length=1, max_length=MAX_PHRASE_CHARS)
    speaker: str | None = Field(default=None, min_length=1, max_length=MAX_PHRASE_CHARS)
    since: datetime | None = Field(default=None, description="naive = UTC; inclusive")
    until: datetime | None = Field(default=None, description="naive = UTC; inclusive")
    session: int | None = Field(default=None, ge=1, le=1_000_000)
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS)


class SearchHitOut(BaseModel):
    """One hit (`kgmem.steer.PageHit`)."""

    turn_id: str
    conversation_id: str
    session: int
    date: str
    observed_at: str
    speaker: str
    text: str
    score: float
    why: str
    event_date: str | None = None
    source: str | None = None
    tokens: int | None = None
    passage: dict[str, int] | None = None
    """For a long turn, the passage that matched best: ``{"start", "end"}`` offsets into
    ``text``; None for a turn that is one passage."""


class SearchOut(BaseModel):
    """One page (`kgmem.steer.Page`); ``instructions``, ``conflicts`` and ``order`` as
    `kgmem.retrieve.retriever.SearchResult` (docs/instructions-and-conflicts.md)."""

    query: str
    k: int
    hits: list[SearchHitOut]
    next_cursor: str | None = None
    unknown_names: list[str] = Field(default_factory=list)
    speakers: list[str] = Field(default_factory=list)
    omitted: int = 0
    omitted_tokens: int = 0
    tokens: int | None = None
    rank: int = 0
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    answer: dict[str, Any] | None = None
    notes: list[str] = Field(default_factory=list)
    instructions: list[dict[str, Any]] = Field(default_factory=list)
    conflicts: list[dict[str, Any]] = Field(default_factory=list)
    order: str = "relevance"


class FactQuery(ScopeQuery):
    """``POST /current`` and ``POST /history``: a single-valued relation of an entity."""

    entity: str = Field(min_length=1, max_length=MAX_PHRASE_CHARS)
    relation: str = Field(min_length=1, max_length=MAX_PHRASE_CHARS)


class ProfileQuery(ScopeQuery):
    """``POST /profile``: every current attribute value of an entity."""

    entity: str = Field(min_length=1, max_length=MAX_PHRASE_CHARS)
    history: bool = False


class ForgetTurns(_Body):
    """``POST /forget/turns``: forget turns of one conversation by id."""

    conversation_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    turn_ids: list[str] = Field(min_length=1, max_length=1000)


class ForgetAbout(_Body):
    """``POST /forget/about``: forget what the user said about something."""

    conversation_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    description: str = Field(min_length=1, max_length=MAX_PHRASE_CHARS)


class Health(BaseModel):
    """``GET /health``: ``ok`` when Neo4j answers."""

    status: str
    neo4j: str
