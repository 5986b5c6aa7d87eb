"""Loader for kgmem's generic chat format, so that any user's conversations can go in.

A file is either JSON (one conversation object, or a list of them) or JSONL (one conversation
object per line)::

    {"conversation_id": "support-42",
     "roles": {"Ana": "user", "Bot": "assistant"},          # optional speaker -> role
     "sessions": [
        {"started_at": "2024-05-08T13:56:00+02:00",        # ISO 8601; naive = UTC
         "session": 1,                                      # optional, default = position + 1
         "turns": [
            {"speaker": "Ana", "text": "I moved to Lisbon last month.",
             "id": "t1",                                    # optional, default "S<session>:<n>"
             "image_caption": "a tram on a hill"}           # optional
         ]}
     ]}

Turn ids become ``<conversation_id>:<id>``. Errors name the file, conversation and turn. A
speaker's role (`kgmem.roles`) is the ``roles`` entry, else its name when that is a role name
(``"user"``, ``"assistant"``), else none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgmem.errors import InputError, MalformedInput
from kgmem.ingest.extraction.dates import session_start
from kgmem.models import ConversationRecord, SessionRecord, TurnRecord
from kgmem.roles import Role, check_roles, role_of
from kgmem.turns import check_conversation_id, make_turn

__all__ = ["load_chat", "parse_chat_conversation"]


def load_chat(path: str | Path) -> list[ConversationRecord]:
    """Read a generic-format file (JSON or JSONL; see module docstring).

    Raises:
        InputError: the file does not exist.
        MalformedInput: invalid JSON, wrong types, missing fields, empty text, duplicate ids.
        DateParseError: a session timestamp that is not ISO 8601 (or LoCoMo style).
    """
    file = str(path)
    try:
        content = Path(path).read_text(encoding="utf-8-sig")  # a BOM is not an error
    except FileNotFoundError as exc:
        raise InputError("file not found", file=file) from exc
    except UnicodeDecodeError as exc:
        raise MalformedInput(f"not UTF-8 text: {exc}", file=file) from exc
    objects: list[Any]
    try:
        parsed = json.loads(content)
        objects = parsed if isinstance(parsed, list) else [parsed]
    except json.JSONDecodeError:
        objects = []
        for number, line in enumerate(content.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                objects.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise MalformedInput(
                    f"line {number} is not valid JSON: {exc.msg}", file=file
                ) from exc
    if not objects:
        raise MalformedInput("no conversations in file", file=file)
    records = [parse_chat_conversation(obj, file=file) for obj in objects]
    ids = [r.conversation_id for r in records]
    if len(set(ids)) != len(ids):
        raise MalformedInput("duplicate conversation_id in file", file=file)
    return records


def _conversation_id(obj: dict[str, Any], file: str) -> str:
    cid = obj.get("conversation_id")
    if not isinstance(cid, str) or not cid.strip():
        raise MalformedInput("missing string 'conversation_id'", file=file)
    cid = cid.strip()
    check_conversation_id(cid, file=file)
    return cid


def _roles(obj: dict[str, Any], cid: str, file: str) -> dict[str, Role]:
    raw_roles = obj.get("roles")
    if raw_roles is not None and not isinstance(raw_roles, dict):
        raise MalformedInput(
            "'roles' must be an object of speaker -> role", file=file, conversation_id=cid
        )
    try:
        return check_roles(raw_roles)
    except MalformedInput as exc:
        raise MalformedInput(exc.reason, file=file, conversation_id=cid) from exc


def _session(raw: Any, position: int, cid: str, file: str) -> SessionRecord:
    """The session header of ``raw`` (the ``position``-th session, from 0)."""
    if not isinstance(raw, dict):
        raise MalformedInput(
            f"session #{position} is not an object", file=file, conversation_id=cid
        )
    number = raw.get("session", position + 1)
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise MalformedInput(
            f"session #{position}: 'session' must be a non-negative integer",
            file=file,
            conversation_id=cid,
        )
    started = session_start(
        raw.get("started_at"), number, missing="'started_at'", file=file, conversation_id=cid
    )
    return SessionRecord(conversation_id=cid, session=number, started_at=started)


def _session_turns(
    raw: dict[str, Any],
    session: SessionRecord,
    roles: dict[str, Role],
    turns: list[TurnRecord],
    speakers: list[str],
    file: str,
) -> None:
    """Append the turns of one session to ``turns`` (and new speakers to ``speakers``)."""
    cid, number = session.conversation_id, session.session
    items = raw.get("turns")
    if not isinstance(items, list):
        raise MalformedInput(
            f"session {number} has no 'turns' list", file=file, conversation_id=cid
        )
    for n, item in enumerate(items, start=1):
        where = f"S{number}:{n}"
        if not isinstance(item, dict):
            raise MalformedInput(
                "turn is not an object", file=file, conversation_id=cid, turn=where
            )
        turn = make_turn(
            cid,
            item.get("id", where),
            speaker=item.get("speaker"),
            text=item.get("text"),
            caption=item.get("image_caption"),
            session=number,
            index=len(turns),
            observed_at=session.started_at,
            file=file,
        )
        if turn.speaker not in speakers:
            speakers.append(turn.speaker)
        turns.append(turn.model_copy(update={"role": role_of(turn.speaker, roles)}))


def parse_chat_conversation(obj: Any, *, file: str = "<memory>") -> ConversationRecord:
    """Parse one conversation object of the generic format. Raises like `load_chat`."""
    if not isinstance(obj, dict):
        raise MalformedInput("a conversation must be a JSON object", file=file)
    cid = _conversation_id(obj, file)
    roles = _roles(obj, cid, file)
    raw_sessions = obj.get("sessions")
    if not isinstance(raw_sessions, list) or not raw_sessions:
        raise MalformedInput("missing non-empty 'sessions' list", file=file, conversation_id=cid)
    sessions: list[SessionRecord] = []
    turns: list[TurnRecord] = []
    speakers: list[str] = []
    for position, raw in enumerate(raw_sessions):
        session = _session(raw, position, cid, file)
        sessions.append(session)
        _session_turns(raw, session, roles, turns, speakers, file)
    if len({t.id for t in turns}) != len(turns):
        raise MalformedInput("duplicate turn id", file=file, conversation_id=cid)
    if len({s.session for s in sessions}) != len(sessions):
        raise MalformedInput("duplicate session number", file=file, conversation_id=cid)
    return ConversationRecord(
        conversation_id=cid,
        speakers=tuple(speakers),
        sessions=tuple(sessions),
        turns=tuple(turns),
    )
