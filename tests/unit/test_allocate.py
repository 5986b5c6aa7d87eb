"""`allocate_turns`: indexes and default ids of appended turns (pure logic, no server)."""

from __future__ import annotations

from datetime import UTC, datetime

from kgmem.ingest.writing.append import NewTurn, allocate_turns

WHEN = datetime(2025, 1, 1, tzinfo=UTC)


def turn(text: str, id: str | None = None, session: int | None = None) -> NewTurn:
    return NewTurn(speaker="Ana", text=text, observed_at=WHEN, id=id, session=session)


def stored_set(ids: set[str]):  # type: ignore[no-untyped-def]
    asked: list[list[str]] = []

    def stored(candidates: list[str]) -> set[str]:
        asked.append(candidates)
        return {c for c in candidates if c in ids}

    return stored, asked


def test_new_conversation_starts_at_zero_with_default_ids() -> None:
    stored, _ = stored_set(set())
    out = allocate_turns("c", [turn("a"), turn("b")], None, stored)
    assert [(r.id, r.index, r.session, r.dia_id) for r in out] == [
        ("c:t0", 0, 1, "t0"),
        ("c:t1", 1, 1, "t1"),
    ]


def test_continues_the_tail_and_its_session() -> None:
    stored, _ = stored_set({"c:x"})
    out = allocate_turns("c", [turn("a"), turn("b", session=4)], {"index": 6, "session": 3}, stored)
    assert [(r.index, r.session) for r in out] == [(7, 3), (8, 4)]


def test_repeated_explicit_ids_are_skipped_without_a_gap() -> None:
    stored, _ = stored_set({"c:old"})
    out = allocate_turns(
        "c",
        [turn("a", "old"), turn("b", "new"), turn("c", "new"), turn("d")],
        {"index": 0, "session": 1},
        stored,
    )
    assert [(r.id, r.index) for r in out] == [("c:new", 1), ("c:t2", 2)]


def test_default_id_taken_by_an_explicit_one_gets_a_suffix() -> None:
    stored, asked = stored_set({"c:t3", "c:t3-2"})
    out = allocate_turns(
        "c", [turn("a"), turn("b", "t4"), turn("c")], {"index": 2, "session": 1}, stored
    )
    # t3 is stored (and so is t3-2); t4 is explicit in this call; the third turn is index 5
    assert [r.id for r in out] == ["c:t3-3", "c:t4", "c:t5"]
    assert [r.index for r in out] == [3, 4, 5]
    assert len(asked) == 3  # one look-up, then one per suffix tried


def test_observed_at_is_utc() -> None:
    stored, _ = stored_set(set())
    local = datetime.fromisoformat("2025-01-01T12:00:00+02:00")
    [rec] = allocate_turns("c", [NewTurn(speaker="A", text="x", observed_at=local)], None, stored)
    assert rec.observed_at == datetime(2025, 1, 1, 10, 0, tzinfo=UTC)
