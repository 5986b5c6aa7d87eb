"""Roles and memory requests end to end against the real Neo4j, through `Memory`.

The user's requests inside a conversation ("delete my passport number", "forget everything I
told you about X", "off the record, don't save this") are applied at write time; the assistant's
turns never state facts about the user; the audit record holds ids, never text.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from kgmem.api import Memory
from kgmem.errors import ConversationNotFound
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.models import ConversationRecord
from kgmem.store.catalogue import catalogue


def _conversation(cid: str, *sessions: list[tuple[str, str, str]]) -> ConversationRecord:
    return parse_chat_conversation(
        {
            "conversation_id": cid,
            "sessions": [
                {
                    "started_at": datetime(2026, 2, 1 + 2 * n, 9, 0, tzinfo=UTC).isoformat(),
                    "turns": [{"id": i, "speaker": s, "text": t} for i, s, t in turns],
                }
                for n, turns in enumerate(sessions)
            ],
        }
    )


SECRET = [
    ("a1", "user", "For the visa form: my passport number is C7H-448-219."),
    ("a2", "assistant", "Thanks, I have it: C7H-448-219."),
    ("a3", "user", "Also, the appointment is at the consulate on Friday."),
]
SECRET_REQUEST = [
    (
        "b1",
        "user",
        "Please delete my passport number from your memory, I shouldn't have shared it.",
    ),
    ("b2", "assistant", "Understood."),
]
TOPIC = [
    ("a1", "user", "My landlord is refusing to return the deposit for the old flat."),
    ("a2", "assistant", "That's frustrating. Do you have the inspection report?"),
    (
        "a3",
        "user",
        "Yes, and the photos prove the deposit should come back in full, the flat was spotless.",
    ),
    ("a4", "user", "On a happier note, I started pottery classes on Tuesdays."),
]
TOPIC_REQUEST = [
    (
        "b1",
        "user",
        "Can you forget everything I told you about the deposit fight with my "
        "landlord? I want it gone.",
    ),
    ("b2", "assistant", "Of course."),
]
WITHHOLD = [
    (
        "a1",
        "user",
        "Off the record, don't save this: I have a second-round interview at Brightwave next week.",
    ),
    ("a2", "assistant", "Understood, I won't keep it."),
    ("a3", "user", "Anyway, remind me to buy oat milk."),
]


@pytest.fixture
def cid(memory: Memory) -> Iterator[str]:
    name = f"it-req-{uuid.uuid4().hex[:8]}"
    yield name
    with contextlib.suppress(ConversationNotFound):
        memory.forget(name)


def _stored(memory: Memory, cid: str) -> dict[str, dict[str, Any]]:
    rows = memory.store.read("read/conversation_turns", conversation_id=cid)
    return {row["id"].removeprefix(f"{cid}:"): row for row in rows}


def _occurs(memory: Memory, cid: str, needle: str) -> list[str]:
    rows = memory.store.read("read/conversation_strings", conversation_id=cid)
    return [
        f"{row['kind']}.{row['key']}"
        for row in rows
        if any(needle.casefold() in value.casefold() for value in row["strings"])
    ]


def test_a_secret_and_its_copy_are_gone(memory: Memory, cid: str) -> None:
    report = memory.add_conversation(_conversation(cid, SECRET, SECRET_REQUEST), facts="extracted")
    assert report.removed == [f"{cid}:a1", f"{cid}:a2"]  # the assistant's copy is the secret too
    turns = _stored(memory, cid)
    assert set(turns) == {"a3", "b1", "b2"}
    assert turns["b1"]["request"] is True
    assert _occurs(memory, cid, "448-219") == []
    hits = memory.search("What is my passport number?", cid, k=10).hits
    assert f"{cid}:a1" not in [h.turn_id for h in hits]
    assert f"{cid}:b1" not in [h.turn_id for h in hits]  # a request is never an answer
    first = memory.search("When is the consulate appointment?", cid, k=10).hits[0]
    assert first.turn_id == f"{cid}:a3"
    facts = memory.store.read("read/turn_facts", conversation_id=cid, turn_id=f"{cid}:b1")
    assert facts[0]["facts"] == []


def test_a_topic_goes_and_nothing_else(memory: Memory, cid: str) -> None:
    report = memory.add_conversation(_conversation(cid, TOPIC, TOPIC_REQUEST), facts="extracted")
    assert report.removed == [f"{cid}:a1", f"{cid}:a3"]
    assert set(_stored(memory, cid)) == {"a2", "a4", "b1", "b2"}  # the assistant's question stays
    assert _occurs(memory, cid, "refusing to return the deposit") == []
    assert _occurs(memory, cid, "spotless") == []
    first = memory.search("What classes is the user taking?", cid, k=10).hits[0]
    assert first.turn_id == f"{cid}:a4"


def test_do_not_keep_is_not_stored(memory: Memory, cid: str) -> None:
    report = memory.add_conversation(_conversation(cid, WITHHOLD), facts="extracted")
    assert report.withheld == [f"{cid}:a1"]
    assert set(_stored(memory, cid)) == {"a2", "a3"}
    assert _occurs(memory, cid, "Brightwave") == []
    audit = memory.requests(cid)
    assert [(r["turn_id"], r["kind"], r["status"], r["index"]) for r in audit] == [
        (f"{cid}:a1", "withhold", "withheld", 0)
    ]


def test_reingest_keeps_forgotten_turns_out(memory: Memory, cid: str) -> None:
    source = _conversation(cid, SECRET, SECRET_REQUEST)
    memory.add_conversation(source, facts="extracted")
    again = memory.add_conversation(source, facts="extracted")
    assert again.turns_written == 0
    # a source that still holds the secret but no longer the request: the stored request holds
    memory.add_conversation(_conversation(cid, SECRET), facts="extracted")
    assert set(_stored(memory, cid)) == {"a3", "b1", "b2"}
    assert _occurs(memory, cid, "448-219") == []


def test_a_request_reaches_turns_stored_before(memory: Memory, cid: str) -> None:
    """Stored with requests off, then ingested with them on: the stored turns go through
    forget_turns (every trace, current values recomputed)."""
    source = _conversation(cid, SECRET, SECRET_REQUEST)
    memory.add_conversation(source, facts="extracted", requests=False)
    assert {"a1", "a2"} <= set(_stored(memory, cid))
    report = memory.add_conversation(source, facts="extracted")
    assert report.removed == [f"{cid}:a1", f"{cid}:a2"]
    assert set(_stored(memory, cid)) == {"a3", "b1", "b2"}
    assert _occurs(memory, cid, "448-219") == []


def test_a_live_request_forgets_stored_turns(memory: Memory, cid: str) -> None:
    at = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
    memory.add_turns(
        cid, [{"id": i, "speaker": s, "text": t} for i, s, t in SECRET], observed_at=at
    )
    report = memory.add_turns(
        cid, [{"id": i, "speaker": s, "text": t} for i, s, t in SECRET_REQUEST], observed_at=at
    )
    assert report.removed == [f"{cid}:a1", f"{cid}:a2"]
    assert set(_stored(memory, cid)) == {"a3", "b1", "b2"}
    assert _occurs(memory, cid, "448-219") == []
    withheld = memory.add_turns(cid, [{"id": "c1", "speaker": "user", "text": WITHHOLD[0][2]}])
    assert withheld.withheld == [f"{cid}:c1"] and "c1" not in _stored(memory, cid)


def test_too_broad_is_reported_not_applied(memory: Memory, cid: str) -> None:
    work = [
        (f"w{n}", "user", f"Work was hectic today, meeting number {n} ran late.") for n in range(7)
    ]
    request = [
        ("r1", "assistant", "Sounds like a long week."),
        ("r2", "user", "Forget everything I told you about work."),
    ]
    report = memory.add_conversation(_conversation(cid, work, request), facts="extracted")
    assert report.removed == [] and report.not_applied == [f"{cid}:r2"]
    assert [r["status"] for r in memory.requests(cid)] == ["too_broad"]
    assert len(_stored(memory, cid)) == 9


def test_requests_off_store_everything(memory: Memory, cid: str) -> None:
    report = memory.add_conversation(
        _conversation(cid, SECRET, SECRET_REQUEST, [("c1", "user", WITHHOLD[0][2])]),
        facts="extracted",
        requests=False,
    )
    assert report.requests == [] and report.removed == [] and report.withheld == []
    assert len(_stored(memory, cid)) == 6
    assert _stored(memory, cid)["b1"]["request"] is False
    assert memory.requests(cid) == []


def test_assistant_turns_state_no_user_facts(memory: Memory, cid: str) -> None:
    chat = [
        ("a1", "user", "Which trail running shoes should I get for muddy routes?"),
        ("a2", "assistant", "You could try the Trailfox 3, it has great grip on mud."),
        ("a3", "assistant", "Noted, you live in Berlin and you work at Siemens."),
        ("a4", "Priya", "I live in Ghent."),
    ]
    memory.add_conversation(_conversation(cid, chat), facts="extracted", roles={"Priya": "user"})
    assert _stored(memory, cid)["a4"]["role"] == "user"
    for turn in ("a2", "a3"):
        rows = memory.store.read("read/turn_facts", conversation_id=cid, turn_id=f"{cid}:{turn}")
        for fact in rows[0]["facts"]:
            names = [n.casefold() for n in fact["subject_names"]]
            assert "user" not in names and "priya" not in names
            assert fact["modality"] == "hypothetical" and fact["key"] is None
            assert fact["text"].startswith("assistant suggested")
    restated = memory.store.read("read/turn_facts", conversation_id=cid, turn_id=f"{cid}:a3")
    assert restated[0]["facts"] == []  # an acknowledgement/restatement states nothing
    assert memory.current(cid, "user", "live_in") is None
    own = memory.store.read("read/turn_facts", conversation_id=cid, turn_id=f"{cid}:a4")
    assert own[0]["facts"]  # the user's own turn still states facts


def test_audit_record_holds_no_content(memory: Memory, cid: str) -> None:
    memory.add_conversation(_conversation(cid, TOPIC, TOPIC_REQUEST), facts="extracted")
    rows = memory.store.read(
        "read/conversation_strings", conversation_id=cid
    )  # every string of every node and relationship of the conversation
    audit = [r for r in rows if r["kind"] == "MemoryRequest"]
    assert {r["key"] for r in audit} == {
        "id",
        "conversation_id",
        "turn_id",
        "kind",
        "status",
        "removed",
    }
    words = {
        w.casefold().strip(".,?") for _, _, text in TOPIC + TOPIC_REQUEST for w in text.split()
    }
    for row in audit:
        for value in row["strings"]:
            if row["key"] in ("kind", "status"):
                assert value in {
                    "forget",
                    "withhold",
                    "applied",
                    "too_broad",
                    "no_match",
                    "withheld",
                }
            else:
                assert value == cid or value.startswith(f"{cid}:")
                assert value.casefold() not in words
    (record,) = memory.requests(cid)
    assert record["removed"] == [f"{cid}:a1", f"{cid}:a3"] and record["matched"] == 2


def test_forget_about_uses_the_same_matching(memory: Memory, cid: str) -> None:
    memory.add_conversation(_conversation(cid, TOPIC), facts="extracted")
    none = memory.forget_about(cid, "my passport number")
    assert none["status"] == "no_match" and none["turn_ids"] == []
    out = memory.forget_about(cid, "the deposit fight with my landlord")
    assert out["status"] == "applied"
    assert out["turn_ids"] == [f"{cid}:a1", f"{cid}:a3"] and out["turns"] == 2
    assert set(_stored(memory, cid)) == {"a2", "a4"}


def test_browser_statement_shows_the_audit_record(memory: Memory, cid: str) -> None:
    memory.add_conversation(_conversation(cid, SECRET, SECRET_REQUEST), facts="extracted")
    text = catalogue()["browser/memory_requests"]
    declared = set(re.findall(r"^// :param (\w+) =>", text, flags=re.M))
    assert declared == set(re.findall(r"\$(\w+)", text)) == {"conversation_id"}
    (row,) = memory.store.read("browser/memory_requests", conversation_id=cid)
    assert row["removed_turn_ids"] == [f"{cid}:a1", f"{cid}:a2"]
    assert row["t"]["id"] == f"{cid}:b1" and row["t"]["request"] is True
