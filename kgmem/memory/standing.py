"""The user's standing instructions and preferences, on their own (`kgmem.api.Memory`
delegates `instructions` here)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.ids import checks_ids
from kgmem.retrieve.question import read_question
from kgmem.retrieve.standing import applicable
from kgmem.store import Store

__all__ = ["Standing"]

#: the longest request `Standing.instructions` reads, in characters (a search query's limit)
MAX_REQUEST_CHARS = 10_000


class Standing:
    """Reads a conversation's standing instructions and preferences without a search.

    Args:
        store: the Neo4j seam.
        embedder: embeds the request the instructions must apply to.
        settings: ``max_instructions`` and ``instruction_similarity`` (as a search serves them).
    """

    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings

    @checks_ids
    def instructions(
        self,
        conversation_id: str,
        request: str | None = None,
        *,
        as_of: datetime | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The user's standing instructions and preferences in force, without a search: the
        ones that apply to ``request`` (what `SearchResult.instructions` carries), or with no
        request every one in force, oldest first (`kgmem.retrieve.standing`).

        Args:
            conversation_id: the conversation.
            request: what the user is asking now; None or "" for all of them.
            as_of: the moment of asking (timezone-aware; naive is UTC): instructions stated
                later or revoked by then are left out. None: now.
            limit: the most returned for a request (1 or more; None: the
                ``max_instructions`` setting, as a search serves them).

        Returns:
            ``[{"id", "turn_id", "kind" ("instruction" | "preference"), "text", "scope",
            "valid_from" (UTC datetime), "why", "similarity" (cosine, [-1, 1])}]``.

        Raises:
            MalformedInput: ``request`` is not a string (or longer than 10,000 characters), or
                ``limit`` < 1.
            ConversationNotFound: the conversation holds no turns.
        """
        if request is not None and (
            not isinstance(request, str) or len(request) > MAX_REQUEST_CHARS
        ):
            raise MalformedInput(
                "request must be a string of at most 10,000 characters or None",
                conversation_id=conversation_id,
                argument="request",
            )
        if limit is None:
            limit = self.settings.max_instructions
        elif not isinstance(limit, int) or limit < 1:
            raise MalformedInput("limit must be an integer of at least 1", argument="limit")
        if as_of is not None and as_of.utcoffset() is None:
            as_of = as_of.replace(tzinfo=UTC)
        counted = self.store.read("read/count_conversation", conversation_id=conversation_id)
        if not counted or not counted[0].get("turns"):
            raise ConversationNotFound(conversation_id)
        read = self.store.read(
            "read/standing",
            conversation_id=conversation_id,
            as_of=as_of,
            turn_ids=[],
            every=False,
        )[0]
        # the request read once, as a search reads its question (`Question.text`: the
        # first 2,000 characters); its embedding is of the whole request
        question = read_question(request) if request else None
        vector = self.embedder.encode_one(request) if request else None
        return applicable(
            read["instructions"], vector, question, limit, self.settings.instruction_similarity
        )
