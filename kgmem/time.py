"""The one grammar of time: a phrase interpreted against a reference moment → an interval.

Both paths call this module: the write path resolves the time expressions of a turn against its
**session** datetime (`kgmem.ingest.extraction.dates.resolve_time`: "I went hiking yesterday", said
in a session dated 8 May 2023, is an event of 7 May 2023 — never of the day the data was ingested;
docs/design.md §1), and the read path resolves the ones of a question against the date it names
or the moment it is asked (`kgmem.retrieve.plan`). `interpret` finds every expression in a text
and turns it into a half-open UTC interval ``[start, end)`` with the granularity the text speaks
in; the month, weekday, number, season and tense word lists (``kgmem/data/time_words.toml``,
read once at import) exist nowhere else.

How it works:

1. **Span finding** by one compiled regex over the documented patterns in ``_RULES`` (relative
   day words, ``last/this/next/on <weekday>``, weekends, ``N <unit> ago``, ``in N <unit>``,
   ``the past N <unit>``, ``last/this/next week|month|year``, seasons, dates, month names, years).
   It is the cheap pre-filter: texts without a candidate never reach ``dateparser``.
2. **Arithmetic** by ``dateparser`` (``RELATIVE_BASE`` = the reference's wall-clock time,
   ``PREFER_DATES_FROM`` from the tense, ``RETURN_TIME_AS_PERIOD``) wherever it is right:
   ``N days/weeks/months/years ago``, ``in N …``, ``last/next week|month|year``, calendar dates
   and month names. Its answers are cached per (phrase, reference, tense).
3. **Granularity logic** written here, because ``dateparser`` has none: alignment of a date to
   its day / ISO week (Monday first) / month / year; weekends (Saturday 00:00 to Monday 00:00);
   ``last <weekday>`` (the most recent such day strictly before the reference day); seasons
   (Northern-hemisphere *meteorological* seasons: spring = Mar-May, summer = Jun-Aug,
   autumn/fall = Sep-Nov, winter = Dec-Feb, a winter belonging to the year of its December);
   vague counts ("a couple of" = 2-3, "a few" = 2-4, "several" = 3-7, "the other day" = 2-6 days
   ago), whose interval spans the whole range and whose granularity is one step coarser
   (day → week → month → year); and tense.
4. **Tense** decides expressions that can point either way ("in December", "this Saturday",
   "this summer", "on 5 May"): the future/past marker nearest to the expression in its sentence
   wins ("will", "'ll", "going to", "plan", "can't wait" … vs "was", "went", "had", "-ed" verbs …);
   without one, month names and dates default to the past, "this <weekday/weekend>" to the
   future, and "this <season>" outside that season to the one of the reference's year. So "I'm
   going to Paris in December" said in January is December of that year, while "in December"
   alone is the December before.

Days are computed in the reference's own zone (the speaker's calendar day), then converted to
UTC. "recently", "since we last talked", bare weekday or month names without a preposition are not
resolved (no usable interval, or too often a name: "May", "June").
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from dateparser.date import DateDataParser

from kgmem.errors import DateParseError
from kgmem.models import Granularity, TimeInterval

__all__ = [
    "MONTHS",
    "MONTH_ABBREVIATIONS",
    "NUMBERS",
    "SEASONS",
    "SEASON_START",
    "UTC",
    "WEEKDAYS",
    "WEEKDAY_ABBREVIATIONS",
    "calendar_interval",
    "interpret",
    "interpret_phrase",
    "parse_session_datetime",
]

Tense = Literal["past", "future"]
_Span = tuple[date, date, Granularity]


def _words() -> dict[str, Any]:
    """The word tables, ``kgmem/data/time_words.toml`` (read once, at import)."""
    path = resources.files("kgmem") / "data" / "time_words.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _index(table: dict[str, Any]) -> dict[str, int]:
    """``{"start": 1, "groups": ["a b", "c"]}`` -> ``{"a": 1, "b": 1, "c": 2}``: synonyms
    share a number; an empty group only takes its number."""
    start, groups = int(table["start"]), table["groups"]
    return {w: i for i, group in enumerate(groups, start) for w in group.split()}


_WORDS = _words()
#: full month name -> 1..12
MONTHS: dict[str, int] = _index(_WORDS["months"])
#: month abbreviation -> 1..12
MONTH_ABBREVIATIONS: dict[str, int] = _index(_WORDS["month_abbreviations"])
#: full weekday name -> 0 (Monday) .. 6 (Sunday), as ``datetime.weekday()``
WEEKDAYS: dict[str, int] = _index(_WORDS["weekdays"])
#: weekday abbreviation -> 0 .. 6
WEEKDAY_ABBREVIATIONS: dict[str, int] = _index(_WORDS["weekday_abbreviations"])
#: number word -> value ("a"/"an" count one: "a week ago")
NUMBERS: dict[str, int] = _index(_WORDS["numbers"]) | _WORDS["numbers"]["extra"]
#: season word -> canonical season (northern meteorological; "fall" is autumn)
SEASONS: dict[str, str] = dict(_WORDS["seasons"])
#: canonical season -> the month it starts in (a winter belongs to the year of its December)
SEASON_START: dict[str, int] = dict(_WORDS["season_start"])
_MONTHS = MONTHS | MONTH_ABBREVIATIONS
_WEEKDAYS = WEEKDAYS | WEEKDAY_ABBREVIATIONS
_NUMBERS = {w: n for w, n in NUMBERS.items() if 0 < n <= 30}
_VAGUE = {word: (int(lo), int(hi)) for word, (lo, hi) in _WORDS["vague"].items()}
_COARSER: dict[str, Granularity] = {"day": "week", "week": "month", "month": "year", "year": "year"}
_GRAN: dict[str, Granularity] = {"day": "day", "week": "week", "month": "month", "year": "year"}

# --- span patterns (IGNORECASE; month names must be capitalised: "may", "march" are words) ---
_NUM = r"(?:\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"
_VAG = r"(?:a\s+)?(?:couple(?:\s+of)?|few|several)"
_UNIT = r"(?:day|weekend|week|month|year)s?"
_WD = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?)"
)
_MON = (
    r"(?-i:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?)"
)
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
_SEASON = r"(?:summer|winter|spring|autumn|fall)"
_LAST = r"(?:last|this\s+past|past|previous)"
_NEXT = r"(?:next|this\s+coming|coming)"


def _future_markers() -> str:
    words = "|".join(_WORDS["tense"]["future"])
    return rf"(?P<fut>\b(?:{words})\b|['\u2019]ll\b)"


_PAST_WORDS = "|".join(_WORDS["tense"]["past"])
_NOT_PAST = frozenset(_WORDS["tense"]["not_past"])
_TENSE = re.compile(_future_markers() + rf"|(?P<past>\b(?:{_PAST_WORDS}|\w{{2,}}ed)\b)", re.I)
_SENTENCE_END = re.compile(r"[.!?\n]")


_DIGITS = re.compile(r"\D")


def _month(token: str) -> int:
    return _MONTHS[token.rstrip(".").lower()]


def _count(token: str) -> int:
    token = token.lower()
    return int(token) if token.isdigit() else _NUMBERS[token]


def _vague(token: str) -> tuple[int, int]:
    return next(v for k, v in _VAGUE.items() if k in token.lower())


def _unit(token: str) -> str:
    return token.lower().rstrip("s")


# --- calendar helpers (local dates) -------------------------------------------------------------
def _add_months(d: date, n: int) -> date:
    y, m = divmod(d.year * 12 + d.month - 1 + n, 12)
    return date(y, m + 1, 1)


def _align(d: date, unit: str) -> tuple[date, date]:
    """The day / ISO week / month / year containing ``d`` as ``[start, end)``."""
    if unit == "day":
        return d, d + timedelta(days=1)
    if unit == "week":
        monday = d - timedelta(days=d.weekday())
        return monday, monday + timedelta(days=7)
    if unit == "month":
        first = d.replace(day=1)
        return first, _add_months(first, 1)
    return date(d.year, 1, 1), date(d.year + 1, 1, 1)


def _shift(d: date, unit: str, n: int) -> date:
    """``d`` moved by ``n`` units (negative = back); months/years land on the 1st."""
    if unit == "day":
        return d + timedelta(days=n)
    if unit in ("week", "weekend"):
        return d + timedelta(weeks=n)
    return _add_months(d, n if unit == "month" else 12 * n)


def _weekend(today: date, which: Literal["last", "current", "next"]) -> tuple[date, date]:
    wd = today.weekday()
    if which == "current" and wd >= 5:
        sat = today - timedelta(days=wd - 5)
    elif which == "next":
        sat = today + timedelta(days=5 - wd if wd < 5 else 12 - wd)
    else:  # the most recent weekend that is over (or, for "current" on a weekday, the last one)
        sat = today - timedelta(days=wd + 2 if wd < 5 else wd - 5 + 7)
    return sat, sat + timedelta(days=2)


def _season(name: str, year: int) -> tuple[date, date]:
    """Meteorological season ``name`` starting in ``year`` (winter Y = Dec Y to end of Feb Y+1)."""
    start = date(year, SEASON_START[SEASONS[name]], 1)
    return start, _add_months(start, 3)


# --- dateparser glue ---------------------------------------------------------------------
@lru_cache(maxsize=8192)
def _dp(phrase: str, base: datetime, prefer: Tense) -> tuple[date, str] | None:
    """``dateparser``'s date and period (day/week/month/year) for ``phrase``, or None."""
    parser = DateDataParser(
        languages=["en"],
        settings={
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": prefer,
            "RETURN_TIME_AS_PERIOD": True,
            "PREFER_DAY_OF_MONTH": "first",
        },
    )
    try:
        data = parser.get_date_data(phrase)
    except (ValueError, OverflowError, KeyError):
        return None
    if data.date_obj is None:
        return None
    return data.date_obj.date(), str(data.period or "day")


