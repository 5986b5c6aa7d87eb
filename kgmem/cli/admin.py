"""``kgmem schema apply``, ``kgmem conversations``, ``kgmem forget``."""

from __future__ import annotations

import click
from rich.table import Table

from kgmem.cli._common import console, dump_json, json_option, memory_from
from kgmem.ingest.writing.threads import unshared


@click.group()
def schema() -> None:
    """Constraints and indexes (cypher/schema/)."""


@schema.command("apply")
@click.option(
    "--rebuild",
    is_flag=True,
    help="Replace search indexes of an older kgmem layout (data is kept; indexes repopulate).",
)
@json_option()
@click.pass_context
def schema_apply(ctx: click.Context, rebuild: bool, as_json: bool) -> None:
    """Create every missing constraint and index (idempotent).

    Also migrates data of older versions and says what it changed (supersession keys whose
    conversation or owner id had been case-folded get the id exactly as given). Refuses to mix
    layouts: a vector index of another dimension, or a search index of an older
    layout (no tenant filter inside the index), is an error that says what to do. Owned
    conversations whose entities are still their own (stored before an owner's threads shared
    entities) are reported; --rebuild moves them into the owner's scope.
    """
    with memory_from(ctx) as memory:
        rebuilt = memory.rebuild_schema() if rebuild else []
        names = memory.apply_schema()
        migrated = memory.migrate()
        outdated = unshared(memory.store)
    if as_json:
        click.echo(
            dump_json(
                {
                    "applied": names,
                    "rebuilt": rebuilt,
                    "migrated": migrated,
                    "unshared_entities": len(outdated),
                }
            )
        )
    else:
        if rebuilt:
            console.print(f"rebuilt: {', '.join(rebuilt)}")
        console.print(f"schema applied: {len(names)} statements (constraints, vector, fulltext)")
        if migrated["keys_restored"]:
            console.print(
                f"restored the exact conversation/owner id in {migrated['keys_restored']} "
                "supersession keys (ids are case-sensitive; older versions case-folded them)"
            )
        if outdated:
            console.print(
                f"{len(outdated)} owned conversations keep entities of the older "
                "per-conversation layout (an owner's threads now share entities): run "
                "`kgmem schema apply --rebuild` once to move them (data is kept)."
            )


@click.command()
@json_option()
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
@click.option("--conversation", "conversation_id", required=True, help="Conversation id.")
@click.option(
    "--turn",
    "turn_ids",
    multiple=True,
    help="Forget only this turn (local or full id); repeat for several. Without it the whole "
    "conversation is deleted.",
)
@json_option()
@click.pass_context
def forget(
    ctx: click.Context, conversation_id: str, turn_ids: tuple[str, ...], as_json: bool
) -> None:
    """Delete a conversation, or with --turn single turns: the turns, facts citing them, and
    every entity, alias, event and supersession link that only they supported."""
    with memory_from(ctx) as memory:
        if turn_ids:
            counts = memory.forget_turns(conversation_id, list(turn_ids))
        else:
            counts = memory.forget(conversation_id)
    if as_json:
        click.echo(dump_json(counts))
    else:
        what = (
            f"{len(turn_ids)} turn(s) of {conversation_id!r}" if turn_ids else repr(conversation_id)
        )
        console.print(f"forgot {what}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@click.command()
@click.option("--conversation", "conversation_id", required=True, help="Conversation id.")
@json_option()
@click.pass_context
def requests(ctx: click.Context, conversation_id: str, as_json: bool) -> None:
    """List the memory requests a conversation made ("forget my X", "don't save this"): their
    audit records, with the ids of the turns each removed. No text is kept or shown."""
    with memory_from(ctx) as memory:
        rows = memory.requests(conversation_id)
    if as_json:
        click.echo(dump_json(rows))
        return
    table = Table("request", "kind", "status", "position", "time", "removed")
    for row in rows:
        table.add_row(
            str(row["turn_id"]),
            str(row["kind"]),
            str(row["status"]),
            str(row["index"]),
            str(row["observed_at"]),
            ", ".join(row["removed"]) or "-",
        )
    console.print(table)
