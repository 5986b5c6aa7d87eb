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
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio.to_thread

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.memory.delegate import awaited
from kgmem.store.async_driver import AsyncStore, LoopStore

__all__ = ["AsyncMemory"]

T = TypeVar("T")


def twin_of(method: Callable[..., Any]) -> Callable[[Callable[..., Any]], Any]:
    """Give an async method written by hand the name, signature and docstring of its `Memory`
    ``method``."""
    return functools.wraps(method)


class AsyncMemory:
    """Long-term conversational memory in Neo4j, for async code. Same methods as `Memory`,
    awaited; same arguments, results and errors. Every method but `close` is derived from
    `Memory`'s (`kgmem.memory.delegate.awaited`): it runs the sync method in a worker thread.

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
        return cls(AsyncStore.from_settings(settings), Embedder.from_settings(settings), settings)

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    async def close(self) -> None:
        await self.store.close()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- the Memory API, awaited (kgmem.memory.delegate.awaited) ----------------------------
    # the statements that need no model go straight to the async driver; the docstring and
    # signature are still Memory's (`twin_of`)
    @twin_of(Memory.verify)
    async def verify(self) -> None:
        await self.store.verify()

    @twin_of(Memory.conversations)
    async def conversations(self) -> list[dict[str, Any]]:
        return await self.store.read("read/list_conversations")

    @twin_of(Memory.bookmarks)
    async def bookmarks(self) -> list[str]:
        return await self.store.bookmarks()

    @twin_of(Memory.use_bookmarks)
    async def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        await self.store.use_bookmarks(bookmarks)

    apply_schema = awaited(Memory.apply_schema)
    migrate = awaited(Memory.migrate)
    rebuild_schema = awaited(Memory.rebuild_schema)
    owner_of = awaited(Memory.owner_of)
    owner_conversations = awaited(Memory.owner_conversations)
    add_conversation = awaited(Memory.add_conversation)  # progress: called from the worker
    add_turns = awaited(Memory.add_turns)
    add_document = awaited(Memory.add_document)  # the file is read in the worker thread
    forget = awaited(Memory.forget)
    forget_owner = awaited(Memory.forget_owner)
    forget_turns = awaited(Memory.forget_turns)
    forget_about = awaited(Memory.forget_about)
    requests = awaited(Memory.requests)
    search = awaited(Memory.search)
    instructions = awaited(Memory.instructions)
    warm = awaited(Memory.warm)
    evidence_cypher = awaited(Memory.evidence_cypher)
    counts = awaited(Memory.counts)
    turns_around = awaited(Memory.turns_around)
    chain = awaited(Memory.chain)
    history = awaited(Memory.history)
    current = awaited(Memory.current)
    profile = awaited(Memory.profile)
    timeline = awaited(Memory.timeline)

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run a named catalogue statement on the async driver (read transaction)."""
        return await self.store.read(name, **params)
