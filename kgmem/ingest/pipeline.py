"""The write path: conversation → turns + NEXT → embeddings → facts (annotation and/or
extracted) → typed entities → dates → supersession keys → events → transactional writes.

Re-ingesting the same input changes nothing: ids are deterministic, writes are ``MERGE``, and
turns/facts whose stored text is unchanged are neither re-embedded nor rewritten.

Reliability (what a crash, a concurrent writer or a repeat must not break; docs/reliability.md):

- **Whole units.** Everything is computed first (embeddings, extraction, supersession, events);
  then each batch of ``batch_size`` turns is written in *one* transaction together with its
  ``NEXT`` edges, the facts citing it, their entities, mentions, supersession and event links
  (`kgmem.ingest.writer.WriteUnit`). A crash leaves whole batches, each with its facts; the same
  ingest run again completes the rest.
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
- **Memory requests** (`kgmem.ingest.requests`) are planned before anything is written: a
  withheld turn and the turns a forget request removes are never written (if an earlier ingest
  stored them, they go through `Ingestor.forget_turns`); the request turn is stored with
  ``request = true`` and any restated value masked; a ``(:MemoryRequest)`` audit record (ids
  and counts, no text) is written, and its removals are applied again on every re-ingest.
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from kgmem.embed import Embedder
from kgmem.errors import TurnNotFound
from kgmem.ingest.attributes import assign_attributes
from kgmem.ingest.events import group_events
from kgmem.ingest.extract import Extraction, FactExtractor
from kgmem.ingest.nlp import DEFAULT_PIPELINE, load_pipeline
from kgmem.ingest.requests import (
    ParsedRequest,
    RequestOutcome,
    RequestPlan,
    RequestPolicy,
    detect,
    mask,
    may_request,
    plan_requests,
)
from kgmem.ingest.supersession import assign_keys, supersession_links
from kgmem.ingest.writer import (
    GraphWriter,
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
from kgmem.models import (
    ConversationRecord,
    EntityRecord,
    EventRecord,
    FactRecord,
    SessionRecord,
    SourceKind,
    TimeInterval,
    TurnRecord,
)
from kgmem.roles import Role
from kgmem.store import Store, Transaction

__all__ = [
    "AppendHook",
    "FactSources",
    "IngestReport",
    "Ingestor",
    "NewTurn",
    "allocate_turns",
    "own_facts",
]

NOT_THE_USER = frozenset({"assistant", "system", "tool"})
"""Roles whose turns never state facts (`kgmem.roles`)."""

FactSources = Literal["annotation", "extracted", "both", "none"]
#: progress callback: (stage name, items done in this step, stage total)
Progress = Callable[[str, int, int], None]
Row = dict[str, Any]


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
    turn_ids: list[str] = field(default_factory=list)
    bookmarks: list[str] = field(default_factory=list)
    """Neo4j bookmarks of the writes (opaque strings). Pass them to another process's
    `Memory.use_bookmarks` so its reads see these writes (causal consistency on a cluster)."""
    requests: list[dict[str, object]] = field(default_factory=list)
    """Memory requests found in this run: ``{"turn_id", "index", "kind", "status", "removed",
    "matched"}`` (`kgmem.ingest.requests.RequestOutcome`; ids and counts, never text)."""
    withheld: list[str] = field(default_factory=list)
    """Ids of turns not stored because they asked not to be ("don't save this")."""
    removed: list[str] = field(default_factory=list)
    """Ids of turns removed by forget requests (never written, or forgotten if stored)."""
    not_applied: list[str] = field(default_factory=list)
    """Ids of request turns that removed nothing: too broad (more than ``max_turns``) or
    matching no stored turn (see ``requests`` for which)."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class NewTurn:
    """A turn to append, before the database gives it an index (and, without ``id``, an id).

    Attributes:
        speaker / text: as given (validated by `kgmem.api.Memory.add_turns`).
        observed_at: timezone-aware.
        id: the caller's local id, or None for a default ``t<index>``.
        session: session number, or None for the conversation's last session (1 if new).
        role / request: as on `kgmem.models.TurnRecord`.
        source / source_kind / document: see `kgmem.models.TurnRecord`.
    """

    speaker: str
    text: str
    observed_at: datetime
    id: str | None = None
    session: int | None = None
    role: Role | None = None
    request: bool = False
    source: str | None = None
    source_kind: SourceKind = "chat"
    document: str | None = None


