"""The async I/O shell: kgmem's named statements on ``neo4j.AsyncDriver``.

`AsyncStore` runs catalogue statements in the driver's managed async transactions. `LoopStore`
is the seam that lets the *one* copy of kgmem's logic (planning, scoring, resolution, the write
path) use it: that logic runs in a worker thread (so model inference never blocks the event
loop), and each of its round trips is sent back to the event loop with
``anyio.from_thread.run`` and executed by `AsyncStore`. See `kgmem.aio.AsyncMemory` and
docs/architecture.md.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio.from_thread
import anyio.to_thread
import neo4j
from neo4j import AsyncGraphDatabase, AsyncManagedTransaction

from kgmem.config import Settings
from kgmem.store.catalogue import Catalogue, catalogue
from kgmem.store.driver import Row, Store, StoreTiming, _row, explained, translate_error

T = TypeVar("T")

__all__ = ["AsyncStore", "LoopStore"]


class AsyncStore:
    """A connection seam to one Neo4j database on the driver's async side.

    Args: as `kgmem.store.Store`. The driver is created here and bound to the event loop that
    first uses it; use one `AsyncStore` per event loop.
    """

    def __init__(
        self,
        uri: str,
        user: str,
        password: str | None,
        *,
        database: str = "neo4j",
        queries: Catalogue | None = None,
    ) -> None:
        self.uri = uri
        self.user = user
        self.database = database
        self.queries = queries or catalogue()
        self.timing = StoreTiming()
        # as `Store`: one bookmark manager for every session (read-after-write)
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()
        self._driver = AsyncGraphDatabase.driver(
            uri,
            auth=(user, password or ""),
            max_connection_lifetime=3600,
            connection_acquisition_timeout=30.0,
            notifications_min_severity="OFF",
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> AsyncStore:
        """An async store configured from `Settings` (as `Store.from_settings`)."""
        return cls(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.resolved_password(),
            database=settings.neo4j_database,
        )

    async def _run(self, name: str, params: dict[str, Any], *, write: bool) -> list[Row]:
        text = self.queries[name]

        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            result = await tx.run(text, params)
            return [_row(record) async for record in result]

        t0 = time.perf_counter()
        try:
            async with self._session() as session:
                if write:
                    return await session.execute_write(work)
                return await session.execute_read(work)
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            raise translate_error(exc, self.uri, self.user) from exc
        finally:
            self.timing.ms += (time.perf_counter() - t0) * 1000.0
            self.timing.round_trips += 1

    def _session(self) -> neo4j.AsyncSession:
        return self._driver.session(database=self.database, bookmark_manager=self._bookmarks)

    async def transaction(self, work: Callable[[Any], T]) -> T:
        """Run the sync ``work`` (in a worker thread) inside ONE managed async write
        transaction; its statements run on the loop through a thread-side `Transaction` twin.
        Retried by the driver on transient errors, like `Store.transaction`."""

        async def unit(tx: AsyncManagedTransaction) -> T:
            twin = _ThreadTransaction(tx, self.queries)
            return await anyio.to_thread.run_sync(functools.partial(work, twin))

        t0 = time.perf_counter()
        try:
            async with self._session() as session:
                return await session.execute_write(unit)
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            raise translate_error(exc, self.uri, self.user) from exc
        finally:
            self.timing.ms += (time.perf_counter() - t0) * 1000.0
            self.timing.round_trips += 1

    async def bookmarks(self) -> list[str]:
        """The bookmarks of everything this store has written or read (see `Store.bookmarks`)."""
        return sorted(await self._bookmarks.get_bookmarks())

    async def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        """Make later reads wait for the writes behind ``bookmarks`` (see `Store.use_bookmarks`)."""
        await self._bookmarks.update_bookmarks(frozenset(), frozenset(bookmarks))

    async def read(self, name: str, /, **params: Any) -> list[Row]:
        """Run catalogue statement ``name`` in a managed read transaction; rows as dicts."""
        return await self._run(name, params, write=False)

    async def write(self, name: str, /, **params: Any) -> list[Row]:
        """Run catalogue statement ``name`` in one managed write transaction; rows as dicts."""
        return await self._run(name, params, write=True)

    async def verify(self) -> None:
        """`Neo4jUnavailable` / `AuthenticationFailed` unless the server answers ``RETURN 1``."""
        try:
            await self._driver.verify_connectivity()
            async with self._driver.session(database=self.database) as session:
                await (await session.run("RETURN 1")).consume()
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            raise translate_error(exc, self.uri, self.user) from exc

    async def explain(self, name: str) -> None:
        """``EXPLAIN`` statement ``name`` (plans it without running it)."""
        text = self.queries[name]
        async with self._driver.session(database=self.database) as session:
            await (await session.run(explained(text))).consume()

    async def close(self) -> None:
        """Close the driver's connection pool. Safe to call twice."""
        await self._driver.close()


class _ThreadTransaction:
    """`kgmem.store.driver.Transaction` for a worker thread: each statement runs on the loop in
    the open async transaction."""

    def __init__(self, tx: AsyncManagedTransaction, queries: Any) -> None:
        self._tx = tx
        self._queries = queries

    async def _run(self, name: str, params: dict[str, Any]) -> list[Row]:
        result = await self._tx.run(self._queries[name], params)
        return [_row(record) async for record in result]

    def run(self, name: str, /, **params: Any) -> list[Row]:
        rows: list[Row] = anyio.from_thread.run(self._run, name, params)
        return rows


class LoopStore(Store):
    """A `Store` for code running in a worker thread (``anyio.to_thread.run_sync``): every call
    runs on the event loop through ``anyio.from_thread.run`` with `AsyncStore`. It adds no
    logic: batching (`Store.write_batches`) is the sync store's own.
    """

    def __init__(self, inner: AsyncStore) -> None:  # no sync driver: nothing to connect
        self.inner = inner
        self.uri = inner.uri
        self.user = inner.user
        self.database = inner.database
        self.queries = inner.queries
        self.timing = inner.timing

    def _on_loop(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return anyio.from_thread.run(functools.partial(fn, *args, **kwargs))

    def read(self, name: str, /, **params: Any) -> list[Row]:
        rows: list[Row] = self._on_loop(self.inner.read, name, **params)
        return rows

    def write(self, name: str, /, **params: Any) -> list[Row]:
        rows: list[Row] = self._on_loop(self.inner.write, name, **params)
        return rows

    def verify(self) -> None:
        self._on_loop(self.inner.verify)

    def bookmarks(self) -> list[str]:
        marks: list[str] = self._on_loop(self.inner.bookmarks)
        return marks

    def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        self._on_loop(self.inner.use_bookmarks, list(bookmarks))

    def explain(self, name: str) -> None:
        self._on_loop(self.inner.explain, name)

    def close(self) -> None:  # the async store is closed by its owner, on the loop
        return None

    def transaction(self, work: Callable[[Any], T]) -> T:
        """`Store.transaction` on the loop: ``work`` runs in a worker thread, its statements in
        one async write transaction (see `AsyncStore.transaction`)."""
        out: T = self._on_loop(self.inner.transaction, work)
        return out

    def run_read(self, work: Callable[..., Any]) -> Any:
        raise NotImplementedError("LoopStore runs named statements only (read/write)")

    run_write = run_read
