"""The one id validator (no server) and the plain search output's rank note."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kgmem.cli.search import rank_note
from kgmem.errors import MalformedInput
from kgmem.ids import check_conversation_ids, check_id, checks_ids
from kgmem.models import Hit
from kgmem.store.tenant import key_holder


@pytest.mark.parametrize("value", ["Chat-A", "ç-ü", "a b", "x" * 256])
def test_ids_pass_exactly_as_given(value: str) -> None:
    assert check_id(value) == value


@pytest.mark.parametrize(
    "value", [42, 4.2, b"c", ["c"], {"$ne": ""}, None, "", " ", "a:b", "x" * 257, "\ud83d"]
)
def test_bad_ids_name_the_argument(value: Any) -> None:
    with pytest.raises(MalformedInput) as err:
        check_id(value, argument="thread")
    assert err.value.argument == "thread"


def test_owners_may_hold_a_colon_and_lists_are_lists() -> None:
    assert check_id("team:red", argument="owner", owner=True) == "team:red"
    assert check_conversation_ids(["a", "B"]) == ("a", "B")
    for bad in ("ab", ("a", 3), 5):
        with pytest.raises(MalformedInput):
            check_conversation_ids(bad)


def test_the_decorator_checks_by_argument_name_and_allows_none_where_typed() -> None:
    @checks_ids
    def f(conversation_id: str | None, owner: str | None = None) -> str:
        return "ok"

    @checks_ids
    def g(conversation_id: str) -> str:
        return "ok"

    assert f(None, owner="x") == "ok" and f("Chat-A") == "ok"
    with pytest.raises(MalformedInput):
        f(["a"])
    with pytest.raises(MalformedInput):
        f("a", owner=3)
    with pytest.raises(MalformedInput):
        g(None)  # type: ignore[arg-type]


def test_key_holder_keeps_the_scope_exact() -> None:
    assert key_holder("Chat-A:e:person:Ana") == "Chat-A:e:person:ana"
    assert key_holder("owner:Alice:e:person:ana") == "owner:Alice:e:person:ana"
    assert key_holder("  The User ") == "the user"


def _hit(**trace: Any) -> Hit:
    return Hit(
        turn_id="c:t1",
        conversation_id="c",
        text="x",
        speaker="Ana",
        session=1,
        observed_at=datetime(2024, 1, 1, tzinfo=UTC),
        score=1.314,
        terms={},
        trace=trace,
    )


def test_a_moved_hit_says_why_its_score_is_out_of_order() -> None:
    assert rank_note(_hit()) == "score 1.314"
    moved = _hit(reordered={"above": "c:t0", "key": "k", "reason": "current value"})
    assert rank_note(moved) == "score 1.314, moved up: current value"
