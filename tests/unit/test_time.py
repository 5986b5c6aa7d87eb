"""One grammar of time (kgmem.time) through both paths' public entry points: the write path's
`kgmem.ingest.extraction.dates.resolve_time` (a turn against its session date) and the read path's
`kgmem.retrieve.plan.plan` (a question against the moment it is asked). Every expected interval
is computed by hand below: ``[start, end)`` in UTC with its granularity."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from kgmem.ingest.extraction.dates import resolve_time
from kgmem.retrieve.plan import plan
from kgmem.time import MONTHS, NUMBERS, SEASONS, WEEKDAYS, calendar_interval, interpret_phrase

MON = datetime(2023, 5, 8, 12, tzinfo=UTC)  # Monday 8 May 2023
SAT = datetime(2023, 5, 13, 12, tzinfo=UTC)  # Saturday 13 May 2023 (a weekend)
JAN = datetime(2024, 1, 17, 12, tzinfo=UTC)  # Wednesday 17 January 2024 (winter)
SUN = datetime(2024, 6, 2, 9, 30, tzinfo=UTC)  # Sunday 2 June 2024
CEST = datetime(2023, 5, 8, 1, tzinfo=timezone(timedelta(hours=2)))  # 7 May 23:00 UTC

# (text, reference, start, end, granularity); dates are UTC midnights unless a time is given
WRITE_PATH = [
    # relative day words
    ("yesterday", MON, "2023-05-07", "2023-05-08", "day"),
    ("today", MON, "2023-05-08", "2023-05-09", "day"),
    ("tomorrow", MON, "2023-05-09", "2023-05-10", "day"),
    ("tonight", MON, "2023-05-08", "2023-05-09", "day"),
    ("this morning", MON, "2023-05-08", "2023-05-09", "day"),
    ("last night", MON, "2023-05-07", "2023-05-08", "day"),
    ("the day before yesterday", MON, "2023-05-06", "2023-05-07", "day"),
    ("the other day", MON, "2023-05-02", "2023-05-07", "week"),  # 2-6 days ago
    ("yesterday", SUN, "2024-06-01", "2024-06-02", "day"),
    # the speaker's calendar day: 01:00 in UTC+2 is still 8 May there
    ("yesterday", CEST, "2023-05-06T22:00", "2023-05-07T22:00", "day"),
    # "ago" and "in"
    ("3 days ago", MON, "2023-05-05", "2023-05-06", "day"),
    ("two weeks ago", MON, "2023-04-24", "2023-05-01", "week"),  # the ISO week of 24 April
    ("a month ago", MON, "2023-04-01", "2023-05-01", "month"),
    ("2 years ago", MON, "2021-01-01", "2022-01-01", "year"),
    ("a few days ago", MON, "2023-05-04", "2023-05-07", "week"),  # 2-4 days ago, one step coarser
    ("a couple of weeks ago", MON, "2023-04-17", "2023-05-01", "month"),  # 2-3 weeks ago
    ("in 3 days", MON, "2023-05-11", "2023-05-12", "day"),
    # last / this / next week, month, year
    ("last week", MON, "2023-05-01", "2023-05-08", "week"),
    ("this week", MON, "2023-05-08", "2023-05-15", "week"),
    ("next week", MON, "2023-05-15", "2023-05-22", "week"),
    ("last week", SUN, "2024-05-20", "2024-05-27", "week"),
    ("last month", MON, "2023-04-01", "2023-05-01", "month"),
    ("previous month", MON, "2023-04-01", "2023-05-01", "month"),
    ("next month", MON, "2023-06-01", "2023-07-01", "month"),
    ("last year", MON, "2022-01-01", "2023-01-01", "year"),
    ("this year", MON, "2023-01-01", "2024-01-01", "year"),
    ("next year", MON, "2024-01-01", "2025-01-01", "year"),
    ("the past week", MON, "2023-05-01", "2023-05-09", "week"),  # up to and including today
    ("the past 3 days", MON, "2023-05-05", "2023-05-09", "week"),
    ("the last few months", MON, "2023-01-01", "2023-05-09", "year"),
    # weekdays and weekends (Saturday 00:00 to Monday 00:00)
    ("last Friday", MON, "2023-05-05", "2023-05-06", "day"),
    ("last Monday", MON, "2023-05-01", "2023-05-02", "day"),  # strictly before today
    ("next Friday", MON, "2023-05-12", "2023-05-13", "day"),
    ("this Saturday", MON, "2023-05-13", "2023-05-14", "day"),
    ("on Saturday", MON, "2023-05-06", "2023-05-07", "day"),  # no future marker: the past one
    ("last weekend", MON, "2023-05-06", "2023-05-08", "weekend"),
    ("over the weekend", MON, "2023-05-06", "2023-05-08", "weekend"),
    ("this weekend", MON, "2023-05-13", "2023-05-15", "weekend"),
    ("next weekend", MON, "2023-05-13", "2023-05-15", "weekend"),
    ("this weekend", SAT, "2023-05-13", "2023-05-15", "weekend"),
    ("last weekend", SAT, "2023-05-06", "2023-05-08", "weekend"),
    # seasons (meteorological; a winter belongs to the year of its December)
    ("last summer", MON, "2022-06-01", "2022-09-01", "season"),
    ("this summer", MON, "2023-06-01", "2023-09-01", "season"),
    ("next summer", MON, "2023-06-01", "2023-09-01", "season"),
    ("last winter", MON, "2022-12-01", "2023-03-01", "season"),
    ("this winter", JAN, "2023-12-01", "2024-03-01", "season"),
    ("last winter", JAN, "2022-12-01", "2023-03-01", "season"),
    ("next spring", JAN, "2024-03-01", "2024-06-01", "season"),
    ("last fall", JAN, "2023-09-01", "2023-12-01", "season"),
    ("in the summer of 2019", MON, "2019-06-01", "2019-09-01", "season"),
    # months and years
    ("last December", MON, "2022-12-01", "2023-01-01", "month"),
    ("next March", MON, "2024-03-01", "2024-04-01", "month"),
    ("in June", MON, "2022-06-01", "2022-07-01", "month"),  # no future marker: the past June
    ("I'm going to Paris in December", MON, "2023-12-01", "2024-01-01", "month"),
    ("in May 2022", MON, "2022-05-01", "2022-06-01", "month"),
    ("in 2019", MON, "2019-01-01", "2020-01-01", "year"),
    ("since 2020", MON, "2020-01-01", "2023-05-09", "year"),  # until today
    # ordinal and numeric dates
    ("8 May 2023", JAN, "2023-05-08", "2023-05-09", "day"),
    ("May 8, 2023", JAN, "2023-05-08", "2023-05-09", "day"),
    ("on the 3rd of June 2022", MON, "2022-06-03", "2022-06-04", "day"),
    ("on 21st March, 2020", MON, "2020-03-21", "2020-03-22", "day"),
    ("2023-04-30", MON, "2023-04-30", "2023-05-01", "day"),
]


def _utc(value: str) -> datetime:
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def _ref_id(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


@pytest.mark.parametrize(
    ("text", "reference", "start", "end", "granularity"), WRITE_PATH, ids=_ref_id
)
def test_write_path(text: str, reference: datetime, start: str, end: str, granularity: str) -> None:
    (found,) = resolve_time(text, reference)
    assert (found.start, found.end, found.granularity) == (_utc(start), _utc(end), granularity)


def test_the_table_is_big_enough() -> None:
    assert len(WRITE_PATH) + len(READ_PATH) >= 50


# (question, reference, start, end, granularity): the question's time through the planner
READ_PATH = [
    ("What did Ana do yesterday?", MON, "2023-05-07", "2023-05-08", "day"),
    ("What did Ana do today?", SUN, "2024-06-02", "2024-06-03", "day"),
    ("What did Ana do last week?", MON, "2023-05-01", "2023-05-08", "week"),
    ("What did Ana do last week?", SUN, "2024-05-20", "2024-05-27", "week"),
    ("What did Ana do this week?", MON, "2023-05-08", "2023-05-15", "week"),
    ("What did Ana buy last month?", MON, "2023-04-01", "2023-05-01", "month"),
    ("What did Ana buy the previous month?", MON, "2023-04-01", "2023-05-01", "month"),
    ("Where did Ana travel last year?", MON, "2022-01-01", "2023-01-01", "year"),
    ("What did Ana do last weekend?", MON, "2023-05-06", "2023-05-08", "weekend"),
    ("What did Ana do last weekend?", SAT, "2023-05-06", "2023-05-08", "weekend"),
    ("What did Ana do 3 days ago?", MON, "2023-05-05", "2023-05-06", "day"),
    ("What did Ana do two weeks ago?", MON, "2023-04-24", "2023-05-01", "week"),
    ("What did Ana do a few days ago?", MON, "2023-05-04", "2023-05-07", "week"),
    ("What did Ana read in the past week?", MON, "2023-05-01", "2023-05-09", "week"),
    ("What did Ana do last summer?", MON, "2022-06-01", "2022-09-01", "season"),
    ("What will Ana do next summer?", MON, "2023-06-01", "2023-09-01", "season"),
    ("What did Ana do last winter?", JAN, "2022-12-01", "2023-03-01", "season"),
    ("What happened on 8 May 2023?", JAN, "2023-05-08", "2023-05-09", "day"),
    ("What did Ana do in May 2022?", MON, "2022-05-01", "2022-06-01", "month"),
    ("What did Ana do in 2019?", MON, "2019-01-01", "2020-01-01", "year"),
    # relative to the date the question names: "a week ago" said on 9 June, and that day
    ("What did Ana do the week before 9 June 2023?", MON, "2023-05-29", "2023-06-10", "week"),
]


@pytest.mark.parametrize(
    ("question", "reference", "start", "end", "granularity"), READ_PATH, ids=_ref_id
)
def test_read_path(
    question: str, reference: datetime, start: str, end: str, granularity: str
) -> None:
    found = plan(question, reference=reference).time_range
    assert found is not None
    assert (found.start, found.end, found.granularity) == (_utc(start), _utc(end), granularity)


@pytest.mark.parametrize(
    "row",
    [r for r in WRITE_PATH if r[0].split()[0] in ("last", "this", "yesterday", "today", "in")],
)
def test_both_paths_agree(row: tuple[str, datetime, str, str, str]) -> None:
    """The same phrase against the same moment means the same interval on both paths."""
    text, reference = row[0], row[1]
    asked = plan(f"What did Ana do {text}?", reference=reference).time_range
    (said,) = resolve_time(text, reference)
    if asked is not None:  # the planner reads the phrases it has cues for
        assert (asked.start, asked.end, asked.granularity) == (
            said.start,
            said.end,
            said.granularity,
        )


def test_word_lists_and_helpers() -> None:
    assert MONTHS["may"] == 5 and WEEKDAYS["sunday"] == 6 and NUMBERS["twelve"] == 12
    assert SEASONS["fall"] == "autumn"
    from datetime import date

    may = calendar_interval(date(2023, 5, 8), "month", "May")
    assert (may.start, may.end, may.phrase) == (_utc("2023-05-01"), _utc("2023-06-01"), "May")
    assert interpret_phrase("nothing to see", MON) is None
