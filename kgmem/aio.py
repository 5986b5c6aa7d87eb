"""`AsyncMemory`: kgmem's `Memory` API for asyncio / anyio code, on ``neo4j.AsyncDriver``.

There is one copy of kgmem's logic. Each call runs the sync `Memory` method (planning, the
embedding model, spaCy, scoring, resolution, the write path) in a worker thread, so model
inference never blocks the event loop; every Neo4j round trip that logic makes is sent back to
the event loop and executed by `kgmem.store.async_driver.AsyncStore` on the async driver
(`LoopStore` is the seam). See docs/architecture.md ("Sync and async: one logic, two I/O
shells").

Example:
    >>> async def main() -> None:                                  # doctest: +SKIP
    ...     async with AsyncMemory.from_settings(Settings()) as memory:
    ...         await memory.add_turns("chat-1", [{"speaker": "Ana", "text": "I moved."}])
    ...         result = await memory.search("Where does Ana live?", "chat-1", k=5)
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

import anyio.to_thread

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import NotSupported
from kgmem.ingest.documents import Document, DocumentReport
from kgmem.ingest.pipeline import IngestReport
from kgmem.models import ConversationRecord
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.retriever import SearchResult
from kgmem.store.async_driver import AsyncStore, LoopStore

__all__ = ["AsyncMemory"]

T = TypeVar("T")


class AsyncMemory:
    """Long-term conversational memory in Neo4j, for async code. Same methods as `Memory`,
    awaited; same arguments, results and errors.

    Build with `AsyncMemory.from_settings` and use it on one event loop (the async driver binds
    to the loop that first uses it); ``async with`` closes it.

    Args:
        store: the async I/O shell.
        embedder: the sentence embedder (loaded lazily, in a worker thread).
        settings: the settings the pieces were built from.
    """

    def __init__(self, store: AsyncStore, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        #: the one copy of the logic, talking to Neo4j through the event loop
        self.sync = Memory(LoopStore(store), embedder, settings)

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> AsyncMemory:
        """An async memory configured from ``KGMEM_*`` settings (read now, not at import)."""
        settings = settings or Settings()
        embedder = Embedder(
            settings.embedder,
            batch_size=settings.embed_batch_size,
            max_chars=settings.embed_max_chars,
            backend=settings.embedding_backend,
            cache_dir=settings.embedding_cache_dir,
        )
        return cls(AsyncStore.from_settings(settings), embedder, settings)

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    async def close(self) -> None:
        await self.store.close()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- the Memory API, awaited ------------------------------------------------------------
    async def verify(self) -> None:
        """See `Memory.verify`."""
        await self.store.verify()

    async def apply_schema(self) -> list[str]:
        """See `Memory.apply_schema`."""
        return await self._run(self.sync.apply_schema)

    async def migrate(self) -> dict[str, int]:
        """See `Memory.migrate`."""
        return await self._run(self.sync.migrate)

    async def add_conversation(
        self,
        conversation: ConversationRecord,
        *,
        facts: Any = "both",
        progress: Callable[[str, int, int], None] | None = None,
        roles: Mapping[str, str] | None = None,
        requests: bool | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """See `Memory.add_conversation` (``progress`` is called from the worker thread)."""
        return await self._run(
            self.sync.add_conversation,
            conversation,
            facts=facts,
            progress=progress,
            roles=roles,
            requests=requests,
            owner=owner,
        )

    async def add_turns(
        self,
        conversation_id: str,
        turns: Sequence[Mapping[str, Any]],
        *,
        session: int | None = None,
        observed_at: datetime | None = None,
        roles: Mapping[str, str] | None = None,
        requests: bool | None = None,
        owner: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> IngestReport:
        """See `Memory.add_turns`."""
        return await self._run(
            self.sync.add_turns,
            conversation_id,
            turns,
            session=session,
            observed_at=observed_at,
            roles=roles,
            requests=requests,
            owner=owner,
            metadata=metadata,
        )

    async def add_document(
        self,
        path_or_text: str | os.PathLike[str] | Document,
        *,
        conversation_id: str | None = None,
        owner: str | None = None,
        source: str | None = None,
        observed_at: datetime | None = None,
    ) -> DocumentReport:
        """See `Memory.add_document` (the file is read in the worker thread)."""
        return await self._run(
            self.sync.add_document,
            path_or_text,
            conversation_id=conversation_id,
            owner=owner,
            source=source,
            observed_at=observed_at,
        )

    async def search(
        self,
        query: str,
        conversation_id: str | None = None,
        k: int = 10,
        *,
        config: EngineConfig | None = None,
        asked_by: str | None = None,
        **options: Any,
    ) -> SearchResult:
        """See `Memory.search` (``asked_by``: the asking speaker; extra keyword options, e.g.
        ``as_of``, ``owner`` and the filters, are passed through)."""
        return await self._run(
            self.sync.search,
            query,
            conversation_id,
            k,
            config=config,
            asked_by=asked_by,
            **options,
        )

    async def instructions(
        self,
        conversation_id: str,
        request: str | None = None,
        *,
        as_of: datetime | None = None,
        limit: int = 5,
    ) -> list[dict[str, Any]]:
        """See `Memory.instructions`."""
        return await self._run(
            self.sync.instructions, conversation_id, request, as_of=as_of, limit=limit
        )

    async def warm(self) -> dict[str, Any]:
        """See `Memory.warm`."""
        return await self._run(self.sync.warm)

    async def history(
        self, conversation_id: str | None, entity: str, relation: str, *, owner: str | None = None
    ) -> list[dict[str, Any]]:
        """See `Memory.history`."""
        return await self._run(self.sync.history, conversation_id, entity, relation, owner=owner)

    async def profile(
        self,
        conversation_id: str | None,
        entity: str,
        *,
        history: bool = False,
        owner: str | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        """See `Memory.profile`."""
        return await self._run(
            self.sync.profile, conversation_id, entity, history=history, owner=owner
        )

    async def forget_owner(self, owner: str) -> dict[str, int]:
        """See `Memory.forget_owner`."""
        return await self._run(self.sync.forget_owner, owner)

    async def owner_conversations(self, owner: str) -> list[str]:
        """See `Memory.owner_conversations`."""
        return await self._run(self.sync.owner_conversations, owner)

    async def owner_of(self, conversation_id: str) -> str | None:
        """See `Memory.owner_of`."""
        return await self._run(self.sync.owner_of, conversation_id)

    async def timeline(
        self, conversation_id: str | None = None, *, owner: str | None = None
    ) -> list[dict[str, Any]]:
        """See `Memory.timeline`."""
        return await self._run(self.sync.timeline, conversation_id, owner=owner)

    async def current(
        self, conversation_id: str, entity: str, relation: str
    ) -> dict[str, Any] | None:
        """See `Memory.current`."""
        return await self._run(self.sync.current, conversation_id, entity, relation)

    async def forget(self, conversation_id: str) -> dict[str, int]:
        """See `Memory.forget`."""
        return await self._run(self.sync.forget, conversation_id)

    async def forget_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> Any:
        """See `Memory.forget_turns`; `NotSupported` where this build of kgmem lacks it."""
        forget_turns = getattr(self.sync, "forget_turns", None)
        if forget_turns is None:
            raise NotSupported("this build of kgmem has no Memory.forget_turns")
        return await self._run(forget_turns, conversation_id, list(turn_ids))

    async def forget_about(self, conversation_id: str, description: str) -> dict[str, Any]:
        """See `Memory.forget_about`."""
        return await self._run(self.sync.forget_about, conversation_id, description)

    async def requests(self, conversation_id: str) -> list[dict[str, Any]]:
        """See `Memory.requests`."""
        return await self._run(self.sync.requests, conversation_id)

    async def conversations(self) -> list[dict[str, Any]]:
        """See `Memory.conversations`."""
        return await self.store.read("read/list_conversations")

    async def counts(self, conversation_id: str) -> dict[str, int]:
        """See `Memory.counts`."""
        return await self._run(self.sync.counts, conversation_id)

    async def bookmarks(self) -> list[str]:
        """See `Memory.bookmarks`."""
        return await self.store.bookmarks()

    async def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        """See `Memory.use_bookmarks`."""
        await self.store.use_bookmarks(bookmarks)

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run a named catalogue statement on the async driver (read transaction)."""
        return await self.store.read(name, **params)
