"""What the read path knows about its scope (one conversation, or all of an owner's) before it
plans a question: speakers (with their roles), canonical entities, latest timestamp, session
numbers, owner and conversation ids, read in one round trip and cached per scope until the
scope is written to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kgmem.errors import ConversationNotFound, OwnerNotFound
from kgmem.retrieve.answerable import Support
from kgmem.retrieve.names import EntityIndex
from kgmem.retrieve.scope import Scope
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
        sessions: the session numbers that hold turns.
        owner: the scope's owner ('' for a conversation without one).
        conversation_ids: the conversations of the scope (one, or the owner's).
        metadata: some turn of the scope carries metadata (`kgmem.metadata`); True when unknown.
        standing: the scope holds standing instructions or conflicts
            (`kgmem.ingest.extraction.standing`); True when unknown.
        standing_reads: cached ``read/standing`` rows (instructions and every conflict) per
            ``as_of`` (None = now; `kgmem.retrieve.standing.serve_standing`).
    """

    speakers: tuple[str, ...]
    latest: datetime | None
    entities: EntityIndex
    version: str | None = None
    support: dict[datetime | None, Support] = field(default_factory=dict)
    roles: Mapping[str, Role] = field(default_factory=dict)
    sessions: tuple[int, ...] = ()
    owner: str = ""
    conversation_ids: tuple[str, ...] = ()
    metadata: bool = True
    standing: bool = True
    standing_reads: dict[datetime | None, dict[str, Any]] = field(default_factory=dict)

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
    store: Store, scope: Scope | str, cache: dict[str, ConversationContext]
) -> ConversationContext:
    """Speakers (with roles), entity index, latest timestamp, sessions and owner of a scope
    (a `Scope`, or a conversation id).

    One round trip (``read/conversation_context``, or ``read/owner_context`` for an owner);
    the statement returns nothing but the version when ``cache`` holds a copy of the same
    version, which is then returned. A fresh copy replaces the cached one (unversioned data is
    never cached).

    Raises:
        ConversationNotFound: the conversation holds no turns (`OwnerNotFound`: the owner's
            conversations hold none), or the conversation belongs to another owner than the
            scope names.
    """
    scope = Scope(conversation_id=scope) if isinstance(scope, str) else scope
    key = scope.key
    cached = cache.get(key)
    known = cached.version if cached is not None else None
    if scope.by_owner:
        rows = store.read("read/owner_context", owner=scope.owner, known_version=known)
    else:
        rows = store.read(
            "read/conversation_context", conversation_id=scope.conversation_id, known_version=known
        )
    row = rows[0]
    wrong_owner = not scope.by_owner and scope.owner is not None and row["owner"] != scope.owner
    if not row["changed"] and cached is not None and not wrong_owner:
        return cached
    if not row["speakers"] or wrong_owner:
        cache.pop(key, None)
        if scope.by_owner:
            raise OwnerNotFound(str(scope.owner))
        raise ConversationNotFound(str(scope.conversation_id))
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
        sessions=tuple(sorted(int(s) for s in row["sessions"])),
        owner=str(row["owner"]),
        conversation_ids=tuple(row["conversation_ids"]),
        metadata=row.get("metadata") is not False,
        standing=row.get("standing") is not False,
    )
    if row["version"] is not None:  # unversioned (pre-2026 data): never cached
        cache[key] = context
    return context
