"""The scale benchmark's data: stored dev conversations read back once as templates, and copied
into synthetic tenants and one long conversation without embedding or extracting anything again.

A copy keeps the turns of a slice with everything that cites or links them (facts, entities,
mentions, events, ``SUPERSEDES`` pairs) under a fresh conversation id, with the stored
embeddings plus Gaussian noise, renormalised (`perturb`): every tenant sits in the same
semantic region as the others, the hard case for a filter inside a vector index. Copies are
written through `kgmem.ingest.writing.writer.BulkWriter` (the ``write/merge_*`` statements).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.errors import ConfigError
from kgmem.ingest.writing.writer import BulkWriter
from kgmem.models import (
    EntityRecord,
    EventRecord,
    FactRecord,
    SessionRecord,
    TimeInterval,
    TurnRecord,
)
from kgmem.store import Store
from kgmem.store.tenant import entity_scope

__all__ = [
    "PREFIX",
    "Copy",
    "Template",
    "Vectors",
    "copy_piece",
    "long_copies",
    "long_id",
    "long_pieces",
    "long_turn_id",
    "perturb",
    "read_template",
    "tenant_copies",
    "tenant_id",
    "tenant_slice",
]

#: every synthetic conversation id starts with this (the benchmark refuses a store holding any)
PREFIX = "scale-"
Vectors = npt.NDArray[np.float32]


def tenant_id(n: int) -> str:
    """The conversation id of synthetic tenant ``n`` (0-based): ``scale-t00042``."""
    return f"{PREFIX}t{n:05d}"


def long_id() -> str:
    """The conversation id of the long synthetic conversation."""
    return f"{PREFIX}long"


# --- the template: one stored dev conversation, read back once ------------------------------
@dataclass
class Template:
    """One stored conversation as plain rows (``bench/scale_template``), embeddings as arrays.

    Attributes:
        conversation_id: the source conversation.
        sessions / turns / facts / entities / events: rows as the statement returns them
            (without the ``embedding`` key); turns in utterance order.
        turn_vectors / fact_vectors: ``(len(turns), dim)`` / ``(len(facts), dim)`` float32.
        mentions / supersedes: ``(turn id, entity id)`` / ``(newer, older)`` pairs.
    """

    conversation_id: str
    sessions: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    turn_vectors: Vectors
    facts: list[dict[str, Any]]
    fact_vectors: Vectors
    entities: dict[str, dict[str, Any]]
    mentions: list[tuple[str, str]]
    events: list[dict[str, Any]]
    supersedes: list[tuple[str, str]]

    @property
    def started(self) -> datetime:
        first: datetime = min(t["observed_at"] for t in self.turns)
        return first

    @property
    def ended(self) -> datetime:
        last: datetime = max(t["observed_at"] for t in self.turns)
        return last


def read_template(store: Store, conversation_id: str) -> Template:
    """Read one stored conversation back (one round trip).

    Raises:
        ConfigError: the conversation holds no turns with embeddings.
    """
    row = _own_entities(
        store.read("bench/scale_template", conversation_id=conversation_id)[0], conversation_id
    )
    turns = [t for t in row["turns"] if t["embedding"] is not None]
    if not turns:
        raise ConfigError(f"conversation {conversation_id!r} holds no embedded turns")
    facts = [f for f in row["facts"] if f["embedding"] is not None and f["cites"]]
    return Template(
        conversation_id=conversation_id,
        sessions=row["sessions"],
        turns=[{k: v for k, v in t.items() if k != "embedding"} for t in turns],
        turn_vectors=np.asarray([t["embedding"] for t in turns], dtype=np.float32),
        facts=[{k: v for k, v in f.items() if k != "embedding"} for f in facts],
        fact_vectors=np.asarray([f["embedding"] for f in facts], dtype=np.float32).reshape(
            len(facts), len(turns[0]["embedding"])
        ),
        entities={e["id"]: e for e in row["entities"]},
        mentions=[(m[0], m[1]) for m in row["mentions"]],
        events=row["events"],
        supersedes=[(p[0], p[1]) for p in row["supersedes"]],
    )


def _own_entities(row: dict[str, Any], cid: str) -> dict[str, Any]:
    """The template with an owner's shared entities (`kgmem.ingest.writing.threads`) renamed into
    the conversation's own id form, so a copy gets entities of its own, as an ownerless
    conversation's copy does."""
    prefixes = {
        f"{entity_scope(cid, e['owner'])}:e:" for e in row["entities"] if e.get("owner") is not None
    }
    if not prefixes:
        return row

    def own(value: Any) -> Any:
        if isinstance(value, str):
            for prefix in prefixes:
                if value.startswith(prefix):
                    return f"{cid}:e:" + value[len(prefix) :]
        return value

    facts = [
        f
        | {
            "subject": own(f["subject"]),
            "object": own(f["object"]),
            "key": own(f["key"]),
            "about": [a | {"entity_id": own(a["entity_id"])} for a in f["about"]],
        }
        for f in row["facts"]
    ]
    entities = [e | {"id": own(e["id"])} for e in row["entities"]]
    mentions = [[m[0], own(m[1])] for m in row["mentions"]]
    return row | {"facts": facts, "entities": entities, "mentions": mentions}


