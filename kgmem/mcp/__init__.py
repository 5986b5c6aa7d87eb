"""The MCP server: kgmem as a memory tool for any MCP-speaking agent (``kgmem mcp``).

Built on the official ``mcp`` Python SDK (2.x, `mcp.server.mcpserver.MCPServer`). One server
serves ONE conversation or ONE owner's conversations, fixed by configuration (``kgmem mcp
--conversation ID`` / ``--owner ID``, or ``KGMEM_MCP_CONVERSATION`` / ``KGMEM_MCP_OWNER``), never
by a tool argument: the agent cannot read another tenant.

Tools with few parameters each. Few, small tools on purpose: on LoCoMo, going from
a one-parameter search tool to a nine-parameter one cost an agent 0.09 F1 in a published
memory-tool study (cited in the kgmem issue that specified this server):

- ``search_memory(query, k?, cursor?, exact?, speaker?, since?, until?, session?,
  max_tokens?, where?)``: the turns that bear on ``query``, best first, one page at a time,
  each with why it matched and its metadata (`kgmem.steer`: pages, exact phrases, names in any
  case, a token budget, a metadata filter, `kgmem.metadata`);
- ``timeline()``: sessions and documents with their dates and turn counts (the agent's map);
- ``read_turns(turn_id, window)``: a turn with its neighbours along ``NEXT`` (context);
- ``current_value(entity, relation)``: the latest value of a single-valued relation
  (decided in code by supersession, never by the model);
- ``profile(entity)``: every current attribute value of a person or thing, each with the
  turns that say it (`kgmem.api.Memory.profile`);
- ``instructions(request?)``: the user's standing instructions and preferences that apply to
  ``request`` (at most 5), or every one in force (`kgmem.api.Memory.instructions`; a
  conversation server only); ``search_memory`` returns the same beside its hits, with the
  conflicting statements among them;
- ``remember(text, speaker, metadata?)``: append a turn through the full write path
  (embedding, facts, entities, dates, supersession), with optional metadata; works on a
  conversation that holds nothing yet;
- ``forget_turns(turn_ids)`` and ``forget_about(description)``: turn-level forgetting,
  registered only when the `Memory` has ``forget_turns``.

Resources ``kgmem://timeline`` and ``kgmem://profile/{entity}`` and the prompt
``with_memory(task)`` serve clients that show them (`kgmem.mcp.resources`).

Every turn comes back with its id and its date so that the agent can cite it.
Transports: stdio (default) or streamable HTTP (``--http --port``). Over HTTP a bearer token
(``KGMEM_MCP_TOKEN``) is required whenever the bind address is not loopback (the server refuses
to start without one) and, once set, is checked on every request whatever the address, through
the SDK's own bearer middleware (``token_verifier`` + ``AuthSettings``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from pydantic import AnyHttpUrl

from kgmem.aio import AsyncMemory
from kgmem.api import Memory
from kgmem.config import DEFAULT_K, Settings
from kgmem.errors import ConfigError, MalformedInput
from kgmem.ids import check_id
from kgmem.mcp.auth import StaticTokenVerifier, is_loopback
from kgmem.mcp.models import (
    CurrentValue,
    ForgetAboutOutput,
    ForgetOutput,
    RememberOutput,
    SearchOutput,
    TimelineEntry,
    TimelineOutput,
    TurnOut,
    TurnsOutput,
)
from kgmem.mcp.resources import register as register_resources
from kgmem.mcp.tools import MAX_WINDOW, AwaitableMemory, Tools, default_thread
from kgmem.store import Store

__all__ = [
    "MAX_WINDOW",
    "CurrentValue",
    "ForgetAboutOutput",
    "ForgetOutput",
    "RememberOutput",
    "SearchOutput",
    "StaticTokenVerifier",
    "TimelineEntry",
    "TimelineOutput",
    "TurnOut",
    "TurnsOutput",
    "build_server",
    "default_thread",
    "is_loopback",
    "serve",
]


def _instructions(scope: str, can_forget: bool) -> str:
    """The server's instructions to the agent (how to use the tools; docs/scopes-and-filters.md)."""
    return (
        f"Long-term memory of {scope}. Call timeline first to see what memory holds (sessions "
        "and documents with dates); search_memory with a question to get the original turns "
        "that bear on it (optionally only one speaker's, or only turns said since / until a "
        "date); read_turns for the context around a turn; current_value for the latest value "
        "of a single-valued relation (where someone lives, works, ...); profile for "
        "everything memory holds about a person now; remember to store "
        "something worth keeping, as one self-contained sentence"
        + (
            "; forget_turns to erase turns by id; forget_about to erase what the user said "
            "about something"
            if can_forget
            else ""
        )
        + ". Answer only from returned turns and cite their turn ids; if nothing returned "
        "answers the question, say it is not in memory."
    )


