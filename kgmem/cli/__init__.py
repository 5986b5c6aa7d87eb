"""The ``kgmem`` command line: a thin layer over `kgmem.Memory`.

Every command builds the API object from `Settings` (``KGMEM_*``), makes one API call and
formats the result: a human table by default, ``--json`` for machines. `KgmemError` becomes a
one-line message and exit status 1 here, in one place.
"""

from __future__ import annotations

import logging
from typing import Any

import click
from neo4j.exceptions import ConfigurationError as Neo4jConfigurationError

from kgmem.cli.admin import conversations, forget, requests, schema
from kgmem.cli.bench import bench
from kgmem.cli.ingest import ingest
from kgmem.cli.neo4j import neo4j
from kgmem.cli.search import chain, current, explain, history, profile, search
from kgmem.cli.standing import instructions
from kgmem.cli.surfaces import ask, mcp, serve, token
from kgmem.cli.train import train
from kgmem.config import Settings
from kgmem.errors import KgmemError

__all__ = ["main"]


class _Main(click.Group):
    """Turns every `KgmemError` into a `click.ClickException` (message, exit status 1)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KgmemError as exc:
            raise click.ClickException(str(exc)) from exc
        except Neo4jConfigurationError as exc:  # e.g. KGMEM_NEO4J_URI=foo
            raise click.ClickException(f"invalid Neo4j connection setting: {exc}") from exc


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.version_option(package_name="kgmem")
@click.pass_context
def main(ctx: click.Context, verbose: int) -> None:
    """kgmem: long-term memory for LLM agents, kept as a knowledge graph in Neo4j.

    Settings come from KGMEM_* environment variables (see docs/configuration.md).
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    ctx.obj = Settings()


for command in (
    neo4j,
    schema,
    ingest,
    search,
    explain,
    current,
    history,
    profile,
    chain,
    bench,
    forget,
    conversations,
    requests,
    mcp,
    serve,
    token,
    ask,
    train,
    instructions,
):
    main.add_command(command)