# --- copies ---------------------------------------------------------------------------------
@dataclass
class Copy:
    """Records of one or more copied pieces, ready for `BulkWriter` (written in this order)."""

    sessions: list[SessionRecord] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    turn_vectors: list[Vectors] = field(default_factory=list)
    next_rows: list[dict[str, str]] = field(default_factory=list)
    entities: list[EntityRecord] = field(default_factory=list)
    facts: list[FactRecord] = field(default_factory=list)
    fact_vectors: list[Vectors] = field(default_factory=list)
    mentions: list[tuple[str, str]] = field(default_factory=list)
    supersedes: list[tuple[str, str]] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)

    def extend(self, other: Copy) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(other, name))

    def write(self, writer: BulkWriter) -> None:
        """Write everything through the batched ``write/merge_*`` statements."""
        writer.sessions(self.sessions)
        if self.turns:
            writer.turns(self.turns, np.concatenate(self.turn_vectors))
        if self.next_rows:
            writer.store.write_batches(
                "write/merge_next", self.next_rows, batch_size=writer.batch_size
            )
        writer.entities(self.entities)
        if self.facts:
            writer.facts(self.facts, np.concatenate(self.fact_vectors))
        writer.mentions(self.mentions)
        writer.supersedes(self.supersedes)
        writer.events(self.events)


def perturb(vectors: Vectors, rng: np.random.Generator, noise: float) -> Vectors:
    """``vectors`` plus N(0, noise²) per component, each row renormalised to unit length."""
    if noise == 0 or len(vectors) == 0:
        return vectors.astype(np.float32, copy=True)
    out = vectors + rng.normal(0.0, noise, size=vectors.shape).astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(norms == 0, 1.0, norms)).astype(np.float32)


@dataclass(frozen=True)
class _Move:
    """How one piece is moved: ids ``<source>:<rest>`` → ``<conversation_id>:<tag><rest>``,
    turn indexes from ``first_index`` to ``index_offset``, sessions by ``session_offset``,
    times by ``shift``."""

    source: str
    conversation_id: str
    tag: str
    first_index: int
    index_offset: int
    session_offset: int
    shift: timedelta

    def rid(self, value: str) -> str:
        src = self.source + ":"
        return (
            f"{self.conversation_id}:{self.tag}" + value[len(src) :]
            if value.startswith(src)
            else value
        )

    def moved(self, value: datetime | None) -> datetime | None:
        return value + self.shift if value is not None else None

    def session(self, value: int | None) -> int | None:
        return value + self.session_offset if value is not None else None


def _copy_turns(template: Template, rows: list[dict[str, Any]], move: _Move, out: Copy) -> None:
    """The slice's sessions and turns as records of the target conversation."""
    sessions = {t["session"] for t in rows}
    out.sessions = [
        SessionRecord(
            conversation_id=move.conversation_id,
            session=s["session"] + move.session_offset,
            started_at=s["started_at"] + move.shift,
        )
        for s in template.sessions
        if s["session"] in sessions
    ]
    for t in rows:
        out.turns.append(
            TurnRecord(
                id=move.rid(t["id"]),
                conversation_id=move.conversation_id,
                session=t["session"] + move.session_offset,
                index=t["index"] - move.first_index + move.index_offset,
                dia_id=move.tag + t["dia_id"],
                speaker=t["speaker"],
                text=t["text"],
                observed_at=t["observed_at"] + move.shift,
            )
        )