class _Ctx:
    """One match's context: the session's local day and, lazily, the tense of its sentence."""

    def __init__(self, text: str, start: int, end: int, reference: datetime) -> None:
        self.text, self.start, self.end = text, start, end
        self.base = reference.replace(tzinfo=None)
        self.today = self.base.date()

    def tense(self, default: Tense | None) -> Tense | None:
        left = max((m.end() for m in _SENTENCE_END.finditer(self.text, 0, self.start)), default=0)
        stop = _SENTENCE_END.search(self.text, self.start)
        right = stop.start() if stop else len(self.text)
        best: tuple[int, Tense] | None = None
        for m in _TENSE.finditer(self.text, left, right):
            if self.start <= m.start() < self.end:
                continue  # the expression's own words ("last", "next") do not vote
            if m.lastgroup == "past" and m.group().lower() in _NOT_PAST:
                continue
            dist = self.start - m.end() if m.end() <= self.start else m.start() - self.end
            kind: Tense = "future" if m.lastgroup == "fut" else "past"
            if best is None or dist < best[0]:
                best = (dist, kind)
        return best[1] if best else default

    def dp(self, phrase: str, force: Tense | None = None) -> tuple[date, str] | None:
        """``dateparser`` on ``phrase``; ambiguous dates follow ``force``, else the tense (past)."""
        return _dp(phrase, self.base, force or self.tense("past") or "past")


