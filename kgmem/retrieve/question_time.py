"""The times a question names: explicit dates, years, weekdays, seasons and relative phrases,
resolved to one ``[start, end)`` span with `kgmem.time` (relative phrases only against an
explicit reference, never the wall clock)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from kgmem.models import Granularity, TimeInterval
from kgmem.retrieve.cues import (
    AMBIGUOUS_MONTHS,
    DATE,
    LAST_WEEKDAY,
    QUESTION_MONTHS,
    RELATIVE,
    SEASON,
    SEASON_YEAR,
    WEEKDAY,
    YEAR,
)
from kgmem.time import SEASONS, WEEKDAYS, calendar_interval, interpret_phrase

__all__ = ["TimeReading", "read_times", "starts_with_time"]


def _interval(
    start: datetime, end: datetime, granularity: Granularity, phrase: str
) -> TimeInterval:
    return TimeInterval(start=start, end=end, granularity=granularity, phrase=phrase.strip())


_COARSE: dict[str, int] = {"day": 0, "week": 1, "weekend": 1, "month": 2, "season": 3, "year": 4}


def _relative_interval(m: re.Match[str], ref: datetime) -> TimeInterval | None:
    """Resolve one `RELATIVE` match against ``ref`` with `kgmem.time` ("the week before
    <date>" is read as "a week ago" said on that date; "N weeks before|earlier" as "N weeks
    ago"; "the past <unit>" as the grammar reads it, "past <unit>" alone as "last <unit>").
    A naive ``ref`` is taken as UTC."""
    if ref.tzinfo is None or ref.utcoffset() is None:
        ref = ref.replace(tzinfo=UTC)
    phrase = m.group(0)
    if m.group("unit3"):
        unit = m.group("unit3").lower()
        words = "last weekend" if unit == "weekend" else f"a {unit} ago"
    elif m.group("which") and m.group("which").lower() == "past":
        unit = m.group("unit").lower()
        the = m.string[: m.start()].lower().endswith("the ")  # "the past week": until now
        words = f"the past {unit}" if the else f"last {unit}"
    elif m.group("unit2"):  # "two weeks before|earlier|ago" = "two weeks ago"
        words = f"{' '.join(m.group('n').split())} {m.group('unit2').lower()}s ago"
    else:
        words = phrase
    found = interpret_phrase(words, ref)
    return found.model_copy(update={"phrase": phrase}) if found else None


def starts_with_time(text: str) -> bool:
    text = re.sub(r"^\s*(?:the\s+)?", "", text, flags=re.IGNORECASE)
    return any(p.match(text) for p in (DATE, YEAR, WEEKDAY, SEASON, RELATIVE))


@dataclass
class TimeReading:
    """What `read_times` finds: the span, named parts, and the phrases that fired."""

    time_range: TimeInterval | None = None
    year: int | None = None
    month: int | None = None
    weekday: int | None = None
    season: str | None = None
    phrases: list[str] = field(default_factory=list)


def _calendar(text: str, out: TimeReading) -> list[TimeInterval]:
    """Explicit dates ("May 3, 2023", "in May 2023"; a bare "May" or "March" needs a date
    context or a mid-sentence capital: both are also verbs) and years, into ``out``."""
    intervals: list[TimeInterval] = []
    taken: list[tuple[int, int]] = []
    for m in DATE.finditer(text):
        word = m.group("month")
        day_s, year_s = m.group("dbefore") or m.group("dafter"), m.group("year")
        if word.lower() in AMBIGUOUS_MONTHS and not (
            m.group("prep") or day_s or year_s or (word[0].isupper() and m.start("month") > 0)
        ):
            continue
        month = QUESTION_MONTHS[word.lower()]
        out.month = out.month or month
        out.phrases.append(m.group(0))
        if year_s:
            taken.append(m.span())
            year = int(year_s)
            out.year = out.year or year
            try:
                day = date(year, month, int(day_s or 0))
                intervals.append(calendar_interval(day, "day", m.group(0)))
            except ValueError:  # no day, or 31 February
                intervals.append(calendar_interval(date(year, month, 1), "month", m.group(0)))
    for m in YEAR.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            out.year = out.year or int(m.group(0))
            intervals.append(calendar_interval(date(int(m.group(0)), 1, 1), "year", m.group(0)))
            out.phrases.append(m.group(0))
    return intervals


def _season(
    text: str, reference: datetime | None, out: TimeReading, intervals: list[TimeInterval]
) -> list[TimeInterval]:
    """The first season named (not the verb "fall"), into ``out``; "the summer of 2019" is the
    season instead of the whole year, "last / this / next summer" resolves against
    ``reference``. Returns the intervals so far."""
    for sm in SEASON.finditer(text):
        prep = (sm.group("prep") or "").lower()
        if sm.group("season").lower() == "fall" and not prep:
            continue  # the verb
        out.season = SEASONS[sm.group("season").lower()]
        out.phrases.append(sm.group(0))
        dated = SEASON_YEAR.match(text, sm.start("season"))
        if dated:
            season = interpret_phrase(dated.group(0), datetime(2000, 1, 1, tzinfo=UTC))
            if season is not None:
                intervals = [i for i in intervals if i.phrase != dated.group("year")]
                intervals.append(season)
        elif (
            reference is not None
            and prep in ("last", "this", "next")
            and (interval := interpret_phrase(sm.group(0), reference))
        ):
            intervals.append(interval)
        break
    return intervals


def _span(intervals: list[TimeInterval], out: TimeReading) -> None:
    """One span over every interval (the coarsest granularity), and the year and month it
    implies, into ``out``."""
    if not intervals:
        return
    if len(intervals) == 1:
        out.time_range = intervals[0]
    else:
        coarse = max(intervals, key=lambda i: _COARSE[i.granularity]).granularity
        out.time_range = _interval(
            min(i.start for i in intervals),
            max(i.end for i in intervals),
            coarse,
            "; ".join(i.phrase for i in intervals),
        )
    out.year = out.year or out.time_range.start.year
    if out.time_range.granularity in ("day", "week", "weekend", "month"):
        out.month = out.month or out.time_range.start.month


def read_times(text: str, reference: datetime | None) -> TimeReading:
    """Explicit dates, years, weekdays, seasons and relative phrases in ``text``.

    Explicit dates need no reference; relative phrases are resolved against the first full date
    the text names ("two weeks before August 11, 2023"), else ``reference``, else not at all.
    """
    out = TimeReading()
    intervals = _calendar(text, out)
    if wm := WEEKDAY.search(text):
        out.weekday = WEEKDAYS[wm.group(1).lower()]
        out.phrases.append(wm.group(0))
    intervals = _season(text, reference, out, intervals)
    days = [i.start for i in intervals if i.granularity == "day"]
    relative_to = days[0] if days else reference
    if (
        relative_to is not None
        and (lw := LAST_WEEKDAY.search(text))
        and (day_of := interpret_phrase(lw.group(0), relative_to)) is not None
    ):  # "last Thursday": the latest such weekday strictly before the reference day (kgmem.time)
        intervals.append(day_of)
        out.phrases.append(lw.group(0))
    for rm in RELATIVE.finditer(text):
        out.phrases.append(rm.group(0))
        if relative_to is not None and (interval := _relative_interval(rm, relative_to)):
            intervals.append(interval)
    _span(intervals, out)
    return out
