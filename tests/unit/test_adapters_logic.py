"""Pure logic of the framework adapters and the MCP server's bind check (no server)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.errors import ConfigError, MalformedInput

pytest.importorskip("langgraph.store.base")

from langgraph.store.base import MatchCondition

from kgmem.adapters.langgraph import (
    KgmemSearchItem,
    _matches,
    _namespace_matches,
    conversation_of,
    namespace_of,
    turn_text,
)
from kgmem.mcp import StaticTokenVerifier, is_loopback


def test_namespace_round_trip_and_refusal() -> None:
    assert conversation_of(("memories", "ana")) == "memories.ana"
    assert namespace_of("memories.ana") == ("memories", "ana")
    assert namespace_of("conv-26") == ("conv-26",)
    with pytest.raises(MalformedInput):
        conversation_of(("users", "a:b"))


def test_turn_text_rule() -> None:
    assert turn_text({"text": "I moved.", "content": "x"}) == "I moved."
    assert turn_text({"content": "I bake."}) == "I bake."
    assert turn_text({"text": "  ", "content": "x"}) == "  "  # blank text is refused later
    assert turn_text({"food": "pizza", "n": 2, "speaker": "Ana"}) == "food: pizza\nn: 2"
    value = {"meta": {"title": "Trip"}, "body": "Lisbon in May"}
    assert turn_text(value, ["meta.title", "body", "missing"]) == "Trip\nLisbon in May"


def test_filter_semantics() -> None:
    value = {"kind": "place", "n": 3, "nested": {"a": 1}}
    assert _matches(value, None) and _matches(value, {})
    assert _matches(value, {"kind": "place", "nested": {"a": 1}})
    assert not _matches(value, {"kind": "sport"})
    assert _matches(value, {"n": {"$gte": 3, "$lt": 4}, "kind": {"$ne": "sport"}})
    assert not _matches(value, {"missing": {"$gt": 1}})
    with pytest.raises(MalformedInput):
        _matches(value, {"n": {"$regex": "x"}})


def test_namespace_match_conditions() -> None:
    ns = ("memories", "ana", "v1")
    assert _namespace_matches(MatchCondition("prefix", ("memories",)), ns)
    assert _namespace_matches(MatchCondition("prefix", ("*", "ana")), ns)
    assert _namespace_matches(MatchCondition("suffix", ("v1",)), ns)
    assert not _namespace_matches(MatchCondition("suffix", ("ana",)), ns)
    assert not _namespace_matches(MatchCondition("prefix", ("memories", "ana", "v1", "x")), ns)


def test_loopback_and_token() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.0.0.2") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10")
    with pytest.raises(ConfigError):
        StaticTokenVerifier("")

    import anyio

    verifier = StaticTokenVerifier("s3cret")
    assert anyio.run(verifier.verify_token, "s3cret") is not None
    assert anyio.run(verifier.verify_token, "s3cre") is None


def test_search_item_carries_the_answer_in_its_dict() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    answer = {"attribute": "phone", "value": "0151 444 9876", "turn_id": "a.b:phone"}
    item = KgmemSearchItem(
        namespace=("a", "b"),
        key="phone",
        value={"text": "x"},
        created_at=at,
        updated_at=at,
        score=1.0,
        turn_id="a.b:phone",
        answer=answer,
    )
    assert item.answer == answer and item.dict()["answer"] == answer
    other = KgmemSearchItem(
        namespace=("a", "b"),
        key="walk",
        value={"text": "y"},
        created_at=at,
        updated_at=at,
        score=0.5,
        turn_id="a.b:walk",
    )
    assert other.answer is None and other.dict()["answer"] is None
