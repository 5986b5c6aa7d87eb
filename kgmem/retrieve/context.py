"""What the read path knows about one conversation before it plans a question: its speakers
(with their roles), its canonical entities and its latest timestamp, read in one round trip and
cached per conversation until the conversation is written to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kgmem.errors import ConversationNotFound
from kgmem.retrieve.answerable import Support
from kgmem.retrieve.plan import EntityIndex
from kgmem.roles import ROLES, Role, role_of
from kgmem.store import Store

__all__ = ["ConversationContext", "read_context", "speaker_roles"]


@dataclass(frozen=True)
class ConversationContext:
    """What the planner knows about the conversation being searched.

    Attributes:
        speakers: the speakers, first to speak first, as stored.
        latest: the latest turn's time (the memory's "now" for relative dates).
        entities: the conversation's canonical entities (names and aliases).
        version: the Conversation node's write version (None for data written before versions).
        support: cached answerability support per ``as_of`` (None = now).
        roles: speaker -> role (`kgmem.roles`) for the speakers that have one.
    """

    speakers: tuple[str, ...]
    latest: datetime | None
    entities: EntityIndex
    version: str | None = None
    support: dict[datetime | None, Support] = field(default_factory=dict)
    roles: Mapping[str, Role] = field(default_factory=dict)

    @property
    def user(self) -> str | None:
        """The first speaker whose role is ``user``, or None (LoCoMo-style chats)."""
        return next((s for s in self.speakers if self.roles.get(s) == "user"), None)


def speaker_roles(speakers: tuple[str, ...], rows: list[dict[str, Any]] | None) -> dict[str, Role]:
    """Speaker -> role: the role stored on the speaker's turns (the first, if several), else
    `kgmem.roles.role_of` of the name (a speaker named "user" is the user)."""
    stored = {str(r["speaker"]): [x for x in r["roles"] if x in ROLES] for r in rows or ()}
    out: dict[str, Role] = {}
    for speaker in speakers:
        kept = stored.get(speaker) or []
        role = kept[0] if kept else role_of(speaker)
        if role is not None:
            out[speaker] = role
    return out


def read_context(
    store: Store, conversation_id: str, cache: dict[str, ConversationContext]
) -> ConversationContext:
    """Speakers (with roles), entity index and latest timestamp of a conversation.

    One round trip (``read/conversation_context``); the statement returns nothing but the
    version when ``cache`` holds a copy of the same version, which is then returned. A fresh
    copy replaces the cached one (unversioned data is never cached).

    Raises:
        ConversationNotFound: the conversation holds no turns.
    """
    cached = cache.get(conversation_id)
    rows = store.read(
        "read/conversation_context",
        conversation_id=conversation_id,
        known_version=cached.version if cached is not None else None,
    )
    row = rows[0]
    if not row["changed"] and cached is not None:
        return cached
    if not row["speakers"]:
        cache.pop(conversation_id, None)
        raise ConversationNotFound(conversation_id)
    entries = []
    for e in row["entities"]:
        for name in [e["name"], *e["aliases"]]:
            entries.append((name, e["id"], e["type"]))
    speakers = tuple(row["speakers"])
    context = ConversationContext(
        speakers=speakers,
        latest=row["latest"],
        entities=EntityIndex(entries),
        version=row["version"],
        roles=speaker_roles(speakers, row.get("roles")),
    )
    if row["version"] is not None:  # unversioned (pre-2026 data): never cached
        cache[conversation_id] = context
    return context
