"""Who owns a conversation: the claim a write makes, and the lookups (`kgmem.api.Memory`
delegates here; docs/scopes-and-filters.md)."""

from __future__ import annotations

from kgmem.errors import MalformedInput
from kgmem.ids import checks_ids
from kgmem.ingest.writing.threads import share_entities
from kgmem.memory.caches import ReadCaches
from kgmem.retrieve.scope import check_owner
from kgmem.store import Store
from kgmem.store.tenant import owner_token

__all__ = ["Owners"]


class Owners:
    """A conversation's owner, read and claimed over one store; a claim drops the owner's
    cached context from ``caches``."""

    def __init__(self, store: Store, caches: ReadCaches) -> None:
        self.store = store
        self.caches = caches

    def claim(self, conversation_id: str, owner: str | None) -> None:
        """Give the conversation ``owner`` before anything of it is written (``write/claim_owner``).

        Raises:
            MalformedInput: an empty owner, or the conversation already has another owner.
        """
        if owner is None:
            return
        check_owner(owner)
        rows = self.store.write(
            "write/claim_owner",
            conversation_id=conversation_id,
            owner=owner,
            owner_tk=owner_token(owner),
        )
        stored = rows[0]["owner"] if rows else owner
        if stored != owner:
            raise MalformedInput(
                f"conversation {conversation_id!r} belongs to another owner; a conversation has "
                "one owner (write under that owner, or to another conversation id)",
                conversation_id=conversation_id,
            )
        if rows and rows[0]["before"] is None:  # entities it already holds become the owner's
            share_entities(self.store, conversation_id)
        self.caches.invalidate_owner(owner)

    @checks_ids
    def owner_of(self, conversation_id: str) -> str | None:
        """The owner of a conversation, or None (no owner, or no such conversation)."""
        rows = self.store.read("read/conversation_owner", conversation_id=conversation_id)
        return rows[0]["owner"] if rows else None

    @checks_ids
    def owner_conversations(self, owner: str) -> list[str]:
        """The ids of the owner's conversations, sorted (empty for an unknown owner).

        Raises:
            MalformedInput: an empty owner.
        """
        check_owner(owner)
        rows = self.store.read("read/owner_conversations", owner=owner)
        return [str(r["conversation_id"]) for r in rows]
