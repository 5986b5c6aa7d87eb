"""The MCP server: kgmem as a memory tool for any MCP-speaking agent (``kgmem mcp``).

Built on the official ``mcp`` Python SDK (2.x, `mcp.server.mcpserver.MCPServer`). One server
serves ONE conversation, fixed by configuration (``kgmem mcp --conversation ID`` or
``KGMEM_MCP_CONVERSATION``), never by a tool argument: the agent cannot read another tenant.

Tools with one or two parameters each. Few, small tools on purpose: on LoCoMo, going from
a one-parameter search tool to a nine-parameter one cost an agent 0.09 F1 in a published
memory-tool study (cited in the kgmem issue that specified this server):

- ``search_memory(query)``: the turns that bear on ``query``, best first;
- ``read_turns(turn_id, window)``: a turn with its neighbours along ``NEXT`` (context);
- ``current_value(entity, relation)``: the latest value of a single-valued relation
  (decided in code by supersession, never by the model);
- ``remember(text, speaker)``: append a turn through the full write path (embedding, facts,
  entities, dates, supersession); works on a conversation that holds nothing yet;
- ``forget_turns(turn_ids)``: turn-level forgetting, registered only when the `Memory` has
  ``forget_turns``.

Every turn comes back with its id and its date so that the agent can cite it.
Transports: stdio (default) or streamable HTTP (``--http --port``). Over HTTP a bearer token
(``KGMEM_MCP_TOKEN``) is required whenever the bind address is not loopback (the server refuses
to start without one) and, once set, is checked on every request whatever the address, through
the SDK's own bearer middleware (``token_verifier`` + ``AuthSettings``).
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import ipaddress
import socket
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import AnyHttpUrl, BaseModel, Field

from kgmem.aio import AsyncMemory
from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.errors import ConfigError, ConversationNotFound, KgmemError
from kgmem.store import Store

__all__ = [
    "MAX_WINDOW",
    "CurrentValue",
    "ForgetOutput",
    "RememberOutput",
    "SearchOutput",
    "StaticTokenVerifier",
    "TurnOut",
    "TurnsOutput",
    "build_server",
    "is_loopback",
    "serve",
]

#: most neighbours either side that ``read_turns`` returns (the Cypher caps at 10)
MAX_WINDOW = 10
#: hits per ``search_memory`` call when not configured (top-10 is the design's main cut-off)
DEFAULT_K = 10

_CITE = "Cite turns by their turn_id; dates are the day the turn was said (UTC)."


class TurnOut(BaseModel):
    """One original conversation turn, citable by ``turn_id``.

    Attributes:
        turn_id: ``<conversation_id>:<local id>``, e.g. ``conv-26:D1:3``.
        date: the day the turn was said, ``YYYY-MM-DD`` (UTC).
        observed_at: full timestamp, ISO 8601 UTC.
        speaker, session, text: the original turn (text never rewritten).
        score: the retrieval score (search only; cosine terms in [-1, 1] plus bonuses).
        offset: steps along ``NEXT`` from the asked turn (``read_turns`` only; 0 = that turn).
    """

    turn_id: str
    date: str
    observed_at: str
    speaker: str
    session: int
    text: str
    score: float | None = None
    offset: int | None = None


class SearchOutput(BaseModel):
    """``search_memory``'s answer: turns best first.

    Attributes:
        answerable: False when nothing in memory supports the question for the person it
            names (say so instead of answering from the turns).
        unsupported: the question's key terms nothing about that person carries.
        answer: the fact that gives the asked attribute its value, when there is one
            (`kgmem.retrieve.retriever.SearchResult.answer`: subject, attribute, value,
            value_type, valid_from/valid_to, the cited turn_id, why it won); read it first and
            cite its turn.
    """

    conversation_id: str
    query: str
    hits: list[TurnOut]
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    answer: dict[str, Any] | None = None
    note: str = _CITE


class RememberOutput(BaseModel):
    """``remember``'s answer: the stored turn (cite or forget it by ``turn.turn_id``) and what
    the write path derived from it."""

    conversation_id: str
    turn: TurnOut
    facts: int
    entities: int


class ForgetOutput(BaseModel):
    """``forget_turns``'s answer: the turn ids asked for and what was removed (counts per kind)."""

    conversation_id: str
    turn_ids: list[str]
    removed: dict[str, int] = Field(default_factory=dict)


class ForgetAboutOutput(BaseModel):
    """``forget_about``'s answer: what was removed, as ids and counts (never text).

    ``status`` is ``applied``, ``no_match`` (nothing the user said matches: nothing removed) or
    ``too_broad`` (more turns than the limit would go: nothing removed; use forget_turns).
    """

    conversation_id: str
    status: str
    turn_ids: list[str] = Field(default_factory=list)
    matched: int = 0
    turns: int = 0
    facts: int = 0


class TurnsOutput(BaseModel):
    """``read_turns``'s answer: turns in utterance order."""

    conversation_id: str
    turns: list[TurnOut]
    note: str = _CITE


