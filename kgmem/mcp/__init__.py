"""The MCP server: kgmem as a memory tool for any MCP-speaking agent (``kgmem mcp``).

Built on the official ``mcp`` Python SDK (2.x, `mcp.server.mcpserver.MCPServer`). One server
serves ONE conversation or ONE owner's conversations, fixed by configuration (``kgmem mcp
--conversation ID`` / ``--owner ID``, or ``KGMEM_MCP_CONVERSATION`` / ``KGMEM_MCP_OWNER``), never
by a tool argument: the agent cannot read another tenant.

Tools with few parameters each. Few, small tools on purpose: on LoCoMo, going from
a one-parameter search tool to a nine-parameter one cost an agent 0.09 F1 in a published
memory-tool study (cited in the kgmem issue that specified this server):

- ``search_memory(query, speaker?, since?, until?)``: the turns that bear on ``query``, best
  first, optionally only one speaker's or only those said in a date range (filters inside the
  index, `kgmem.api.Memory.search`);
- ``timeline()``: sessions and documents with their dates and turn counts (the agent's map);
- ``read_turns(turn_id, window)``: a turn with its neighbours along ``NEXT`` (context);
- ``current_value(entity, relation)``: the latest value of a single-valued relation
  (decided in code by supersession, never by the model);
- ``remember(text, speaker)``: append a turn through the full write path (embedding, facts,
  entities, dates, supersession); works on a conversation that holds nothing yet;
- ``forget_turns(turn_ids)`` and ``forget_about(description)``: turn-level forgetting,
  registered only when the `Memory` has ``forget_turns``.

Every turn comes back with its id and its date so that the agent can cite it.
Transports: stdio (default) or streamable HTTP (``--http --port``). Over HTTP a bearer token
(``KGMEM_MCP_TOKEN``) is required whenever the bind address is not loopback (the server refuses
to start without one) and, once set, is checked on every request whatever the address, through
the SDK's own bearer middleware (``token_verifier`` + ``AuthSettings``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import ipaddress
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, time
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
from kgmem.retrieve.scope import check_owner
from kgmem.store import Store
from kgmem.turns import check_conversation_id, conversation_of

__all__ = [
    "MAX_WINDOW",
    "CurrentValue",
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
    conversation_id: str | None = None
    source: str | None = None


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
    owner: str | None = None
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    answer: dict[str, Any] | None = None
    note: str = _CITE


class TimelineEntry(BaseModel):
    """One session of a conversation, or one document, in ``timeline``.

    Attributes:
        kind: ``session`` (chat or fact-list turns) or ``document``.
        session: the session number (sessions only).
        source: the document's file (documents only).
        first, last: the first and last day a turn of it was said, ``YYYY-MM-DD`` (UTC).
        turns: how many turns (document chunks) it holds.
    """

    conversation_id: str
    kind: str
    session: int | None = None
    source: str | None = None
    first: str
    last: str
    turns: int


class TimelineOutput(BaseModel):
    """``timeline``'s answer: what memory holds, oldest first."""

    conversation_id: str
    owner: str | None = None
    entries: list[TimelineEntry]


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
        conversation_id=row.get("conversation_id") or conversation_of(row["turn_id"]),
        source=row.get("source"),
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


