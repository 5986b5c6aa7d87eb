"""``kgmem schema apply``, ``kgmem conversations``, ``kgmem forget``."""

from __future__ import annotations

import click
from rich.table import Table

from kgmem.cli._common import console, dump_json, memory_from


@click.group()
def schema() -> None:
    """Constraints and indexes (cypher/schema/)."""


@schema.command("apply")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def schema_apply(ctx: click.Context, as_json: bool) -> None:
    """Create every missing constraint and index (idempotent; checks vector dimensions)."""
    with memory_from(ctx) as memory:
        names = memory.apply_schema()
    if as_json:
        click.echo(dump_json({"applied": names}))
    else:
        console.print(f"schema applied: {len(names)} statements (constraints, vector, fulltext)")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def conversations(ctx: click.Context, as_json: bool) -> None:
    """List stored conversations with turn counts and time spans."""
    with memory_from(ctx) as memory:
        rows = memory.conversations()
    if as_json:
        click.echo(dump_json(rows))
        return
    table = Table("conversation", "turns", "first", "last")
    for row in rows:
        table.add_row(
            row["conversation_id"], str(row["turns"]), str(row["first_seen"]), str(row["last_seen"])
        )
    console.print(table)


@click.command()
@click.option("--conversation", "conversation_id", required=True, help="Conversation id to delete.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def forget(ctx: click.Context, conversation_id: str, as_json: bool) -> None:
    """Delete a conversation: its turns, facts, events, and entities no one else uses."""
    with memory_from(ctx) as memory:
        counts = memory.forget(conversation_id)
    if as_json:
        click.echo(dump_json(counts))
    else:
        console.print(
            f"forgot {conversation_id!r}: " + ", ".join(f"{v} {k}" for k, v in counts.items())
        )