class AppendHook(Protocol):
    """Work that must share an append's locked transaction (see `Ingestor.append`): a caller
    that decides what to append from what is stored (the LangGraph store's item versions) reads
    and links inside the same lock, so concurrent writers cannot both act on one stale read.

    ``prepare`` runs right after the conversation lock is taken and returns the turns to write
    (a subset of ``turns`` with the same texts; ids may change; empty = write nothing).
    ``finish`` runs after they are written, in the same transaction, with their records.
    """

    def prepare(self, tx: Transaction, turns: Sequence[NewTurn]) -> Sequence[NewTurn]: ...

    def finish(self, tx: Transaction, records: Sequence[TurnRecord]) -> None: ...


def _serial(turn_index: int, n: int) -> int:
    """Arrival order of a fact: its first cited turn's position, then its position in the turn."""
    return turn_index * 1000 + n


def allocate_turns(
    conversation_id: str,
    turns: Sequence[NewTurn],
    last: Mapping[str, Any] | None,
    stored: Callable[[list[str]], set[str]],
) -> list[TurnRecord]:
    """Give appended turns their ``index``, id and session; drop ids that are already stored.

    Runs inside the append transaction, after the conversation lock is taken, so ``last`` (the
    stored tail: ``index``, ``session``) and ``stored`` (which of these full ids exist) are
    current. Indexes continue the tail with no gap. An explicit id already stored, or repeated
    in this call, is skipped (stored once). A default id is ``t<index>``; if that id is taken
    (an explicit ``t7`` appended earlier, or later in this call) it becomes ``t<index>-2``,
    ``-3``, ... so a default id never collides and never loses a turn.

    Returns:
        the records to write, in input order.
    """
    next_index = int(last["index"]) + 1 if last else 0
    last_session = int(last["session"]) if last and last.get("session") is not None else 1
    explicit = {f"{conversation_id}:{t.id}" for t in turns if t.id is not None}
    defaults = [f"{conversation_id}:t{next_index + k}" for k in range(len(turns))]
    taken = stored(sorted(explicit | set(defaults)))
    seen: set[str] = set()
    out: list[TurnRecord] = []
    for turn in turns:
        index = next_index + len(out)
        if turn.id is not None:
            local = turn.id
            if f"{conversation_id}:{local}" in taken | seen:
                continue
        else:
            local, n = f"t{index}", 1
            while f"{conversation_id}:{local}" in taken | seen | explicit:
                n += 1
                local = f"t{index}-{n}"
                taken |= stored([f"{conversation_id}:{local}"])
        seen.add(f"{conversation_id}:{local}")
        out.append(
            TurnRecord(
                id=f"{conversation_id}:{local}",
                conversation_id=conversation_id,
                session=turn.session if turn.session is not None else last_session,
                index=index,
                dia_id=local,
                speaker=turn.speaker,
                text=turn.text,
                observed_at=turn.observed_at.astimezone(UTC),
                role=turn.role,
                request=turn.request,
                source=turn.source,
                source_kind=turn.source_kind,
                document=turn.document,
            )
        )
    return out


