"""Deterministic current-value resolution: latest serial wins per key, in code."""

from __future__ import annotations

from datetime import UTC, datetime

from kgmem.config import shipped_default
from kgmem.retrieve.question import read_question
from kgmem.retrieve.resolve import relevant_rows, resolve_current
from kgmem.retrieve.score import Candidate

CURRENT_BONUS = shipped_default("current_bonus")


def row(fid: str, key: str, serial: int, cites: list[str]) -> dict[str, object]:
    return {
        "fact_id": fid,
        "key": key,
        "serial": serial,
        "valid_from": None,
        "text": fid,
        "cites": cites,
    }


def cand(turn: str) -> Candidate:
    return Candidate(turn, turn, "Ana", 1, 0, datetime(2024, 1, 1, tzinfo=UTC), 0.5)


def test_latest_serial_wins_and_old_value_is_penalised() -> None:
    rows = [
        row("berlin", "ana|residence", 1000, ["t1"]),
        row("lisbon", "ana|residence", 5000, ["t5"]),
    ]
    pool = {"t1": cand("t1"), "t5": cand("t5")}
    (decision,) = resolve_current(rows, pool)
    assert decision == {
        "key": "ana|residence",
        "mode": "current",
        "winner": "lisbon",
        "text": "lisbon",
        "reason": "latest value",
        "superseded": ["berlin"],
        "winner_turns": ["t5"],
        "other_turns": ["t1"],
    }
    assert pool["t5"].bonus["current"] == CURRENT_BONUS
    assert pool["t1"].bonus["current"] == -CURRENT_BONUS
    assert pool["t5"].trace["current"]["winner"] == "lisbon"


def test_input_order_does_not_matter() -> None:
    rows = [row("b", "k", 2, ["t2"]), row("a", "k", 1, ["t1"]), row("c", "k", 3, ["t3"])]
    assert resolve_current(rows, {})[0]["winner"] == "c"
    assert resolve_current(list(reversed(rows)), {})[0]["superseded"] == ["a", "b"]


def test_turn_citing_winner_and_loser_is_not_penalised() -> None:
    rows = [row("old", "k", 1, ["t"]), row("new", "k", 2, ["t"])]
    pool = {"t": cand("t")}
    resolve_current(rows, pool)
    assert pool["t"].bonus["current"] == CURRENT_BONUS


def test_relevant_rows_filters_by_named_family() -> None:
    rows = [row("r", "ana|residence", 1, []), row("e", "ana|employer", 1, [])]
    assert [
        r["fact_id"] for r in relevant_rows(read_question("Where does Ana live now?"), rows)
    ] == ["r"]
    # a question that names no family picks no key (so "still run on Sundays" must not
    # be ranked by the drink decision)
    assert relevant_rows(read_question("What is new with Ana?"), rows) == []
