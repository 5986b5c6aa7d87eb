"""One person across an owner's threads: entities, current values and memory requests that span
every conversation of one owner (docs/scopes-and-filters.md, "One person across threads").

A conversation without an owner is its own world, exactly as before: its entities are its own
(``<conversation_id>:e:<type>:<slug>``), supersession compares its own facts, and a memory
request removes its own turns. A conversation with an owner shares three things with the
owner's other threads:

- **Entities.** The *entity scope* of an owned conversation is ``owner:<owner>`` (`entity_scope`;
  a conversation id never holds ``:``, so a scope never equals one). The extractor still works
  on one thread; `rescope` then moves its entity ids into the owner's scope, so "Lisbon" of
  thread 3 and of thread 9, and "the user" of both, are one node with ``owner`` set. Turns and
  facts stay per conversation (their ``conversation_id`` is the thread; each hit says it).
  A shared entity remembers which thread gave each alias (``alias_from``), so forgetting a
  thread removes the aliases only it said, and the entity goes when no fact or turn of any
  thread uses it any more.
- **Current values.** Every write to an owned conversation recomputes the owner's supersession
  links over the keyed facts of all its threads (`owner_links`): on one key (the holder is the
  shared entity, so the key is the same in every thread) a later value by observed time
  supersedes the earlier, whatever thread each came from.
- **Memory requests.** A forget request in one thread matches the earlier turns (by observed
  time) of every thread of the owner (`owner_turns`), and the turns it removes go from their
  own threads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kgmem.ingest.extraction.extract import Extraction
from kgmem.ingest.extraction.supersession import Link, supersession_links
from kgmem.ingest.writing.writer import supersede_rows
from kgmem.models import FactRecord, TurnRecord
from kgmem.store import Store, Transaction
from kgmem.store.tenant import entity_scope

__all__ = [
    "OwnerThreads",
    "conversation_of",
    "drop_document_persons",
    "keyed_fact",
    "owner_links",
    "owner_turns",
    "rescope",
    "share_entities",
    "unshared",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def conversation_of(turn_id: str) -> str:
    """The conversation of a full turn id ``<conversation_id>:<local id>`` (conversation ids
    never hold ``:``)."""
    return turn_id.partition(":")[0]


def rescope(extraction: Extraction, conversation_id: str, owner: str | None) -> Extraction:
    """Move one thread's entity ids into its owner's scope (unchanged without an owner).

    ``<conversation_id>:e:<type>:<slug>`` becomes ``owner:<owner>:e:<type>:<slug>`` in the
    entity records (which get ``owner``), in every fact field that holds an entity id
    (subject, object, about, holder, key) and in the mentions. Fact ids stay the thread's.
    """
    if not owner:
        return extraction
    old, new = f"{conversation_id}:e:", f"{entity_scope(conversation_id, owner)}:e:"

    def move(value: str) -> str:
        return new + value[len(old) :] if value.startswith(old) else value

    def maybe(value: str | None) -> str | None:
        return move(value) if value is not None else None

    facts = [
        f.model_copy(
            update={
                "subject": move(f.subject),
                "object": move(f.object),
                "about": tuple((move(e), r) for e, r in f.about),
                "holder": maybe(f.holder),
                "key": maybe(f.key),
            }
        )
        for f in extraction.facts
    ]
    entities = [
        e.model_copy(update={"id": move(e.id), "owner": owner}) for e in extraction.entities
    ]
    mentions = [(t, move(e)) for t, e in extraction.mentions]
    return Extraction(facts=facts, entities=entities, mentions=mentions)


def drop_document_persons(extraction: Extraction, names: Iterable[str]) -> Extraction:
    """Remove the person entities named like a document (a document's chunks are spoken by the
    document's name, and the extractor takes every speaker for a person): their mentions and
    ``about`` links go, and a fact whose subject was one keeps the name as a literal subject."""
    folded = {n.casefold() for n in names}
    gone = {e.id for e in extraction.entities if e.type == "person" and e.name.casefold() in folded}
    if not gone:
        return extraction
    name_of = {e.id: e.name for e in extraction.entities if e.id in gone}
    facts = [
        f
        if f.subject not in gone and not any(e in gone for e, _ in f.about)
        else f.model_copy(
            update={
                "subject": name_of.get(f.subject, f.subject),
                "object": name_of.get(f.object, f.object),
                "about": tuple((e, r) for e, r in f.about if e not in gone),
                "holder": None if f.holder in gone else f.holder,
            }
        )
        for f in extraction.facts
    ]
    return Extraction(
        facts=facts,
        entities=[e for e in extraction.entities if e.id not in gone],
        mentions=[m for m in extraction.mentions if m[1] not in gone],
    )


def _when(value: datetime | None) -> datetime:
    if value is None:
        return _EPOCH
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def owner_links(facts: Sequence[FactRecord], owner: str) -> list[Link]:
    """The supersession links among the keyed facts of all of an owner's threads.

    Facts are put in one arrival order, by observed time (``valid_from``), then thread, then
    their serial within the thread (serials of two threads are not comparable: each counts its
    own turn positions), and linked by `kgmem.ingest.extraction.supersession.supersession_links` as
    if they were one conversation's.

    Args:
        facts: keyed facts of the owner's conversations (any order).
        owner: the owner (names the one group the facts are put in).
    """
    ordered = sorted(facts, key=lambda f: (_when(f.valid_from), f.conversation_id, f.serial, f.id))
    scope = entity_scope("", owner)
    return supersession_links(
        [
            f.model_copy(update={"conversation_id": scope, "serial": n})
            for n, f in enumerate(ordered)
        ]
    )


def keyed_fact(row: Mapping[str, Any]) -> FactRecord:
    """A fact record from a ``read/owner_keyed_facts`` row (what supersession needs)."""
    return FactRecord(
        id=row["id"],
        conversation_id=row["conversation_id"],
        subject=row["subject"] or "",
        relation=row["relation"] or "",
        object=row["object"] or "",
        text=row["text"] or "",
        source=row["source"] or "extracted",
        key=row["key"],
        serial=row["serial"] or 0,
        valid_from=row["valid_from"],
        modality=row["modality"] or "asserted",
        multiplicity=row["multiplicity"],
    )


def owner_turns(
    own: Sequence[TurnRecord], others: Sequence[TurnRecord]
) -> tuple[list[TurnRecord], dict[str, int]]:
    """One thread's turns and the owner's other threads' turns in one utterance order.

    The turns are ordered by observed time, then thread, then index, and renumbered ``0..n-1``
    (a memory request matches the turns *before* it: across threads that is by observed time).

    Returns:
        the renumbered copies, and each own turn's original index by id (to map a request's
        position back into its thread).
    """
    merged = sorted(
        [*own, *others], key=lambda t: (_when(t.observed_at), t.conversation_id, t.index)
    )
    return (
        [t.model_copy(update={"index": n}) for n, t in enumerate(merged)],
        {t.id: t.index for t in own},
    )


class OwnerThreads:
    """What the write path reads and writes across an owner's threads.

    Args:
        store: an open store.
    """

    def __init__(self, store: Store) -> None:
        self.store = store

    def owner(self, conversation_id: str, tx: Transaction | None = None) -> str | None:
        """The conversation's owner, or None (read inside ``tx`` when given)."""
        rows = (
            tx.run("read/conversation_owner", conversation_id=conversation_id)
            if tx is not None
            else self.store.read("read/conversation_owner", conversation_id=conversation_id)
        )
        return str(rows[0]["owner"]) if rows else None

    def others(self, owner: str, conversation_id: str) -> list[str]:
        """The ids of the owner's other conversations, sorted."""
        rows = self.store.read("read/owner_conversations", owner=owner)
        return [str(r["conversation_id"]) for r in rows if r["conversation_id"] != conversation_id]

    def other_turn_rows(self, owner: str, conversation_id: str) -> list[dict[str, Any]]:
        """``read/conversation_turns`` rows of the owner's other conversations."""
        rows: list[dict[str, Any]] = []
        for cid in self.others(owner, conversation_id):
            rows += [
                r | {"conversation_id": cid}
                for r in self.store.read("read/conversation_turns", conversation_id=cid)
            ]
        return rows

    def gone(self, owner: str) -> set[str]:
        """Turn ids that the stored memory requests of any of the owner's conversations removed
        or withheld (re-applied on every ingest of any thread)."""
        ids = [
            str(r["conversation_id"])
            for r in self.store.read("read/owner_conversations", owner=owner)
        ]
        out: set[str] = set()
        for cid in ids:
            for row in self.store.read("read/memory_requests", conversation_id=cid):
                if row["status"] in ("applied", "withheld"):
                    out.update(row["gone"])
        return out

    def supersede(self, owner: str) -> int:
        """Write the owner's supersession links again over all its threads (`owner_links`),
        in one transaction holding every one of its conversations' write locks (taken in id
        order, so two such passes queue instead of deadlocking).

        Returns:
            the number of links written.
        """

        def work(tx: Transaction) -> int:
            cids = [
                str(r["conversation_id"]) for r in tx.run("read/owner_conversations", owner=owner)
            ]
            for cid in cids:
                tx.run("write/lock_conversation", conversation_id=cid)
            facts = [keyed_fact(r) for r in tx.run("read/owner_keyed_facts", owner=owner)]
            links = owner_links(facts, owner)
            tx.run("write/clear_owner_supersedes", owner=owner)
            if links:
                tx.run("write/merge_supersedes", rows=supersede_rows(links))
            return len(links)

        return self.store.transaction(work)


