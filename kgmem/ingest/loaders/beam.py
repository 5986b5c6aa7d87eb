"""Loader for BEAM's chat layout (Tavakoli et al., "Beyond a Million Tokens", ICLR 2026).

One BEAM chat is a directory::

    <chat>/chat.json                        list of batches; batch = {"batch_number",
                                            "turns": [session, ...], "time_anchor" (optional)};
                                            session = list of turns {"role": "user"|"assistant",
                                            "id": int, "content": str, "time_anchor" (on some
                                            user turns, e.g. "March-15-2024"), ...}
    <chat>/chat_trunecated.json (sic)       the version BEAM's own evaluation reads when it
                                            exists (every evidence id lies inside it)
    <chat>/probing_questions/probing_questions.json
                                            {ability: [question, ...]}; ``source_chat_ids``: a
                                            list of turn ids, or a dict of named lists

How it becomes a kgmem conversation:

- the chat file is ``chat_trunecated.json`` where it exists, else ``chat.json``;
- each BEAM session (an inner list of a batch's ``turns``) is one kgmem session, numbered from 1
  across batches in file order;
- a session is dated by the latest ``time_anchor`` seen so far (on one of its own turns, or on
  its batch), carried forward; sessions before the first anchor take the first anchor; a chat
  with no anchor at all is dated 2024-01-01 (reported as ``undated``). Several sessions share
  an anchor's day, so the n-th session since the anchor starts n minutes after its midnight
  (UTC): the day is the anchor's, and time order is file order;
- a turn's speaker is its ``role`` (``user`` / ``assistant``, which are also its kgmem role);
  its local id is BEAM's ``id``; the trailing bookkeeping marker `` ->-> b,n`` is removed
  from its text (it is the generator's batch and bullet number, not something said).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kgmem.errors import MalformedInput
from kgmem.models import ConversationRecord, SessionRecord, TurnRecord
from kgmem.roles import role_of
from kgmem.turns import check_conversation_id, make_turn

__all__ = [
    "BeamChat",
    "BeamQuestion",
    "chat_file",
    "evidence_ids",
    "load_beam_chat",
    "parse_anchor",
]

#: the date a chat with no ``time_anchor`` anywhere is given (reported as ``undated``)
UNDATED = datetime(2024, 1, 1, tzinfo=UTC)
_BOOKKEEPING = re.compile(r"\s*->->\s*\d+\s*,\s*\d+\s*$")
_ANCHOR_FORMATS = ("%B-%d-%Y", "%b-%d-%Y", "%Y-%m-%d", "%B %d, %Y")


@dataclass(frozen=True)
class BeamQuestion:
    """One probing question.

    Attributes:
        id: ``<conversation>:<ability>:<n>`` (n from 0 in the file's order).
        ability: BEAM's ability key (``information_extraction``, ``knowledge_update``, ...).
        question: the text asked.
        evidence: every evidence turn id (kgmem ids, ``<conversation>:<beam id>``) present in
            the chat, in the order given, without repeats.
        parts: for dict-shaped ``source_chat_ids``, each named list as kgmem ids
            (``original_info`` / ``updated_info``, ``first_statement`` / ``second_statement``,
            ...); empty for a plain list.
        missing: evidence ids the question names that the chat does not hold (as given).
        raw: the question object as read (answers, rubrics; never used for retrieval).
    """

    id: str
    ability: str
    question: str
    evidence: tuple[str, ...]
    parts: dict[str, tuple[str, ...]]
    missing: tuple[str, ...]
    raw: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class BeamChat:
    """One loaded chat: the conversation, its questions and what the loader decided."""

    record: ConversationRecord
    questions: tuple[BeamQuestion, ...]
    chat_path: Path
    questions_path: Path
    undated: bool
    bytes: int
    """UTF-8 size of the stored turn texts."""


def chat_file(chat_dir: Path) -> Path:
    """``chat_trunecated.json`` where it exists (BEAM's own evaluation reads it), else
    ``chat.json``.

    Raises:
        MalformedInput: neither file exists (names the directory).
    """
    for name in ("chat_trunecated.json", "chat.json"):
        path = chat_dir / name
        if path.is_file():
            return path
    raise MalformedInput("no chat.json or chat_trunecated.json", file=str(chat_dir))


def parse_anchor(value: str, *, file: str) -> datetime:
    """A BEAM ``time_anchor`` (``March-15-2024``) as midnight UTC of that day.

    Raises:
        MalformedInput: a value in none of the known formats (names the file).
    """
    text = value.strip()
    for fmt in _ANCHOR_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise MalformedInput(f"time_anchor {value!r} is not a date like 'March-15-2024'", file=file)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError as exc:
        raise MalformedInput("file not found", file=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise MalformedInput(f"not UTF-8 text: {exc}", file=str(path)) from exc
    except json.JSONDecodeError as exc:
        raise MalformedInput(
            f"not valid JSON: {exc.msg} at line {exc.lineno}", file=str(path)
        ) from exc


def _sessions(data: Any, file: str) -> list[tuple[list[dict[str, Any]], str | None]]:
    """Every session of the chat in file order, with its batch's ``time_anchor``."""
    if not isinstance(data, list) or not data:
        raise MalformedInput("a BEAM chat is a non-empty list of batches", file=file)
    out: list[tuple[list[dict[str, Any]], str | None]] = []
    for b, batch in enumerate(data):
        if not isinstance(batch, dict) or not isinstance(batch.get("turns"), list):
            raise MalformedInput(f"batch #{b} is not an object with a 'turns' list", file=file)
        anchor = batch.get("time_anchor")
        for s, session in enumerate(batch["turns"]):
            if not isinstance(session, list) or not all(isinstance(t, dict) for t in session):
                raise MalformedInput(
                    f"batch #{b} session #{s} is not a list of turn objects", file=file
                )
            out.append((session, anchor if isinstance(anchor, str) and anchor.strip() else None))
    return out


def _first_anchor(sessions: list[tuple[list[dict[str, Any]], str | None]]) -> str | None:
    for session, batch_anchor in sessions:
        for turn in session:
            if isinstance(turn.get("time_anchor"), str) and turn["time_anchor"].strip():
                return str(turn["time_anchor"])
        if batch_anchor:
            return batch_anchor
    return None


def _text(raw: Any) -> Any:
    return _BOOKKEEPING.sub("", raw) if isinstance(raw, str) else raw


def _conversation(
    cid: str, sessions: list[tuple[list[dict[str, Any]], str | None]], file: str
) -> tuple[ConversationRecord, bool]:
    first = _first_anchor(sessions)
    anchor = parse_anchor(first, file=file) if first else UNDATED
    since = 0  # sessions since the anchor last changed
    records: list[SessionRecord] = []
    turns: list[TurnRecord] = []
    for number, (session, batch_anchor) in enumerate(sessions, start=1):
        own = next(
            (t["time_anchor"] for t in session if isinstance(t.get("time_anchor"), str)),
            None,
        )
        stamp = own or batch_anchor
        if stamp and stamp.strip():
            new = parse_anchor(stamp, file=file)
            if new != anchor:
                anchor, since = new, 0
        started = anchor + timedelta(minutes=since)
        since += 1
        records.append(SessionRecord(conversation_id=cid, session=number, started_at=started))
        for raw in session:
            role = raw.get("role")
            turn = make_turn(
                cid,
                raw.get("id"),
                speaker=role,
                text=_text(raw.get("content")),
                session=number,
                index=len(turns),
                observed_at=started,
                file=file,
            )
            turns.append(turn.model_copy(update={"role": role_of(turn.speaker, {})}))
    if not turns:
        raise MalformedInput("the chat holds no turns", file=file)
    if len({t.id for t in turns}) != len(turns):
        raise MalformedInput("duplicate turn id", file=file, conversation_id=cid)
    record = ConversationRecord(
        conversation_id=cid,
        speakers=tuple(dict.fromkeys(t.speaker for t in turns)),
        sessions=tuple(records),
        turns=tuple(turns),
    )
    return record, first is None


def evidence_ids(raw: Any) -> list[Any]:
    """Every id inside a ``source_chat_ids`` value (a list, a dict of lists, nested), in order."""
    if raw is None:
        return []
    if isinstance(raw, dict):
        return [i for value in raw.values() for i in evidence_ids(value)]
    if isinstance(raw, list):
        return [i for value in raw for i in evidence_ids(value)]
    return [raw]


def _questions(cid: str, data: Any, local_ids: set[str], file: str) -> tuple[BeamQuestion, ...]:
    if not isinstance(data, dict):
        raise MalformedInput("probing questions must be an object {ability: [...]}", file=file)
    out: list[BeamQuestion] = []
    for ability, items in data.items():
        if not isinstance(items, list):
            raise MalformedInput(f"ability {ability!r} is not a list of questions", file=file)
        for n, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                raise MalformedInput(f"{ability} question #{n} has no 'question' string", file=file)
            source = item.get("source_chat_ids")
            if source is not None and not isinstance(source, list | dict):
                raise MalformedInput(
                    f"{ability} question #{n}: 'source_chat_ids' must be a list or an object",
                    file=file,
                )

            def resolve(ids: list[Any]) -> tuple[list[str], list[str]]:
                found: list[str] = []
                lost: list[str] = []
                for i in ids:
                    local = str(i).strip()
                    (found if local in local_ids else lost).append(local)
                return [f"{cid}:{x}" for x in found], lost

            evidence, missing = resolve(evidence_ids(source))
            parts = (
                {name: tuple(resolve(evidence_ids(v))[0]) for name, v in source.items()}
                if isinstance(source, dict)
                else {}
            )
            out.append(
                BeamQuestion(
                    id=f"{cid}:{ability}:{n}",
                    ability=str(ability),
                    question=item["question"],
                    evidence=tuple(dict.fromkeys(evidence)),
                    parts=parts,
                    missing=tuple(missing),
                    raw=item,
                )
            )
    return tuple(out)


def load_beam_chat(chat_dir: str | Path, conversation_id: str) -> BeamChat:
    """Load one BEAM chat directory (see the module docstring for the rules).

    Args:
        chat_dir: the directory holding ``chat.json`` (or ``chat_trunecated.json``) and
            ``probing_questions/probing_questions.json``.
        conversation_id: the kgmem conversation id to store it under (no ``:``).

    Raises:
        MalformedInput: a missing or unparseable file, a wrong shape, a bad ``time_anchor``, a
            bad turn (`kgmem.turns.make_turn`): the message names the file.
    """
    directory = Path(chat_dir)
    path = chat_file(directory)
    file = str(path)
    check_conversation_id(conversation_id, file=file)
    record, undated = _conversation(conversation_id, _sessions(_read_json(path), file), file)
    qpath = directory / "probing_questions" / "probing_questions.json"
    local_ids = {t.dia_id for t in record.turns}
    questions = _questions(conversation_id, _read_json(qpath), local_ids, str(qpath))
    return BeamChat(
        record=record,
        questions=questions,
        chat_path=path,
        questions_path=qpath,
        undated=undated,
        bytes=sum(len(t.text.encode("utf-8")) for t in record.turns),
    )
