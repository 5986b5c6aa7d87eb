"""Write-time dates: a turn's time expressions resolved against its **session** datetime.

"I went hiking yesterday", said in a session dated 8 May 2023, is an event of 7 May 2023 — never
of the day the data was ingested (docs/design.md §1). The grammar is `kgmem.time`, shared with
the read path; this module is the write path's entry point to it.
"""

from __future__ import annotations

from datetime import datetime

from kgmem.errors import DateParseError
from kgmem.models import TimeInterval
from kgmem.time import interpret, parse_session_datetime

__all__ = [
    "resolve_time",
    "session_start",
]


def resolve_time(text: str, reference: datetime) -> list[TimeInterval]:
    """Every time expression of a turn's ``text``, resolved against its session datetime.

    Args:
        text: one turn (or any text); any string, including empty or control characters.
        reference: the session's datetime, timezone-aware. Days are counted in its own zone.

    Returns:
        One ``TimeInterval(start, end, granularity, phrase)`` per expression, in text order
        (see `kgmem.time.interpret`): "yesterday" on 8 May 2023 → ``[2023-05-07, 2023-05-08)``.

    Raises:
        DateParseError: ``reference`` is naive (no time zone).
    """
    return interpret(text, reference)


def session_start(
    stamp: object, number: int, *, missing: str, file: str, conversation_id: str
) -> datetime:
    """A loader's session datetime from its raw value, with the session in every error.

    Raises:
        DateParseError: ``stamp`` is not a string ("session N has no <missing>") or does not
            parse ("session N: <reason>").
    """
    if not isinstance(stamp, str):
        raise DateParseError(
            f"session {number} has no {missing}", file=file, conversation_id=conversation_id
        )
    try:
        return parse_session_datetime(stamp)
    except DateParseError as exc:
        raise DateParseError(
            f"session {number}: {exc.reason}", file=file, conversation_id=conversation_id
        ) from exc