class CurrentValue(BaseModel):
    """``current_value``'s answer. ``found`` is False when memory holds no value.

    Attributes:
        value: the object of the latest fact (an entity id or a literal), if found.
        text: that fact's sentence.
        fact_id, serial, valid_from: the latest fact on the supersession key.
        cites: turn ids the fact was taken from (cite these).
        previous: older values of the same key, oldest first (``{"text", "valid_to"}``).
    """

    conversation_id: str
    entity: str
    relation: str
    found: bool
    value: str | None = None
    text: str | None = None
    fact_id: str | None = None
    serial: int | None = None
    valid_from: str | None = None
    cites: list[str] = Field(default_factory=list)
    previous: list[dict[str, str | None]] = Field(default_factory=list)


def _iso(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else (str(value) if value else None)


def _turn(row: dict[str, Any], *, score: float | None = None, offset: int | None = None) -> TurnOut:
    when: datetime = row["observed_at"]
    return TurnOut(
        turn_id=row["turn_id"],
        date=when.date().isoformat(),
        observed_at=when.isoformat(),
        speaker=row["speaker"],
        session=int(row["session"]),
        text=row["text"],
        score=score,
        offset=offset,
    )


class StaticTokenVerifier:
    """The SDK's ``TokenVerifier`` protocol for one shared bearer token (``KGMEM_MCP_TOKEN``),
    compared in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ConfigError("KGMEM_MCP_TOKEN must not be empty")
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode("utf-8"), self._token):
            return AccessToken(token=token, client_id="kgmem-mcp", scopes=[])
        return None


def is_loopback(host: str) -> bool:
    """True when ``host`` (an address or a name) resolves only to loopback addresses
    (127.0.0.0/8, ::1). ``0.0.0.0`` / ``::`` (every interface) are not loopback."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


class _Memory:
    """One awaitable face over `Memory` (calls run in a worker thread) or `AsyncMemory` (its
    own async methods), so the tools below are written once."""

    def __init__(self, memory: Memory | AsyncMemory) -> None:
        self.memory = memory
        self.can_forget = callable(
            getattr(
                memory.sync if isinstance(memory, AsyncMemory) else memory, "forget_turns", None
            )
        )

    async def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.memory, AsyncMemory):
            return await getattr(self.memory, name)(*args, **kwargs)
        fn = functools.partial(getattr(self.memory, name), *args, **kwargs)
        return await anyio.to_thread.run_sync(fn)

    async def close(self) -> None:
        if isinstance(self.memory, AsyncMemory):
            await self.memory.close()
        else:
            self.memory.close()

    async def read(self, statement: str, **params: Any) -> list[dict[str, Any]]:
        if isinstance(self.memory, AsyncMemory):
            return await self.memory.read(statement, **params)
        fn = functools.partial(self.memory.store.read, statement, **params)
        rows: list[dict[str, Any]] = await anyio.to_thread.run_sync(fn)
        return rows


