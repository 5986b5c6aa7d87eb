"""What a `kgmem.api.Memory` caches about conversations between reads, and the one rule for
dropping it: every write to a conversation drops its entries and every owner's."""

from __future__ import annotations

from typing import Any

from kgmem.retrieve.chain import StoreFactSource
from kgmem.retrieve.scope import owner_scope_key

__all__ = ["ReadCaches"]


class ReadCaches:
    """The per-conversation read context (entity names, speakers; `kgmem.retrieve.context`)
    and chain fact sources, keyed by conversation id or owner scope key. Shared by a memory's
    retrievers and emptied by its writes."""

    def __init__(self) -> None:
        self.contexts: dict[str, Any] = {}
        self.chain_sources: dict[str, StoreFactSource] = {}

    def invalidate(self, conversation_id: str) -> None:
        """Drop what this memory caches about a conversation, and every owner context (the
        conversation may be an owner's; every write calls it)."""
        self.contexts.pop(conversation_id, None)
        self.chain_sources.pop(conversation_id, None)
        for key in [k for k in self.contexts if k.startswith(owner_scope_key(""))]:
            self.contexts.pop(key, None)

    def invalidate_owner(self, owner: str) -> None:
        """Drop this memory's cached context of an owner's conversations taken together."""
        self.contexts.pop(owner_scope_key(owner), None)

    def clear(self) -> None:
        """Drop everything (a migration or an owner-wide delete)."""
        self.contexts.clear()
        self.chain_sources.clear()
