"""``kgmem neo4j start|stop|status``: the local Neo4j server (no Docker), a thin layer over
`kgmem.store.server.LocalNeo4j`.

Each command builds the launcher from `Settings` (``ctx.obj`` when the main group put one there,
else ``Settings()`` from ``KGMEM_*``), makes one call and prints the result. `KgmemError`
becomes `click.ClickException` (exit status 1). The password is never printed: the commands say
where it is kept instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

import click
from rich.console import Console
from rich.table import Table

from kgmem.cli._common import json_option
from kgmem.config import Settings
from kgmem.errors import KgmemError
from kgmem.store import Store
from kgmem.store.server import LocalNeo4j, ServerStatus

__all__ = ["NOT_RUNNING", "neo4j"]

NOT_RUNNING = 3
"""Exit status of ``kgmem neo4j status`` when the server is not running (LSB: "not running")."""

P = ParamSpec("P")
R = TypeVar("R")


def _settings(ctx: click.Context, data_dir: Path | None) -> Settings:
    """The settings in ``ctx.obj`` (or fresh from the environment), with ``--data-dir`` applied."""
    root = ctx.find_object(Settings)
    settings = root if root is not None else Settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


def _server(ctx: click.Context, data_dir: Path | None) -> LocalNeo4j:
    return LocalNeo4j.from_settings(_settings(ctx, data_dir))


def _errors_to_click(func: Callable[P, R]) -> Callable[P, R]:
    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except KgmemError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def _print_status(
    status: ServerStatus,
    password_note: str | None,
    as_json: bool,
    warmed: dict[str, float] | None = None,
) -> None:
    if as_json:
        fields = status.to_dict()
        if warmed is not None:
            fields["warmed_ms"] = warmed
        click.echo(json.dumps(fields, indent=2))
        return
    table = Table(show_header=False, box=None)
    table.add_row("running", "[green]yes[/]" if status.running else "[red]no[/]")
    table.add_row("pid", str(status.pid) if status.pid is not None else "-")
    table.add_row("bolt", status.bolt_uri)
    table.add_row("browser", status.browser_url)
    table.add_row("home", str(status.home))
    table.add_row("store", f"{status.store_bytes / 2**20:.1f} MiB")
    if password_note:
        table.add_row("password", password_note)
    if warmed is not None:
        shown = f"{len(warmed)} statements in {sum(warmed.values()):.0f} ms" if warmed else "none"
        table.add_row("plans warmed", shown)
    Console().print(table)


def _password_note(server: LocalNeo4j, settings: Settings) -> str | None:
    if settings.neo4j_password is not None:
        return "from KGMEM_NEO4J_PASSWORD"
    if server.password_file.is_file():
        return f"user neo4j, password in {server.password_file}"
    return None


data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="kgmem data directory (overrides KGMEM_DATA_DIR); the server lives in <data-dir>/neo4j.",
)


@click.group()
def neo4j() -> None:
    """Run the local Neo4j 2026 server (no Docker): jars from Maven Central, loopback only."""


@neo4j.command()
@data_dir_option
@json_option("Print JSON instead of a table.")
@click.option(
    "--warm/--no-warm",
    default=True,
    show_default=True,
    help="Compile the read path's query plans once the server answers (kgmem.retrieve.warm).",
)
@click.pass_context
@_errors_to_click
def start(ctx: click.Context, data_dir: Path | None, as_json: bool, warm: bool) -> None:
    """Start the server (resolving its jars on first use) and wait until Bolt answers.

    Harmless when it is already running. With ``--warm`` (the default) the read path's plans
    are then compiled, so the first question does not pay for it (a few round trips; skipped
    before the schema exists; a failure is only logged).
    """
    settings = _settings(ctx, data_dir)
    server = LocalNeo4j.from_settings(settings)
    status = server.start()
    warmed = None
    if warm:
        from kgmem.retrieve.warm import warm_read_path  # the read path's imports, only here

        with Store.from_settings(settings) as store:
            warmed = warm_read_path(store)
    _print_status(status, _password_note(server, settings), as_json, warmed)


@neo4j.command()
@data_dir_option
@click.option("--timeout", default=60.0, show_default=True, help="Seconds before SIGKILL.")
@click.pass_context
@_errors_to_click
def stop(ctx: click.Context, data_dir: Path | None, timeout: float) -> None:
    """Stop the server with SIGTERM (clean checkpoint); no-op when it is not running."""
    server = _server(ctx, data_dir)
    was_running = server.status().running
    server.stop(timeout_s=timeout)
    click.echo("stopped" if was_running else "not running")


@neo4j.command()
@data_dir_option
@json_option("Print JSON instead of a table.")
@click.pass_context
@_errors_to_click
def status(ctx: click.Context, data_dir: Path | None, as_json: bool) -> None:
    """Show whether the server runs, its PID, Bolt URI, Browser URL and store size.

    Exits with status 0 when the server is running and 3 when it is not (as `systemctl status`
    and LSB init scripts do), so scripts and health checks can use it.
    """
    settings = _settings(ctx, data_dir)
    server = LocalNeo4j.from_settings(settings)
    current = server.status()
    _print_status(current, _password_note(server, settings), as_json)
    if not current.running:
        ctx.exit(NOT_RUNNING)
