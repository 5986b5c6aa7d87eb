"""The trained request decision on the write path, against the real Neo4j, through `Memory`
(`kgmem.ingest.requests.decision`): where the grammar finds no request in a user turn and the
decision says forget / don't keep / forget and replace at or above its threshold, the turn acts
as that request; a ``none`` never removes a request the grammar found.

The decision is fixed per text here (`_fixed`), so these tests check the wiring, not the
weights; `test_shipped_weights_decide_a_forget_the_grammar_misses` runs the shipped model.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from kgmem.api import Memory
from kgmem.errors import ConversationNotFound
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.ingest.requests.decision import THRESHOLD
from kgmem.models import ConversationRecord
from kgmem.truth import decisions
from kgmem.truth.corpus import LABELS
from kgmem.truth.decisions import Decision

GYM = [
    ("a1", "user", "My gym membership at Ironworks costs 42 a month and I go on Mondays."),
    ("a2", "assistant", "Nice, Mondays are a good start to the week."),
    ("a3", "user", "I also started a watercolour course at the library."),
]
DROP_GYM = "Could you get rid of the gym stuff, the Ironworks membership? Not relevant anymore."
PRIVATE = "Between us, my sister is expecting twins in May. Please let this one slip your mind."
PHONE = [("a1", "user", "My work phone number is 0161 496 0734, in case you need it.")]
REPLACE = "That old work phone number is gone; use 0161 496 0999 as my work phone number instead."


def _conversation(cid: str, *sessions: list[tuple[str, str, str]]) -> ConversationRecord:
    return parse_chat_conversation(
        {
            "conversation_id": cid,
            "sessions": [
                {
                    "started_at": datetime(2026, 3, 1 + 2 * n, 9, 0, tzinfo=UTC).isoformat(),
                    "turns": [{"id": i, "speaker": s, "text": t} for i, s, t in turns],
                }
                for n, turns in enumerate(sessions)
            ],
        }
    )


def _fixed(monkeypatch: pytest.MonkeyPatch, said: dict[str, tuple[str, float]]) -> list[str]:
    """The decision says ``said[text]`` for those texts and ``none`` (0.99) for any other; returns
    the texts it was asked about."""
    asked: list[str] = []

    def decide(last: Any, text: str, previous: Any = None, models: Any = None) -> Decision:
        asked.append(text)
        label, score = said.get(text, ("none", 0.99))
        rest = (1.0 - score) / (len(LABELS["request"]) - 1)
        scores = {name: score if name == label else rest for name in LABELS["request"]}
        return Decision(label, score, scores)

    monkeypatch.setattr(decisions, "memory_request", decide)
    return asked


@pytest.fixture(autouse=True)
def _decision_on(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The decision is off by default (``KGMEM_REQUEST_DECISION``, docs/truth.md); these tests
    turn it on."""
    settings = memory.ingestors.settings.model_copy(update={"request_decision": True})
    monkeypatch.setattr(memory.ingestors, "settings", settings)


@pytest.fixture
def cid(memory: Memory) -> Iterator[str]:
    name = f"it-reqdec-{uuid.uuid4().hex[:8]}"
    yield name
    with contextlib.suppress(ConversationNotFound):
        memory.forget(name)


def _stored(memory: Memory, cid: str) -> dict[str, dict[str, Any]]:
    rows = memory.store.read("read/conversation_turns", conversation_id=cid)
    return {row["id"].removeprefix(f"{cid}:"): row for row in rows}


