"""Event grouping rule (kgmem.ingest.extraction.events)."""

from __future__ import annotations

from datetime import UTC, datetime

from kgmem.ingest.extraction.events import group_events
from kgmem.models import FactRecord, TimeInterval

DAY = TimeInterval(
    start=datetime(2023, 5, 7, tzinfo=UTC),
    end=datetime(2023, 5, 8, tzinfo=UTC),
    granularity="day",
    phrase="yesterday",
)


def fact(
    fid: str,
    *,
    subject: str = "c:e:person:mel",
    when: TimeInterval | None = None,
    cites: tuple[str, ...] = (),
    about: tuple[tuple[str, str], ...] = (),
    session: int = 1,
    serial: int = 0,
) -> FactRecord:
    return FactRecord(
        id=fid,
        conversation_id="c",
        subject=subject,
        relation="go",
        object="",
        text=fid,
        source="extracted",
        cites=cites,
        about=about,
        event_time=when,
        session=session,
        serial=serial,
    )


def test_same_subject_same_day_same_session_is_one_event() -> None:
    facts = [
        fact("hike", when=DAY, cites=("c:D1:1",), serial=1),
        fact("waterfall", when=DAY, cites=("c:D1:3",), serial=2),
        fact("other-session", when=DAY, cites=("c:D2:1",), session=2, serial=3),
    ]
    events = group_events(facts)
    assert len(events) == 2
    first = next(e for e in events if "hike" in e.fact_ids)
    assert first.fact_ids == ("hike", "waterfall")
    assert first.time == DAY and first.name == "hike"


def test_undated_facts_join_through_turn_and_entity() -> None:
    race = ("c:e:other:charity-race", "object")
    facts = [
        fact("ran", when=DAY, cites=("c:D1:1",), about=(race,), serial=1),
        fact("same-turn", cites=("c:D1:1",), serial=2),
        fact("entity-later", cites=("c:D1:9",), about=(race,), serial=3),
        fact("unrelated", cites=("c:D1:10",), serial=4),
    ]
    (event,) = group_events(facts)
    assert event.fact_ids == ("ran", "same-turn", "entity-later")


def test_ids_are_deterministic() -> None:
    facts = [fact("a", when=DAY, cites=("c:D1:1",))]
    assert group_events(facts)[0].id == group_events(list(facts))[0].id
    assert group_events([]) == []
