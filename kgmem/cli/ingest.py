"""``kgmem ingest locomo|chat|facts|docs``: the write path from files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click
from rich.table import Table

from kgmem.cli._common import console, dump_json, json_option, memory_from, progress_bar
from kgmem.ingest.loaders.chat import load_chat
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.ingest.report import IngestReport
from kgmem.models import ConversationRecord

FACTS = click.Choice(["annotation", "extracted", "both", "none"])
_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.group()
def ingest() -> None:
    """Load conversations, numbered fact lists or documents into the graph. Re-running changes
    nothing."""


def _run(
    ctx: click.Context,
    records: list[ConversationRecord],
    facts: str,
    quiet: bool,
    as_json: bool,
    roles: dict[str, str] | None = None,
    owner: str | None = None,
) -> None:
    reports: list[IngestReport] = []
    with memory_from(ctx) as memory, progress_bar(not quiet and not as_json) as progress:
        for record in records:
            reports.append(
                memory.add_conversation(
                    record,
                    facts=facts,  # type: ignore[arg-type]
                    progress=progress,
                    roles=roles,
                    owner=owner,
                )
            )
    if as_json:
        click.echo(dump_json([r.as_dict() for r in reports]))
        return
    table = Table(
        "conversation",
        "turns",
        "written",
        "facts",
        "written",
        "entities",
        "events",
        "supersedes",
        "seconds",
    )
    for r in reports:
        table.add_row(
            r.conversation_id,
            str(r.turns_total),
            str(r.turns_written),
            str(r.facts_total),
            str(r.facts_written),
            str(r.entities),
            str(r.events),
            str(r.supersedes),
            f"{sum(r.seconds.values()):.1f}",
        )
    console.print(table)
    for r in reports:
        if r.withheld or r.removed or r.not_applied:
            console.print(
                f"{r.conversation_id}: memory requests: {len(r.withheld)} turn(s) withheld, "
                f"{len(r.removed)} removed, {len(r.not_applied)} not applied "
                f"(kgmem requests --conversation {r.conversation_id})",
                markup=False,
            )


def _roles(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        speaker, sep, role = value.rpartition("=")
        if not sep or not speaker.strip():
            raise click.BadParameter(f"{value!r} is not SPEAKER=ROLE", param_hint="--role")
        out[speaker.strip()] = role.strip()
    return out


_OWNER = click.option(
    "--owner",
    default=None,
    help="The owner (user, agent or team) the conversations belong to; an owner's "
    "conversations are searched together (kgmem search --owner).",
)


@ingest.command("locomo")
@_OWNER
@click.argument("file", type=_FILE)
@click.option(
    "--conversation", "conversations", multiple=True, help="Only these sample ids (repeatable)."
)
@click.option(
    "--facts", type=FACTS, default="both", show_default=True, help="Fact sources to build."
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@json_option()
@click.pass_context
def ingest_locomo(
    ctx: click.Context,
    file: Path,
    owner: str | None,
    conversations: tuple[str, ...],
    facts: str,
    quiet: bool,
    as_json: bool,
) -> None:
    """Ingest a LoCoMo-layout file (locomo10.json)."""
    records = load_locomo(file, conversations or None)
    _run(ctx, records, facts, quiet, as_json, owner=owner)


@ingest.command("chat")
@_OWNER
@click.argument("file", type=_FILE)
@click.option(
    "--facts", type=FACTS, default="extracted", show_default=True, help="Fact sources to build."
)
@click.option(
    "--role",
    "roles",
    multiple=True,
    metavar="SPEAKER=ROLE",
    help="A speaker's role (user, assistant, system, tool), over the file's 'roles'; repeatable.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@json_option()
@click.pass_context
def ingest_chat(
    ctx: click.Context,
    file: Path,
    owner: str | None,
    facts: str,
    roles: tuple[str, ...],
    quiet: bool,
    as_json: bool,
) -> None:
    """Ingest kgmem's generic chat format (JSON or JSONL; see README). Speakers named user /
    assistant / system / tool have that role; --role or the file's 'roles' name others
    (docs/roles-and-requests.md)."""
    _run(ctx, load_chat(file), facts, quiet, as_json, _roles(roles) or None, owner=owner)


@ingest.command("facts")
@_OWNER
@click.argument("file", type=_FILE)
@click.option(
    "--conversation",
    "conversation_id",
    help="Conversation id (default: the row's source, or the file stem).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@json_option()
@click.pass_context
def ingest_facts(
    ctx: click.Context,
    file: Path,
    owner: str | None,
    conversation_id: str | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Ingest a numbered fact list ("0. ...\\n1. ...", higher number = newer; plain text, or
    MemoryAgentBench JSON rows) as a conversation: one turn per line, spoken by "source", with
    statement facts, entities and SUPERSEDES chains like any conversation."""
    from kgmem.ingest.loaders.numbered import load_numbered

    records = load_numbered(file, conversation_id=conversation_id)
    _run(ctx, records, "extracted", quiet, as_json, owner=owner)


def _document_paths(paths: tuple[Path, ...]) -> list[Path]:
    """The files named, a directory standing for its Markdown and text files (recursive)."""
    from kgmem.ingest.loaders.documents import MARKDOWN_SUFFIXES

    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(
                p
                for p in sorted(path.rglob("*"))
                if p.is_file() and p.suffix.lower() in MARKDOWN_SUFFIXES | {".txt", ".text"}
            )
        else:
            out.append(path)
    return list(dict.fromkeys(out))


@ingest.command("docs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--conversation",
    "conversation_id",
    help="Conversation to add them to, e.g. a chat's id (default: doc-<file name> each).",
)
@click.option(
    "--source",
    help="The document's name instead of its path (one file only; re-ingest matches on it).",
)
@click.option(
    "--observed-at",
    "observed_at",
    type=click.DateTime(formats=["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]),
    default=None,
    help="When the documents were observed (ISO 8601; naive = UTC; default: each file's "
    "modification time).",
)
@_OWNER
@json_option()
@click.pass_context
def ingest_docs(
    ctx: click.Context,
    paths: tuple[Path, ...],
    conversation_id: str | None,
    source: str | None,
    observed_at: datetime | None,
    owner: str | None,
    as_json: bool,
) -> None:
    """Ingest Markdown, plain-text and PDF documents (a directory: its .md/.markdown/.txt files;
    PDF needs the pdf extra):
    each section's chunks become turns spoken by the document, with source FILE#HEADING on
    every hit (docs/documents.md). Every file is read and checked before anything is written;
    re-ingesting replaces only changed chunks, and an unchanged file writes nothing."""
    from datetime import UTC

    from kgmem.ingest.loaders.documents import load_document

    files = _document_paths(paths)
    if source is not None and len(files) != 1:
        raise click.UsageError("--source names one document: give exactly one file")
    if observed_at is not None and observed_at.tzinfo is None:
        observed_at = observed_at.replace(tzinfo=UTC)
    documents = [load_document(f, source=source, observed_at=observed_at) for f in files]
    with memory_from(ctx) as memory:
        reports = [
            memory.add_document(d, conversation_id=conversation_id, owner=owner) for d in documents
        ]
    if as_json:
        click.echo(dump_json([r.as_dict() for r in reports]))
        return
    table = Table("document", "conversation", "chunks", "kept", "written", "removed", "facts")
    for r in reports:
        table.add_row(
            r.name,
            r.conversation_id,
            str(r.chunks),
            str(r.kept),
            str(len(r.written)),
            str(len(r.removed)),
            str(r.facts_written),
        )
    console.print(table)
