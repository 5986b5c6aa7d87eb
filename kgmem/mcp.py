"""The MCP server: kgmem as a memory tool for any MCP-speaking agent (``kgmem mcp``).

Built on the official ``mcp`` Python SDK (2.x, `mcp.server.mcpserver.MCPServer`). One server
serves ONE conversation, fixed by configuration (``kgmem mcp --conversation ID`` or
``KGMEM_MCP_CONVERSATION``), never by a tool argument: the agent cannot read another tenant.

Three tools with one or two parameters each. Few, small tools on purpose: on LoCoMo, going from
a one-parameter search tool to a nine-parameter one cost an agent 0.09 F1 in a published
memory-tool study (cited in the kgmem issue that specified this server):

- ``search_memory(query)``: the turns that bear on ``query``, best first;
- ``read_turns(turn_id, window)``: a turn with its neighbours along ``NEXT`` (context);
- ``current_value(entity, relation)``: the latest value of a single-valued relation
  (decided in code by supersession, never by the model).

Every turn comes back with its id and its date so that the agent can cite it.
Transports: stdio (default) or streamable HTTP (``--http --port``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.errors import KgmemError

__all__ = [
    "MAX_WINDOW",
    "CurrentValue",
    "SearchOutput",
    "TurnOut",
    "TurnsOutput",
    "build_server",
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
    """

    conversation_id: str
    query: str
    hits: list[TurnOut]
    answerable: bool = True
    unsupported: list[str] = Field(default_factory=list)
    note: str = _CITE


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


def build_server(memory: Memory, conversation_id: str, *, k: int = DEFAULT_K) -> MCPServer:
    """An MCP server whose tools read ``conversation_id`` through ``memory``.

    Building touches neither the network nor the models; the first tool call does.

    Args:
        memory: an open memory (the caller closes it).
        conversation_id: the one conversation the tools may read.
        k: hits per ``search_memory`` call (>= 1).

    Returns:
        the server; run it with ``.run()`` (stdio) or ``.run("streamable-http", port=...)``,
        or connect in-process with ``mcp.Client(server)``.

    Raises:
        ValueError: ``k`` < 1 or an empty ``conversation_id``.
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    if not conversation_id:
        raise ValueError("an MCP server needs a conversation id")
    server = MCPServer(
        name="kgmem",
        instructions=(
            f"Long-term memory of conversation {conversation_id!r}. Call search_memory with a "
            "question to get the original turns that bear on it; read_turns for the context "
            "around a turn; current_value for the latest value of a single-valued relation "
            "(where someone lives, works, ...). Answer only from returned turns and cite their "
            "turn ids; if nothing returned answers the question, say it is not in memory."
        ),
    )

    @server.tool()
    def search_memory(query: str) -> SearchOutput:
        """Search the conversation's memory: the turns that bear on `query`, best first, each
        with its turn_id, date, speaker and text, and whether memory supports the question
        at all (`answerable`; when false, answer "not in memory")."""
        try:
            result = memory.search(query, conversation_id, k)
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
            note=_CITE
            if result.answerable
            else "Memory does not support this question for the person it names; say it is "
            "not in memory. " + _CITE,
        )

    @server.tool()
    def read_turns(turn_id: str, window: int = 2) -> TurnsOutput:
        """Read a turn (by its turn_id from search_memory) with `window` neighbouring turns
        before and after it (0-10), in the order they were said."""
        if not 0 <= window <= MAX_WINDOW:
            raise ToolError(f"window must be between 0 and {MAX_WINDOW}")
        try:
            rows = memory.store.read(
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
    def current_value(entity: str, relation: str) -> CurrentValue:
        """The current value of a single-valued relation of an entity, e.g. ("Ana", "live_in")
        or ("Ana", "employer"): the latest fact wins; older values are listed as previous."""
        try:
            rows = memory.history(conversation_id, entity, relation)
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

    Args:
        settings: where Neo4j is and which models to use.
        conversation_id: the conversation to serve.
        http: serve streamable HTTP at ``http://host:port/mcp`` instead of stdio.
        host, port: HTTP bind address (loopback by default).
        k: hits per search.

    Raises:
        Neo4jUnavailable, AuthenticationFailed: checked before serving.
        ConversationNotFound: the conversation holds no turns.
    """
    from kgmem.errors import ConversationNotFound

    memory = Memory.from_settings(settings)
    try:
        memory.verify()
        if not memory.counts(conversation_id).get("turns"):
            raise ConversationNotFound(conversation_id)
        server = build_server(memory, conversation_id, k=k)
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run()
    finally:
        memory.close()