# --- rules -------------------------------------------------------------------------------
def _ago(m: re.Match[str], c: _Ctx) -> _Span | None:
    unit = _unit(m["unit"])
    sign = 1 if m.group().lower().startswith("in") else -1  # "in 3 weeks" vs "3 weeks ago"
    if sign > 0 and c.tense(None) == "past":
        return None  # a duration, not a date: "haven't talked in a few days", "built in a day"
    if sign > 0 and "next" in m.group().lower() and unit != "weekend":  # "in the next few months"
        hi = _vague(m["vag"])[1] if m["vag"] else _count(m["n"])
        return c.today, _align(_shift(c.today, unit, hi), unit)[0], _COARSER[unit]
    if unit == "weekend":
        base = _weekend(c.today, "last" if sign < 0 else "next")
        lo, hi = _vague(m["vag"]) if m["vag"] else (_count(m["n"]),) * 2
        near, far = _shift(base[0], unit, sign * (lo - 1)), _shift(base[0], unit, sign * (hi - 1))
        first, last = (far, near) if sign < 0 else (near, far)
        return first, last + timedelta(days=2), "weekend" if lo == hi else "month"
    if m["vag"]:
        lo, hi = _vague(m["vag"])
        first = _align(_shift(c.today, unit, sign * (hi if sign < 0 else lo)), unit)[0]
        last = _align(_shift(c.today, unit, sign * (lo if sign < 0 else hi)), unit)[1]
        return first, last, _COARSER[unit]
    n = _count(m["n"])
    words = f"{n} {unit}" + ("s" if n != 1 else "")
    found = c.dp(f"{words} ago" if sign < 0 else f"in {words}")
    return (*_align(found[0], unit), _GRAN[unit]) if found else None


def _trailing(m: re.Match[str], c: _Ctx) -> _Span | None:
    unit = _unit(m["unit"])
    if unit == "weekend":
        return (*_weekend(c.today, "last"), "weekend")
    n = _vague(m["vag"])[1] if m["vag"] else _count(m["n"]) if m["n"] else 1
    exact = not m["vag"] and n == 1
    return (
        _shift(c.today, unit, -n),
        c.today + timedelta(days=1),
        _GRAN[unit] if exact else _COARSER[unit],
    )