def _copy_fact(
    template: Template, f: dict[str, Any], cites: tuple[str, ...], move: _Move
) -> FactRecord:
    """One fact of the template, moved (``cites``: its cited turns inside the slice)."""
    about = tuple(
        (move.rid(a["entity_id"]), a["role"])
        for a in f["about"]
        if a["entity_id"] in template.entities
    )
    interval = None
    if f["event_time"] is not None and f["event_end"] is not None:
        interval = TimeInterval(
            start=f["event_time"] + move.shift,
            end=f["event_end"] + move.shift,
            granularity=f["event_granularity"],
            phrase=f["event_phrase"] or "",
        )
    return FactRecord(
        id=move.rid(f["id"]),
        conversation_id=move.conversation_id,
        subject=move.rid(f["subject"] or ""),
        relation=f["relation"] or "",
        object=move.rid(f["object"] or ""),
        text=f["text"],
        source=f["source"],
        cites=cites,
        about=about,
        event_time=interval,
        valid_from=move.moved(f["valid_from"]),
        key=move.rid(f["key"]) if f["key"] else None,
        serial=int(f["serial"] or 0) + (move.index_offset - move.first_index) * 1000,
        confidence=float(f["confidence"] if f["confidence"] is not None else 1.0),
        session=move.session(f["session"]),
    )


def _copy_facts(
    template: Template, kept: set[str], move: _Move, out: Copy
) -> tuple[list[int], set[str]]:
    """The facts citing a kept turn (cites cut to the slice; a fact citing none is dropped).
    Returns the template positions of the facts copied and the entity ids they are about."""
    picked: list[int] = []
    entity_ids: set[str] = set()
    for n, f in enumerate(template.facts):
        cites = tuple(move.rid(c) for c in f["cites"] if c in kept)
        if not cites:
            continue
        picked.append(n)
        entity_ids.update(a["entity_id"] for a in f["about"])
        out.facts.append(_copy_fact(template, f, cites, move))
    return picked, entity_ids


def _copy_links(
    template: Template,
    kept: set[str],
    fact_ids: set[str],
    entity_ids: set[str],
    move: _Move,
    out: Copy,
) -> None:
    """Mentions of kept turns, the entities the copy needs, supersession pairs and events
    between copied facts (an event keeps only its copied facts; one with none is dropped)."""
    rid = move.rid
    for turn, entity in template.mentions:
        if turn in kept and entity in template.entities:
            out.mentions.append((rid(turn), rid(entity)))
            entity_ids.add(entity)
    out.entities = [
        EntityRecord(
            id=rid(e["id"]),
            conversation_id=move.conversation_id,
            name=e["name"],
            type=e["type"],
            aliases=tuple(e["aliases"]),
        )
        for eid, e in template.entities.items()
        if eid in entity_ids
    ]
    out.supersedes = [
        (rid(a), rid(b)) for a, b in template.supersedes if a in fact_ids and b in fact_ids
    ]
    for ev in template.events:
        members = tuple(rid(f) for f in ev["fact_ids"] if f in fact_ids)
        if not members:
            continue
        time_ = None
        if ev["time"] is not None and ev["time_end"] is not None and ev["granularity"]:
            time_ = TimeInterval(
                start=ev["time"] + move.shift,
                end=ev["time_end"] + move.shift,
                granularity=ev["granularity"],
            )
        out.events.append(
            EventRecord(
                id=rid(ev["id"]),
                conversation_id=move.conversation_id,
                name=ev["name"] or "",
                time=time_,
                fact_ids=members,
            )
        )


def copy_piece(
    template: Template,
    start: int,
    stop: int,
    *,
    conversation_id: str,
    tag: str = "",
    index_offset: int = 0,
    session_offset: int = 0,
    shift: timedelta = timedelta(0),
    rng: np.random.Generator,
    noise: float,
    previous_turn_id: str | None = None,
) -> Copy:
    """Turns ``[start, stop)`` of ``template`` (utterance order) with everything that cites or
    links them, as records of ``conversation_id``.

    Every id ``<source>:<rest>`` becomes ``<conversation_id>:<tag><rest>`` (a tag keeps the
    copies inside one conversation apart); turn indexes start at ``index_offset``, session
    numbers move by ``session_offset``, every time by ``shift``; facts keep only the cited turns
    inside the slice (a fact citing none is dropped), events only their kept facts.
    ``previous_turn_id`` links the first copied turn to the end of an earlier piece. The turn
    vectors are perturbed before the fact vectors (one ``rng``, so the order fixes the noise).
    """
    rows = template.turns[start:stop]
    move = _Move(
        source=template.conversation_id,
        conversation_id=conversation_id,
        tag=tag,
        first_index=rows[0]["index"] if rows else 0,
        index_offset=index_offset,
        session_offset=session_offset,
        shift=shift,
    )
    kept = {t["id"] for t in rows}
    out = Copy()
    _copy_turns(template, rows, move, out)
    out.turn_vectors.append(perturb(template.turn_vectors[start:stop], rng, noise))
    ids = ([previous_turn_id] if previous_turn_id else []) + [t.id for t in out.turns]
    out.next_rows = [{"prev": a, "next": b} for a, b in pairwise(ids)]
    picked, entity_ids = _copy_facts(template, kept, move, out)
    out.fact_vectors.append(perturb(template.fact_vectors[picked], rng, noise))
    fact_ids = {template.facts[n]["id"] for n in picked}
    _copy_links(template, kept, fact_ids, entity_ids, move, out)
    return out