def _instructions(scope: str, can_forget: bool) -> str:
    """The server's instructions to the agent (how to use the tools; docs/scopes-and-filters.md)."""
    return (
        f"Long-term memory of {scope}. Call timeline first to see what memory holds (sessions "
        "and documents with dates); search_memory with a question to get the original turns "
        "that bear on it (optionally only one speaker's, or only turns said since / until a "
        "date); read_turns for the context around a turn; current_value for the latest value "
        "of a single-valued relation (where someone lives, works, ...); remember to store "
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


def _when(value: str | None, name: str, *, end: bool) -> datetime | None:
    """An ISO 8601 date or datetime from a tool argument (naive = UTC; a date as ``until``
    means the end of that day).

    Raises:
        ToolError: not a date.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            moment = datetime.combine(day, time.max if end else time.min, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ToolError(f"{name} must be an ISO 8601 date (2024-05-08) or datetime") from exc
    return moment if moment.utcoffset() is not None else moment.replace(tzinfo=UTC)


def default_thread(owner: str) -> str:
    """The conversation ``remember`` writes to when a server serves an owner without naming a
    conversation: ``<owner>-mcp-<8 hex>`` (``:`` replaced, a hash of the owner keeping two
    owners apart)."""
    digest = hashlib.sha256(owner.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{owner.replace(':', '_')}-mcp-{digest}"


class _Tools:
    """The tools of one server, bound to its scope: one conversation, or an owner's (then
    ``conversation_id`` is where ``remember`` writes)."""

    def __init__(
        self,
        mem: _Memory,
        conversation_id: str | None,
        owner: str | None,
        *,
        k: int,
        default_speaker: str,
    ) -> None:
        self.mem = mem
        self.owner = owner
        self.by_owner = owner is not None and conversation_id is None
        self.write_to = conversation_id or default_thread(str(owner))
        self.k = k
        self.default_speaker = default_speaker

    @property
    def label(self) -> str:
        """``conversation_id`` of the outputs ('' when the server serves an owner)."""
        return "" if self.by_owner else self.write_to

    async def _threads(self) -> list[str]:
        if not self.by_owner:
            return [self.write_to]
        threads: list[str] = await self.mem.call("owner_conversations", self.owner)
        return threads

    async def _own(self, turn_id: str) -> str:
        """The conversation of ``turn_id`` if this server may read it (a local id counts as
        the served conversation's).

        Raises:
            ToolError: a turn of a conversation outside the scope.
        """
        if ":" not in turn_id:
            if self.by_owner:
                raise ToolError("use a full turn_id from search_memory (<conversation>:<id>)")
            return self.write_to
        cid = conversation_of(turn_id)
        if cid not in await self._threads():
            raise ToolError(f"no turn {turn_id!r} in this memory; use a turn_id from search_memory")
        return cid

    async def search_memory(
        self,
        query: str,
        speaker: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> SearchOutput:
        """Search memory: the turns that bear on `query`, best first, each with its turn_id,
        date, speaker and text, and whether memory supports the question at all
        (`answerable`; when false, answer "not in memory"). Optional: only turns said by
        `speaker`; only turns said `since` / `until` a date (YYYY-MM-DD, inclusive)."""
        start, end = _when(since, "since", end=False), _when(until, "until", end=True)
        options: dict[str, Any] = {"owner": self.owner}
        if speaker is not None and speaker.strip():
            options["speakers"] = [speaker.strip()]
        if start is not None or end is not None:
            options["between"] = (start, end)
        cid = None if self.by_owner else self.write_to
        try:
            result = await self.mem.call("search", query, cid, self.k, **options)
        except ConversationNotFound:  # nothing remembered yet: an empty answer, not an error
            return SearchOutput(
                conversation_id=self.label, owner=self.owner, query=query, hits=[], answerable=False
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        hits = [_hit(h) for h in result.hits]
        return SearchOutput(
            conversation_id=self.label,
            owner=self.owner,
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

    async def timeline(self) -> TimelineOutput:
        """What memory holds, oldest first: each conversation's sessions and each document,
        with first and last dates and the number of turns. Use it to choose `since` / `until`
        and to see which threads exist before searching."""
        try:
            rows = await self.mem.call(
                "timeline",
                None if self.by_owner else self.write_to,
                owner=self.owner if self.by_owner else None,
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        entries = [
            TimelineEntry(
                conversation_id=row["conversation_id"],
                kind=row["kind"],
                session=row["session"],
                source=row["source"],
                first=_day(row["first"]),
                last=_day(row["last"]),
                turns=int(row["turns"]),
            )
            for row in rows
        ]
        return TimelineOutput(conversation_id=self.label, owner=self.owner, entries=entries)

    async def read_turns(self, turn_id: str, window: int = 2) -> TurnsOutput:
        """Read a turn (by its turn_id from search_memory) with `window` neighbouring turns
        before and after it (0-10), in the order they were said."""
        if not 0 <= window <= MAX_WINDOW:
            raise ToolError(f"window must be between 0 and {MAX_WINDOW}")
        cid = await self._own(turn_id)
        try:
            rows = await self.mem.read(
                "read/evidence_turn_window", conversation_id=cid, turn_id=turn_id, window=window
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        if not rows:
            raise ToolError(f"no turn {turn_id!r} in this memory; use a turn_id from search_memory")
        turns = [_turn(row, offset=int(row["offset"])) for row in rows]
        return TurnsOutput(conversation_id=cid, turns=turns)

    async def current_value(self, entity: str, relation: str) -> CurrentValue:
        """The current value of a single-valued relation of an entity, e.g. ("Ana", "live_in")
        or ("Ana", "employer"): the latest fact wins; older values are listed as previous."""
        try:
            if self.by_owner:
                rows = await self.mem.call("history", None, entity, relation, owner=self.owner)
            else:
                rows = await self.mem.call("history", self.write_to, entity, relation)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        out = CurrentValue(
            conversation_id=self.label, entity=entity, relation=relation, found=False
        )
        return _current(out, rows) if rows else out

    async def remember(self, text: str, speaker: str | None = None) -> RememberOutput:
        """Remember something: store `text` as a new turn said by `speaker` (default: the user).
        Write one self-contained sentence (who, what, when). Returns the new turn_id."""
        who = (speaker or "").strip() or self.default_speaker
        local = f"m{uuid.uuid4().hex[:12]}"
        when = datetime.now(UTC)
        cid = self.write_to
        try:
            report = await self.mem.call(
                "add_turns",
                cid,
                [{"id": local, "speaker": who, "text": text}],
                observed_at=when,
                requests=False,  # remembering never deletes: forget_about does, explicitly
                owner=self.owner,
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        rows = await self.mem.read(
            "read/evidence_turn_window", conversation_id=cid, turn_id=f"{cid}:{local}", window=0
        )
        fallback = {"turn_id": f"{cid}:{local}", "observed_at": when, "speaker": who}
        turn = _turn(rows[0]) if rows else _turn(fallback | {"session": 1, "text": text})
        return RememberOutput(
            conversation_id=cid, turn=turn, facts=report.facts_written, entities=report.entities
        )

    async def forget_turns(self, turn_ids: list[str]) -> ForgetOutput:
        """Forget turns for good, by their turn_id: the turns, the facts taken only from
        them and everything derived from them are removed."""
        by_thread: dict[str, list[str]] = {}
        for turn_id in turn_ids:
            by_thread.setdefault(await self._own(turn_id), []).append(turn_id)
        counts: dict[str, int] = {}
        try:
            for cid, ids in by_thread.items():
                removed = await self.mem.call("forget_turns", cid, ids)
                for key, value in (removed if isinstance(removed, dict) else {}).items():
                    counts[str(key)] = counts.get(str(key), 0) + int(value)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        return ForgetOutput(conversation_id=self.label, turn_ids=turn_ids, removed=counts)

    async def forget_about(self, description: str) -> ForgetAboutOutput:
        """Forget what the user said about something, described in words ("my passport
        number", "the deposit fight with my landlord"): the user's turns that state it, and
        any turn repeating its values, are removed with everything derived from them.
        Conservative: nothing is removed when nothing matches or when too much would go.
        Returns the removed turn ids and counts."""
        outs: list[dict[str, Any]] = []
        try:
            for cid in await self._threads():
                with contextlib.suppress(ConversationNotFound):
                    outs.append(await self.mem.call("forget_about", cid, description))
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        return _forgot(self.label, outs)


def _hit(h: Any) -> TurnOut:
    row = {
        "turn_id": h.turn_id,
        "observed_at": h.observed_at,
        "speaker": h.speaker,
        "session": h.session,
        "text": h.text,
        "conversation_id": h.conversation_id,
        "source": h.source,
    }
    return _turn(row, score=round(h.score, 4))


def _day(value: Any) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else str(value)


def _current(out: CurrentValue, rows: list[dict[str, Any]]) -> CurrentValue:
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


def _forgot(label: str, outs: list[dict[str, Any]]) -> ForgetAboutOutput:
    """One ``forget_about`` answer from one per conversation: ``applied`` if any applied, else
    ``too_broad`` if any was, else ``no_match``; ids and counts summed."""
    statuses = {o["status"] for o in outs}
    status = next((s for s in ("applied", "too_broad") if s in statuses), "no_match")
    return ForgetAboutOutput(
        conversation_id=label,
        status=status,
        turn_ids=sorted(t for o in outs for t in o.get("turn_ids", [])),
        matched=sum(int(o.get("matched", 0)) for o in outs),
        turns=sum(int(o.get("turns", 0)) for o in outs),
        facts=sum(int(o.get("facts", 0)) for o in outs),
    )


def _check_scope(conversation_id: str | None, owner: str | None, k: int, speaker: str) -> None:
    """Raise ``ValueError`` / `MalformedInput` for a server configuration that cannot serve."""
    if k < 1:
        raise ValueError("k must be >= 1")
    if not conversation_id and owner is None:
        raise ValueError("an MCP server needs a conversation id or an owner")
    if not speaker.strip():
        raise ValueError("default_speaker must not be empty")
    if conversation_id:
        check_conversation_id(conversation_id, file="<mcp>")
    if owner is not None:
        check_owner(owner)


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
            ``current_value`` and ``forget_about`` span them; ``read_turns`` and
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
        ValueError: ``k`` < 1, neither a conversation nor an owner, an empty
            ``default_speaker``.
        MalformedInput: a ``:`` in ``conversation_id``, an empty owner.
    """
    _check_scope(conversation_id, owner, k, default_speaker)
    mem = _Memory(memory)
    tools = _Tools(mem, conversation_id or None, owner, k=k, default_speaker=default_speaker)
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
        tools.remember,
    ]
    if mem.can_forget:
        registered += [tools.forget_turns, tools.forget_about]
    for tool in registered:
        server.add_tool(tool)
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
