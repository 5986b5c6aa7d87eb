"""The write path: conversation → turns + NEXT → embeddings → facts (annotation and/or
extracted) → typed entities → dates → supersession keys → events → transactional writes.

Re-ingesting the same input changes nothing: ids are deterministic, writes are ``MERGE``, and
turns/facts whose stored text is unchanged are neither re-embedded nor rewritten.

Reliability (what a crash, a concurrent writer or a repeat must not break; docs/reliability.md):

- **Whole units.** Everything is computed first (embeddings, extraction, supersession, events);
  then each batch of ``batch_size`` turns is written in *one* transaction together with its
  ``NEXT`` edges, the facts citing it, their entities, mentions, supersession and event links
  (`kgmem.ingest.writing.writer.WriteUnit`). A crash leaves whole batches, each with its facts; the
  same ingest run again completes the rest.
- **One writer at a time per conversation.** Every transaction first takes the conversation's
  lock (``write/lock_conversation``). An append reads the tail, allocates ``index`` and default
  ids, and writes its turns, facts and links in that one locked transaction, so concurrent
  appends queue instead of reading the same tail: nothing is lost, the ``NEXT`` chain stays one
  line, and an explicit id that is already stored is skipped (stored once).
- **Forgetting turns** (`Ingestor.forget_turns`) deletes them and every fact citing them, then
  derives the conversation's entities, mentions, extracted facts, supersession and events again
  from the turns that remain, in the same transaction.

Roles and requests (docs/roles-and-requests.md):

- **Only the user's own turns state facts.** Extracted facts citing a turn whose role is
  ``assistant``, ``system`` or ``tool``, or a memory-request turn, are dropped (`own_facts`):
  the assistant's suggestions, acknowledgements and questions are its own, never evidence of a
  fact about the user. Turns of named speakers without a role (LoCoMo) are unaffected.
- **Memory requests** (`kgmem.ingest.requests.rules`) are planned before anything is written: a
  withheld turn and the turns a forget request removes are never written (if an earlier ingest
  stored them, they go through `Ingestor.forget_turns`); the request turn is stored with
  ``request = true`` and any restated value masked; a ``(:MemoryRequest)`` audit record (ids
  and counts, no text) is written, and its removals are applied again on every re-ingest.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from kgmem.config import shipped_default
from kgmem.embed import Embedder
from kgmem.ingest.extraction.events import group_events
from kgmem.ingest.extraction.extract import FactExtractor
from kgmem.ingest.extraction.language import count_languages, note_report
from kgmem.ingest.extraction.nlp import DEFAULT_PIPELINE
from kgmem.ingest.extraction.passages import embed_turn_texts
from kgmem.ingest.extraction.relation_keys import adopt_keys
from kgmem.ingest.extraction.supersession import assign_keys, supersession_links
from kgmem.ingest.report import FactSources, IngestReport, Progress
from kgmem.ingest.requests.grammar import ParsedRequest
from kgmem.ingest.requests.rules import RequestPlan, RequestPolicy
from kgmem.ingest.stages.context import IngestContext, Stage
from kgmem.ingest.stages.forgetting import ForgetStage
from kgmem.ingest.stages.requests import RequestStage
from kgmem.ingest.writing.append import AppendHook, NewTurn, allocate_turns
from kgmem.ingest.writing.stored import changed, keyed, turn_from_row
from kgmem.ingest.writing.units import dedupe_entities, plan_units, serial
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
from kgmem.models import ConversationRecord, EntityRecord, FactRecord, SessionRecord, TurnRecord
from kgmem.store import Store, Transaction

__all__ = [
    "Ingestor",
]


class Ingestor(Stage):
    """Runs the write path for whole conversations, appended turns and forgotten turns, as
    stages over one shared `IngestContext`: ``forgetting`` (`ForgetStage`) and ``requests``
    (`RequestStage`); writing whole conversations and appends is its own.

    Args:
        store: an open store (schema applied).
        embedder: the sentence embedder (same one the read path uses).
        extractor: the fact extractor for ``extracted`` facts (None disables them).
        batch_size: turns per write transaction of an ingest (with their facts and links).
        requests: who may make memory requests and their limits (default: on, role user).
        spacy_model: the spaCy pipeline requests are parsed with.
        attribute_similarity: least cosine of an unlisted predicate phrase to a listed
            attribute's (`kgmem.ingest.extraction.attributes.assign_attributes`).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        extractor: FactExtractor | None = None,
        batch_size: int = 500,
        requests: RequestPolicy | None = None,
        spacy_model: str = DEFAULT_PIPELINE,
        attribute_similarity: float = shipped_default("attribute_similarity"),
    ) -> None:
        super().__init__(
            IngestContext(
                store,
                embedder,
                extractor=extractor,
                batch_size=batch_size,
                requests=requests,
                spacy_model=spacy_model,
                attribute_similarity=attribute_similarity,
            )
        )
        self.forgetting = ForgetStage(self.ctx)
        self.requests = RequestStage(self.ctx, self.forgetting)

    # --- the stages' entry points ----------------------------------------------------------------
    def forget_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> dict[str, int]:
        """`ForgetStage.forget_turns`: forget turns (full ids), leaving no trace of their text."""
        return self.forgetting.forget_turns(conversation_id, turn_ids)

    def plan(
        self,
        turns: Sequence[TurnRecord],
        *,
        prior: set[str],
        explicit: ParsedRequest | None = None,
        conversation_id: str | None = None,
    ) -> RequestPlan:
        """`RequestStage.plan`: the memory requests of ``turns`` under this ingestor's policy."""
        return self.requests.plan(
            turns, prior=prior, explicit=explicit, conversation_id=conversation_id
        )

    def record_requests(self, cid: str, plan: RequestPlan, turns: Sequence[TurnRecord]) -> None:
        """`RequestStage.record_requests`: write the plan's audit records."""
        self.requests.record_requests(cid, plan, turns)

    # --- whole conversations -------------------------------------------------------------------
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

        self.ctx.forget_vectors()
        prior = self.requests.prior(cid)
        given_turns = conversation.turns
        plan = self.plan(given_turns, prior=prior, conversation_id=cid)
        drop = plan.removed | plan.withheld | prior
        if plan or drop:
            conversation = _without(conversation, plan, drop)
        lap("requests")

        todo_turns = self._todo_turns(cid, conversation.turns)
        turn_vectors = embed_turn_texts(self.ctx.encode, [t.text for t in todo_turns])
        lap("turns")

        records, entities, mentions = self._adopted_facts(conversation, facts, report)
        lap("extract")

        stored_facts = {
            row["id"]: row for row in self.store.read("read/fact_fingerprints", conversation_id=cid)
        }
        todo_facts = [f for f in records if changed(stored_facts.get(f.id), f)]
        fact_vectors = self.ctx.encode([f.text for f in todo_facts])
        pairs = supersession_links(list(keyed(stored_facts.values(), cid, records).values()))
        events = group_events(records)
        entities = dedupe_entities(entities)

        units = plan_units(
            turns=conversation.turns,
            sessions=conversation.sessions,
            todo_turns=dict(zip((t.id for t in todo_turns), turn_vectors, strict=True)),
            records=records,
            todo_facts=dict(zip((f.id for f in todo_facts), fact_vectors, strict=True)),
            entities=entities,
            mentions=mentions,
            pairs=pairs,
            events=events,
            batch_size=self.batch_size,
        )
        for unit in units:
            self.writer.commit(cid, unit)
            count_languages(report, unit.turns)
            if progress is not None:
                progress("turns", len(unit.turns), len(todo_turns))
                progress("facts", len(unit.facts), len(todo_facts))
        lap("facts")
        note_report(cid, report)
        report.turns_written = len(todo_turns)
        report.facts_total = len(records)
        report.facts_written = len(todo_facts)
        report.entities = len(entities)
        report.mentions = len(set(mentions))
        report.supersedes = len(pairs)
        report.events = len(events)
        if plan or drop:
            self.requests.apply(cid, plan, given_turns, report)
        self.ctx.supersede_owner(cid)
        self.ctx.derive_standing(cid)
        report.embedding_seconds = round(self.ctx.embed_seconds, 3)
        return report

    def _todo_turns(self, cid: str, turns: Sequence[TurnRecord]) -> list[TurnRecord]:
        """The turns to write: those not stored embedded with the same text, role and request
        mark (a re-ingest re-embeds and rewrites nothing else)."""
        stored = {
            row["id"]: (row["text"], row["role"], row["request"])
            for row in self.store.read("read/turn_fingerprints", conversation_id=cid)
            if row["embedded"]
        }
        return [t for t in turns if stored.get(t.id) != (t.text, t.role, t.request)]

    def _facts_of(
        self, conversation: ConversationRecord, facts: FactSources
    ) -> tuple[list[FactRecord], list[EntityRecord], list[tuple[str, str]]]:
        """The conversation's facts from the sources ``facts`` names (annotations in arrival
        order, extracted facts), with supersession keys; and the extracted entities and
        mentions."""
        cid = conversation.conversation_id
        records: list[FactRecord] = []
        entities: list[EntityRecord] = []
        mentions: list[tuple[str, str]] = []
        index_of = {t.id: t.index for t in conversation.turns}
        if facts in ("annotation", "both"):
            records.extend(
                f.model_copy(
                    update={
                        "serial": serial(min((index_of.get(c, 0) for c in f.cites), default=0), n)
                    }
                )
                for n, f in enumerate(conversation.facts)
            )
        if facts in ("extracted", "both") and self.extractor is not None:
            extraction = self.ctx.extract(
                cid, conversation.turns, conversation.speakers, self.threads.owner(cid)
            )
            records.extend(extraction.facts)
            entities.extend(extraction.entities)
            mentions.extend(extraction.mentions)
        return assign_keys(records), entities, mentions

    def _adopted_facts(
        self, conversation: ConversationRecord, facts: FactSources, report: IngestReport
    ) -> tuple[list[FactRecord], list[EntityRecord], list[tuple[str, str]]]:
        """`_facts_of`, with the keys the relation decision adopts for facts no rule keys
        (`kgmem.ingest.extraction.relation_keys.adopt_keys`), listed in ``report.adoptions``."""
        records, entities, mentions = self._facts_of(conversation, facts)
        records, adopted = adopt_keys(
            records,
            self._keyed_vectors(conversation.conversation_id, records),
            {t.id: t.text for t in conversation.turns},
            self.ctx.encode,
        )
        report.adoptions = [asdict(a) for a in adopted]
        return records, entities, mentions

    def _keyed_vectors(self, cid: str, records: Sequence[FactRecord]) -> list[dict[str, Any]]:
        """The stored keyed facts the relation decision compares with
        (`kgmem.ingest.extraction.relation_keys`); read only when some record has no key."""
        if all(f.key for f in records):
            return []
        return list(self.store.read("read/keyed_fact_vectors", conversation_id=cid))

    # --- appended turns ------------------------------------------------------------------------
    def append(
        self,
        conversation_id: str,
        turns: Sequence[NewTurn],
        *,
        progress: Progress | None = None,
        hook: AppendHook | None = None,
    ) -> IngestReport:
        """Append turns to a live conversation in one transaction under the conversation lock.

        The tail is read, indexes and default ids are allocated (`allocate_turns`), and the
        turns, their ``NEXT`` edges, extracted facts, entities, mentions, supersession and event
        links are written together. Turns get facts like a batch ingest (extracted only; there
        are no annotations for live turns). The driver retries the whole transaction on a
        transient error (a deadlock with another writer), so nothing is half-written. ``hook``
        (`AppendHook`) chooses the turns to write and adds its own statements inside that
        transaction; it must not keep state between attempts (the driver may retry).

        Returns:
            the report; ``turn_ids`` lists the ids stored, in order.
        """
        cid = conversation_id
        self.ctx.forget_vectors()
        turns, withheld, asked = self.requests.screen(cid, turns)
        vectors = dict(
            zip(
                (t.text for t in turns),
                embed_turn_texts(self.ctx.encode, [t.text for t in turns]),
                strict=True,
            )
        )

        def work(tx: Transaction) -> IngestReport:
            report = IngestReport(conversation_id=cid, turns_total=len(turns))
            tx.run("write/lock_conversation", conversation_id=cid)
            todo = hook.prepare(tx, turns) if hook is not None else turns
            last = tx.run("read/last_turn", conversation_id=cid)
            records = allocate_turns(
                cid,
                todo,
                last[0] if last else None,
                lambda ids: {
                    r["id"]
                    for r in tx.run("read/existing_turn_ids", conversation_id=cid, turn_ids=ids)
                },
            )
            if not records:
                return report
            unit = self._append_unit(tx, cid, records, last, vectors, report)
            unit.write(tx)
            count_languages(report, unit.turns)
            if hook is not None:
                hook.finish(tx, records)
            report.turns_written = len(records)
            report.turn_ids = [t.id for t in records]
            return report

        report = self.store.transaction(work)
        note_report(cid, report)
        if asked or withheld.outcomes:
            rows = self.store.read("read/conversation_turns", conversation_id=cid)
            stored = [turn_from_row(cid, row) for row in rows]
            plan = (
                self.plan(stored, prior=self.requests.prior(cid), conversation_id=cid)
                if asked
                else RequestPlan()
            )
            plan.outcomes.extend(withheld.outcomes)
            plan.withheld |= withheld.withheld
            self.requests.apply(cid, plan, stored, report)
        if report.turns_written:
            self.ctx.supersede_owner(cid)
            self.ctx.derive_standing(cid)
        if progress is not None:
            progress("turns", report.turns_written, report.turns_written)
        return report

    def _append_unit(
        self,
        tx: Transaction,
        cid: str,
        records: Sequence[TurnRecord],
        last: Sequence[Mapping[str, Any]],
        vectors: Mapping[str, Any],
        report: IngestReport,
    ) -> WriteUnit:
        """The appended turns' rows, inside the append's transaction: their sessions, ``NEXT``
        edges from the stored tail ``last``, extracted facts (keyed and linked against the stored
        facts), entities, mentions and events. ``vectors`` maps each turn text to its embedding;
        the report gets the fact counts."""
        speakers = [r["speaker"] for r in tx.run("read/speakers", conversation_id=cid)]
        for r in records:
            if r.speaker not in speakers:
                speakers.append(r.speaker)
        facts: list[FactRecord] = []
        entities: list[EntityRecord] = []
        mentions: list[tuple[str, str]] = []
        if self.extractor is not None:
            extraction = self.ctx.extract(cid, records, speakers, self.threads.owner(cid, tx))
            facts, entities, mentions = (
                extraction.facts,
                extraction.entities,
                extraction.mentions,
            )
        facts = assign_keys(facts)
        stored_keyed = tx.run("read/keyed_fact_vectors", conversation_id=cid) if facts else []
        facts, adopted = adopt_keys(
            facts, stored_keyed, {r.id: r.text for r in records}, self.ctx.encode
        )
        report.adoptions = [asdict(a) for a in adopted]
        stored_facts = tx.run("read/fact_fingerprints", conversation_id=cid)
        pairs = supersession_links(list(keyed(stored_facts, cid, facts).values()))
        events = group_events(facts)
        entities = dedupe_entities(entities)
        first: dict[int, SessionRecord] = {}
        for t in records:
            first.setdefault(
                t.session,
                SessionRecord(conversation_id=cid, session=t.session, started_at=t.observed_at),
            )
        ids = ([last[0]["id"]] if last else []) + [t.id for t in records]
        report.facts_total = report.facts_written = len(facts)
        report.entities = len(entities)
        report.mentions = len(set(mentions))
        report.supersedes = len(pairs)
        report.events = len(events)
        return WriteUnit(
            sessions=session_rows(first.values()),
            turns=turn_rows(records, [vectors[t.text] for t in records]),
            next=next_rows(ids),
            entities=entity_rows(entities),
            facts=fact_rows(facts, self.ctx.encode([f.text for f in facts])),
            mentions=mention_rows(mentions),
            supersedes=supersede_rows(pairs),
            events=event_rows(events),
        )


def _without(
    conversation: ConversationRecord, plan: RequestPlan, drop: set[str]
) -> ConversationRecord:
    """The conversation without the turns a request plan drops (and the facts citing them or a
    request turn), request turns marked and their restated values masked."""
    kept_turns = tuple(
        t.model_copy(
            update={"text": plan.masked.get(t.id, t.text), "request": t.id in plan.requests}
        )
        for t in conversation.turns
        if t.id not in drop
    )
    barred = drop | plan.requests
    return conversation.model_copy(
        update={
            "turns": kept_turns,
            "facts": tuple(f for f in conversation.facts if not barred & set(f.cites)),
        }
    )
