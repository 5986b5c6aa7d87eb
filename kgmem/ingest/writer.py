"""Records → parameter rows → batched, idempotent ``UNWIND … MERGE`` writes.

Only rows (dicts of plain values, datetimes and float lists) cross into the store; every value
is a Cypher parameter. Each batch is one transaction, so a failed or killed ingest leaves whole
batches only, and running the same ingest again converges to the same graph.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.models import EntityRecord, EventRecord, FactRecord, SessionRecord, TurnRecord
from kgmem.store import Store
from kgmem.store.tenant import tenant_token

__all__ = ["GraphWriter"]

Row = dict[str, Any]
Progress = Callable[[int], None] | None


def session_id(conversation_id: str, session: int) -> str:
    """The id of a Session node: ``<conversation_id>:s<session>``."""
    return f"{conversation_id}:s{session}"


class GraphWriter:
    """Writes records into the graph in batches of ``batch_size`` rows (one transaction each)."""

    def __init__(self, store: Store, *, batch_size: int = 500) -> None:
        self.store = store
        self.batch_size = batch_size

    def _batches(self, name: str, rows: Sequence[Row], progress: Progress = None) -> int:
        if not rows:
            return 0
        return self.store.write_batches(name, rows, batch_size=self.batch_size, progress=progress)

    def sessions(self, sessions: Sequence[SessionRecord]) -> int:
        rows = [
            {
                "id": session_id(s.conversation_id, s.session),
                "conversation_id": s.conversation_id,
                "session": s.session,
                "started_at": s.started_at,
            }
            for s in sessions
        ]
        return self._batches("write/merge_sessions", rows)

    def turns(
        self,
        turns: Sequence[TurnRecord],
        embeddings: npt.NDArray[np.float32],
        progress: Progress = None,
    ) -> int:
        """Write turns with embeddings of shape ``(len(turns), dim)`` float32."""
        rows = [
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
                "embedding": vector.tolist(),
            }
            for t, vector in zip(turns, embeddings, strict=True)
        ]
        return self._batches("write/merge_turns", rows, progress)

    def timeline(self, ordered_ids: Sequence[str]) -> int:
        """``NEXT`` edges between consecutive ids (utterance order across sessions)."""
        rows = [{"prev": a, "next": b} for a, b in itertools.pairwise(ordered_ids)]
        return self._batches("write/merge_next", rows)

    def entities(self, entities: Sequence[EntityRecord]) -> int:
        rows = [
            {
                "id": e.id,
                "conversation_id": e.conversation_id,
                "name": e.name,
                "type": e.type,
                "aliases": list(e.aliases),
                "aliases_text": " ".join(e.aliases),
            }
            for e in entities
        ]
        return self._batches("write/merge_entities", rows)

    def facts(
        self,
        facts: Sequence[FactRecord],
        embeddings: npt.NDArray[np.float32],
        progress: Progress = None,
    ) -> int:
        """Write facts (+ ``CITES`` and ``ABOUT`` edges) with embeddings ``(len(facts), dim)``."""
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
                    "embedding": vector.tolist(),
                    "cites": list(f.cites),
                    "about": [{"entity_id": e, "role": r} for e, r in f.about],
                }
            )
        return self._batches("write/merge_facts", rows, progress)

    def mentions(self, mentions: Sequence[tuple[str, str]]) -> int:
        rows = [{"turn_id": t, "entity_id": e} for t, e in sorted(set(mentions))]
        return self._batches("write/merge_mentions", rows)

    def supersedes(self, pairs: Sequence[tuple[str, str]]) -> int:
        """``(newer)-[:SUPERSEDES]->(older)``; sets the older fact's ``valid_to``. Never deletes."""
        rows = [{"newer": n, "older": o} for n, o in pairs]
        return self._batches("write/merge_supersedes", rows)

    def events(self, events: Sequence[EventRecord]) -> int:
        rows = [
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
        return self._batches("write/merge_events", rows)
