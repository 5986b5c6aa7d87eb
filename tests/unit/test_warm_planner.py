"""The planner warm-up resolves a relative date, so the date parser is loaded before a question."""

from datetime import UTC, datetime

from kgmem import time as ktime
from kgmem.retrieve.plan import plan
from kgmem.retrieve.warm import WARM_QUESTION, warm_planner


def test_warm_planner_resolves_a_relative_date() -> None:
    ktime._dp.cache_clear()
    assert warm_planner() >= 0.0
    assert ktime._dp.cache_info().currsize > 0  # dateparser ran: its language data is loaded


def test_the_warm_question_names_a_time() -> None:
    reference = datetime(2000, 1, 1, tzinfo=UTC)
    assert plan(WARM_QUESTION, reference=reference).time_range is not None
