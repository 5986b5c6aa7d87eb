"""One rule for the ids a caller passes (conversation ids, owners, conversation lists).

Ids are exact: compared and stored as given, case and accents included (``Chat-A`` and
``chat-a`` are two conversations). Every public `kgmem.api.Memory` method that takes one is
wrapped by `checks_ids`, so a wrong value fails the same way everywhere (Python API,
`kgmem.aio.AsyncMemory`, MCP, the LangGraph store, the CLI): `MalformedInput` naming the
argument, before anything is read or written. Nothing is coerced: ``42`` is not ``"42"``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from kgmem.errors import MalformedInput

__all__ = ["MAX_ID_CHARS", "check_conversation_ids", "check_id", "checks_ids"]

MAX_ID_CHARS = 256
"""The longest conversation id or owner accepted, in characters (an id, not a text)."""

F = TypeVar("F", bound=Callable[..., Any])


def check_id(value: object, *, argument: str = "conversation_id", owner: bool = False) -> str:
    """``value`` if it is a usable id; ids are exact (no case folding, no coercion).

    Args:
        value: the caller's value.
        argument: the argument's name, for the error.
        owner: an owner id (``:`` allowed) rather than a conversation id (``:`` reserved: it
            separates a conversation id from its turn ids).

    Raises:
        MalformedInput: not a string, empty or blank, longer than `MAX_ID_CHARS`, not valid
            Unicode, or (conversation ids) holding ``:``; the error names ``argument``.
    """
    if not isinstance(value, str):
        raise MalformedInput(
            f"{argument} must be a string, not {type(value).__name__} ({value!r:.60})",
            argument=argument,
        )
    if not value.strip():
        raise MalformedInput(f"{argument} must not be empty", argument=argument)
    if len(value) > MAX_ID_CHARS:
        raise MalformedInput(
            f"{argument} is longer than {MAX_ID_CHARS} characters", argument=argument
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MalformedInput(
            f"{argument} is not valid Unicode (lone surrogate at position {exc.start})",
            argument=argument,
        ) from exc
    if not owner and ":" in value:
        raise MalformedInput(
            f"{argument} must not contain ':' (it separates the id from turn ids)",
            argument=argument,
        )
    return value


def check_conversation_ids(value: object, *, argument: str = "conversations") -> tuple[str, ...]:
    """A list or tuple of conversation ids, each checked by `check_id`.

    Raises:
        MalformedInput: a string or any other non-sequence, or a bad id; names ``argument``.
    """
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise MalformedInput(
            f"{argument} must be a list of conversation ids, not {type(value).__name__}",
            argument=argument,
        )
    return tuple(check_id(v, argument=argument) for v in value)


_CHECKS: dict[str, Callable[[object], object]] = {
    "conversation_id": lambda v: check_id(v, argument="conversation_id"),
    "owner": lambda v: check_id(v, argument="owner", owner=True),
    "conversations": lambda v: check_conversation_ids(v, argument="conversations"),
}


def checks_ids(fn: F) -> F:
    """Check the id arguments of a public method (``conversation_id``, ``owner``,
    ``conversations``) with `check_id` before it runs; None passes where the annotation allows
    it (the method itself says what None means there)."""
    signature = inspect.signature(fn)
    names = [name for name in signature.parameters if name in _CHECKS]
    # None passes only where the annotation allows it (``str | None``): the method says what
    # it means there (an owner-wide call); elsewhere it is refused like any non-string
    optional = {n for n in names if "None" in str(signature.parameters[n].annotation)}

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs)
        for name in names:
            if name in bound.arguments:
                value = bound.arguments[name]
                if value is not None or name not in optional:
                    _CHECKS[name](value)
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
