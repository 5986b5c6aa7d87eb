"""What one write holds: an ingest split into one `WriteUnit` per batch of turns, the arrival
order of a fact, and entities merged by id."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from kgmem.ingest.writing.writer import (
    WriteUnit,
    entity_rows,
    event_rows,
    fact_rows,
    mention_rows,
    next_rows,
    session_rows,
    supersede_rows,
    turn_rows,
)
from kgmem.models import EntityRecord, EventRecord, FactRecord, SessionRecord, TurnRecord

__all__ = ["dedupe_entities", "plan_units", "serial"]


def serial(turn_index: int, n: int) -> int:
    """Arrival order of a fact: its first cited turn's position, then its position in the turn."""
    return turn_index * 1000 + n


def plan_units(
    *,
    turns: Sequence[TurnRecord],
    sessions: Sequence[SessionRecord],
    todo_turns: Mapping[str, Any],
    records: Sequence[FactRecord],
    todo_facts: Mapping[str, Any],
    entities: Sequence[EntityRecord],
    mentions: Sequence[tuple[str, str]],
    pairs: Sequence[tuple[str, str] | tuple[str, str, str, float]],
    events: Sequence[EventRecord],
    batch_size: int,
) -> list[WriteUnit]:
    """Split an ingest into one `WriteUnit` per batch of turns (see the module docstring).

    A fact lands with the last batch holding a turn it cites; an entity with the first unit that
    needs it; a supersession link or event membership with the later of the facts it joins.
    Facts citing no stored turn, unreferenced entities and sessions without turns go in unit 0.
    """
    batch_of = {t.id: n // batch_size for n, t in enumerate(turns)}
    count = max(1, -(-len(turns) // batch_size))
    units = [WriteUnit() for _ in range(count)]
    home: dict[str, int] = {
        f.id: max((batch_of[c] for c in f.cites if c in batch_of), default=0) for f in records
    }
    session_home: dict[int, int] = {}
    for t in turns:
        session_home.setdefault(t.session, batch_of[t.id])
    units[0].sessions.extend(session_rows(s for s in sessions if s.session not in session_home))
    for s in sessions:
        if s.session in session_home:
            units[session_home[s.session]].sessions.extend(session_rows([s]))

    for n, t in enumerate(turns):
        unit = units[batch_of[t.id]]
        if t.id in todo_turns:
            unit.turns.extend(turn_rows([t], [todo_turns[t.id]]))
        if n:
            unit.next.extend(next_rows([turns[n - 1].id, t.id]))

    entity_home: dict[str, int] = {}
    for f in records:
        for entity_id, _ in f.about:
            entity_home[entity_id] = min(entity_home.get(entity_id, count), home[f.id])
    for turn_id, entity_id in mentions:
        b = batch_of.get(turn_id, 0)
        entity_home[entity_id] = min(entity_home.get(entity_id, count), b)
    for e in entities:
        units[entity_home.get(e.id, 0)].entities.extend(entity_rows([e]))
    for f in records:
        if f.id in todo_facts:
            units[home[f.id]].facts.extend(fact_rows([f], [todo_facts[f.id]]))
    for turn_id, entity_id in sorted(set(mentions)):
        units[batch_of.get(turn_id, 0)].mentions.extend(mention_rows([(turn_id, entity_id)]))
    for link in pairs:
        newer, older = link[0], link[1]
        at = max(home.get(newer, 0), home.get(older, 0))
        units[at].supersedes.extend(supersede_rows([link]))
    for event in events:
        members: dict[int, list[str]] = defaultdict(list)
        for fact_id in event.fact_ids:
            members[home.get(fact_id, 0)].append(fact_id)
        for at, ids in sorted(members.items()):
            units[at].events.extend(event_rows([event.model_copy(update={"fact_ids": tuple(ids)})]))
    return units


def dedupe_entities(entities: Sequence[EntityRecord]) -> list[EntityRecord]:
    seen: dict[str, EntityRecord] = {}
    for e in entities:
        if e.id in seen:
            merged = tuple(dict.fromkeys(seen[e.id].aliases + e.aliases))
            seen[e.id] = seen[e.id].model_copy(update={"aliases": merged})
        else:
            seen[e.id] = e
    return list(seen.values())
