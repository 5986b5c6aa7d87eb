"""Ids are exact (case-sensitive, never coerced) and checked by one validator everywhere."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import neo4j
import pytest

from kgmem.api import Memory
from kgmem.errors import MalformedInput
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.retrieve.warm import warm_statements

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample_chat.json"


def _cid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6].upper()}"


def _employer_chat(memory: Memory, cid: str, **kw: Any) -> None:
    memory.add_turns(cid, [{"speaker": "user", "text": "Ana works for Northwind."}], **kw)
    memory.add_turns(cid, [{"speaker": "user", "text": "Ana works for Fabrikam now."}], **kw)


def test_capitalised_conversation_id_keys_history_and_current(memory: Memory) -> None:
    cid = _cid("Chat-A")
    try:
        _employer_chat(memory, cid)
        rows = memory.history(cid, "Ana", "employer")
        assert [r["text"] for r in rows] == [
            "Ana works for Northwind",
            "Ana works for Fabrikam now",
        ]
        current = memory.current(cid, "Ana", "employer")
        assert current is not None and "Fabrikam" in current["text"]
        # ids are exact: the lower-cased id is another (empty) conversation
        assert memory.history(cid.lower(), "Ana", "employer") == []
    finally:
        memory.forget(cid)


def test_capitalised_owner_and_thread_keep_their_case(memory: Memory) -> None:
    owner, cid = _cid("Alice"), _cid("Thread-B")
    try:
        _employer_chat(memory, cid, owner=owner)
        assert memory.current(cid, "Ana", "employer") is not None
        rows = memory.history(None, "Ana", "employer", owner=owner)
        assert [r["text"] for r in rows][-1] == "Ana works for Fabrikam now"
    finally:
        memory.forget_owner(owner)


def test_migrate_restores_keys_an_older_version_case_folded(
    memory: Memory, driver: neo4j.Driver
) -> None:
    cid = _cid("Legacy")
    try:
        _employer_chat(memory, cid)
        # what an older kgmem stored: the whole holder case-folded
        driver.execute_query(
            "MATCH (f:Fact {conversation_id: $c}) WHERE f.key IS NOT NULL "
            "SET f.key = toLower(f.key)",
            c=cid,
        )
        assert memory.history(cid, "Ana", "employer") == []
        assert memory.migrate()["keys_restored"] >= 2
        assert len(memory.history(cid, "Ana", "employer")) == 2
        assert memory.migrate()["keys_restored"] == 0  # idempotent
    finally:
        memory.forget(cid)


BAD_IDS = [{"$ne": ""}, ["c"], 42, None, "", "  ", "a:b", "x" * 300]

CALLS: dict[str, Callable[[Memory, Any], Any]] = {
    "search": lambda m, v: m.search("where does Ana work?", v),
    "add_turns": lambda m, v: m.add_turns(v, [{"speaker": "user", "text": "hello"}]),
    "history": lambda m, v: m.history(v, "Ana", "employer"),
    "current": lambda m, v: m.current(v, "Ana", "employer"),
    "profile": lambda m, v: m.profile(v, "Ana"),
    "timeline": lambda m, v: m.timeline(v),
    "forget_turns": lambda m, v: m.forget_turns(v, ["t0"]),
    "forget_about": lambda m, v: m.forget_about(v, "my job"),
    "counts": lambda m, v: m.counts(v),
    "chain": lambda m, v: m.chain("Who employs Ana?", v),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("value", BAD_IDS, ids=repr)
def test_every_public_method_refuses_a_bad_conversation_id(
    memory: Memory, call: str, value: Any
) -> None:
    if value is None and call == "search":
        pytest.skip("search without a conversation needs an owner: its own error, tested below")
    if value is None and call in ("history", "current", "profile", "timeline"):
        pytest.skip("None with owner= is the owner-wide form; without one it is refused below")
    with pytest.raises(MalformedInput) as err:
        CALLS[call](memory, value)
    if value is not None:
        assert err.value.argument == "conversation_id"
        assert "conversation_id" in str(err.value)


@pytest.mark.parametrize("value", [["alice"], 7, "", {"a": 1}], ids=repr)
def test_owner_and_conversation_lists_are_checked(memory: Memory, value: Any) -> None:
    with pytest.raises(MalformedInput) as err:
        memory.search("q", None, owner=value)
    assert err.value.argument == "owner"
    with pytest.raises(MalformedInput) as err:
        memory.search("q", None, owner="alice", conversations="thread-1")
    assert err.value.argument == "conversations"
    with pytest.raises(MalformedInput):
        memory.search("q")  # neither a conversation nor an owner
    with pytest.raises(MalformedInput):
        memory.history(None, "Ana", "employer")


def test_a_refused_write_writes_nothing(memory: Memory, driver: neo4j.Driver) -> None:
    with pytest.raises(MalformedInput):
        memory.add_turns(42, [{"speaker": "user", "text": "unique-marker-7f3a"}])  # type: ignore[arg-type]
    records, _, _ = driver.execute_query(
        "MATCH (t:Turn) WHERE t.text CONTAINS 'unique-marker-7f3a' RETURN count(t) AS n"
    )
    assert records[0]["n"] == 0


def test_a_bulk_ingest_leaves_the_read_path_planned(memory: Memory) -> None:
    """After `add_conversation` (what `kgmem ingest` calls) the read path's statements have run
    on the data as written, so the server replanned them then, not on the first question."""
    ran: list[str] = []
    read = memory.store.read

    def recording(name: str, /, **params: Any) -> Any:
        ran.append(name)
        return read(name, **params)

    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    raw["conversation_id"] = _cid("warm")
    memory.store.read = recording  # type: ignore[method-assign]
    try:
        memory.add_conversation(parse_chat_conversation(raw))
    finally:
        del memory.store.read
        memory.forget(raw["conversation_id"])
    expected = {name for name, _ in warm_statements(memory.embedder.dimension)}
    assert expected <= set(ran)
