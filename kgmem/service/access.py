"""Who may reach what over HTTP: bearer tokens, stored hashed, each granting one owner or a set
of conversations (`kgmem.service`).

The token file is JSON: ``{"<sha256 hex of the token>": {"owner": "alice"}, "<...>":
{"conversations": ["chat-1", "chat-2"]}}``. Only hashes are stored, so the file does not give
the tokens away; `new_token` makes a token and its entry (``kgmem token``). Tokens are random
(32 bytes, URL-safe), so one unsalted SHA-256 is enough: nothing guessable is hashed.

What a grant lets a request do (docs/http.md): an owner grant reads and writes that owner's
conversations (a new conversation is claimed for the owner on its first write) and owner-wide
calls of that owner; a conversations grant reads and writes those conversations only, never an
owner scope. Anything else is answered exactly as a conversation that does not exist
(`kgmem.errors.ConversationNotFound`, HTTP 404), whatever exists, so a token cannot learn of
another tenant.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgmem.errors import ConfigError, ConversationNotFound, MalformedInput, OwnerNotFound
from kgmem.ids import check_conversation_ids, check_id

__all__ = ["EVERYTHING", "Gate", "Grant", "TokenTable", "hash_token", "new_token"]


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256, hex (64 characters)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Grant:
    """What one token may reach: an owner's conversations, or a set of conversations; the
    unrestricted grant (both None, ``everything`` True) is what a loopback server without a
    token file gives every request.

    Attributes:
        owner: the owner whose conversations (and owner-wide calls) the token reaches.
        conversations: the conversations the token reaches (exact ids).
        everything: no restriction (loopback, no tokens configured).
    """

    owner: str | None = None
    conversations: frozenset[str] | None = None
    everything: bool = False

    @classmethod
    def parse(cls, entry: object) -> Grant:
        """A grant from one entry of the token file.

        Raises:
            ConfigError: not ``{"owner": id}`` or ``{"conversations": [ids]}``.
        """
        if not isinstance(entry, Mapping) or set(entry) not in ({"owner"}, {"conversations"}):
            raise ConfigError(
                'a token grant is {"owner": "<id>"} or {"conversations": ["<id>", ...]}, not '
                f"{entry!r:.80}"
            )
        try:
            if "owner" in entry:
                return cls(owner=check_id(entry["owner"], argument="owner", owner=True))
            ids = check_conversation_ids(entry["conversations"])
        except MalformedInput as exc:
            raise ConfigError(f"token grant: {exc}") from None
        return cls(conversations=frozenset(ids))

    def as_dict(self) -> dict[str, Any]:
        if self.owner is not None:
            return {"owner": self.owner}
        return {"conversations": sorted(self.conversations or ())}


#: the grant of every request to a loopback server that has no token file
EVERYTHING = Grant(everything=True)


class TokenTable:
    """Token hashes → grants, compared in constant time.

    Args:
        grants: SHA-256 hex of a token → its grant.
    """

    def __init__(self, grants: Mapping[str, Grant]) -> None:
        self._grants = {h.lower(): g for h, g in grants.items()}

    @classmethod
    def load(cls, path: Path) -> TokenTable:
        """The table of a token file (see the module docstring).

        Raises:
            ConfigError: unreadable, not JSON, empty, a key that is not a SHA-256 hex digest,
                or a bad grant.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the token file {path}: {exc}") from None
        if not isinstance(data, dict) or not data:
            raise ConfigError(f"the token file {path} must be a non-empty JSON object")
        grants: dict[str, Grant] = {}
        for digest, entry in data.items():
            if len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest):
                raise ConfigError(
                    f"the token file {path} has a key that is not a SHA-256 hex digest "
                    "(store hashes, never tokens: `kgmem token`)"
                )
            grants[digest] = Grant.parse(entry)
        return cls(grants)

    def __len__(self) -> int:
        return len(self._grants)

    def grant(self, token: str) -> Grant | None:
        """The token's grant, or None for an unknown token."""
        digest = hash_token(token)
        found: Grant | None = None
        for stored, grant in self._grants.items():  # every entry compared: constant time
            if hmac.compare_digest(stored, digest):
                found = grant
        return found


def new_token(grant: Grant) -> tuple[str, dict[str, Any]]:
    """A fresh random token and its token-file entry ``{hash: grant}`` (the token is shown
    once: only the hash is stored)."""
    token = secrets.token_urlsafe(32)
    return token, {hash_token(token): grant.as_dict()}


class Gate:
    """The checks one request's grant imposes, against the memory's ownership records.

    Args:
        grant: the request's grant.
        lookup: conversation id → ``(exists, owner or None)`` (``read/conversation_access``).
    """

    def __init__(self, grant: Grant, lookup: Callable[[str], tuple[bool, str | None]]) -> None:
        self.grant = grant
        self._lookup = lookup

    def scope(
        self, conversation_id: str | None, owner: str | None
    ) -> tuple[str | None, str | None]:
        """The ``(conversation_id, owner)`` a read may use, or `ConversationNotFound`.

        An owner grant with no owner named searches as that owner (so a client of one owner
        never has to name it).

        Raises:
            ConversationNotFound / OwnerNotFound: outside the grant (as if nothing existed).
            MalformedInput: a bad id (named), before any access decision.
        """
        if conversation_id is not None:
            check_id(conversation_id, argument="conversation_id")
        if owner is not None:
            check_id(owner, argument="owner", owner=True)
        g = self.grant
        if g.everything:
            return conversation_id, owner
        if g.owner is not None:
            if owner is not None and owner != g.owner:
                raise OwnerNotFound(owner)
            if conversation_id is not None:
                self.conversation(conversation_id)
            return conversation_id, g.owner
        assert g.conversations is not None
        if owner is not None:
            raise OwnerNotFound(owner)
        if conversation_id is None:
            raise MalformedInput(
                "name a conversation_id (this token reaches a set of conversations)",
                argument="conversation_id",
            )
        self.conversation(conversation_id)
        return conversation_id, None

    def conversation(self, conversation_id: str) -> str:
        """``conversation_id`` if the grant reaches it (an owner grant: the conversation is
        the owner's).

        Raises:
            ConversationNotFound: outside the grant, whatever exists.
        """
        check_id(conversation_id, argument="conversation_id")
        g = self.grant
        if g.everything:
            return conversation_id
        if g.conversations is not None:
            if conversation_id not in g.conversations:
                raise ConversationNotFound(conversation_id)
            return conversation_id
        if self._lookup(conversation_id)[1] != g.owner:
            raise ConversationNotFound(conversation_id)
        return conversation_id

    def writable(self, conversation_id: str, owner: str | None) -> str | None:
        """The owner a write to ``conversation_id`` must claim, or `ConversationNotFound`.

        An owner grant writes to its owner's conversations and to conversations that hold
        nothing yet (claimed for the owner); a conversations grant to its conversations,
        never claiming an owner.
        """
        check_id(conversation_id, argument="conversation_id")
        if owner is not None:
            check_id(owner, argument="owner", owner=True)
        g = self.grant
        if g.everything:
            return owner
        if g.owner is not None:
            if owner is not None and owner != g.owner:
                raise OwnerNotFound(owner)
            exists, current = self._lookup(conversation_id)
            if exists and current != g.owner:  # another owner's, or a conversation of its own
                raise ConversationNotFound(conversation_id)
            return g.owner
        if owner is not None:
            raise OwnerNotFound(owner)
        self.conversation(conversation_id)
        return None
