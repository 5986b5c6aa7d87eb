"""Request and response bodies of the HTTP API (`kgmem.service`): pydantic models, so the
OpenAPI document states every field, its type and its range."""

from __future__ import annotations

import dataclasses
import typing
from datetime import datetime
from typing import Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    create_model,
)

from kgmem.api import MAX_QUERY_CHARS
from kgmem.config import DEFAULT_K
from kgmem.ids import MAX_ID_CHARS
from kgmem.metadata import MAX_BYTES, MAX_KEYS
from kgmem.steer import MAX_K, MAX_PHRASE_CHARS, MAX_TOKENS, Page, PageHit

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


#: a metadata value in JSON: a string (``YYYY-MM-DD`` is a date), a number or a boolean
MetadataValue = StrictStr | StrictBool | StrictInt | StrictFloat
_METADATA = (
    "flat key/value pairs kept with the turn (docs/metadata.md): keys a letter then letters, "
    f"digits or _; values strings, numbers, booleans or YYYY-MM-DD dates; at most {MAX_KEYS} "
    f"keys and {MAX_BYTES} bytes per turn"
)
_WHERE = (
    "only turns whose metadata passes (docs/metadata.md): {key: value} equality, "
    '{key: [v, ...]} any of, {key: {"gt"|"gte"|"lt"|"lte"|"eq"|"in": v}}; ranges on numbers '
    "and YYYY-MM-DD dates; all keys must hold"
)


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
    metadata: dict[str, MetadataValue] | None = Field(
        default=None, description=_METADATA + "; wins over the call's on a shared key"
    )


class AddTurns(_Body):
    """``POST /turns``: append turns to a conversation (created if new)."""

    conversation_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    turns: list[TurnIn] = Field(min_length=1, max_length=1000)
    session: int | None = Field(default=None, ge=1, le=1_000_000)
    observed_at: AwareDatetime | None = None
    roles: dict[str, str] | None = None
    requests: bool | None = None
    owner: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    metadata: dict[str, MetadataValue] | None = Field(
        default=None, description=_METADATA + "; for every turn of the call"
    )


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
    """What ``POST /documents`` did (`kgmem.ingest.document_writes.DocumentReport`)."""

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
    where: dict[str, Any] | None = Field(default=None, description=_WHERE)


def _model_of(
    source: type[Any], name: str, doc: str, overrides: dict[str, Any] | None = None
) -> type[BaseModel]:
    """A response model with the fields of dataclass ``source`` (same names, types and
    defaults; ``overrides`` replaces some with ``(type, default)``), so the HTTP answer cannot
    drift from what `kgmem.steer` returns."""
    hints = typing.get_type_hints(source)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(source):
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        else:
            default = ...
        fields[f.name] = (hints[f.name], default)
    fields |= overrides or {}
    return create_model(name, __doc__=doc, **fields)


#: one hit (`kgmem.steer.PageHit`); ``passage`` is ``{"start", "end"}`` offsets into ``text``
SearchHitOut = _model_of(
    PageHit,
    "SearchHitOut",
    "One hit (`kgmem.steer.PageHit`).",
    {
        "metadata": (
            dict[str, Any],
            Field(default_factory=dict, description="the turn's metadata (dates as YYYY-MM-DD)"),
        )
    },
)
#: one page (`kgmem.steer.Page`)
_HITS = list[SearchHitOut]  # type: ignore[valid-type]
SearchOut = _model_of(Page, "SearchOut", "One page (`kgmem.steer.Page`).", {"hits": (_HITS, ...)})


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
