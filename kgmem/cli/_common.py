"""Shared pieces of the CLI: the Memory builder, JSON output, progress bars, error handling."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kgmem.api import Memory
from kgmem.config import Settings

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "console",
    "dump_json",
    "json_option",
    "memory_from",
    "progress_bar",
    "settings_from",
]

# markup and emoji off: turn texts contain "[shared image: ...]" and ":x:"-like ids verbatim;
# a pipe gets a wide fixed width instead of rich's 80 columns
console = Console(
    highlight=False,
    soft_wrap=True,
    emoji=False,
    markup=False,
    width=None if sys.stdout.isatty() else 160,
)


def settings_from(ctx: click.Context) -> Settings:
    """The `Settings` the main group built (once per invocation)."""
    settings = ctx.find_object(Settings)
    if settings is None:  # pragma: no cover - main always sets it
        settings = Settings()
        ctx.obj = settings
    return settings


@contextmanager
def memory_from(ctx: click.Context) -> Iterator[Memory]:
    """A connected `Memory` for one command, closed afterwards. Verifies the connection first,
    so a stopped server or a wrong password fails at once with a clear message instead of
    after the driver's retry budget."""
    memory = Memory.from_settings(settings_from(ctx))
    try:
        memory.verify()
        yield memory
    finally:
        memory.close()


def _default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def json_option(help: str = "Print JSON.") -> Callable[[F], F]:
    """The ``--json`` flag every command that prints a result takes (parameter ``as_json``):
    the same result as JSON (`dump_json`) instead of a table."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def dump_json(data: Any, *, compact: bool = False) -> str:
    """JSON text for machines (datetimes as ISO 8601, pydantic models dumped); ``compact``
    puts it on one line (for traces inside human output)."""
    if compact:
        return json.dumps(data, ensure_ascii=False, default=_default)
    return json.dumps(data, indent=2, ensure_ascii=False, default=_default)


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A rich progress bar fed by ``(stage, advance, total)`` callbacks; None when disabled or
    when stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, advance: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], advance=advance, total=total)

        yield update
