"""The write path: conversation → turns + NEXT → embeddings → facts (annotation and/or
extracted) → typed entities → dates → supersession keys → events → batched writes.

Re-ingesting the same input changes nothing: ids are deterministic, writes are ``MERGE``, and
turns/facts whose stored text is unchanged are neither re-embedded nor rewritten.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal

from kgmem.embed import Embedder
from kgmem.ingest.events import group_events
from kgmem.ingest.extract import FactExtractor
from kgmem.ingest.supersession import assign_keys, supersession_chain
from kgmem.ingest.writer import GraphWriter
from kgmem.models import (
    ConversationRecord,
    EntityRecord,
    FactRecord,
    SessionRecord,
    TurnRecord,
)
from kgmem.store import Store

__all__ = ["FactSources", "IngestReport", "Ingestor"]

FactSources = Literal["annotation", "extracted", "both", "none"]
#: progress callback: (stage name, items done in this step, stage total)
Progress = Callable[[str, int, int], None]


@dataclass
class IngestReport:
    """What one ingest did. Counts are rows written in this run (0 on an unchanged re-ingest)."""

    conversation_id: str
    turns_total: int = 0
    turns_written: int = 0
    facts_total: int = 0
    facts_written: int = 0
    entities: int = 0
    mentions: int = 0
    supersedes: int = 0
    events: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    bookmarks: list[str] = field(default_factory=list)
    """Neo4j bookmarks of the writes (opaque strings). Pass them to another process's
    `Memory.use_bookmarks` so its reads see these writes (causal consistency on a cluster)."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _serial(turn_index: int, n: int) -> int:
    """Arrival order of a fact: its first cited turn's position, then its position in the turn."""
    return turn_index * 1000 + n


class Ingestor:
    """Runs the write path for whole conversations or appended turns.

    Args:
        store: an open store (schema applied).
        embedder: the sentence embedder (same one the read path uses).
        extractor: the fact extractor for ``extracted`` facts (None disables them).
        batch_size: rows per write transaction.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        extractor: FactExtractor | None = None,
        batch_size: int = 500,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.writer = GraphWriter(store, batch_size=batch_size)

    def ingest(
        self,
        conversation: ConversationRecord,
        *,
        facts: FactSources = "both",
        progress: Progress | None = None,
    ) -> IngestReport:
        """Write one conversation. Idempotent. See module docstring for the stages."""
        cid = conversation.conversation_id
        report = IngestReport(conversation_id=cid, turns_total=len(conversation.turns))
        clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            report.seconds[stage] = round(report.seconds.get(stage, 0.0) + now - clock, 3)
            clock = now

        self.writer.sessions(conversation.sessions)
        report.turns_written = self._write_turns(cid, conversation.turns, progress)
        self.writer.timeline([t.id for t in conversation.turns])
        lap("turns")

        records: list[FactRecord] = []
        entities: list[EntityRecord] = []
        mentions: list[tuple[str, str]] = []
        index_of = {t.id: t.index for t in conversation.turns}
        if facts in ("annotation", "both"):
            records.extend(
                f.model_copy(
                    update={
                        "serial": _serial(min((index_of.get(c, 0) for c in f.cites), default=0), n)
                    }
                )
                for n, f in enumerate(conversation.facts)
            )
        if facts in ("extracted", "both") and self.extractor is not None:
            extraction = self.extractor.extract(cid, conversation.turns, conversation.speakers)
            records.extend(extraction.facts)
            entities.extend(extraction.entities)
            mentions.extend(extraction.mentions)
        lap("extract")
        self._write_facts(cid, records, entities, mentions, report, progress)
        lap("facts")
        return report

    def append(
        self,
        conversation_id: str,
        turns: Sequence[TurnRecord],
        *,
        speakers: Sequence[str],
        previous_turn_id: str | None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Append turns to a live conversation: they get facts, entities, dates and supersession
        like a batch ingest (extracted facts only; there are no annotations for live turns)."""
        report = IngestReport(conversation_id=conversation_id, turns_total=len(turns))
        first_seen: dict[int, SessionRecord] = {}
        for t in turns:
            first_seen.setdefault(
                t.session,
                SessionRecord(
                    conversation_id=conversation_id, session=t.session, started_at=t.observed_at
                ),
            )
        self.writer.sessions(list(first_seen.values()))
        report.turns_written = self._write_turns(conversation_id, turns, progress)
        ids = ([previous_turn_id] if previous_turn_id else []) + [t.id for t in turns]
        self.writer.timeline(ids)
        records: list[FactRecord] = []
        entities: list[EntityRecord] = []
        mentions: list[tuple[str, str]] = []
        if self.extractor is not None:
            extraction = self.extractor.extract(conversation_id, turns, speakers)
            records, entities, mentions = extraction.facts, extraction.entities, extraction.mentions
        self._write_facts(conversation_id, records, entities, mentions, report, progress)
        return report

    # --- stages -------------------------------------------------------------------------------
    def _write_turns(self, cid: str, turns: Sequence[TurnRecord], progress: Progress | None) -> int:
        stored = {
            row["id"]: row["text"]
            for row in self.store.read("read/turn_fingerprints", conversation_id=cid)
            if row["embedded"]
        }
        todo = [t for t in turns if stored.get(t.id) != t.text]
        if not todo:
            return 0
        vectors = self.embedder.encode([t.text for t in todo])
        tick = (lambda n: progress("turns", n, len(todo))) if progress else None
        return self.writer.turns(todo, vectors, tick)

    def _write_facts(
        self,
        cid: str,
        records: list[FactRecord],
        entities: list[EntityRecord],
        mentions: list[tuple[str, str]],
        report: IngestReport,
        progress: Progress | None,
    ) -> None:
        records = assign_keys(records)
        report.facts_total = len(records)
        report.entities = self.writer.entities(_dedupe_entities(entities))
        stored = {
            row["id"]: row for row in self.store.read("read/fact_fingerprints", conversation_id=cid)
        }
        todo = [f for f in records if stored.get(f.id, {}).get("text") != f.text]
        if todo:
            vectors = self.embedder.encode([f.text for f in todo])
            tick = (lambda n: progress("facts", n, len(todo))) if progress else None
            report.facts_written = self.writer.facts(todo, vectors, tick)
        report.mentions = self.writer.mentions(mentions)
        # supersession over everything stored on the same keys plus the new records
        keyed: dict[str, FactRecord] = {}
        for row in stored.values():
            if row["key"]:
                keyed[row["id"]] = FactRecord(
                    id=row["id"],
                    conversation_id=cid,
                    subject="",
                    relation="",
                    object="",
                    text=row["text"] or "",
                    source=row["source"] or "extracted",
                    key=row["key"],
                    serial=row["serial"] or 0,
                    valid_from=row["valid_from"],
                )
        for f in records:
            if f.key:
                keyed[f.id] = f
        report.supersedes = self.writer.supersedes(supersession_chain(list(keyed.values())))
        report.events = self.writer.events(group_events(records))


def _dedupe_entities(entities: Sequence[EntityRecord]) -> list[EntityRecord]:
    seen: dict[str, EntityRecord] = {}
    for e in entities:
        if e.id in seen:
            merged = tuple(dict.fromkeys(seen[e.id].aliases + e.aliases))
            seen[e.id] = seen[e.id].model_copy(update={"aliases": merged})
        else:
            seen[e.id] = e
    return list(seen.values())