def own_facts(extraction: Extraction, turns: Sequence[TurnRecord]) -> Extraction:
    """Keep only the facts each turn may state (docs/roles-and-requests.md).

    - A turn of the user, or of a named speaker without a role, keeps its facts.
    - A memory-request turn states nothing: its facts and mentions are dropped.
    - An ``assistant``, ``system`` or ``tool`` turn is never evidence of a fact about the user.
      Its suggestions (``hypothetical`` facts: "you could try the Harlow 88") are kept as the
      speaker's own: the speaker is the subject, no entity of the fact's old subject stays
      linked, the text says who suggested it, and the fact takes part in no current value.
      Everything else it says (acknowledgements, restatements, questions, plans) yields no fact.
    """
    by_id = {t.id: t for t in turns}
    barred = {t.id for t in turns if t.request or t.role in NOT_THE_USER}
    if not barred:
        return extraction
    requests = {t.id for t in turns if t.request}
    person = {e.name.casefold(): e.id for e in extraction.entities if e.type == "person"}
    kept: list[FactRecord] = []
    for f in extraction.facts:
        if not barred & set(f.cites):
            kept.append(f)
            continue
        if requests & set(f.cites) or f.modality != "hypothetical" or len(f.cites) != 1:
            continue
        turn = by_id.get(f.cites[0])
        speaker_id = person.get(turn.speaker.casefold()) if turn is not None else None
        if turn is None or speaker_id is None:
            continue
        others = [(e, r) for e, r in f.about if r != "subject" and e != f.subject]
        kept.append(
            f.model_copy(
                update={
                    "subject": speaker_id,
                    "about": ((speaker_id, "subject"), *others),
                    "text": f"{turn.speaker} suggested: {f.text}",
                    "key": None,
                }
            )
        )
    return Extraction(
        facts=kept,
        entities=extraction.entities,
        mentions=[m for m in extraction.mentions if m[0] not in requests],
    )


