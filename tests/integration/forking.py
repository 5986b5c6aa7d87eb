"""Forked writer processes for the concurrency and crash tests.

A child made with `os.fork` shares the parent's loaded embedding model and spaCy pipeline (so
four writers start in a second, not in four model loads), opens its own Neo4j driver, and runs
one function. Torch is limited to one thread in the child: a forked copy of an intra-op thread
pool can hang. The child ends with ``os._exit`` (0 = the function returned, 1 = it raised, the
traceback on stderr), or by the ``SIGKILL`` a crash test arms it with.
"""

from __future__ import annotations

import os
import signal
import traceback
from collections.abc import Callable
from typing import Any

from kgmem import Memory
from kgmem.config import Settings
from kgmem.store import Store, Transaction

__all__ = ["KillPoint", "fork_writer", "wait"]


class KillPoint:
    """Where a child kills itself with ``SIGKILL`` (``kill -9``).

    Args:
        name: the point's name in reports.
        statement: kill right after the ``nth`` run of this catalogue statement, inside its
            still-open transaction; or ``"<commit>"`` for right after the ``nth`` transaction
            committed; or ``"<begin>"`` for right before the ``nth`` transaction starts.
        nth: which occurrence (1-based).
    """

    def __init__(self, name: str, statement: str, nth: int = 1) -> None:
        self.name, self.statement, self.nth = name, statement, nth

    def __repr__(self) -> str:
        return self.name

    def arm(self) -> None:
        """Patch this (child) process so that it dies at the point."""
        seen = 0

        def hit() -> None:
            nonlocal seen
            seen += 1
            if seen == self.nth:
                os.kill(os.getpid(), signal.SIGKILL)

        if self.statement in ("<commit>", "<begin>"):
            original_tx = Store.transaction

            def transaction(store: Store, work: Callable[[Transaction], Any]) -> Any:
                if self.statement == "<begin>":
                    hit()
                result = original_tx(store, work)
                if self.statement == "<commit>":
                    hit()
                return result

            Store.transaction = transaction  # type: ignore[method-assign]
            return
        original_run = Transaction.run

        def run(tx: Transaction, name: str, /, **params: Any) -> Any:
            rows = original_run(tx, name, **params)
            if name == self.statement:
                hit()
            return rows

        Transaction.run = run  # type: ignore[method-assign]


def fork_writer(
    memory: Memory,
    settings: Settings,
    work: Callable[[Memory], object],
    *,
    kill: KillPoint | None = None,
    gate: int | None = None,
) -> int:
    """Fork a child that runs ``work`` on its own `Memory` (own driver, the parent's models).

    Args:
        memory: the parent's memory (its embedder and extractor are loaded and shared).
        settings: the child's settings (e.g. a smaller ``write_batch_size``).
        work: what the child does.
        kill: arm this kill point first.
        gate: a pipe's read end: the child blocks until one byte arrives (a common start).

    Returns:
        the child's pid (see `wait`).
    """
    memory.embedder.encode(["warm up"])
    extractor = memory.extractor
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        import torch

        torch.set_num_threads(1)
        if kill is not None:
            kill.arm()
        child = Memory(Store.from_settings(settings), memory.embedder, settings)
        child.ingestors.extractor = extractor
        child.schema.ready = True
        if gate is not None:
            os.read(gate, 1)
        work(child)
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def wait(pid: int) -> int:
    """Wait for a child: its exit code, or ``-signal`` if a signal ended it."""
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)