_DAY_OFFSETS: dict[str, int] = dict(_WORDS["day_offsets"])


def _dayword(m: re.Match[str], c: _Ctx) -> _Span | None:
    word = " ".join(m.group().lower().split()).removeprefix("the ")
    if word == "other day":
        return c.today - timedelta(days=6), c.today - timedelta(days=1), "week"
    if word in ("yesterday", "today", "tomorrow", "day before yesterday"):
        found = c.dp(word)
        day = found[0] if found else c.today + timedelta(days=_DAY_OFFSETS[word])
    else:
        day = c.today + timedelta(days=_DAY_OFFSETS.get(word, 0))  # this morning/evening…
    return day, day + timedelta(days=1), "day"


def _weekend_rule(m: re.Match[str], c: _Ctx) -> _Span | None:
    q = " ".join(m["q"].lower().split())
    on_weekend = c.today.weekday() >= 5
    if q in ("last", "this past", "past", "previous"):
        span = _weekend(c.today, "last")
    elif q in ("next", "this coming", "coming"):
        span = _weekend(c.today, "next")
    elif on_weekend:
        span = _weekend(c.today, "current")
    else:  # "this weekend" leans future; "over the weekend" leans past
        tense = c.tense("future" if q == "this" else "past")
        span = _weekend(c.today, "next" if tense == "future" else "last")
    return (*span, "weekend")


def _weekday(m: re.Match[str], c: _Ctx) -> _Span | None:
    q, token = " ".join(m["q"].lower().split()), m["wd"].lower().rstrip(".")
    if q == "on" and token not in WEEKDAYS:
        return None  # "on sun", "on wed" are too often not weekdays
    target, wd = _WEEKDAYS[token], c.today.weekday()
    back, ahead = (wd - target) % 7 or 7, (target - wd) % 7 or 7
    if q in ("last", "this past", "past", "previous"):
        day = c.today - timedelta(days=back)
    elif q in ("next", "this coming", "coming"):
        day = c.today + timedelta(days=ahead)
    elif q == "this" and target == wd:
        day = c.today
    else:
        tense = c.tense("future" if q == "this" else "past")
        day = (
            c.today + timedelta(days=ahead) if tense == "future" else c.today - timedelta(days=back)
        )
    return day, day + timedelta(days=1), "day"


def _period(m: re.Match[str], c: _Ctx) -> _Span | None:
    q, unit = " ".join(m["q"].lower().split()), _unit(m["unit"])
    word = (
        "last"
        if q in ("last", "this past", "previous")
        else "next"
        if q in ("next", "this coming")
        else "this"
    )
    found = c.dp(f"{word} {unit}")
    anchor = found[0] if found else _shift(c.today, unit, {"last": -1, "this": 0, "next": 1}[word])
    return (*_align(anchor, unit), _GRAN[unit])


def _season_rule(m: re.Match[str], c: _Ctx) -> _Span | None:
    name = (m["s"] or m["s2"]).lower()
    year = m["y"] or m["y2"]
    if year:
        return (*_season(name, int(year)), "season")
    q = " ".join(m["q"].lower().split())
    around = [_season(name, y) for y in range(c.today.year - 2, c.today.year + 2)]
    current = next((s for s in around if s[0] <= c.today < s[1]), None)
    latest_over = max(s for s in around if s[1] <= c.today)
    first_ahead = min(s for s in around if s[0] > c.today)
    if q in ("last", "this past", "past", "previous"):
        span = latest_over
    elif q in ("next", "this coming", "coming"):
        span = first_ahead
    elif current is not None:
        span = current
    elif q == "this":
        tense = c.tense(None)  # out of season, "this summer" is this year's unless tense says
        this_year = _season(name, c.today.year)
        if tense == "future" and this_year[1] <= c.today:
            span = first_ahead
        elif tense == "past" and this_year[0] > c.today:
            span = latest_over
        else:
            span = this_year
    else:
        span = first_ahead if c.tense("past") == "future" else latest_over
    return (*span, "season")


def _date(m: re.Match[str], c: _Ctx) -> _Span | None:
    day = int(_DIGITS.sub("", m["d"]))
    phrase = f"{day} {m['m'].rstrip('.')}" + (f" {m['y']}" if m["y"] else "")
    found = c.dp(phrase)
    return (found[0], found[0] + timedelta(days=1), "day") if found else None


