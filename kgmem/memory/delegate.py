"""How the `kgmem.api.Memory` facade and `kgmem.aio.AsyncMemory` get their methods: each is
derived from the collaborator method that does the work, keeping its name, signature and
docstring (``functools.wraps``), so there is one copy of each and help(), the docs and
``inspect.signature`` show the real arguments.

- ``delegate("writer", Writer.add_turns)`` in `Memory`'s body calls
  ``self.writer.add_turns(...)``;
- ``awaited(Memory.add_turns)`` in `AsyncMemory`'s body runs ``self.sync.add_turns(...)`` in a
  worker thread and is awaited.

A test (tests/unit/test_memory_surface.py) checks that every public `Memory` method has its
awaited twin with the same signature and docstring.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

__all__ = ["awaited", "delegate"]

P = ParamSpec("P")
R = TypeVar("R")


def delegate(
    collaborator: str, method: Callable[Concatenate[Any, P], R]
) -> Callable[Concatenate[Any, P], R]:
    """A facade method that calls ``method`` on the facade's attribute ``collaborator``."""
    name = method.__name__

    def delegated(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return getattr(getattr(self, collaborator), name)(*args, **kwargs)  # type: ignore[no-any-return]

    functools.update_wrapper(delegated, method)
    return delegated


def awaited(
    method: Callable[Concatenate[Any, P], R],
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """An async method running the sync ``method`` of ``self.sync`` through ``self._run`` (a
    worker thread: model inference never blocks the event loop)."""
    name = method.__name__

    async def twin(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await self._run(getattr(self.sync, name), *args, **kwargs)  # type: ignore[no-any-return]

    functools.update_wrapper(twin, method)
    return twin
