"""Read-path state shared across threads, input bounds, and the search-index wait (pure logic:
no server)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from kgmem.errors import IndexNotOnline, MalformedInput
from kgmem.retrieve.answerable import stems
from kgmem.retrieve.question import MAX_TERM_CHARS, question_words
from kgmem.store.schema import wait_online
from kgmem.turns import MAX_TURN_CHARS, MAX_TURN_RAW_CHARS, make_turn, turn_length

WORDS = [
    "running",
    "marathons",
    "generously",
    "organisational",
    "relationships",
    "happily",
    "Caroline's",
    "adventurous",
    "photographers",
    "beautifully",
    "considerations",
    "nationalities",
] * 20


def test_stems_from_eight_threads_equal_the_sequential_stems() -> None:
    """Snowball stemmers keep the word being stemmed in the object: one shared module-level
    stemmer raised IndexError and returned wrong stems from 8 threads."""
    expected = stems(WORDS)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: stems(WORDS), range(200)))
    assert all(result == expected for result in results)


def test_question_words_bound_the_bm25_clauses() -> None:
    """A 1 MB single "word" became ~4,000 Lucene clauses (TooManyClauses): words longer than
    the tokenizer's 255-character token are dropped, and at most 32 words are kept."""
    assert question_words("a" * 1_000_000) == []
    assert question_words("b" * MAX_TERM_CHARS) == ["b" * MAX_TERM_CHARS]
    many = " ".join(f"w{i}" for i in range(1000))
    assert len(question_words(many)) == 32


def test_a_turn_over_the_limit_is_malformed_input_naming_it() -> None:
    from datetime import UTC, datetime

    when = datetime(2024, 1, 1, tzinfo=UTC)
    with pytest.raises(MalformedInput, match="MAX_TURN_CHARS"):
        make_turn(
            "c",
            "t1",
            speaker="Ana",
            text="x" * (MAX_TURN_CHARS + 1),
            session=1,
            index=0,
            observed_at=when,
            file="<test>",
        )
    record = make_turn(
        "c",
        "t1",
        speaker="Ana",
        text="x" * MAX_TURN_CHARS,
        session=1,
        index=0,
        observed_at=when,
        file="<test>",
    )
    assert len(record.text) == MAX_TURN_CHARS
    # whitespace runs count as one character: padding is not text
    padded = "x " + " " * (2 * MAX_TURN_CHARS) + "y"
    assert turn_length(padded) == 3
    record = make_turn(
        "c", "t2", speaker="Ana", text=padded, session=1, index=0, observed_at=when, file="<t>"
    )
    assert record.text == padded
    with pytest.raises(MalformedInput, match="MAX_TURN_RAW_CHARS"):
        make_turn(
            "c",
            "t3",
            speaker="Ana",
            text="x" + " " * MAX_TURN_RAW_CHARS + "y",
            session=1,
            index=0,
            observed_at=when,
            file="<test>",
        )


class Clock:
    """A scripted clock: every sleep advances it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps = 0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.sleeps += 1


def _states(*rounds: list[tuple[str, str]]) -> Iterator[list[dict[str, Any]]]:
    for states in rounds:
        yield [{"name": n, "state": s, "percent": 50.0} for n, s in states]
    while True:
        yield [{"name": n, "state": s, "percent": 50.0} for n, s in rounds[-1]]


def test_wait_online_waits_for_a_populating_index() -> None:
    clock = Clock()
    rounds = _states(
        [("turn_embedding", "POPULATING"), ("turn_text", "ONLINE")],
        [("turn_embedding", "POPULATING"), ("turn_text", "ONLINE")],
        [("turn_embedding", "ONLINE"), ("turn_text", "ONLINE")],
    )
    wait_online(lambda: next(rounds), 60, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == 2


def test_wait_online_is_bounded_and_typed() -> None:
    clock = Clock()
    rounds = _states([("turn_text", "POPULATING")])
    with pytest.raises(IndexNotOnline, match=r"turn_text.*POPULATING.*50% populated") as info:
        wait_online(lambda: next(rounds), 5, poll_s=1, clock=clock, sleep=clock.sleep)
    assert info.value.waited_s == 5 and clock.sleeps == 5


def test_wait_online_fails_at_once_on_a_failed_index() -> None:
    clock = Clock()
    rounds = _states([("fact_text", "FAILED"), ("turn_text", "POPULATING")])
    with pytest.raises(IndexNotOnline, match=r"fact_text.*FAILED"):
        wait_online(lambda: next(rounds), 60, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == 0
