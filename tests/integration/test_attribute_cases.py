"""The agent-chat cases this work owns (tests/data/agent-chats.json, a copy of
../shared/data/cases/agent-chats.json) run as the file's ``about`` says, against the real
Neo4j; and the attribute surfaces on one of them: `SearchResult.answer` and `Memory.profile`
with its history."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from kgmem.api import Memory
from kgmem.bench.cases import load_cases, run_cases
from kgmem.errors import ConversationNotFound, MalformedInput, OwnerNotFound
from kgmem.ingest.loaders.chat import parse_chat_conversation

CASES_FILE = Path(__file__).parents[1] / "data" / "agent-chats.json"
DATA = load_cases(CASES_FILE)
#: the cases on attribute values, current truth and answerability by attribute
OWNED = ("01", "02", "03", "04", "05", "08", "09", "10", "11", "12", "13", "14", "15")
CASES = [c for c in DATA["cases"] if c["id"].split("-")[1] in OWNED]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_agent_case_holds(memory: Memory, case: dict[str, Any]) -> None:
    report = run_cases(memory, {**DATA, "cases": [case]})
    (result,) = report["cases"]
    failures = [f for check in result["checks"] for f in check["failures"]]
    assert result["status"] == "passed", failures
    memory.forget(case["conversation"]["conversation_id"])


def _ingest(memory: Memory, case_id: str) -> str:
    case = next(c for c in DATA["cases"] if c["id"] == case_id)
    record = parse_chat_conversation(case["conversation"])
    with contextlib.suppress(ConversationNotFound):
        memory.forget(record.conversation_id)
    memory.add_conversation(record, facts="extracted")
    return record.conversation_id


def test_the_answer_is_the_current_typed_value_with_its_turn(memory: Memory) -> None:
    cid = _ingest(memory, "agent-02-phone-number")
    result = memory.search("What's my phone number?", cid, k=3)
    answer = result.answer
    assert answer is not None
    assert (answer["attribute"], answer["value"], answer["value_type"]) == (
        "phone",
        "0151 444 9876",
        "phone",
    )
    assert answer["turn_id"] == f"{cid}:b1" and answer["valid_to"] is None
    assert answer["why"] == "latest value"
    memory.forget(cid)


def test_profile_groups_current_values_and_history_keeps_the_boomerang(memory: Memory) -> None:
    cid = _ingest(memory, "agent-13-preference-boomerang")
    now = memory.profile(cid, "user")
    assert {v["value"] for v in now["drink"]} == {"green tea"}
    assert all(v["current"] and v["cites"] == [f"{cid}:c1"] for v in now["drink"])
    history = memory.profile(cid, "user", history=True)
    drinks = [(v["value"], v["current"]) for v in history["drink"]]
    assert ("coffee", False) in drinks and ("green tea", True) in drinks
    assert next(v["cites"][0] for v in history["drink"] if v["value"] == "green tea").endswith("a1")
    assert memory.profile(cid, "nobody") == {}
    memory.forget(cid)


def test_profile_of_an_owner_gathers_every_thread_and_checks_the_owner(memory: Memory) -> None:
    owner = "profile-owner-test"
    with contextlib.suppress(OwnerNotFound):
        memory.forget_owner(owner)
    memory.add_turns(
        "po-thread-1", [{"speaker": "user", "text": "My email is ana@example.org."}], owner=owner
    )
    memory.add_turns(
        "po-thread-2", [{"speaker": "user", "text": "My mobile is 0151 444 9876."}], owner=owner
    )
    found = memory.profile(None, "user", owner=owner)
    assert {v["value"] for v in found["email"]} == {"ana@example.org"}
    assert {v["value"] for v in found["phone"]} == {"0151 444 9876"}
    assert {found["email"][0]["conversation_id"], found["phone"][0]["conversation_id"]} == {
        "po-thread-1",
        "po-thread-2",
    }
    assert set(memory.profile("po-thread-1", "user", owner=owner)) == {"email"}
    with pytest.raises(ConversationNotFound):
        memory.profile("po-thread-1", "user", owner="someone-else")
    with pytest.raises(MalformedInput):
        memory.profile(None, "user")
    assert memory.profile(None, "user", owner="nobody-owns-this") == {}
    memory.forget_owner(owner)
