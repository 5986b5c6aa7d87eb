"""Standing instructions, conflicts and time order: the pure rules
(`kgmem.ingest.extraction.standing`, `kgmem.retrieve.standing`), with the shipped truth weights and
hand-made vectors; no server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from kgmem.config import shipped_default
from kgmem.errors import MalformedInput
from kgmem.ingest.extraction.standing import (
    Standing,
    StandingTurn,
    conflicts,
    cued,
    head,
    negated_clause,
    revisions,
    typed_scopes,
)
from kgmem.models import Hit
from kgmem.retrieve.question import read_question
from kgmem.retrieve.standing import (
    _with_partners,
    applicable,
    asks_order,
    check_order,
    in_time_order,
)

T0 = datetime(2024, 3, 15, tzinfo=UTC)


def unit(*values: float) -> np.ndarray:
    v = np.zeros(384, dtype=np.float32)  # MiniLM's width: the relation decision reads it
    v[: len(values)] = values
    return v / np.linalg.norm(v)


def test_cues_scopes_and_head() -> None:
    assert cued("Always format code with syntax highlighting.")
    assert cued("Please never suggest paid services.")
    assert cued("I prefer minimal dependencies to keep the app light.")
    # a denial is no instruction: "never" is a cue only where it starts a sentence
    assert not cued("I have never used Flask-Login in this project.")
    assert typed_scopes("Always format code snippets with syntax highlighting") == (
        "code",
        "formatting",
    )
    assert typed_scopes("Which libraries should I use?") == ("dependencies",)
    long = "First sentence here. " + "x " * 400 + "```python\nprint(1)\n```"
    assert len(head(long)) <= 400 and head(long).startswith("First sentence here.")


def test_negated_clause_is_a_denial_not_an_update_or_a_doubt() -> None:
    assert negated_clause("I've never used Zotero, so where do I start?") == (
        "I've never used Zotero,"
    )
    assert negated_clause("I'm not sure how to speed this up.") is None
    assert negated_clause("I haven't used Flask any more since May.") is None  # an update


def standing(turn: str, kind: str, vector: np.ndarray, day: int, revoked: bool = False) -> Standing:
    when = T0 + timedelta(days=day)
    return Standing(turn, kind, "text", (), when, 0.9, vector, when if revoked else None)


def test_revisions_revoke_the_earlier_similar_statement() -> None:
    a = standing("c:1", "instruction", unit(1, 0), 0)
    b = standing("c:2", "preference", unit(0, 1), 1)
    c = standing("c:3", "instruction", unit(1, 0.1), 2)  # revises a
    d = standing("c:4", "instruction", unit(0.1, 1), 3, revoked=True)  # withdraws b
    out = revisions([a, b, c, d])
    assert a.revoked_at == c.valid_from and c.revises == a.id
    assert b.revoked_at == d.valid_from and d.revises == b.id
    assert c.revoked_at is None and [s.turn_id for s in out] == ["c:1", "c:2", "c:3", "c:4"]


def test_conflicts_pair_a_denial_with_its_nearest_assertion() -> None:
    turns = [
        StandingTurn("c:0", "I moved to Lisbon.", T0, unit(0, 0, 1), "user"),
        StandingTurn("c:4", "I have never used Flask-Login.", T0, unit(1, 0.2), "user"),
        StandingTurn("c:10", "I integrated Flask-Login today.", T0, unit(1, 0.3), "user"),
        StandingTurn("c:12", "Flask-Login works for Ana.", T0, unit(1, 0.3), "Ana"),
    ]
    found = conflicts(turns, {"c:4": ("I have never used Flask-Login.", unit(1, 0.25))})
    assert [(p["from"], p["to"]) for p in found] == [("c:4", "c:10")]
    assert "never used Flask-Login" in found[0]["why"] and 0 < found[0]["score"] <= 1
    assert conflicts(turns, {}) == []


def test_a_question_is_no_conflicts_end() -> None:
    turns = [
        StandingTurn("c:4", "I have never used Flask-Login.", T0, unit(1, 0.2), "user"),
        StandingTurn("c:6", "can I use Flask-Login with Quart?", T0, unit(1, 0.21), "user"),
        StandingTurn("c:10", "I integrated Flask-Login today.", T0, unit(1, 0.3), "user"),
    ]
    found = conflicts(turns, {"c:4": ("I have never used Flask-Login.", unit(1, 0.2))})
    assert [(p["from"], p["to"]) for p in found] == [("c:4", "c:10")]


def rows() -> list[dict]:
    return [
        {"id": "c:2#instruction", "turn_id": "c:2", "kind": "instruction",
         "text": "Always format code with syntax highlighting.", "scope": ["code", "formatting"],
         "valid_from": T0, "embedding": unit(1, 0).tolist()},
        {"id": "c:8#instruction", "turn_id": "c:8", "kind": "preference",
         "text": "I prefer minimal dependencies.", "scope": ["dependencies"],
         "valid_from": T0, "embedding": unit(0, 1).tolist()},
    ]  # fmt: skip


def test_applicable_by_typed_scope_or_similarity_and_at_most_five() -> None:
    # a formatting instruction about code applies to any request for code, whatever its words
    got = applicable(
        rows(), unit(0, 0, 1), read_question("Show me how to implement the login route")
    )
    assert [i["turn_id"] for i in got] == ["c:2"] and got[0]["why"] == "scope:code"
    got = applicable(rows(), unit(0.05, 1), read_question("What should I use for charts?"))
    assert [i["turn_id"] for i in got] == ["c:8"] and got[0]["why"] == "similar"
    assert applicable(rows(), unit(0, 0, 1), read_question("What is the weather?")) == []
    assert [i["turn_id"] for i in applicable(rows(), None, None)] == ["c:2", "c:8"]
    many = [dict(rows()[0], id=f"c:{n}#instruction", turn_id=f"c:{n}") for n in range(9)]
    served = applicable(many, unit(1, 0), read_question("write the code"))
    assert len(served) == shipped_default("max_instructions")


def test_ordering_questions_and_the_order_argument() -> None:
    assert asks_order(
        read_question("In what order did I bring up the data model, speed and deployment?")
    )
    assert asks_order(read_question("Can you list, in order, what I worked on?"))
    assert asks_order(read_question("What did I do first?"))
    assert not asks_order(read_question("I refactored it in order to test it; what changed?"))
    assert not asks_order(read_question("What did Caroline paint?"))
    assert check_order(None) is None and check_order("time") == "time"
    with pytest.raises(MalformedInput):
        check_order("newest")


def hit(turn: str, day: int, score: float = 1.0) -> Hit:
    return Hit(
        turn_id=turn, text=turn, speaker="user", session=1,
        observed_at=T0 + timedelta(days=day), score=score,
    )  # fmt: skip


def test_partner_brought_in_and_time_order() -> None:
    hits = [hit("c:4", 0, 3.0), hit("c:1", 1, 2.0), hit("c:2", 2, 1.0)]
    row = {
        "from_id": "c:4", "to_id": "c:10", "from_at": T0, "to_at": T0 + timedelta(days=5),
        "from_text": "never", "to_text": "did", "from_speaker": "user", "to_speaker": "user",
        "from_session": 1, "to_session": 3, "why": "w", "score": 0.6,
    }  # fmt: skip
    out = _with_partners(hits, [row])
    assert [h.turn_id for h in out] == ["c:4", "c:10", "c:1"]  # same length: the last goes
    assert out[1].trace["generator"] == "conflict"
    ordered = in_time_order(out, {"c:4": 4, "c:1": 1, "c:10": 10})
    assert [h.turn_id for h in ordered] == ["c:4", "c:1", "c:10"]