def build_server(
    memory: Memory | AsyncMemory,
    conversation_id: str,
    *,
    k: int = DEFAULT_K,
    default_speaker: str = "user",
    token: str | None = None,
    url: str = "http://127.0.0.1:8000",
    close_on_exit: bool = False,
) -> MCPServer:
    """An MCP server whose tools read and write ``conversation_id`` through ``memory``.

    Building touches neither the network nor the models; the first tool call does.

    Args:
        memory: an open `AsyncMemory` (what `serve` uses) or `Memory` (its calls then run in a
            worker thread); the caller closes it.
        conversation_id: the one conversation the tools may read and write.
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
        ValueError: ``k`` < 1, an empty ``conversation_id`` or ``default_speaker``.
        MalformedInput: a ``:`` in ``conversation_id``.
    """
    from kgmem.turns import check_conversation_id

    if k < 1:
        raise ValueError("k must be >= 1")
    if not conversation_id:
        raise ValueError("an MCP server needs a conversation id")
    if not default_speaker.strip():
        raise ValueError("default_speaker must not be empty")
    check_conversation_id(conversation_id, file="<mcp>")
    mem = _Memory(memory)
    can_forget = mem.can_forget
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

    server = MCPServer(
        name="kgmem",
        lifespan=lifespan,
        instructions=(
            f"Long-term memory of conversation {conversation_id!r}. Call search_memory with a "
            "question to get the original turns that bear on it; read_turns for the context "
            "around a turn; current_value for the latest value of a single-valued relation "
            "(where someone lives, works, ...); remember to store something worth keeping, "
            "as one self-contained sentence"
            + (
                "; forget_turns to erase turns by id; forget_about to erase what the user "
                "said about something"
                if can_forget
                else ""
            )
            + ". Answer only from returned turns and cite their turn ids; if nothing returned "
            "answers the question, say it is not in memory."
        ),
        **auth,
    )

    @server.tool()
    async def search_memory(query: str) -> SearchOutput:
        """Search the conversation's memory: the turns that bear on `query`, best first, each
        with its turn_id, date, speaker and text, and whether memory supports the question
        at all (`answerable`; when false, answer "not in memory")."""
        try:
            result = await mem.call("search", query, conversation_id, k)
        except ConversationNotFound:  # nothing remembered yet: an empty answer, not an error
            return SearchOutput(
                conversation_id=conversation_id, query=query, hits=[], answerable=False
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        hits = [
            _turn(
                {
                    "turn_id": h.turn_id,
                    "observed_at": h.observed_at,
                    "speaker": h.speaker,
                    "session": h.session,
                    "text": h.text,
                },
                score=round(h.score, 4),
            )
            for h in result.hits
        ]
        return SearchOutput(
            conversation_id=conversation_id,
            query=query,
            hits=hits,
            answerable=result.answerable,
            unsupported=result.unsupported,
            answer=result.answer,
            note=_CITE
            if result.answerable
            else "Memory does not support this question for the person it names; say it is "
            "not in memory. " + _CITE,
        )

    @server.tool()
    async def read_turns(turn_id: str, window: int = 2) -> TurnsOutput:
        """Read a turn (by its turn_id from search_memory) with `window` neighbouring turns
        before and after it (0-10), in the order they were said."""
        if not 0 <= window <= MAX_WINDOW:
            raise ToolError(f"window must be between 0 and {MAX_WINDOW}")
        try:
            rows = await mem.read(
                "read/evidence_turn_window",
                conversation_id=conversation_id,
                turn_id=turn_id,
                window=window,
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        if not rows:
            raise ToolError(f"no turn {turn_id!r} in this memory; use a turn_id from search_memory")
        turns = [_turn(row, offset=int(row["offset"])) for row in rows]
        return TurnsOutput(conversation_id=conversation_id, turns=turns)

    @server.tool()
    async def current_value(entity: str, relation: str) -> CurrentValue:
        """The current value of a single-valued relation of an entity, e.g. ("Ana", "live_in")
        or ("Ana", "employer"): the latest fact wins; older values are listed as previous."""
        try:
            rows = await mem.call("history", conversation_id, entity, relation)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        out = CurrentValue(
            conversation_id=conversation_id, entity=entity, relation=relation, found=False
        )
        if not rows:
            return out
        latest = rows[-1]
        return out.model_copy(
            update={
                "found": True,
                "value": None if latest.get("object") is None else str(latest["object"]),
                "text": latest.get("text"),
                "fact_id": latest.get("id"),
                "serial": latest.get("serial"),
                "valid_from": _iso(latest.get("valid_from")),
                "cites": list(latest.get("cites") or []),
                "previous": [
                    {"text": row.get("text"), "valid_to": _iso(row.get("valid_to"))}
                    for row in rows[:-1]
                ],
            }
        )

    @server.tool()
    async def remember(text: str, speaker: str | None = None) -> RememberOutput:
        """Remember something: store `text` as a new turn said by `speaker` (default: the user).
        Write one self-contained sentence (who, what, when). Returns the new turn_id."""
        who = (speaker or "").strip() or default_speaker
        local = f"m{uuid.uuid4().hex[:12]}"
        when = datetime.now(UTC)
        try:
            report = await mem.call(
                "add_turns",
                conversation_id,
                [{"id": local, "speaker": who, "text": text}],
                observed_at=when,
                requests=False,  # remembering never deletes: forget_about does, explicitly
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        rows = await mem.read(
            "read/evidence_turn_window",
            conversation_id=conversation_id,
            turn_id=f"{conversation_id}:{local}",
            window=0,
        )
        turn = (
            _turn(rows[0])
            if rows
            else _turn(
                {
                    "turn_id": f"{conversation_id}:{local}",
                    "observed_at": when,
                    "speaker": who,
                    "session": 1,
                    "text": text,
                }
            )
        )
        return RememberOutput(
            conversation_id=conversation_id,
            turn=turn,
            facts=report.facts_written,
            entities=report.entities,
        )

    if can_forget:

        @server.tool()
        async def forget_turns(turn_ids: list[str]) -> ForgetOutput:
            """Forget turns for good, by their turn_id: the turns, the facts taken only from
            them and everything derived from them are removed."""
            try:
                removed = await mem.call("forget_turns", conversation_id, turn_ids)
            except KgmemError as exc:
                raise ToolError(str(exc)) from exc
            counts = (
                {str(key): int(value) for key, value in removed.items()}
                if isinstance(removed, dict)
                else {}
            )
            return ForgetOutput(conversation_id=conversation_id, turn_ids=turn_ids, removed=counts)

        @server.tool()
        async def forget_about(description: str) -> ForgetAboutOutput:
            """Forget what the user said about something, described in words ("my passport
            number", "the deposit fight with my landlord"): the user's turns that state it, and
            any turn repeating its values, are removed with everything derived from them.
            Conservative: nothing is removed when nothing matches or when too much would go.
            Returns the removed turn ids and counts."""
            try:
                out = await mem.call("forget_about", conversation_id, description)
            except KgmemError as exc:
                raise ToolError(str(exc)) from exc
            return ForgetAboutOutput(conversation_id=conversation_id, **out)

    return server


def serve(
    settings: Settings,
    conversation_id: str,
    *,
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
        conversation_id: the conversation to serve.
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
        k=k,
        token=token if http else None,
        url=f"http://{host}:{port}",
        close_on_exit=True,
    )
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        server.run()