def _iso(m: re.Match[str], c: _Ctx) -> _Span | None:
    found = c.dp(m.group())
    return (found[0], found[0] + timedelta(days=1), "day") if found else None


def _month_year(m: re.Match[str], c: _Ctx) -> _Span | None:
    first = date(int(m["y"]), _month(m["m"]), 1)
    return first, _add_months(first, 1), "month"


def _month_rel(m: re.Match[str], c: _Ctx) -> _Span | None:
    q, month = " ".join(m["q"].lower().split()), _month(m["m"])
    this_year = date(c.today.year, month, 1)
    if q == "last":
        first = this_year if month < c.today.month else date(c.today.year - 1, month, 1)
    elif q == "next":
        first = this_year if month > c.today.month else date(c.today.year + 1, month, 1)
    elif q == "this" or month == c.today.month:
        first = this_year
    else:
        found = c.dp(m["m"].rstrip("."), "past" if q in ("since", "back in") else None)
        if found is None:
            return None
        first = found[0].replace(day=1)
    end = _add_months(first, 1)
    return (
        (first, max(end, c.today + timedelta(days=1)), "month")
        if q == "since"
        else (first, end, "month")
    )


def _year(m: re.Match[str], c: _Ctx) -> _Span | None:
    start = date(int(m["y"]), 1, 1)
    if m["q"].lower() == "since":
        return start, max(date(start.year + 1, 1, 1), c.today + timedelta(days=1)), "year"
    return start, date(start.year + 1, 1, 1), "year"


_Rule = tuple[str, Callable[[re.Match[str], _Ctx], _Span | None]]
_RULES: tuple[_Rule, ...] = (
    (rf"(?:(?P<vag>{_VAG})|(?P<n>{_NUM}))\s+(?P<unit>{_UNIT})\s+ago", _ago),
    (
        rf"in\s+(?:the\s+next\s+)?(?:(?P<vag>{_VAG})|(?P<n>{_NUM}))\s+(?P<unit>{_UNIT})",
        _ago,
    ),
    (
        rf"the\s+(?:past|last)\s+(?:(?P<vag>{_VAG})\s+|(?P<n>{_NUM})\s+)?(?P<unit>{_UNIT})",
        _trailing,
    ),
    (
        r"(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|yesterday|today|tonight|tomorrow"
        r"|last\s+night|this\s+(?:morning|afternoon|evening)|the\s+other\s+day",
        _dayword,
    ),
    (rf"(?P<q>{_LAST}|{_NEXT}|this|over\s+the|on\s+the|at\s+the)\s+weekend", _weekend_rule),
    (rf"(?P<q>{_LAST}|{_NEXT}|this|on)\s+(?P<wd>{_WD})", _weekday),
    (
        r"(?P<q>last|this\s+past|previous|next|this\s+coming|this)\s+(?P<unit>week|month|year)",
        _period,
    ),
    (
        rf"(?P<q>{_LAST}|{_NEXT}|this|(?:in|during|over|for)\s+the|in|during)\s+(?P<s>{_SEASON})"
        rf"(?:\s+(?:of\s+)?(?P<y>{_YEAR}))?|(?P<s2>{_SEASON})\s+(?:of\s+)?(?P<y2>{_YEAR})",
        _season_rule,
    ),
    (
        rf"(?:on\s+)?(?:the\s+)?(?P<d>{_DAY})(?:\s+of)?\s+(?P<m>{_MON})(?:,?\s+(?P<y>{_YEAR}))?",
        _date,
    ),
    (rf"(?:on\s+)?(?P<m>{_MON})\s+(?:the\s+)?(?P<d>{_DAY})(?:,?\s+(?P<y>{_YEAR}))?", _date),
    (
        rf"(?:(?:in|during|since|of|from|back\s+in)\s+)?(?:(?:early|late|mid-?)\s*)?(?P<m>{_MON})(?:\s+of)?,?\s+(?P<y>{_YEAR})",
        _month_year,
    ),
    (
        rf"(?P<q>last|next|this|in|during|since|back\s+in|(?:in\s+)?(?:early|late|mid))[\s-]+(?P<m>{_MON})",
        _month_rel,
    ),
    (r"(?:19|20)\d\d-[01]\d-[0-3]\d", _iso),
    (rf"(?P<q>in|since|during|back\s+in|around|from|of)\s+(?P<y>{_YEAR})", _year),
)
_COMPILED = tuple(re.compile(p, re.I) for p, _ in _RULES)
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_FINDER = re.compile(  # the rules as one alternation, their named groups made anonymous
    r"(?<![\w-])(?:"
    + "|".join(f"(?P<r{i}>" + _NAMED_GROUP.sub("(?:", p) + ")" for i, (p, _) in enumerate(_RULES))
    + r")(?![\w-])",
    re.I,
)


