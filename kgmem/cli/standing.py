"""``kgmem instructions`` and the standing lines of ``kgmem search``: the user's standing
instructions and preferences, and conflicting statements (`kgmem.retrieve.standing`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from kgmem.cli._common import console, dump_json, memory_from
from kgmem.retrieve.retriever import SearchResult

__all__ = ["instructions", "print_standing"]


def _day(value: Any) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else str(value or "")


def _instruction_line(item: dict[str, Any]) -> str:
    return (
        f"  {item['kind']}: {item['text']!r} (turn {item['turn_id']}, since "
        f"{_day(item['valid_from'])}; scope {item['scope']}; {item['why']}, "
        f"similarity {item['similarity']:.2f})"
    )


def print_standing(result: SearchResult) -> None:
    """The instructions that apply, the conflicts among the hits and a time order, if any."""
    if result.order == "time":
        console.print("order: time (oldest first)", markup=False)
    if result.instructions:
        console.print("instructions that apply:", markup=False)
        for item in result.instructions:
            console.print(_instruction_line(item), markup=False)
    for conflict in result.conflicts:
        a, b = conflict["turns"]
        console.print(
            f"conflict: {a['turn_id']} ({_day(a['observed_at'])}) against {b['turn_id']} "
            f"({_day(b['observed_at'])}): {conflict['why']}",
            markup=False,
        )


@click.command()
@click.argument("request", required=False, default=None)
@click.option("--conversation", "conversation_id", required=True, help="Conversation to read.")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def instructions(
    ctx: click.Context,
    request: str | None,
    conversation_id: str,
    limit: int,
    as_json: bool,
) -> None:
    """The user's standing instructions and preferences in a conversation: those that apply
    to REQUEST (at most --limit), or every one in force without a REQUEST."""
    with memory_from(ctx) as memory:
        found = memory.instructions(conversation_id, request, limit=limit)
    if as_json:
        click.echo(dump_json([{k: v for k, v in i.items()} for i in found]))
        return
    if not found:
        console.print("no standing instructions apply" if request else "no standing instructions")
    for item in found:
        console.print(_instruction_line(item), markup=False)
