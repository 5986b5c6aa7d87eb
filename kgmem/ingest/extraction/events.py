"""Event grouping: which facts describe one happening.

Rule (deterministic, no learning):

1. A fact with a resolved ``event_time`` anchors an event keyed by
   ``(conversation, session, subject, event_time.start, event_time.granularity)``: the same
   person doing something at the same resolved time, told in the same session, is one happening
   ("I went hiking yesterday" + "we saw a waterfall yesterday" → one event on that day).
2. Every other fact citing a turn that an anchored fact cites joins that event: one utterance
   describes one happening (this is how annotation facts, which carry no dates, join).
3. Facts in the same session that share a non-speaker entity with an event's facts join it
   too ("the charity race" mentioned again two turns later).

An event's ``time`` is its anchor interval; its ``name`` is the anchor fact's text. Ids are
derived from the key, so re-ingesting the same input yields the same events.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence

from kgmem.models import EventRecord, FactRecord

__all__ = ["group_events"]


def _event_id(fact: FactRecord) -> str:
    assert fact.event_time is not None
    raw = "|".join(
        (
            fact.conversation_id,
            str(fact.session),
            fact.subject,
            fact.event_time.start.isoformat(),
            fact.event_time.granularity,
        )
    )
    digest = hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]
    return f"{fact.conversation_id}:ev:{digest}"


def group_events(facts: Sequence[FactRecord], *, speakers: Sequence[str] = ()) -> list[EventRecord]:
    """Group facts into events by the module's rule.

    Args:
        facts: facts of one conversation (any source).
        speakers: names to ignore as linking entities (speakers link everything).

    Returns:
        events with their member fact ids, sorted by id; facts that join no event are left out.
    """
    anchors: dict[str, FactRecord] = {}
    members: dict[str, list[str]] = defaultdict(list)
    event_of_turn: dict[str, str] = {}
    for fact in sorted(facts, key=lambda f: (f.serial, f.id)):
        if fact.event_time is None or fact.session is None:
            continue
        eid = _event_id(fact)
        anchors.setdefault(eid, fact)
        members[eid].append(fact.id)
        for turn in fact.cites:
            event_of_turn.setdefault(turn, eid)

    ignore = {s.lower() for s in speakers}
    entity_event: dict[tuple[int | None, str], str] = {}
    by_id = {f.id: f for f in facts}
    for eid, ids in members.items():
        for fact_id in ids:
            fact = by_id[fact_id]
            for entity, _role in fact.about:
                if entity.rsplit(":", 1)[-1].lower() not in ignore:
                    entity_event.setdefault((fact.session, entity), eid)

    for fact in facts:
        if fact.event_time is not None:
            continue
        found: str | None = next((event_of_turn[t] for t in fact.cites if t in event_of_turn), None)
        if found is None:
            found = next(
                (
                    entity_event[(fact.session, e)]
                    for e, _ in fact.about
                    if (fact.session, e) in entity_event
                ),
                None,
            )
        if found is not None:
            members[found].append(fact.id)

    return [
        EventRecord(
            id=eid,
            conversation_id=anchors[eid].conversation_id,
            name=anchors[eid].text[:200],
            time=anchors[eid].event_time,
            fact_ids=tuple(dict.fromkeys(members[eid])),
        )
        for eid in sorted(members)
    ]
