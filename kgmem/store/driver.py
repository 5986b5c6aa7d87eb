"""The one module that owns the Neo4j driver: sessions, managed transactions, retries, errors.

Domain code (``kgmem.ingest``, ``kgmem.retrieve``, ``kgmem.bench``) never imports ``neo4j``;
it asks a `Store` to run named statements from the catalogue (``cypher/``). Every value is
passed as a parameter. Reads and writes go through the driver's *managed* transactions
(``execute_read`` / ``execute_write``), which retry transient errors (deadlocks, leader
switches, connection drops) with back-off; kgmem adds no retry loop of its own.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase, ManagedTransaction
from neo4j.exceptions import AuthError, ServiceUnavailable

from kgmem.config import Settings
from kgmem.errors import AuthenticationFailed, Neo4jUnavailable, StoreError
from kgmem.store.catalogue import Catalogue, catalogue

__all__ = ["Store", "StoreTiming", "Transaction", "translate_error"]

T = TypeVar("T")
Row = dict[str, Any]


class StoreTiming:
    """Accumulates wall time spent in Neo4j round trips (ms), for benchmarks, and counts the
    write transactions run (``writes``: what an unchanged re-ingest must leave alone)."""

    def __init__(self) -> None:
        self.ms = 0.0
        self.round_trips = 0
        self.writes = 0

    def reset(self) -> None:
        self.ms = 0.0
        self.round_trips = 0
        self.writes = 0


class Store:
    """A connection seam to one Neo4j database.

    The constructor does not touch the network; `verify` does (and every query does lazily).

    Works unchanged against one server (``bolt://``) and against a cluster or Aura
    (``neo4j://`` / ``neo4j+s://`` routing URIs): reads run in read transactions (routed to
    readers), writes in write transactions (routed to the leader), the database is always named,
    and bookmarks give read-after-write across sessions and, when passed on, processes.

    Args:
        uri: Bolt URI, e.g. ``bolt://127.0.0.1:7687``, ``neo4j+s://<id>.databases.neo4j.io``.
        user: database user.
        password: the password, or None (then connecting fails with `AuthenticationFailed`).
        database: database name (``neo4j`` on Community).
        queries: the statement catalogue; defaults to the packaged ``cypher/`` folder.
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
        # One bookmark manager for every session of this store: a read after a write through the
        # same Store sees that write on any cluster member (causal consistency); other
        # processes get the same by passing `bookmarks()` to their `use_bookmarks`.
        self._bookmarks = GraphDatabase.bookmark_manager()
        self._driver = GraphDatabase.driver(
            uri,
            auth=(user, password or ""),
            max_connection_lifetime=3600,
            connection_acquisition_timeout=30.0,
            notifications_min_severity="OFF",
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Store:
        """A store configured from `Settings` (password from env or the local password file)."""
        return cls(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.resolved_password(),
            database=settings.neo4j_database,
        )

    # --- lifecycle ---------------------------------------------------------------------------
    def verify(self) -> None:
        """Check that the server answers and the credentials work.

        Raises:
            Neo4jUnavailable: nothing answers at the URI (the message says how to start one).
            AuthenticationFailed: wrong user or password.
        """
        # verify_connectivity fails at once; a managed transaction alone would retry a refused
        # connection for the driver's 30 s retry budget before saying "not running", and a
        # user who forgot to start the server should hear so at once.
        self._call(self._driver.verify_connectivity)
        self.run_read(lambda tx: tx.run("RETURN 1").consume())

    def close(self) -> None:
        """Close the driver's connection pool. Safe to call twice."""
        self._driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transactions ------------------------------------------------------------------------
    def _call(self, fn: Callable[[], T]) -> T:
        t0 = time.perf_counter()
        try:
            return fn()
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            raise translate_error(exc, self.uri, self.user) from exc
        finally:
            self.timing.ms += (time.perf_counter() - t0) * 1000.0
            self.timing.round_trips += 1

    def run_read(self, work: Callable[[ManagedTransaction], T]) -> T:
        """Run ``work`` in a managed read transaction (retried on transient errors)."""
        return self._call(
            lambda: self._session().execute_read(work)  # session closed by GC-safe helper below
        )

    def run_write(self, work: Callable[[ManagedTransaction], T]) -> T:
        """Run ``work`` in a managed write transaction (retried on transient errors)."""
        self.timing.writes += 1
        return self._call(lambda: self._session().execute_write(work))

    def _session(self) -> _AutoClosingSession:
        return _AutoClosingSession(
            self._driver.session(database=self.database, bookmark_manager=self._bookmarks)
        )

    # --- causal consistency ------------------------------------------------------------------
    def bookmarks(self) -> list[str]:
        """The bookmarks of everything this store has written or read, as opaque strings."""
        return sorted(self._bookmarks.get_bookmarks())

    def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        """Make every later transaction of this store wait until the server has applied the
        writes behind ``bookmarks`` (from another process's `bookmarks`)."""
        self._bookmarks.update_bookmarks(frozenset(), frozenset(bookmarks))

    # --- named statements --------------------------------------------------------------------
    # ``name`` is positional-only in read/write/write_batches so that a Cypher parameter may be
    # called ``$name`` too: ``read("read/resolve_entity", name=...)`` would otherwise raise
    # TypeError (the entity lookups of `kgmem current` / `kgmem history` pass ``name``).
    def read(self, name: str, /, **params: Any) -> list[Row]:
        """Run the catalogue statement ``name`` in a read transaction; rows as dicts."""
        text = self.queries[name]

        def work(tx: ManagedTransaction) -> list[Row]:
            return [_row(record) for record in tx.run(text, params)]

        return self.run_read(work)

    def write(self, name: str, /, **params: Any) -> list[Row]:
        """Run the catalogue statement ``name`` in one write transaction; rows as dicts."""
        text = self.queries[name]

        def work(tx: ManagedTransaction) -> list[Row]:
            return [_row(record) for record in tx.run(text, params)]

        return self.run_write(work)

    def transaction(self, work: Callable[[Transaction], T]) -> T:
        """Run ``work`` in one managed write transaction: every statement it runs through the
        `Transaction` commits together or not at all.

        The driver retries the whole of ``work`` on transient errors (deadlocks, a dropped
        connection), so ``work`` must not have side effects outside the transaction. An
        exception raised by ``work`` rolls the transaction back and propagates unchanged.
        """
        return self.run_write(lambda tx: work(Transaction(tx, self.queries)))

    def write_batches(
        self,
        name: str,
        rows: Sequence[Row],
        /,
        *,
        batch_size: int,
        progress: Callable[[int], None] | None = None,
        **params: Any,
    ) -> int:
        """Run ``name`` once per batch of ``rows`` (bound to ``$rows``), one transaction each.

        A batch is all-or-nothing: a failure rolls back that batch only, so nothing is ever
        half-written. Statements are ``UNWIND $rows AS row MERGE ...`` and idempotent.

        Returns:
            the number of rows written.
        """
        written = 0
        for batch in _chunks(rows, batch_size):
            self.write(name, rows=batch, **params)
            written += len(batch)
            if progress is not None:
                progress(len(batch))
        return written

    def explain(self, name: str) -> None:
        """``EXPLAIN`` statement ``name`` (plans it without running it; catches typos)."""
        self.run_read(lambda tx: tx.run(explained(self.queries[name])).consume())


class Transaction:
    """Named catalogue statements inside one open write transaction (see `Store.transaction`)."""

    def __init__(self, tx: ManagedTransaction, queries: Catalogue) -> None:
        self._tx = tx
        self._queries = queries

    def run(self, name: str, /, **params: Any) -> list[Row]:
        """Run the catalogue statement ``name``; rows as dicts (temporal values as datetimes)."""
        return [_row(record) for record in self._tx.run(self._queries[name], params)]


class _AutoClosingSession:
    """Wraps a driver session so each managed transaction closes its session afterwards."""

    def __init__(self, session: neo4j.Session) -> None:
        self._session = session

    def execute_read(self, work: Callable[[ManagedTransaction], T]) -> T:
        with self._session as session:
            return session.execute_read(work)

    def execute_write(self, work: Callable[[ManagedTransaction], T]) -> T:
        with self._session as session:
            return session.execute_write(work)


_VERSION_PREFIX = re.compile(r"^((?:\s*//[^\n]*\n)*\s*)(CYPHER\s+\d+\s)?", re.IGNORECASE)


def explained(text: str) -> str:
    """``text`` with ``EXPLAIN`` placed after its leading comments and ``CYPHER <version>``
    prefix, where Neo4j expects it."""
    found = _VERSION_PREFIX.match(text)
    head = found.group(0) if found else ""
    return f"{head}EXPLAIN {text[len(head) :]}"


def translate_error(exc: Exception, uri: str, user: str) -> StoreError:
    """The kgmem error for a driver exception (shared by the sync and async stores)."""
    if isinstance(exc, AuthError):
        return AuthenticationFailed(uri, user)
    if isinstance(exc, ServiceUnavailable):
        return Neo4jUnavailable(uri, type(exc).__name__)
    if isinstance(exc, neo4j.exceptions.Neo4jError):
        return StoreError(f"Neo4j error {exc.code}: {exc.message}")
    return StoreError(f"Neo4j driver error: {exc}")


_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def _native(value: Any) -> Any:
    """A driver value as plain Python, in ONE pass: what ``Record.data()`` makes of it (a node
    becomes its properties; a relationship ``(start properties, TYPE, end properties)``; a path
    the alternating list), with Neo4j temporal values as Python datetimes, recursively through
    lists and maps.

    ``record.data()`` followed by a second conversion walked every value twice through
    ``isinstance`` chains; for the linked read path's one-row answer (about 70 KB of maps) that
    was 3-5 ms of client time per question (measured on the LoCoMo dev questions). A list or
    map of plain scalars is returned as the driver made it (its element types collected in C):
    on a long agent chat the read path returns some 20,000 floats of fact embeddings, one
    Python call each when walked (about 10 ms per question on the BEAM dev chats).
    """
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dict):
        if set(map(type, value.values())) <= _PLAIN:  # scalars only: nothing to convert
            return value
        return {k: _native(v) for k, v in value.items()}
    if isinstance(value, list):
        if set(map(type, value)) <= _PLAIN:  # an embedding, a list of ids: as it came
            return value
        return [_native(v) for v in value]
    if isinstance(value, neo4j.graph.Node):
        return _native(dict(value))
    if isinstance(value, neo4j.graph.Relationship):
        start, end = value.start_node, value.end_node
        return (
            _native(dict(start)) if start is not None else {},
            type(value).__name__,
            _native(dict(end)) if end is not None else {},
        )
    if isinstance(value, neo4j.graph.Path):
        out: list[Any] = [_native(value.start_node)]
        for rel, node in zip(value.relationships, value.nodes[1:], strict=True):
            out += [type(rel).__name__, _native(node)]
        return out
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _row(record: Any) -> Row:
    """One result record as a plain dict (see `_native`)."""
    return {key: _native(value) for key, value in zip(record.keys(), record, strict=True)}


def _chunks(rows: Sequence[Row], size: int) -> Iterator[Sequence[Row]]:
    if size <= 0:
        raise ValueError("batch_size must be positive")
    for start in range(0, len(rows), size):
        yield rows[start : start + size]