# --- what each tenant and the long conversation copy -----------------------------------------
def tenant_slice(
    templates: Sequence[Template], n: int, tenant_turns: int, seed: int
) -> tuple[Template, int]:
    """Which template and start offset tenant ``n`` copies (round robin over the templates, a
    seeded random offset), independent of the levels asked for."""
    template = templates[n % len(templates)]
    rng = random.Random(seed * 1_000_003 + n)
    return template, rng.randrange(max(1, len(template.turns) - tenant_turns + 1))


def long_pieces(
    templates: Sequence[Template], total: int
) -> Iterator[tuple[int, Template, int, int]]:
    """``(copy number, template, start, stop)`` pieces whose concatenation is ``total`` turns:
    whole conversations in round robin, the last one cut."""
    done = 0
    n = 0
    while done < total:
        template = templates[n % len(templates)]
        take = min(len(template.turns), total - done)
        yield n, template, 0, take
        done += take
        n += 1


def long_turn_id(copy: int, template: Template, position: int) -> str:
    """The id turn ``position`` of ``template`` gets in copy ``copy`` of the long one."""
    source = template.turns[position]["id"]
    return f"{long_id()}:c{copy}:{source[len(template.conversation_id) + 1 :]}"


def tenant_copies(
    templates: Sequence[Template],
    first: int,
    stop: int,
    *,
    tenant_turns: int,
    tenants_per_write: int,
    seed: int,
    noise: float,
) -> Iterator[Copy]:
    """Tenants ``first`` .. ``stop - 1``, ``tenants_per_write`` of them per yielded copy; tenant
    ``n``'s noise is seeded by ``(seed, n)``, so it is the same whatever the levels."""
    for chunk in range(first, stop, tenants_per_write):
        batch = Copy()
        for n in range(chunk, min(stop, chunk + tenants_per_write)):
            template, start = tenant_slice(templates, n, tenant_turns, seed)
            batch.extend(
                copy_piece(
                    template,
                    start,
                    start + tenant_turns,
                    conversation_id=tenant_id(n),
                    rng=np.random.default_rng([seed, n]),
                    noise=noise,
                )
            )
        yield batch


def long_copies(
    templates: Sequence[Template], have: int, want: int, *, seed: int, noise: float
) -> Iterator[Copy]:
    """The pieces that grow the long conversation from ``have`` to ``want`` turns: each copy of
    a dev conversation starts a day after the previous one ends, and its first turn follows the
    previous copy's last along ``NEXT`` (a piece cut at the previous length goes on from its
    cut)."""
    index = 0
    session = 0
    end: datetime | None = None
    previous: str | None = None
    for n, template, start, stop in long_pieces(templates, want):
        shift = (end + timedelta(days=1) - template.started) if end else timedelta(0)
        size = stop - start
        if index + size > have:  # not written yet (lengths grow the same conversation)
            skip = max(0, have - index)
            if skip:  # the piece was cut at the previous length: go on from its cut
                previous = long_turn_id(n, template, start + skip - 1)
            yield copy_piece(
                template,
                start + skip,
                stop,
                conversation_id=long_id(),
                tag=f"c{n}:",
                index_offset=index + skip,
                session_offset=session,
                shift=shift,
                rng=np.random.default_rng([seed, 1_000_000 + n, skip]),
                noise=noise,
                previous_turn_id=previous,
            )
        index += size
        session += max(s["session"] for s in template.sessions)
        end = template.ended + shift
        previous = long_turn_id(n, template, stop - 1)
