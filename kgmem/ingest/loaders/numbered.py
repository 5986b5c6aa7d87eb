"""Loader for numbered fact lists ("0. …\\n1. …", higher number = newer) as conversations.

A fact list is an ordinary conversation: each numbered line is one `Turn` said by the speaker
``source``, in one session, with ``observed_at`` = `START` + the line's number in seconds (so
the timeline, ``NEXT`` and every "latest wins" rule follow the numbering). Facts are then built
by the normal write path (`kgmem.ingest.pipeline`): a line that states a relation of the lexicon
(`kgmem.ingest.extraction.relations`) becomes a fact citing its turn, and a later value of a
single-valued relation supersedes the earlier one through `kgmem.ingest.extraction.supersession`. So
`kgmem search`, `current`, `history` and the Browser statements work on a fact list like on any
chat.

MemoryAgentBench FactConsolidation (Hu, Wang, McAuley, ICLR 2026) ships its lists as JSON rows
(``context``, ``metadata.source``); `load_numbered` reads those and plain text files.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kgmem.errors import InputError, MalformedInput
from kgmem.models import ConversationRecord, SessionRecord
from kgmem.turns import check_conversation_id, make_turn

__all__ = ["SPEAKER", "START", "json_rows", "load_numbered", "parse_numbered"]

#: the speaker of every line of a fact list
SPEAKER = "source"
#: ``observed_at`` of line 0 (a fixed moment, so re-ingesting a list changes nothing)
START = datetime(2000, 1, 1, tzinfo=UTC)
_LINE = re.compile(r"^\s*(\d+)\s*[.)]\s+(.*\S)\s*$")


def parse_numbered(
    text: str, conversation_id: str, *, file: str = "<text>", start: datetime = START
) -> ConversationRecord:
    """A numbered fact list as a conversation (see the module docstring).

    Lines without a leading number (a header such as "Here is a list of facts:") and empty lines
    are skipped. Turn ids are ``<conversation_id>:L<number>``; turns are ordered by number.

    Raises:
        MalformedInput: no numbered line, a number that appears twice (the order would be
            ambiguous), or a bad conversation id.
    """
    check_conversation_id(conversation_id, file=file)
    lines: dict[int, tuple[int, str]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = _LINE.match(line)
        if m is None:
            continue
        number = int(m.group(1))
        if number in lines:
            raise MalformedInput(
                f"number {number} appears twice",
                file=file,
                conversation_id=conversation_id,
                turn=f"line {lineno}",
            )
        lines[number] = (lineno, m.group(2))
    if not lines:
        raise MalformedInput("no numbered lines", file=file, conversation_id=conversation_id)
    turns = [
        make_turn(
            conversation_id,
            f"L{number}",
            speaker=SPEAKER,
            text=sentence,
            session=1,
            index=index,
            observed_at=start + timedelta(seconds=number),
            file=file,
        ).model_copy(update={"source_kind": "facts"})  # a fact list, not a chat
        for index, (number, (_, sentence)) in enumerate(sorted(lines.items()))
    ]
    return ConversationRecord(
        conversation_id=conversation_id,
        speakers=(SPEAKER,),
        sessions=(SessionRecord(conversation_id=conversation_id, session=1, started_at=start),),
        turns=tuple(turns),
    )


def json_rows(raw: str, path: Path) -> list[Any]:
    """The rows of a MemoryAgentBench-style JSON document: a list, or an object's ``data``.

    Raises:
        MalformedInput: invalid JSON, or neither shape.
    """
    try:
        doc: Any = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise MalformedInput(
            f"invalid JSON: {exc.msg} at line {exc.lineno}", file=str(path)
        ) from exc
    rows = doc.get("data") if isinstance(doc, dict) else doc
    if not isinstance(rows, list):
        raise MalformedInput("expected a list of rows or an object with 'data'", file=str(path))
    return rows


def row_name(row: Any, path: Path, index: int) -> str:
    """A JSON row's conversation id: ``metadata.source``, else ``<file stem>-<row index>``."""
    meta = row.get("metadata") if isinstance(row, dict) else None
    name = meta.get("source") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name.strip() else f"{path.stem}-{index}"


def load_numbered(path: Path, *, conversation_id: str | None = None) -> list[ConversationRecord]:
    """Read a numbered fact file: MemoryAgentBench JSON (rows with ``context``) or plain text.

    Args:
        path: a JSON file (a list of rows, or an object with ``data``) or a text file.
        conversation_id: the id of the one conversation (a text file or a one-row JSON), or the
            prefix ``<id>-`` of each row's id; default: `row_name`, or the file stem.

    Returns:
        one conversation per row, or one for a text file.

    Raises:
        InputError: the file does not exist. MalformedInput: see `parse_numbered`, or a row
            without a string ``context``.
    """
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError("file not found", file=str(path)) from exc
    if not raw.lstrip().startswith(("{", "[")):
        return [parse_numbered(raw, conversation_id or path.stem, file=str(path))]
    rows = json_rows(raw, path)
    out: list[ConversationRecord] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("context"), str):
            raise MalformedInput("row has no string 'context'", file=str(path), turn=f"row {i}")
        name = row_name(row, path, i)
        if conversation_id:
            name = conversation_id if len(rows) == 1 else f"{conversation_id}-{name}"
        out.append(parse_numbered(row["context"], name, file=str(path)))
    return out