def unshared(store: Store, conversation_id: str | None = None) -> list[dict[str, Any]]:
    """Owned conversations whose entities are still their own (stored before an owner's threads
    shared entities, or before an ownerless conversation was claimed): ``{"conversation_id",
    "owner", "entities"}`` rows (only ``conversation_id``'s, when given)."""
    return store.read("read/unshared_owner_entities", conversation_id=conversation_id)


def share_entities(store: Store, conversation_id: str | None = None) -> dict[str, int]:
    """Move the entities of owned conversations into their owners' scopes
    (``write/share_entities``, one transaction per conversation under its lock), then write
    each owner's supersession links again over all its threads. Keeps all data; idempotent.

    Args:
        conversation_id: only this conversation (None: every conversation `unshared` lists).

    Returns:
        ``{"conversations": n, "entities": n}`` moved.
    """
    rows = unshared(store, conversation_id)
    moved = 0
    for row in rows:
        cid, owner = str(row["conversation_id"]), str(row["owner"])

        def work(tx: Transaction, cid: str = cid, owner: str = owner) -> int:
            tx.run("write/lock_conversation", conversation_id=cid)
            done = tx.run(
                "write/share_entities", conversation_id=cid, scope=entity_scope(cid, owner)
            )
            return int(done[0]["entities"]) if done else 0

        moved += store.transaction(work)
    threads = OwnerThreads(store)
    for owner in sorted({str(r["owner"]) for r in rows}):
        threads.supersede(owner)
    return {"conversations": len(rows), "entities": moved}
