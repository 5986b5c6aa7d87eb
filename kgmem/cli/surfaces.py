"""``kgmem mcp`` (the MCP server), ``kgmem serve`` and ``kgmem token`` (the HTTP API) and
``kgmem ask`` (the optional citation-locked reader)."""

from __future__ import annotations

import click

from kgmem.cli._common import console, dump_json, json_option, memory_from, settings_from
from kgmem.config import DEFAULT_K

__all__ = ["ask", "mcp", "serve", "token"]


@click.command()
@click.option(
    "--conversation",
    "conversation_id",
    envvar="KGMEM_MCP_CONVERSATION",
    default=None,
    help="The one conversation this server reads (or KGMEM_MCP_CONVERSATION); with --owner, "
    "the conversation remember writes to.",
)
@click.option(
    "--owner",
    envvar="KGMEM_MCP_OWNER",
    default=None,
    help="Serve all conversations of this owner (or KGMEM_MCP_OWNER).",
)
@click.option(
    "--k",
    default=DEFAULT_K,
    show_default=True,
    type=click.IntRange(min=1),
    help="Hits per search_memory call.",
)
@click.option(
    "--http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio."
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP bind address; any non-loopback address needs KGMEM_MCP_TOKEN (bearer token).",
)
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="HTTP port."
)
@click.pass_context
def mcp(
    ctx: click.Context,
    conversation_id: str | None,
    owner: str | None,
    k: int,
    http: bool,
    host: str,
    port: int,
) -> None:
    """Serve one conversation's memory, or one owner's, to an MCP client (tools: search_memory,
    timeline, read_turns, current_value, profile, remember, forget_turns, forget_about). Speaks
    stdio unless --http. Needs --conversation or --owner.

    Over HTTP, KGMEM_MCP_TOKEN (if set) is a bearer token every request must carry; it is
    required whenever --host is not a loopback address. The conversation may be empty.
    """
    from kgmem.mcp import serve

    if conversation_id is None and owner is None:
        raise click.UsageError("give --conversation ID or --owner ID")
    serve(settings_from(ctx), conversation_id, owner=owner, http=http, host=host, port=port, k=k)


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Bind address; any non-loopback address needs KGMEM_HTTP_TOKENS_FILE (bearer tokens).",
)
@click.option(
    "--port", default=8080, show_default=True, type=click.IntRange(1, 65535), help="HTTP port."
)
@click.pass_context
def serve(ctx: click.Context, host: str, port: int) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json): add turns and documents, search,
    current, history, profile, timeline, forget; GET /health checks Neo4j.

    With KGMEM_HTTP_TOKENS_FILE every request but /health needs a bearer token of that file,
    and reaches only what the token grants. Without it the server binds only to loopback.
    """
    from kgmem.service import serve as run

    run(settings_from(ctx), host=host, port=port)


@click.command()
@click.option("--owner", default=None, help="The token reaches this owner's conversations.")
@click.option(
    "--conversation",
    "conversations",
    multiple=True,
    help="The token reaches this conversation (repeat for several).",
)
def token(owner: str | None, conversations: tuple[str, ...]) -> None:
    """Make a bearer token for `kgmem serve`: prints the token (shown once) and the JSON entry
    to add to the token file (KGMEM_HTTP_TOKENS_FILE), which stores only its SHA-256."""
    from kgmem.service import Grant, new_token

    if (owner is None) == (not conversations):
        raise click.UsageError("give --owner ID or --conversation ID (repeatable), not both")
    grant = Grant.parse({"owner": owner} if owner is not None else {"conversations": conversations})
    secret, entry = new_token(grant)
    click.echo(dump_json({"token": secret, "entry": entry}))


@click.command()
@click.argument("question")
@click.option("--conversation", "conversation_id", required=True, help="Conversation to ask about.")
@click.option(
    "--k",
    default=DEFAULT_K,
    show_default=True,
    type=click.IntRange(min=1),
    help="Turns handed to the reader.",
)
@json_option("Print JSON (answer, citations, tokens, latency).")
@click.pass_context
def ask(ctx: click.Context, question: str, conversation_id: str, k: int, as_json: bool) -> None:
    """Answer QUESTION from memory with an OpenAI-compatible reader (KGMEM_READER_*).

    The answer must cite turn ids it was given; one that cites none becomes "not in memory".
    """
    from kgmem.reader import Reader
    from kgmem.reader import ask as ask_reader

    with Reader.from_settings(settings_from(ctx)) as reader, memory_from(ctx) as memory:
        answer = ask_reader(memory, reader, question, conversation_id, k)
    if as_json:
        click.echo(dump_json(answer.model_dump(mode="json")))
        return
    console.print(answer.answer, markup=False)
    if answer.abstained:
        console.print(f"abstained: {answer.reason}")
    else:
        console.print(f"cites: {', '.join(answer.citations)}")
    console.print(
        f"{answer.model}: {answer.tokens_in} tokens in, {answer.tokens_out} out, "
        f"{answer.latency_ms:.0f} ms"
    )
