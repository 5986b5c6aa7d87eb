"""The date and time bounds a caller gives a search filter (``since`` / ``until`` of MCP and
HTTP search, `kgmem.steer.Options`): ISO 8601 text or Python values, always UTC-aware."""

from __future__ import annotations

from datetime import UTC, date, datetime
from datetime import time as clock

from kgmem.errors import MalformedInput

__all__ = ["parse_when"]


def parse_when(value: str | datetime | date | None, argument: str, *, end: bool) -> datetime | None:
    """An ISO 8601 date or datetime (naive = UTC; a date as an ``until`` bound means the end of
    that day).

    Raises:
        MalformedInput: not a date, naming ``argument``.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, clock.max if end else clock.min)
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        try:
            if len(text) == 10:
                day = date.fromisoformat(text)
                moment = datetime.combine(day, clock.max if end else clock.min)
            else:
                moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise MalformedInput(
                f"{argument} must be an ISO 8601 date (2024-05-08) or datetime, not {value!r:.40}",
                argument=argument,
            ) from None
    else:
        raise MalformedInput(f"{argument} must be an ISO 8601 date or datetime", argument=argument)
    return moment if moment.utcoffset() is not None else moment.replace(tzinfo=UTC)
