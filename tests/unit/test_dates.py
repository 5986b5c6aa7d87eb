"""Write-time date resolution: relative expressions x session dates → UTC intervals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.errors import DateParseError, InputError
from kgmem.ingest.extraction.dates import resolve_time
from kgmem.time import parse_session_datetime


def _at(y: int, m: int, d: int, h: int = 13, mi: int = 56) -> datetime:
    return datetime(y, m, d, h, mi, tzinfo=UTC)


def _day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


# (session datetime, text, expected phrase, start, end, granularity)
CASES = [
    # Monday 8 May 2023, the example of docs/design.md §1
    (
        _at(2023, 5, 8),
        "I went hiking yesterday.",
        "yesterday",
        _day(2023, 5, 7),
        _day(2023, 5, 8),
        "day",
    ),
    (_at(2023, 5, 8), "Today I rest.", "Today", _day(2023, 5, 8), _day(2023, 5, 9), "day"),
    (
        _at(2023, 5, 8),
        "Last night was amazing!",
        "Last night",
        _day(2023, 5, 7),
        _day(2023, 5, 8),
        "day",
    ),
    (_at(2023, 5, 8), "See you tonight", "tonight", _day(2023, 5, 8), _day(2023, 5, 9), "day"),
    (
        _at(2023, 5, 8),
        "The launch is tomorrow.",
        "tomorrow",
        _day(2023, 5, 9),
        _day(2023, 5, 10),
        "day",
    ),
    (
        _at(2023, 5, 8),
        "I went the day before yesterday",
        "the day before yesterday",
        _day(2023, 5, 6),
        _day(2023, 5, 7),
        "day",
    ),
    (
        _at(2023, 5, 8),
        "I graduated last week!",
        "last week",
        _day(2023, 5, 1),
        _day(2023, 5, 8),
        "week",
    ),
    (
        _at(2023, 5, 8),
        "a fundraiser next week",
        "next week",
        _day(2023, 5, 15),
        _day(2023, 5, 22),
        "week",
    ),
    (
        _at(2023, 5, 8),
        "I saw it a few days ago",
        "a few days ago",
        _day(2023, 5, 4),
        _day(2023, 5, 7),
        "week",
    ),
    (
        _at(2023, 5, 8),
        "a conference two days ago",
        "two days ago",
        _day(2023, 5, 6),
        _day(2023, 5, 7),
        "day",
    ),
    (
        _at(2023, 5, 8),
        "It started 3 weeks ago",
        "3 weeks ago",
        _day(2023, 4, 17),
        _day(2023, 4, 24),
        "week",
    ),
    (
        _at(2023, 5, 8),
        "a couple of years ago",
        "a couple of years ago",
        _day(2020, 1, 1),
        _day(2022, 1, 1),
        "year",
    ),
    (
        _at(2023, 5, 8),
        "about five years ago",
        "five years ago",
        _day(2018, 1, 1),
        _day(2019, 1, 1),
        "year",
    ),
    (_at(2023, 5, 8), "We met on 5 May", "on 5 May", _day(2023, 5, 5), _day(2023, 5, 6), "day"),
    (
        _at(2023, 5, 8),
        "back in May 2021",
        "back in May 2021",
        _day(2021, 5, 1),
        _day(2021, 6, 1),
        "month",
    ),
    (
        _at(2023, 5, 8),
        "on June 3rd, 2020 we",
        "on June 3rd, 2020",
        _day(2020, 6, 3),
        _day(2020, 6, 4),
        "day",
    ),
    (_at(2023, 5, 8), "It opened in 2022.", "in 2022", _day(2022, 1, 1), _day(2023, 1, 1), "year"),
    (
        _at(2023, 5, 8),
        "I will move in 2 weeks",
        "in 2 weeks",
        _day(2023, 5, 22),
        _day(2023, 5, 29),
        "week",
    ),
    # Thursday 11 May 2023: "last Saturday" is the Saturday before the session day
    (
        _at(2023, 5, 11),
        "I ran a race last Saturday",
        "last Saturday",
        _day(2023, 5, 6),
        _day(2023, 5, 7),
        "day",
    ),
    (
        _at(2023, 5, 11),
        "this Saturday we will dance",
        "this Saturday",
        _day(2023, 5, 13),
        _day(2023, 5, 14),
        "day",
    ),
    # Friday 20 Jan 2023: abbreviations
    (
        _at(2023, 1, 20),
        "Wanna see my moves next Fri?",
        "next Fri",
        _day(2023, 1, 27),
        _day(2023, 1, 28),
        "day",
    ),
    (
        _at(2023, 1, 20),
        "my car broke down last Fri.",
        "last Fri.",
        _day(2023, 1, 13),
        _day(2023, 1, 14),
        "day",
    ),
    # Sunday 14 May 2023: "this weekend" is the weekend it is in
    (
        _at(2023, 5, 14),
        "this weekend was fun",
        "this weekend",
        _day(2023, 5, 13),
        _day(2023, 5, 15),
        "weekend",
    ),
    (
        _at(2023, 5, 14),
        "last weekend I hiked",
        "last weekend",
        _day(2023, 5, 6),
        _day(2023, 5, 8),
        "weekend",
    ),
    # Wednesday 10 May 2023: "this weekend" is the coming one
    (
        _at(2023, 5, 10),
        "this weekend we go",
        "this weekend",
        _day(2023, 5, 13),
        _day(2023, 5, 15),
        "weekend",
    ),
    # Monday 17 July 2023
    (
        _at(2023, 7, 17),
        "camping two weekends ago",
        "two weekends ago",
        _day(2023, 7, 8),
        _day(2023, 7, 10),
        "weekend",
    ),
    (
        _at(2023, 7, 17),
        "Anything fun over the weekend?",
        "over the weekend",
        _day(2023, 7, 15),
        _day(2023, 7, 17),
        "weekend",
    ),
    # January session: a month name without a year is the nearest past one, unless the tense
    # says future
    (
        _at(2023, 1, 10),
        "We went skiing in December.",
        "in December",
        _day(2022, 12, 1),
        _day(2023, 1, 1),
        "month",
    ),
    (
        _at(2023, 1, 10),
        "I'm going to Paris in December",
        "in December",
        _day(2023, 12, 1),
        _day(2024, 1, 1),
        "month",
    ),
    (
        _at(2023, 1, 10),
        "since December",
        "since December",
        _day(2022, 12, 1),
        _day(2023, 1, 11),
        "month",
    ),
    # seasons (meteorological, Northern hemisphere)
    (
        _at(2023, 8, 11),
        "a camping trip last summer",
        "last summer",
        _day(2022, 6, 1),
        _day(2022, 9, 1),
        "season",
    ),
    (
        _at(2023, 10, 8),
        "a camping trip last summer",
        "last summer",
        _day(2023, 6, 1),
        _day(2023, 9, 1),
        "season",
    ),
    (
        _at(2023, 8, 17),
        "Wanna do a family outing this summer?",
        "this summer",
        _day(2023, 6, 1),
        _day(2023, 9, 1),
        "season",
    ),
    (
        _at(2023, 10, 8),
        "this summer was hot",
        "this summer",
        _day(2023, 6, 1),
        _day(2023, 9, 1),
        "season",
    ),
    (
        _at(2023, 10, 8),
        "this summer we will sail",
        "this summer",
        _day(2024, 6, 1),
        _day(2024, 9, 1),
        "season",
    ),
    (_at(2023, 1, 10), "last winter", "last winter", _day(2021, 12, 1), _day(2022, 3, 1), "season"),
    (_at(2023, 1, 10), "this winter", "this winter", _day(2022, 12, 1), _day(2023, 3, 1), "season"),
    # months and years
    (
        _at(2023, 5, 25),
        "camping next month",
        "next month",
        _day(2023, 6, 1),
        _day(2023, 7, 1),
        "month",
    ),
    (
        _at(2023, 1, 1),
        "at the beach last month",
        "last month",
        _day(2022, 12, 1),
        _day(2023, 1, 1),
        "month",
    ),
    (
        _at(2023, 5, 4),
        "Last year I took a solo trip",
        "Last year",
        _day(2022, 1, 1),
        _day(2023, 1, 1),
        "year",
    ),
    (_at(2023, 7, 8), "since 2016", "since 2016", _day(2016, 1, 1), _day(2023, 7, 9), "year"),
]


@pytest.mark.parametrize(("reference", "text", "phrase", "start", "end", "granularity"), CASES)
def test_resolves_relative_expression(
    reference: datetime, text: str, phrase: str, start: datetime, end: datetime, granularity: str
) -> None:
    [interval] = resolve_time(text, reference)
    assert (interval.phrase, interval.start, interval.end, interval.granularity) == (
        phrase,
        start,
        end,
        granularity,
    )
    assert interval.start.tzinfo == UTC


def test_finds_every_expression_in_text_order() -> None:
    found = resolve_time("Yesterday I ran; last week I swam; next month I fly.", _at(2023, 5, 8))
    assert [i.phrase for i in found] == ["Yesterday", "last week", "next month"]


@pytest.mark.parametrize(
    "text",
    [
        "I may go, or march on",  # modal "may", verb "march": months must be capitalised
        "recently things changed",  # no interval
        "We haven't talked in a few days.",  # a duration, not a date
        "Rome wasn't built in a day",
        "the sun was out on sun",  # abbreviated weekday after "on" is not a weekday
        "I love Fridays and June",  # bare names
        "",
    ],
)
def test_ignores_non_dates(text: str) -> None:
    assert resolve_time(text, _at(2023, 5, 8)) == []


def test_days_are_counted_in_the_sessions_zone() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    reference = datetime(2023, 5, 8, 0, 30, tzinfo=berlin)  # 7 May 22:30 UTC
    [interval] = resolve_time("yesterday", reference)
    assert interval.start == datetime(2023, 5, 7, tzinfo=berlin).astimezone(UTC)
    assert interval.end - interval.start == timedelta(days=1)


def test_naive_reference_is_rejected() -> None:
    with pytest.raises(DateParseError, match="timezone-aware"):
        resolve_time("yesterday", datetime(2023, 5, 8))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37, tzinfo=UTC)),
        ("12:05 am on 1 January, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("12:30 pm on 3 Sept 2023", datetime(2023, 9, 3, 12, 30, tzinfo=UTC)),
        ("2023-05-08T13:56:00Z", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08 13:56", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
    ],
)
def test_parse_session_datetime(value: str, expected: datetime) -> None:
    parsed = parse_session_datetime(value)
    assert parsed == expected and parsed.utcoffset() == timedelta(0)


def test_parse_session_datetime_zones() -> None:
    plus_two = parse_session_datetime("2023-05-08T13:56:00+02:00")
    assert plus_two.utcoffset() == timedelta(hours=2)  # an explicit offset is kept
    berlin = ZoneInfo("Europe/Berlin")
    assert parse_session_datetime("1:56 pm on 8 May, 2023", tz=berlin).tzinfo is berlin


@pytest.mark.parametrize(
    "value",
    [
        "",
        "yesterday",
        "8 May 2023 at noon",
        "13:00 pm on 8 May, 2023",
        "1:56 pm on 31 February, 2023",
        "1:56 pm on 8 Mayo, 2023",
        "not a date",
    ],
)
def test_unparseable_session_datetime(value: str) -> None:
    with pytest.raises(DateParseError) as info:
        parse_session_datetime(value)
    assert isinstance(info.value, InputError)


_PHRASES = st.sampled_from(
    [
        "yesterday",
        "last Saturday",
        "this weekend",
        "two weekends ago",
        "in December",
        "last summer",
        "next month",
        "in 2022",
        "on 5 May",
        "May 2023",
        "a few days ago",
        "in 3 weeks",
        "since 2016",
        "the past few years",
        "31 February",
        "in 999 years",
        "999 years ago",
        "the other day",
    ]
)


@settings(max_examples=300, deadline=None, database=None)
@given(
    text=st.lists(st.text() | _PHRASES, max_size=6).map(" ".join),
    reference=st.datetimes(
        min_value=datetime(1900, 1, 1),
        max_value=datetime(2100, 1, 1),
        timezones=st.sampled_from([UTC, ZoneInfo("America/New_York")]),
    ),
)
def test_never_raises_and_intervals_are_well_formed(text: str, reference: datetime) -> None:
    for interval in resolve_time(text, reference):
        assert interval.start < interval.end
        assert interval.start.utcoffset() == timedelta(0)
        assert interval.phrase and interval.phrase in text