def _check_scope(conversation_id: str | None, owner: str | None, k: int, speaker: str) -> None:
    """Raise `MalformedInput` for a server configuration that cannot serve."""
    if k < 1:
        raise MalformedInput("k must be >= 1", argument="k")
    if not conversation_id and owner is None:
        raise MalformedInput("an MCP server needs a conversation id or an owner")
    if not speaker.strip():
        raise MalformedInput("default_speaker must not be empty", argument="default_speaker")
    if conversation_id is not None and conversation_id != "":
        check_id(conversation_id, argument="conversation_id")
    if owner is not None:
        check_id(owner, argument="owner", owner=True)


def build_server(
    memory: Memory | AsyncMemory,
    conversation_id: str | None = None,
    *,
    owner: str | None = None,
    k: int = DEFAULT_K,
    default_speaker: str = "user",
    token: str | None = None,
    url: str = "http://127.0.0.1:8000",
    close_on_exit: bool = False,
) -> MCPServer:
    """An MCP server whose tools read and write one conversation, or one owner's
    conversations, through ``memory``.

    Building touches neither the network nor the models; the first tool call does.

    Args:
        memory: an open `AsyncMemory` (what `serve` uses) or `Memory` (its calls then run in a
            worker thread); the caller closes it.
        conversation_id: the one conversation the tools may read and write; with ``owner``,
            where ``remember`` writes (default: `default_thread` of the owner).
        owner: serve all conversations of this owner: ``search_memory``, ``timeline``,
            ``current_value``, ``profile`` and ``forget_about`` span them; ``read_turns`` and
            ``forget_turns`` take their full turn ids.
        k: hits per ``search_memory`` call (>= 1).
        default_speaker: the speaker of ``remember`` calls that name none.
        token: a bearer token every HTTP request must carry (None: no auth; stdio and in-process
            clients are never asked for it).
        url: the server's own base URL (the issuer named in the SDK's auth settings).
        close_on_exit: close ``memory`` when the server shuts down (on the server's own event
            loop, where an `AsyncMemory`'s driver lives).

    Returns:
        the server; run it with ``.run()`` (stdio) or ``.run("streamable-http", port=...)``,
        or connect in-process with ``mcp.Client(server)``.

    Raises:
        MalformedInput: ``k`` < 1, neither a conversation nor an owner, an empty
            ``default_speaker``, or an id `kgmem.ids.check_id` refuses (naming the argument).
    """
    _check_scope(conversation_id, owner, k, default_speaker)
    mem = AwaitableMemory(memory)
    tools = Tools(mem, conversation_id or None, owner, k=k, default_speaker=default_speaker)
    auth: dict[str, Any] = {}
    if token is not None:
        auth = {
            "token_verifier": StaticTokenVerifier(token),
            "auth": AuthSettings(issuer_url=AnyHttpUrl(url), resource_server_url=None),
        }

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            if close_on_exit:
                await mem.close()

    scope = (
        f"owner {owner!r}'s conversations" if tools.by_owner else f"conversation {tools.write_to!r}"
    )
    server = MCPServer(
        name="kgmem", lifespan=lifespan, instructions=_instructions(scope, mem.can_forget), **auth
    )
    registered: list[Callable[..., Any]] = [
        tools.search_memory,
        tools.timeline,
        tools.read_turns,
        tools.current_value,
        tools.profile,
        tools.remember,
    ]
    if not tools.by_owner:
        registered.append(tools.instructions)
    if mem.can_forget:
        registered += [tools.forget_turns, tools.forget_about]
    for tool in registered:
        server.add_tool(tool)
    register_resources(server, tools)
    return server


def serve(
    settings: Settings,
    conversation_id: str | None,
    *,
    owner: str | None = None,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8000,
    k: int = DEFAULT_K,
) -> None:
    """Run the server until the client disconnects (stdio) or the process is stopped (HTTP).

    A conversation that holds nothing yet is served (``remember`` fills it).

    Args:
        settings: where Neo4j is and which models to use; ``settings.mcp_token``
            (``KGMEM_MCP_TOKEN``) is the HTTP bearer token.
        conversation_id: the conversation to serve (with ``owner``: where ``remember``
            writes).
        owner: serve all conversations of this owner.
        http: serve streamable HTTP at ``http://host:port/mcp`` instead of stdio.
        host, port: HTTP bind address (loopback by default).
        k: hits per search.

    Raises:
        ConfigError: HTTP on a non-loopback address without ``KGMEM_MCP_TOKEN`` (checked
            before anything connects or binds).
        MalformedInput: a ``:`` in ``conversation_id``.
        Neo4jUnavailable, AuthenticationFailed: checked before serving.
    """
    token = settings.mcp_token.get_secret_value() if settings.mcp_token is not None else None
    if http and token is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to serve MCP over HTTP on {host!r} (not loopback) without a bearer token: "
            "set KGMEM_MCP_TOKEN, or bind to 127.0.0.1"
        )
    with Store.from_settings(settings) as probe:  # fail fast, before serving (sync, short-lived)
        probe.verify()
    memory = AsyncMemory.from_settings(settings)  # its driver binds to the server's event loop
    server = build_server(
        memory,
        conversation_id,
        owner=owner,
        k=k,
        token=token if http else None,
        url=f"http://{host}:{port}",
        close_on_exit=True,
    )
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        server.run()
