"""Forgetting: whole conversations, an owner, single turns, a topic; and the audit records of
memory requests (`kgmem.api.Memory` delegates here; docs/roles-and-requests.md)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from typing import Any

from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, MalformedInput, OwnerNotFound
from kgmem.ids import checks_ids
from kgmem.ingest.extraction.nlp import load_pipeline
from kgmem.ingest.requests.grammar import topic_request
from kgmem.ingest.writing.threads import OwnerThreads
from kgmem.memory.caches import ReadCaches
from kgmem.memory.ingestors import Ingestors
from kgmem.memory.owners import Owners
from kgmem.memory.schema import SchemaKeeper
from kgmem.models import TurnRecord
from kgmem.retrieve.scope import check_owner
from kgmem.store import Store
from kgmem.turns import check_conversation_id

__all__ = ["Forgetter"]


class Forgetter:
    """The forgetting methods of `kgmem.api.Memory`, and the audit of memory requests.

    Args:
        store: the Neo4j seam.
        settings: ``spacy_model`` reads a topic to forget.
        schema: applied before anything is forgotten.
        owners: whose conversation it is (an owner's threads are superseded again).
        ingestors: build the pipeline that forgets turns and derives facts again.
        caches: dropped for the conversation around every change.
    """

    def __init__(
        self,
        store: Store,
        settings: Settings,
        schema: SchemaKeeper,
        owners: Owners,
        ingestors: Ingestors,
        caches: ReadCaches,
    ) -> None:
        self.store = store
        self.settings = settings
        self.schema = schema
        self.owners = owners
        self.ingestors = ingestors
        self.caches = caches

    @checks_ids
    def forget(self, conversation_id: str) -> dict[str, int]:
        """Delete a conversation: turns, sessions, facts, events and entities no one else uses.

        Returns:
            counts deleted per label. Raises `ConversationNotFound` if it holds nothing.
        """
        self.caches.invalidate(conversation_id)
        owner = self.owners.owner_of(conversation_id)
        rows = self.store.write("write/forget_conversation", conversation_id=conversation_id)
        counts = {k: int(v) for k, v in rows[0].items()} if rows else {}
        if not any(counts.values()):
            raise ConversationNotFound(conversation_id)
        if owner is not None:  # a value this thread superseded in another is current again
            OwnerThreads(self.store).supersede(owner)
        return counts

    @checks_ids
    def forget_owner(self, owner: str) -> dict[str, int]:
        """Delete everything of an owner, with the no-trace guarantee of `forget`: every
        conversation it owns (turns, sessions, facts, events, entities, memory-request records,
        forgotten-turn ids, the Conversation nodes), in one transaction.

        Returns:
            counts deleted per label and ``conversations``.

        Raises:
            MalformedInput: an empty owner. OwnerNotFound: the owner has no conversation.
        """
        check_owner(owner)
        rows = self.store.write("write/forget_owner", owner=owner)
        counts = {k: int(v) for k, v in rows[0].items()} if rows else {}
        self.caches.contexts.clear()
        self.caches.chain_sources.clear()
        if not counts.get("conversations"):
            raise OwnerNotFound(owner)
        return counts

    @checks_ids
    def forget_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> dict[str, int]:
        """Forget single turns of a conversation so that no trace of their text remains.

        The turns go, and with them every fact citing one of them (a fact that also cites a kept
        turn is dropped too: its text may quote the forgotten one). ``NEXT`` is relinked around
        them. The conversation's entities, mentions and extracted facts are then derived again
        from the kept turns (so no entity name or alias survives that only a forgotten turn
        said), events are regrouped, and supersession is recomputed: if a forgotten fact had
        superseded another, the older value is current again and its ``valid_to`` is cleared.
        All in one transaction under the conversation's lock; this memory's cached context of
        the conversation is dropped. The cost is one extraction pass over the kept turns.

        Forgetting is idempotent: ids already forgotten are remembered (the id only, as a
        ``ForgottenTurn`` node) and skipped. Re-ingesting a source that still holds a forgotten
        turn stores it again.

        Args:
            conversation_id: the tenant.
            turn_ids: local ids (``a1``, ``D1:3``) or full ids (``<conversation_id>:a1``).

        Returns:
            ``{"turns": n, "facts": n, "rederived_facts": n}`` (0 turns when all were already
            forgotten).

        Raises:
            TurnNotFound: an id the conversation never held, named in the message (nothing
                is changed).
            MalformedInput: no turn ids given, or a ``:`` in the conversation id.
        """
        check_conversation_id(conversation_id, file="<forget_turns>")
        if not turn_ids:
            raise MalformedInput("no turn ids to forget", conversation_id=conversation_id)
        prefix = f"{conversation_id}:"
        full = [t if t.startswith(prefix) else prefix + t for t in turn_ids]
        self.schema.ensure()
        self.caches.invalidate(conversation_id)
        try:
            return self.ingestors.ingestor("extracted").forget_turns(conversation_id, full)
        finally:
            self.caches.invalidate(conversation_id)

    @checks_ids
    def forget_about(self, conversation_id: str, description: str) -> dict[str, Any]:
        """Forget what the user said about ``description`` ("my passport number", or a whole
        request such as "forget what I said about my landlord"): the same matching and limits as
        a request made in the conversation (`kgmem.ingest.requests.rules`), applied to every stored
        turn of the user (every turn when no turn has a role), through `forget_turns`.

        Returns:
            ``{"status": "applied" | "too_broad" | "no_match", "turn_ids": [...], "matched": n,
            "turns": n, "facts": n}``: ids and counts, never text. A request that would remove
            more than ``Settings.request_max_turns`` turns removes nothing (``too_broad``).

        Raises:
            MalformedInput: an empty description or a ``:`` in the conversation id.
            ConversationNotFound: the conversation holds no turns.
        """
        check_conversation_id(conversation_id, file="<forget_about>")
        if not description or not description.strip():
            raise MalformedInput(
                "nothing to forget: empty description", conversation_id=conversation_id
            )
        self.schema.ensure()
        rows = self.store.read("read/conversation_turns", conversation_id=conversation_id)
        if not rows:
            raise ConversationNotFound(conversation_id)
        turns = [
            TurnRecord(
                id=r["id"],
                conversation_id=conversation_id,
                session=int(r["session"]),
                index=int(r["index"]),
                dia_id=str(r["dia_id"]),
                speaker=r["speaker"],
                text=r["text"],
                observed_at=r["observed_at"],
                role=r["role"],
                request=bool(r["request"]),
            )
            for r in rows
        ]
        ingestor = self.ingestors.ingestor("extracted")
        explicit = topic_request(description, load_pipeline(self.settings.spacy_model))
        plan = ingestor.plan(turns, prior=set(), explicit=explicit)
        # the audit record of an explicit request names no turn: it gets an id of its own
        outcome = dataclasses.replace(
            plan.outcomes[0], turn_id=f"{conversation_id}:forget-about-{uuid.uuid4().hex[:12]}"
        )
        plan.outcomes = [outcome]
        counts = {"turns": 0, "facts": 0}
        self.caches.invalidate(conversation_id)
        try:
            if plan.removed:
                done = ingestor.forget_turns(conversation_id, sorted(plan.removed))
                counts = {"turns": done["turns"], "facts": done["facts"]}
            ingestor.record_requests(conversation_id, plan, turns)
        finally:
            self.caches.invalidate(conversation_id)
        return {
            "status": outcome.status,
            "turn_ids": sorted(plan.removed),
            "matched": outcome.matched,
            **counts,
        }

    @checks_ids
    def requests(self, conversation_id: str) -> list[dict[str, Any]]:
        """The audit records of a conversation's memory requests, in conversation order:
        ``{"id", "turn_id", "kind", "status", "index", "observed_at", "recorded_at",
        "removed", "matched"}`` (ids, counts and times only; no text is kept)."""
        rows = self.store.read("read/memory_requests", conversation_id=conversation_id)
        return [{k: v for k, v in row.items() if k != "gone"} for row in rows]