def interpret(text: str, reference: datetime) -> list[TimeInterval]:
    """Find and resolve every time expression in ``text`` against a reference moment.

    Args:
        text: one turn (or any text); any string, including empty or control characters.
        reference: timezone-aware (the session's datetime at write time, the moment asked
            about at read time). Days are counted in its own zone.

    Returns:
        One ``TimeInterval(start, end, granularity, phrase)`` per expression, in text order:
        ``[start, end)`` half-open, UTC, ``start < end``; ``phrase`` is the surface text.
        "yesterday" on 8 May 2023 → ``[2023-05-07, 2023-05-08)``, granularity ``day``.

    Raises:
        DateParseError: ``reference`` is naive (no time zone).
    """
    if reference.tzinfo is None or reference.utcoffset() is None:
        raise DateParseError(f"reference datetime {reference.isoformat()} must be timezone-aware")
    zone = reference.tzinfo
    out: list[TimeInterval] = []
    for found in _FINDER.finditer(text):
        index = int((found.lastgroup or "r0")[1:])
        inner = _COMPILED[index].fullmatch(found.group())
        if inner is None:
            continue
        try:
            span = _RULES[index][1](inner, _Ctx(text, found.start(), found.end(), reference))
            if span is None:
                continue
            start, end = (
                datetime(d.year, d.month, d.day, tzinfo=zone).astimezone(UTC) for d in span[:2]
            )
        except (ValueError, OverflowError):  # a date outside datetime's range
            continue
        if start < end:
            out.append(
                TimeInterval(start=start, end=end, granularity=span[2], phrase=found.group())
            )
    return out


def calendar_interval(
    day: date, unit: Literal["day", "week", "month", "year"], phrase: str = ""
) -> TimeInterval:
    """The day / ISO week / month / year containing ``day``, as a UTC interval (the alignment
    every rule above uses): ``calendar_interval(date(2023, 5, 8), "month")`` is May 2023."""
    start, end = _align(day, unit)
    return TimeInterval(
        start=datetime(start.year, start.month, start.day, tzinfo=UTC),
        end=datetime(end.year, end.month, end.day, tzinfo=UTC),
        granularity=_GRAN[unit],
        phrase=phrase.strip(),
    )


def interpret_phrase(phrase: str, reference: datetime) -> TimeInterval | None:
    """The first interval `interpret` finds in ``phrase``, or None (same arguments and errors)."""
    found = interpret(phrase, reference)
    return found[0] if found else None


_LOCOMO = re.compile(
    r"\s*(?P<h>\d{1,2}):(?P<mi>\d{2})\s*(?P<ap>[ap])\.?\s*m\.?\s+on\s+(?P<d>\d{1,2})\s+"
    r"(?P<m>[A-Za-z]+)\.?,?\s+(?P<y>\d{4})\s*",
    re.I,
)


def parse_session_datetime(value: str, *, tz: tzinfo = UTC) -> datetime:
    """Parse a session datetime: LoCoMo's ``"1:56 pm on 8 May, 2023"`` or ISO 8601.

    LoCoMo (Maharana et al., ACL 2024) gives no time zone; naive values are taken to be in
    ``tz`` (UTC by default). An explicit ISO offset is kept (so day arithmetic in
    `resolve_time` follows the speaker's calendar); call ``.astimezone(UTC)`` to normalise.

    Args:
        value: the datetime string.
        tz: zone for values without one.

    Returns:
        A timezone-aware datetime.

    Raises:
        DateParseError: anything that is neither form, or an impossible date ("31 February").
    """
    m = _LOCOMO.fullmatch(value)
    try:
        if m:
            hour = int(m["h"]) % 12 + (12 if m["ap"].lower() == "p" else 0)
            if int(m["h"]) > 12 or m["m"].lower() not in _MONTHS:
                raise ValueError("hour or month out of range")
            parsed = datetime(int(m["y"]), _month(m["m"]), int(m["d"]), hour, int(m["mi"]))
        else:
            parsed = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise DateParseError(f"cannot parse session datetime {value!r}: {exc}") from exc
    return parsed.replace(tzinfo=tz) if parsed.tzinfo is None else parsed
