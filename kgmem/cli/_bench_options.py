"""Options every ``kgmem bench`` command shares: cut-off lists, ``--json`` and ``--quiet``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

__all__ = ["ks_list", "report_options"]

F = TypeVar("F", bound=Callable[..., Any])


def ks_list(value: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in value.split(",") if part.strip()})
    except ValueError as exc:
        raise click.BadParameter("k list must look like 5,10,20") from exc
    if not ks or ks[0] < 1:
        raise click.BadParameter("every k must be >= 1")
    return ks


def report_options(command: F) -> F:
    """``--json PATH`` and ``-q/--quiet``, shared by every benchmark command."""
    command = click.option("-q", "--quiet", is_flag=True, help="No progress bar.")(command)
    return click.option(
        "--json",
        "json_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write the JSON report here ('-' = stdout).",
    )(command)
