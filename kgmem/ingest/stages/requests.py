"""Memory requests on the write path: planning them over turns, screening appended turns before
they are written, and applying and auditing what they remove (`kgmem.ingest.requests.rules` holds
the rules; docs/roles-and-requests.md)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from kgmem.ingest.extraction.nlp import load_pipeline
from kgmem.ingest.report import IngestReport
from kgmem.ingest.requests.decision import decide_requests
from kgmem.ingest.requests.grammar import ParsedRequest, detect, mask, may_request
from kgmem.ingest.requests.rules import RequestOutcome, RequestPlan, plan_requests
from kgmem.ingest.stages.context import IngestContext, Stage
from kgmem.ingest.stages.forgetting import ForgetStage
from kgmem.ingest.writing.append import NewTurn
from kgmem.ingest.writing.stored import turn_from_row
from kgmem.ingest.writing.threads import conversation_of, owner_turns
from kgmem.models import TurnRecord
from kgmem.store import Transaction

__all__ = ["RequestStage"]


class RequestStage(Stage):
    """The memory-request stage of `kgmem.ingest.pipeline.Ingestor` (applying a request forgets
    the turns it removes, through ``forgetting``)."""

    def __init__(self, ctx: IngestContext, forgetting: ForgetStage) -> None:
        super().__init__(ctx)
        self.forgetting = forgetting

    def prior(self, cid: str) -> set[str]:
        """Turn ids that stored requests removed or withheld (re-applied on every ingest); in
        an owned conversation, those of every thread of the owner."""
        owner = self.threads.owner(cid)
        if owner is not None:
            return self.threads.gone(owner)
        rows = self.store.read("read/memory_requests", conversation_id=cid)
        return {i for row in rows if row["status"] in ("applied", "withheld") for i in row["gone"]}

    def plan(
        self,
        turns: Sequence[TurnRecord],
        *,
        prior: set[str],
        explicit: ParsedRequest | None = None,
        conversation_id: str | None = None,
    ) -> RequestPlan:
        """The `kgmem.ingest.requests.rules.RequestPlan` of ``turns`` under this ingestor's policy.

        With ``conversation_id`` of an owned conversation, its requests match the earlier
        turns (by observed time) of every thread of the owner (`kgmem.ingest.writing.threads`); each
        outcome keeps its position in its own thread.
        """
        if not turns or not (self.policy.enabled or explicit is not None):
            return RequestPlan()
        policy = self.policy
        if explicit is not None and not policy.enabled:
            policy = replace(policy, enabled=True)
        owner = self.threads.owner(conversation_id) if conversation_id is not None else None
        others = (
            [
                turn_from_row(row["conversation_id"], row)
                for row in self.threads.other_turn_rows(owner, conversation_id)
            ]
            if owner is not None and conversation_id is not None and explicit is None
            else []
        )
        merged, local = owner_turns(turns, others) if others else (list(turns), {})
        plan = plan_requests(
            merged,
            policy=policy,
            nlp=load_pipeline(self.spacy_model),
            embed=self.ctx.encode,
            prior=prior,
            explicit=explicit,
            scan=set(local) if others else None,
        )
        if others:
            plan.outcomes = [replace(o, index=local.get(o.turn_id, o.index)) for o in plan.outcomes]
        return plan

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
        # turns of the owner's other threads were forgotten in their own threads (`apply`)
        gone = sorted(i for i in plan.removed | plan.withheld if conversation_of(i) == cid)

        def work(tx: Transaction) -> None:
            tx.run("write/lock_conversation", conversation_id=cid)
            if gone:
                tx.run("write/forget_turns", conversation_id=cid, turn_ids=gone)
            if rows:
                tx.run("write/merge_memory_requests", rows=rows)

        if rows or gone:
            self.store.transaction(work)

    def apply(
        self, cid: str, plan: RequestPlan, turns: Sequence[TurnRecord], report: IngestReport
    ) -> None:
        """Forget what the plan removes that is stored (in its own thread, for a request that
        spans an owner's threads), audit it, and fill the report."""
        gone = plan.removed | plan.withheld
        by_thread: dict[str, list[str]] = defaultdict(list)
        for turn_id in sorted(gone):
            by_thread[conversation_of(turn_id)].append(turn_id)
        for thread, ids in sorted(by_thread.items(), key=lambda kv: (kv[0] != cid, kv[0])):
            stored = {
                r["id"]
                for r in self.store.read(
                    "read/existing_turn_ids", conversation_id=thread, turn_ids=ids
                )
            }
            if stored:
                self.forgetting.forget_turns(thread, sorted(stored))
        self.record_requests(cid, plan, turns)
        report.requests = [
            {
                "turn_id": o.turn_id,
                "index": o.index,
                "kind": o.kind,
                "status": o.status,
                "removed": list(o.removed),
                "matched": o.matched,
                **({"decided": list(o.decided)} if o.decided is not None else {}),
            }
            for o in plan.outcomes
        ]
        report.withheld = sorted(plan.withheld)
        report.removed = sorted(plan.removed)
        report.not_applied = [
            o.turn_id for o in plan.outcomes if o.status in ("too_broad", "no_match")
        ]

    def screen(self, cid: str, turns: Sequence[NewTurn]) -> tuple[list[NewTurn], RequestPlan, bool]:
        """Before an append is written: drop the new turns that ask not to be kept, and mark
        forget requests (``request = true``, restated values masked). The grammar parses only a
        new turn of a requesting role that holds a request word (`may_request`); the request
        decision reads the others (`kgmem.ingest.requests.decision`; the turn before the first
        new one is not read, as it has no vector at hand). Either acts only in a conversation
        with an assistant turn (stored or new).

        Returns:
            the turns to write, a plan holding the withheld turns' outcomes, and whether a
            forget request is among the turns (its matching runs after the write).
        """
        policy = self.policy
        mine = [policy.enabled and t.role in policy.roles for t in turns]
        withheld = RequestPlan()
        if not any(mine):
            return list(turns), withheld, False
        found = self._screen_requests(turns, mine)
        if not found:
            return list(turns), withheld, False
        rows = self.store.read("read/conversation_turns", conversation_id=cid)
        if not any(r["role"] == "assistant" for r in rows) and not any(
            t.role == "assistant" for t in turns
        ):
            return list(turns), withheld, False
        position = (max((int(r["index"]) for r in rows), default=-1)) + 1
        kept: list[NewTurn] = []
        asked = False
        for n, turn in enumerate(turns):
            parsed = found.get(n)
            if parsed is not None and parsed.kind == "withhold":
                # never written; the audit record keeps only an id and a position
                local = turn.id if turn.id is not None else f"withheld-{uuid.uuid4().hex[:12]}"
                turn_id = f"{cid}:{local}"
                withheld.withheld.add(turn_id)
                withheld.outcomes.append(
                    RequestOutcome(
                        turn_id, position + n, "withhold", "withheld", decided=parsed.decided
                    )
                )
                continue
            if parsed is not None:
                asked = True
                if not parsed.keeps_turn:
                    turn = replace(turn, request=True, text=mask(turn.text, parsed.restated))
            kept.append(turn)
        return kept, withheld, asked

    def _screen_requests(
        self, turns: Sequence[NewTurn], mine: list[bool]
    ) -> dict[int, ParsedRequest]:
        """Position -> request of the new turns of a requesting role: the grammar's where a
        request word invites parsing, else the request decision's."""
        nlp = load_pipeline(self.spacy_model)
        found: dict[int, ParsedRequest] = {}
        misses: list[tuple[str, str, str | None]] = []
        for n, (turn, ok) in enumerate(zip(turns, mine, strict=True)):
            parsed = detect(turn.text, nlp) if ok and may_request(turn.text) else None
            if parsed is not None:
                found[n] = parsed
            elif ok:
                misses.append((str(n), turn.text, turns[n - 1].text if n else None))
        if misses and self.policy.decision is not None:
            decided = decide_requests(
                misses, nlp=nlp, embed=self.ctx.encode, threshold=self.policy.decision
            )
            found.update((int(n), parsed) for n, parsed in decided.items())
        return found
