"""Records → parameter rows → idempotent ``UNWIND … MERGE`` writes, one transaction per unit.

Only rows (dicts of plain values, datetimes and float lists) cross into the store; every value
is a Cypher parameter. A `WriteUnit` is everything one transaction writes: a batch of turns
together with their ``NEXT`` edges, the facts citing them, the entities and mentions those need,
and the supersession and event links that become complete with them. `GraphWriter.commit` takes
the conversation's write lock (``write/lock_conversation``) and writes the unit in the same
transaction, so a failed or killed ingest leaves whole units only — never a turn without its
facts — and running the same ingest again converges to the same graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.ingest.extraction.language import language_of
from kgmem.metadata import stored
from kgmem.models import EntityRecord, EventRecord, FactRecord, SessionRecord, TurnRecord
from kgmem.store import Store, Transaction
from kgmem.store.tenant import entity_scope, tenant_token

__all__ = [
    "BulkWriter",
    "GraphWriter",
    "WriteUnit",
    "entity_rows",
    "event_rows",
    "fact_rows",
    "mention_rows",
    "next_rows",
    "session_id",
    "session_rows",
    "supersede_rows",
    "turn_rows",
]

Row = dict[str, Any]
Vectors = npt.NDArray[np.float32] | Sequence[Sequence[float]]


def session_id(conversation_id: str, session: int) -> str:
    """The id of a Session node: ``<conversation_id>:s<session>``."""
    return f"{conversation_id}:s{session}"


def _vector(value: Any) -> list[float]:
    return value.tolist() if hasattr(value, "tolist") else [float(x) for x in value]


def session_rows(sessions: Iterable[SessionRecord]) -> list[Row]:
    return [
        {
            "id": session_id(s.conversation_id, s.session),
            "conversation_id": s.conversation_id,
            "session": s.session,
            "started_at": s.started_at,
        }
        for s in sessions
    ]


def _passage_rows(turn_id: str, embedded: Any) -> list[Row]:
    """The ``passages`` of one turn row: none unless ``embedded`` is a long turn's
    `kgmem.ingest.extraction.passages.Embedded`."""
    return [
        {"id": f"{turn_id}#p{n}", "n": n, "start": start, "end": end, "embedding": _vector(v)}
        for n, (start, end, v) in enumerate(getattr(embedded, "passages", ()))
    ]


def turn_rows(turns: Sequence[TurnRecord], embeddings: Vectors | Sequence[Any]) -> list[Row]:
    """Rows of ``write/merge_turns``; ``embeddings`` holds one vector ``(dim,)`` per turn, or
    one `kgmem.ingest.extraction.passages.Embedded` (its vector, and its passages when the turn is
    longer than the embedder's window)."""
    return [
        {
            "id": t.id,
            "conversation_id": t.conversation_id,
            "tk": tenant_token(t.conversation_id),
            "session": t.session,
            "session_id": session_id(t.conversation_id, t.session),
            "index": t.index,
            "dia_id": t.dia_id,
            "speaker": t.speaker,
            "text": t.text,
            "observed_at": t.observed_at,
            "role": t.role,
            "request": True if t.request else None,
            "source": t.source,
            "source_kind": t.source_kind,
            "document": t.document,
            "language": language_of(t.text),
            "meta": stored(t.metadata) if t.metadata else {},
            "embedding": _vector(getattr(vector, "vector", vector)),
            "passages": _passage_rows(t.id, vector),
        }
        for t, vector in zip(turns, embeddings, strict=True)
    ]


def next_rows(ordered_ids: Sequence[str]) -> list[Row]:
    """``NEXT`` rows between consecutive ids (utterance order across sessions)."""
    return [{"prev": a, "next": b} for a, b in pairwise(ordered_ids)]


def entity_rows(entities: Iterable[EntityRecord]) -> list[Row]:
    """Rows of ``write/merge_entities``: ``scope`` is the node's ``conversation_id`` (the
    conversation, or ``owner:<owner>`` for an owner's shared entity;
    `kgmem.ingest.writing.threads`), ``thread`` the conversation writing it."""
    return [
        {
            "id": e.id,
            "conversation_id": e.conversation_id,
            "scope": entity_scope(e.conversation_id, e.owner),
            "thread": e.conversation_id,
            "owner": e.owner,
            "name": e.name,
            "type": e.type,
            "aliases": list(e.aliases),
            "aliases_text": " ".join(e.aliases),
        }
        for e in entities
    ]


def fact_rows(facts: Sequence[FactRecord], embeddings: Vectors) -> list[Row]:
    """Rows of ``write/merge_facts`` (+ ``CITES`` and ``ABOUT``); embeddings ``(len, dim)``."""
    rows = []
    for f, vector in zip(facts, embeddings, strict=True):
        interval = f.event_time
        rows.append(
            {
                "id": f.id,
                "conversation_id": f.conversation_id,
                "tk": tenant_token(f.conversation_id),
                "subject": f.subject,
                "relation": f.relation,
                "object": f.object,
                "text": f.text,
                "source": f.source,
                "event_time": interval.start if interval else None,
                "event_end": interval.end if interval else None,
                "event_granularity": interval.granularity if interval else None,
                "event_phrase": interval.phrase if interval else None,
                "valid_from": f.valid_from,
                "key": f.key,
                "serial": f.serial,
                "confidence": f.confidence,
                "session": f.session,
                "modality": f.modality,
                "informant": f.informant,
                "reporter": f.reporter,
                "attribute": f.attribute,
                "value": f.value,
                "value_type": f.value_type,
                "multiplicity": f.multiplicity,
                "holder": f.holder,
                "thing": f.thing,
                "embedding": _vector(vector),
                "cites": list(f.cites),
                "about": [{"entity_id": e, "role": r} for e, r in f.about],
            }
        )
    return rows


def mention_rows(mentions: Iterable[tuple[str, str]]) -> list[Row]:
    return [{"turn_id": t, "entity_id": e} for t, e in sorted(set(mentions))]


def supersede_rows(links: Iterable[tuple[str, ...] | tuple[str, str, str, float]]) -> list[Row]:
    """``(newer)-[:SUPERSEDES {cue, confidence}]->(older)``; sets the older fact's ``valid_to``.
    Never deletes. ``links``: ``(newer, older)`` pairs or
    `kgmem.ingest.extraction.supersession.Link` ``(newer, older, cue, confidence)``."""
    return [
        {
            "newer": link[0],
            "older": link[1],
            "cue": link[2] if len(link) > 2 else None,
            "confidence": link[3] if len(link) > 3 else None,
        }
        for link in links
    ]


def event_rows(events: Iterable[EventRecord]) -> list[Row]:
    return [
        {
            "id": e.id,
            "conversation_id": e.conversation_id,
            "name": e.name,
            "time": e.time.start if e.time else None,
            "time_end": e.time.end if e.time else None,
            "granularity": e.time.granularity if e.time else None,
            "fact_ids": list(e.fact_ids),
        }
        for e in events
    ]


#: statement per part of a unit, in the order a transaction writes them (a turn needs its
#: session; a fact its turns and entities; a supersession or event link its facts)
_ORDER = (
    ("sessions", "write/merge_sessions"),
    ("turns", "write/merge_turns"),
    ("next", "write/merge_next"),
    ("entities", "write/merge_entities"),
    ("facts", "write/merge_facts"),
    ("mentions", "write/merge_mentions"),
    ("supersedes", "write/merge_supersedes"),
    ("events", "write/merge_events"),
)


@dataclass
class WriteUnit:
    """The rows one transaction writes (see the module docstring)."""

    sessions: list[Row] = field(default_factory=list)
    turns: list[Row] = field(default_factory=list)
    next: list[Row] = field(default_factory=list)
    entities: list[Row] = field(default_factory=list)
    facts: list[Row] = field(default_factory=list)
    mentions: list[Row] = field(default_factory=list)
    supersedes: list[Row] = field(default_factory=list)
    events: list[Row] = field(default_factory=list)

    def __bool__(self) -> bool:
        return any(getattr(self, part) for part, _ in _ORDER)

    def write(self, tx: Transaction) -> None:
        """Run the unit's statements in ``tx`` (the caller holds the conversation lock)."""
        for part, name in _ORDER:
            rows = getattr(self, part)
            if rows:
                tx.run(name, rows=rows)


class GraphWriter:
    """Commits `WriteUnit`s, one transaction each, under the conversation's write lock."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def commit(self, conversation_id: str, unit: WriteUnit) -> None:
        def work(tx: Transaction) -> None:
            tx.run("write/lock_conversation", conversation_id=conversation_id)
            unit.write(tx)

        if unit:
            self.store.transaction(work)


class BulkWriter:
    """Batched writes of prepared records, one statement per batch of ``batch_size`` rows and no
    conversation lock: for bulk loads that own their conversations outright (the scale
    benchmark's synthetic tenants, test fixtures). The product's write path is `GraphWriter`:
    use this only where no other writer touches the same conversations.

    Every method returns the number of rows written; embeddings are ``(n, dim)`` float32.
    """

    def __init__(self, store: Store, *, batch_size: int = 500) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.store = store
        self.batch_size = batch_size

    def _rows(self, name: str, rows: Sequence[Row]) -> int:
        if not rows:
            return 0
        return self.store.write_batches(name, rows, batch_size=self.batch_size)

    def sessions(self, sessions: Iterable[SessionRecord]) -> int:
        return self._rows("write/merge_sessions", session_rows(sessions))

    def turns(self, turns: Sequence[TurnRecord], embeddings: Vectors) -> int:
        return self._rows("write/merge_turns", turn_rows(turns, embeddings))

    def timeline(self, ordered_ids: Sequence[str]) -> int:
        return self._rows("write/merge_next", next_rows(ordered_ids))

    def entities(self, entities: Iterable[EntityRecord]) -> int:
        return self._rows("write/merge_entities", entity_rows(entities))

    def facts(self, facts: Sequence[FactRecord], embeddings: Vectors) -> int:
        return self._rows("write/merge_facts", fact_rows(facts, embeddings))

    def mentions(self, mentions: Iterable[tuple[str, str]]) -> int:
        return self._rows("write/merge_mentions", mention_rows(mentions))

    def supersedes(self, pairs: Iterable[tuple[str, str]]) -> int:
        return self._rows("write/merge_supersedes", supersede_rows(pairs))

    def events(self, events: Iterable[EventRecord]) -> int:
        return self._rows("write/merge_events", event_rows(events))