def test_a_decided_forget_removes_what_it_names(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fixed(monkeypatch, {DROP_GYM: ("forget", 0.995)})
    request = [("b1", "user", DROP_GYM), ("b2", "assistant", "Done.")]
    report = memory.add_conversation(_conversation(cid, GYM, request), facts="extracted")
    assert report.removed == [f"{cid}:a1"]
    assert report.requests[0]["decided"] == ["forget", 0.995]
    turns = _stored(memory, cid)
    assert set(turns) == {"a2", "a3", "b1", "b2"}
    assert turns["b1"]["request"] is True
    first = memory.search("What course did I start?", cid, k=5).hits[0]
    assert first.turn_id == f"{cid}:a3"


def test_below_the_threshold_nothing_happens(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fixed(monkeypatch, {DROP_GYM: ("forget", THRESHOLD - 0.05)})
    request = [("b1", "user", DROP_GYM), ("b2", "assistant", "Done.")]
    report = memory.add_conversation(_conversation(cid, GYM, request), facts="extracted")
    assert report.requests == [] and report.removed == []
    assert {"a1", "b1"} <= set(_stored(memory, cid))


def test_a_decided_dont_keep_is_not_stored(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fixed(monkeypatch, {PRIVATE: ("dont_keep", 0.995)})
    turns = [("a1", "user", PRIVATE), ("a2", "assistant", "Of course."), *GYM[2:]]
    report = memory.add_conversation(_conversation(cid, turns), facts="extracted")
    assert report.withheld == [f"{cid}:a1"]
    assert set(_stored(memory, cid)) == {"a2", "a3"}
    audit = memory.requests(cid)
    assert [(r["kind"], r["status"]) for r in audit] == [("withhold", "withheld")]


def test_a_decided_forget_and_replace_keeps_the_new_value(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fixed(monkeypatch, {REPLACE: ("forget_replace", 0.99)})
    request = [("b1", "user", REPLACE), ("b2", "assistant", "Updated.")]
    report = memory.add_conversation(_conversation(cid, PHONE, request), facts="extracted")
    assert report.removed == [f"{cid}:a1"]
    turns = _stored(memory, cid)
    assert "a1" not in turns and turns["b1"]["request"] is False
    assert "0161 496 0999" in turns["b1"]["text"]
    hits = memory.search("What is my work phone number?", cid, k=5).hits
    assert hits[0].turn_id == f"{cid}:b1"


def test_none_never_removes_a_request_of_the_grammar(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _fixed(monkeypatch, {})
    forget = "Please delete my gym membership details from your memory."
    request = [("b1", "user", forget), ("b2", "assistant", "Done.")]
    report = memory.add_conversation(_conversation(cid, GYM, request), facts="extracted")
    assert report.removed == [f"{cid}:a1"] and "decided" not in report.requests[0]
    assert forget not in asked  # the decision is asked only where the grammar found nothing
    assert GYM[0][2] in asked


def test_a_chat_without_an_assistant_asks_nothing(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _fixed(monkeypatch, {DROP_GYM: ("forget", 0.99)})
    turns = [(i, "user", t) for i, _, t in [*GYM, ("b1", "user", DROP_GYM)]]
    report = memory.add_conversation(_conversation(cid, turns), facts="extracted")
    assert asked == [] and report.removed == []


def test_a_live_decided_request_forgets_stored_turns(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fixed(monkeypatch, {DROP_GYM: ("forget", 0.995), PRIVATE: ("dont_keep", 0.995)})
    at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    memory.add_turns(cid, [{"id": i, "speaker": s, "text": t} for i, s, t in GYM], observed_at=at)
    report = memory.add_turns(cid, [{"id": "b1", "speaker": "user", "text": DROP_GYM}])
    assert report.removed == [f"{cid}:a1"]
    assert _stored(memory, cid)["b1"]["request"] is True
    withheld = memory.add_turns(cid, [{"id": "c1", "speaker": "user", "text": PRIVATE}])
    assert withheld.withheld == [f"{cid}:c1"] and "c1" not in _stored(memory, cid)


def test_the_setting_turns_the_decision_off(
    memory: Memory, cid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _fixed(monkeypatch, {DROP_GYM: ("forget", 0.99)})
    settings = memory.ingestors.settings.model_copy(update={"request_decision": False})
    monkeypatch.setattr(memory.ingestors, "settings", settings)
    request = [("b1", "user", DROP_GYM), ("b2", "assistant", "Done.")]
    report = memory.add_conversation(_conversation(cid, GYM, request), facts="extracted")
    assert asked == [] and report.removed == []


def test_shipped_weights_decide_a_forget_the_grammar_misses(memory: Memory, cid: str) -> None:
    """The verb "scrap" is not the grammar's; the shipped request decision calls the turn a forget
    well above its threshold, and the turn about the gym goes."""
    scrap = "Scrap everything you've got about the Ironworks gym, I don't want it on file."
    request = [("b1", "user", scrap), ("b2", "assistant", "Done.")]
    report = memory.add_conversation(_conversation(cid, GYM, request), facts="extracted")
    assert report.removed == [f"{cid}:a1"]
    decided = report.requests[0]["decided"]
    assert isinstance(decided, list) and decided[0] == "forget" and decided[1] >= THRESHOLD
    assert set(_stored(memory, cid)) == {"a2", "a3", "b1", "b2"}