class Ingestor:
    """Runs the write path for whole conversations, appended turns and forgotten turns.

    Args:
        store: an open store (schema applied).
        embedder: the sentence embedder (same one the read path uses).
        extractor: the fact extractor for ``extracted`` facts (None disables them).
        batch_size: turns per write transaction of an ingest (with their facts and links).
        requests: who may make memory requests and their limits (default: on, role user).
        spacy_model: the spaCy pipeline requests are parsed with.
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
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.batch_size = max(1, batch_size)
        self.writer = GraphWriter(store)
        self.policy = requests if requests is not None else RequestPolicy()
        self.spacy_model = spacy_model

    def _extract(
        self, cid: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """The extractor's output over ``turns``, keeping only facts the turns may state."""
        assert self.extractor is not None
        kept = own_facts(self.extractor.extract(cid, turns, speakers), turns)
        facts = assign_attributes(kept.facts, self.embedder.encode)  # attribute values
        return Extraction(facts=facts, entities=kept.entities, mentions=kept.mentions)

    # --- memory requests -----------------------------------------------------------------------
    def _prior(self, cid: str) -> set[str]:
        """Turn ids that stored requests removed or withheld (re-applied on every ingest)."""
        rows = self.store.read("read/memory_requests", conversation_id=cid)
        return {i for row in rows if row["status"] in ("applied", "withheld") for i in row["gone"]}

    def plan(
        self,
        turns: Sequence[TurnRecord],
        *,
        prior: set[str],
        explicit: ParsedRequest | None = None,
    ) -> RequestPlan:
        """The `kgmem.ingest.requests.RequestPlan` of ``turns`` under this ingestor's policy."""
        if not turns or not (self.policy.enabled or explicit is not None):
            return RequestPlan()
        policy = self.policy
        if explicit is not None and not policy.enabled:
            policy = RequestPolicy(True, policy.roles, policy.max_turns, policy.similarity)
        return plan_requests(
            turns,
            policy=policy,
            nlp=load_pipeline(self.spacy_model),
            embed=self.embedder.encode,
            prior=prior,
            explicit=explicit,
        )

    def record_requests(self, cid: str, plan: RequestPlan, turns: Sequence[TurnRecord]) -> None:
        """Write the plan's audit records (ids, kinds, statuses, counts: never text), and remember
        every removed or withheld id as forgotten (``write/forget_turns``; none of them is stored
        any more when this runs)."""
        at = {t.id: t for t in turns}
        now = datetime.now(UTC)
        rows = [
            {
                "id": f"{cid}:request:{o.turn_id.removeprefix(cid + ':')}",
                "conversation_id": cid,
                "turn_id": o.turn_id,
                "kind": o.kind,
                "status": o.status,
                "index": o.index,
                "observed_at": at[o.turn_id].observed_at if o.turn_id in at else now,
                "recorded_at": now,
                "removed": list(o.removed),
                "matched": o.matched,
            }
            for o in plan.outcomes
        ]
        gone = sorted(plan.removed | plan.withheld)

        def work(tx: Transaction) -> None:
            tx.run("write/lock_conversation", conversation_id=cid)
            if gone:
                tx.run("write/forget_turns", conversation_id=cid, turn_ids=gone)
            if rows:
                tx.run("write/merge_memory_requests", rows=rows)

        if rows or gone:
            self.store.transaction(work)

    def _apply(
        self, cid: str, plan: RequestPlan, turns: Sequence[TurnRecord], report: IngestReport
    ) -> None:
        """Forget what the plan removes that is stored, audit it, and fill the report."""
        gone = plan.removed | plan.withheld
        stored = (
            {
                r["id"]
                for r in self.store.read(
                    "read/existing_turn_ids", conversation_id=cid, turn_ids=sorted(gone)
                )
            }
            if gone
            else set()
        )
        if stored:
            self.forget_turns(cid, sorted(stored))
        self.record_requests(cid, plan, turns)
        report.requests = [
            {
                "turn_id": o.turn_id,
                "index": o.index,
                "kind": o.kind,
                "status": o.status,
                "removed": list(o.removed),
                "matched": o.matched,
            }
            for o in plan.outcomes
        ]
        report.withheld = sorted(plan.withheld)
        report.removed = sorted(plan.removed)
        report.not_applied = [
            o.turn_id for o in plan.outcomes if o.status in ("too_broad", "no_match")
        ]

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
        prior = self._prior(cid)
        given_turns = conversation.turns
        plan = self.plan(given_turns, prior=prior)
        drop = plan.removed | plan.withheld | prior
        if plan or drop:
            kept_turns = tuple(
                t.model_copy(
                    update={"text": plan.masked.get(t.id, t.text), "request": t.id in plan.requests}
                )
                for t in conversation.turns
                if t.id not in drop
            )
            barred = drop | plan.requests
            conversation = conversation.model_copy(
                update={
                    "turns": kept_turns,
                    "facts": tuple(f for f in conversation.facts if not barred & set(f.cites)),
                }
            )

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            report.seconds[stage] = round(report.seconds.get(stage, 0.0) + now - clock, 3)
            clock = now

        stored_turns = {
            row["id"]: (row["text"], row["role"], row["request"])
            for row in self.store.read("read/turn_fingerprints", conversation_id=cid)
            if row["embedded"]
        }
        todo_turns = [
            t for t in conversation.turns if stored_turns.get(t.id) != (t.text, t.role, t.request)
        ]
        turn_vectors = self.embedder.encode([t.text for t in todo_turns])
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
            extraction = self._extract(cid, conversation.turns, conversation.speakers)
            records.extend(extraction.facts)
            entities.extend(extraction.entities)
            mentions.extend(extraction.mentions)
        records = assign_keys(records)
        lap("extract")

        stored_facts = {
            row["id"]: row for row in self.store.read("read/fact_fingerprints", conversation_id=cid)
        }
        todo_facts = [f for f in records if _changed(stored_facts.get(f.id), f)]
        fact_vectors = self.embedder.encode([f.text for f in todo_facts])
        pairs = supersession_links(list(_keyed(stored_facts.values(), cid, records).values()))
        events = group_events(records)
        entities = _dedupe_entities(entities)

        units = _plan_units(
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
            if progress is not None:
                progress("turns", len(unit.turns), len(todo_turns))
                progress("facts", len(unit.facts), len(todo_facts))
        lap("facts")
        report.turns_written = len(todo_turns)
        report.facts_total = len(records)
        report.facts_written = len(todo_facts)
        report.entities = len(entities)
        report.mentions = len(set(mentions))
        report.supersedes = len(pairs)
        report.events = len(events)
        if plan or drop:
            self._apply(cid, plan, given_turns, report)
        return report

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
        turns, withheld, asked = self._screen(cid, turns)
        vectors = dict(
            zip(
                (t.text for t in turns),
                self.embedder.encode([t.text for t in turns]),
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
            speakers = [r["speaker"] for r in tx.run("read/speakers", conversation_id=cid)]
            for r in records:
                if r.speaker not in speakers:
                    speakers.append(r.speaker)
            facts: list[FactRecord] = []
            entities: list[EntityRecord] = []
            mentions: list[tuple[str, str]] = []
            if self.extractor is not None:
                extraction = self._extract(cid, records, speakers)
                facts, entities, mentions = (
                    extraction.facts,
                    extraction.entities,
                    extraction.mentions,
                )
            facts = assign_keys(facts)
            stored_facts = tx.run("read/fact_fingerprints", conversation_id=cid)
            pairs = supersession_links(list(_keyed(stored_facts, cid, facts).values()))
            events = group_events(facts)
            entities = _dedupe_entities(entities)
            first: dict[int, SessionRecord] = {}
            for t in records:
                first.setdefault(
                    t.session,
                    SessionRecord(conversation_id=cid, session=t.session, started_at=t.observed_at),
                )
            ids = ([last[0]["id"]] if last else []) + [t.id for t in records]
            unit = WriteUnit(
                sessions=session_rows(first.values()),
                turns=turn_rows(records, [vectors[t.text] for t in records]),
                next=next_rows(ids),
                entities=entity_rows(entities),
                facts=fact_rows(facts, self.embedder.encode([f.text for f in facts])),
                mentions=mention_rows(mentions),
                supersedes=supersede_rows(pairs),
                events=event_rows(events),
            )
            unit.write(tx)
            if hook is not None:
                hook.finish(tx, records)
            report.turns_written = len(records)
            report.turn_ids = [t.id for t in records]
            report.facts_total = report.facts_written = len(facts)
            report.entities = len(entities)
            report.mentions = len(set(mentions))
            report.supersedes = len(pairs)
            report.events = len(events)
            return report

        report = self.store.transaction(work)
        if asked or withheld.outcomes:
            rows = self.store.read("read/conversation_turns", conversation_id=cid)
            stored = [_turn_from_row(cid, row) for row in rows]
            plan = self.plan(stored, prior=self._prior(cid)) if asked else RequestPlan()
            plan.outcomes.extend(withheld.outcomes)
            plan.withheld |= withheld.withheld
            self._apply(cid, plan, stored, report)
        if progress is not None:
            progress("turns", report.turns_written, report.turns_written)
        return report

    def _screen(
        self, cid: str, turns: Sequence[NewTurn]
    ) -> tuple[list[NewTurn], RequestPlan, bool]:
        """Before an append is written: drop the new turns that ask not to be kept, and mark
        forget requests (``request = true``, restated values masked). Only parses when a new
        turn of a requesting role holds a request word (`may_request`), and only in a
        conversation with an assistant turn (stored or new).

        Returns:
            the turns to write, a plan holding the withheld turns' outcomes, and whether a
            forget request is among the turns (its matching runs after the write).
        """
        policy = self.policy
        maybe = [policy.enabled and t.role in policy.roles and may_request(t.text) for t in turns]
        withheld = RequestPlan()
        if not any(maybe):
            return list(turns), withheld, False
        rows = self.store.read("read/conversation_turns", conversation_id=cid)
        if not any(r["role"] == "assistant" for r in rows) and not any(
            t.role == "assistant" for t in turns
        ):
            return list(turns), withheld, False
        nlp = load_pipeline(self.spacy_model)
        position = (max((int(r["index"]) for r in rows), default=-1)) + 1
        kept: list[NewTurn] = []
        asked = False
        for n, (turn, candidate) in enumerate(zip(turns, maybe, strict=True)):
            parsed = detect(turn.text, nlp) if candidate else None
            if parsed is not None and parsed.kind == "withhold":
                # never written; the audit record keeps only an id and a position
                local = turn.id if turn.id is not None else f"withheld-{uuid.uuid4().hex[:12]}"
                turn_id = f"{cid}:{local}"
                withheld.withheld.add(turn_id)
                withheld.outcomes.append(
                    RequestOutcome(turn_id, position + n, "withhold", "withheld")
                )
                continue
            if parsed is not None:
                asked = True
                turn = replace(turn, request=True, text=mask(turn.text, parsed.restated))
            kept.append(turn)
        return kept, withheld, asked

    # --- forgetting turns ----------------------------------------------------------------------
    def forget_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> dict[str, int]:
        """Forget turns (full ids) of one conversation, leaving no trace of their text.

        In one transaction under the conversation lock: the turns and every fact citing one of
        them are deleted (a fact citing a forgotten and a kept turn is dropped: its text may
        quote either); ``NEXT`` is relinked around them; then the conversation's entities,
        mentions and extracted facts are derived again from the kept turns (entity names and
        aliases only from text that remains), and supersession and events are recomputed over
        the remaining facts (a value that a forgotten fact superseded is current again, with its
        ``valid_to`` restored). Forgotten ids are remembered (ids only), so forgetting them
        again does nothing.

        Returns:
            ``{"turns": n, "facts": n, "rederived_facts": n}``: turns and citing facts deleted
            (0 and 0 when every id was already forgotten), extracted facts derived again.

        Raises:
            TurnNotFound: an id the conversation never held (nothing is changed).
        """
        cid = conversation_id
        wanted = list(dict.fromkeys(turn_ids))

        def work(tx: Transaction) -> dict[str, int]:
            tx.run("write/lock_conversation", conversation_id=cid)
            rows = tx.run("read/conversation_turns", conversation_id=cid)
            present = {row["id"] for row in rows}
            missing = [i for i in wanted if i not in present]
            if missing:
                known = {
                    r["id"]
                    for r in tx.run(
                        "read/forgotten_turn_ids", conversation_id=cid, turn_ids=missing
                    )
                }
                unknown = [i for i in missing if i not in known]
                if unknown:
                    raise TurnNotFound(cid, unknown)
            gone = [i for i in wanted if i in present]
            if not gone:
                return {"turns": 0, "facts": 0, "rederived_facts": 0}
            gone_set = set(gone)
            fact_rows_before = tx.run("read/fact_records", conversation_id=cid)
            derived = any(f["source"] == "extracted" for f in fact_rows_before) or bool(
                tx.run("read/count_conversation", conversation_id=cid)[0]["entities"]
            )
            given = [
                _fact_from_row(cid, f)
                for f in fact_rows_before
                if f["source"] != "extracted" and not gone_set & set(f["cites"])
            ]
            old_vectors = {
                (f["id"], f["text"]): f["embedding"]
                for f in fact_rows_before
                if f["source"] == "extracted" and f["embedding"] is not None
            }
            counts = tx.run("write/forget_turns", conversation_id=cid, turn_ids=gone)[0]
            tx.run("write/clear_derived", conversation_id=cid)

            kept = [_turn_from_row(cid, row) for row in rows if row["id"] not in gone_set]
            bridges: list[Row] = []
            previous: str | None = None
            skipped = False
            for row in rows:  # ordered by index: link across each run of forgotten turns
                if row["id"] in gone_set:
                    skipped = True
                    continue
                if previous is not None and skipped:
                    bridges.append({"prev": previous, "next": row["id"]})
                previous, skipped = row["id"], False

            extracted: list[FactRecord] = []
            entities: list[EntityRecord] = []
            mentions: list[tuple[str, str]] = []
            if derived and self.extractor is not None and kept:
                speakers = list(dict.fromkeys(t.speaker for t in kept))
                extraction = self._extract(cid, kept, speakers)
                extracted, entities, mentions = (
                    extraction.facts,
                    extraction.entities,
                    extraction.mentions,
                )
            records = assign_keys([*given, *extracted])
            extracted = [r for r in records if r.source == "extracted"]
            fresh = [f for f in extracted if (f.id, f.text) not in old_vectors]
            encoded = dict(
                zip(
                    (f.id for f in fresh),
                    self.embedder.encode([f.text for f in fresh]),
                    strict=True,
                )
            )
            vectors = [
                old_vectors[(f.id, f.text)] if f.id not in encoded else encoded[f.id]
                for f in extracted
            ]
            keyed = [r for r in records if r.key is not None]
            WriteUnit(
                next=bridges,
                entities=entity_rows(_dedupe_entities(entities)),
                facts=fact_rows(extracted, vectors),
                mentions=mention_rows(mentions),
                supersedes=supersede_rows(supersession_links(keyed)),
                events=event_rows(group_events(records)),
            ).write(tx)
            return {
                "turns": int(counts["turns"]),
                "facts": int(counts["facts"]),
                "rederived_facts": len(extracted),
            }

        return self.store.transaction(work)


# --- helpers -----------------------------------------------------------------------------------


def _keyed(
    stored: Iterable[Mapping[str, Any]], cid: str, records: Sequence[FactRecord]
) -> dict[str, FactRecord]:
    """Stored keyed facts (as minimal records) overlaid with the new records on any key."""
    keyed: dict[str, FactRecord] = {}
    for row in stored:
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
                modality=row.get("modality") or "asserted",
            )
    for f in records:
        if f.key:
            keyed[f.id] = f
        else:
            keyed.pop(f.id, None)  # re-extracted without a key (e.g. now hypothetical)
    return keyed


def _changed(row: Mapping[str, Any] | None, fact: FactRecord) -> bool:
    """A fact must be (re)written: new, or its text, key or modality differs from the store."""
    if row is None:
        return True
    return (
        row.get("text") != fact.text
        or row.get("key") != fact.key
        or (row.get("modality") or "asserted") != fact.modality
    )


def _plan_units(
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


def _turn_from_row(cid: str, row: Mapping[str, Any]) -> TurnRecord:
    return TurnRecord(
        id=row["id"],
        conversation_id=cid,
        session=int(row["session"]),
        index=int(row["index"]),
        dia_id=str(row["dia_id"]),
        speaker=row["speaker"],
        text=row["text"],
        observed_at=row["observed_at"],
        role=row.get("role"),
        request=bool(row.get("request")),
        source=row.get("source"),
        source_kind=row.get("source_kind") or "chat",
    )


def _fact_from_row(cid: str, row: Mapping[str, Any]) -> FactRecord:
    interval = None
    if row["event_time"] is not None and row["event_end"] is not None:
        interval = TimeInterval(
            start=row["event_time"],
            end=row["event_end"],
            granularity=row["event_granularity"] or "day",
            phrase=row["event_phrase"] or "",
        )
    return FactRecord(
        id=row["id"],
        conversation_id=cid,
        subject=row["subject"] or "",
        relation=row["relation"] or "",
        object=row["object"] or "",
        text=row["text"] or "",
        source=row["source"] or "manual",
        cites=tuple(row["cites"]),
        about=tuple((e, r) for e, r in row["about"]),
        event_time=interval,
        valid_from=row["valid_from"],
        key=row["key"],
        serial=row["serial"] or 0,
        confidence=row["confidence"] if row["confidence"] is not None else 1.0,
        session=row["session"],
    )


def _dedupe_entities(entities: Sequence[EntityRecord]) -> list[EntityRecord]:
    seen: dict[str, EntityRecord] = {}
    for e in entities:
        if e.id in seen:
            merged = tuple(dict.fromkeys(seen[e.id].aliases + e.aliases))
            seen[e.id] = seen[e.id].model_copy(update={"aliases": merged})
        else:
            seen[e.id] = e
    return list(seen.values())
