"""`kgmem bench agent-session` and `kgmem bench http`: what the agent interface costs and buys.

``agent_session``: a scripted agent on LoCoMo questions, built from the question text only:
call 1 ``search(question)`` (k 10); call 2 the next page (its cursor); call 3 an ``exact``
search on the question's quoted phrase or longest name if it has one, else the question with a
``speaker`` filter when it names one of the conversation's speakers (else no third call).
Reports, per category (1-4; 5 has no evidence), the union recall of gold turns after 1, 2 and 3
calls against one call with k = 30: ``R`` (share of gold turns retrieved, mean) and ``ALL``
(share of questions with every gold turn retrieved). By default every call is a
``search_memory`` tool call of the official MCP SDK client against kgmem's MCP server
(`kgmem.mcp.build_server`, in-memory transport: what an agent's client sends and reads back,
JSON-serialised both ways); ``via="direct"`` calls `kgmem.steer.steered_search` in-process
(the code the tool and ``POST /search`` run) for the same pages without the protocol.

``http_latency``: ``POST /search`` of a `kgmem.service` app served by uvicorn in this process
(on a loopback port, over a real TCP connection with httpx) against `kgmem.api.Memory.search`
in-process and `kgmem.steer.steered_search` in-process (the search plus what the steered page
adds: the scope's versions and the hits' event dates), interleaved question by question on one
conversation, rotating which goes first; p50/p95 of each in ms.
"""

from __future__ import annotations

import os
import re
import socket
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgmem.api import Memory
from kgmem.config import DEFAULT_K
from kgmem.errors import ConversationNotFound
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.models import ConversationRecord
from kgmem.steer import Options, steered_search

__all__ = ["agent_session", "http_latency", "third_call"]

_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{3,})[\"\u201d]")
_NAME = re.compile(r"\b[A-Z][\w\u2019-]*(?:\s+[A-Z][\w\u2019-]*)*")
_QUESTION_WORDS = {
    "what",
    "when",
    "where",
    "who",
    "whom",
    "which",
    "why",
    "how",
    "did",
    "does",
    "do",
    "is",
    "was",
    "were",
    "are",
    "has",
    "have",
    "would",
    "could",
    "can",
    "i",
}


def third_call(question: str, speakers: Sequence[str]) -> dict[str, str] | None:
    """The third call's option from the question text: ``{"exact": phrase}`` for a quoted
    phrase or the longest capitalised name (not a question word, not a speaker), else
    ``{"speaker": name}`` when the question names a speaker, else None."""
    quoted = _QUOTED.findall(question)
    if quoted:
        return {"exact": max(quoted, key=len)}
    folded = {s.casefold() for s in speakers}
    names = [
        n
        for n in (m.group(0).strip() for m in _NAME.finditer(question))
        if n.casefold() not in _QUESTION_WORDS
        and n.casefold() not in folded
        and n.split()[0].casefold() not in _QUESTION_WORDS
    ]
    if names:
        return {"exact": max(names, key=len)}
    for speaker in speakers:
        if re.search(rf"\b{re.escape(speaker)}\b", question, flags=re.I):
            return {"speaker": speaker}
    return None


def _ensure(memory: Memory, record: ConversationRecord) -> None:
    try:
        memory.counts(record.conversation_id)
        if memory.counts(record.conversation_id).get("turns", 0) == len(record.turns):
            return
    except ConversationNotFound:
        pass
    memory.add_conversation(record, facts="both")


class _Direct:
    """The session's searches as `kgmem.steer.steered_search` calls in-process."""

    def __init__(self, memory: Memory, conversation_id: str) -> None:
        self.memory, self.cid = memory, conversation_id

    def search(self, query: str, **options: Any) -> tuple[list[str], str | None]:
        page = steered_search(
            self.memory, query, conversation_id=self.cid, options=Options(**options)
        )
        return [h.turn_id for h in page.hits], page.next_cursor


class _Mcp:
    """The session's searches as ``search_memory`` tool calls of the official MCP SDK client,
    connected in memory to kgmem's MCP server for one conversation
    (`kgmem.mcp.build_server`; the same server ``kgmem mcp`` runs over stdio or HTTP)."""

    def __init__(self, memory: Memory, conversation_id: str) -> None:
        self.memory, self.cid = memory, conversation_id

    async def run(self, script: Callable[[_Mcp], Any]) -> Any:
        from mcp import Client

        from kgmem.mcp import build_server

        async with Client(build_server(self.memory, self.cid)) as client:
            self._client = client
            return await script(self)

    async def search(self, query: str, **options: Any) -> tuple[list[str], str | None]:
        args = {"query": query} | {k: v for k, v in options.items() if v is not None}
        result = await self._client.call_tool("search_memory", args)
        if result.is_error:
            raise RuntimeError(f"search_memory failed: {result.content}")
        out = result.structured_content or {}
        return [h["turn_id"] for h in out.get("hits", [])], out.get("next_cursor")


def _session_sets(first: Any, second: Any, third: Any, wide: Any) -> dict[str, set[str]]:
    """The union of turns after 1, 2 and 3 calls, and the k = 30 call's turns."""
    one = set(first[0])
    two = one | set(second[0] if second else [])
    three = two | set(third[0] if third else [])
    return {"1": one, "2": two, "3": three, "k30": set(wide[0])}


def agent_session(
    memory: Memory,
    file: Path,
    conversations: Sequence[str] | None = None,
    *,
    via: str = "mcp",
) -> dict[str, Any]:
    """The scripted three-call session against one call with k = 30 (see the module).

    Args:
        via: ``mcp`` (the ``search_memory`` tool through the MCP SDK client, in-memory
            transport) or ``direct`` (`kgmem.steer.steered_search` in-process; same pages).
    """
    import anyio

    if via not in ("mcp", "direct"):
        raise ValueError(f"via is 'mcp' or 'direct', not {via!r}")
    records = load_locomo(file, conversations)
    per: dict[int, dict[str, list[float]]] = {}
    calls = {"third_calls": 0, "tool_calls": 0}
    for record in records:
        _ensure(memory, record)
        questions = [q for q in record.questions if q.category != 5 and q.evidence]

        async def script(searcher: Any, record: Any = record, questions: Any = questions) -> None:
            for q in questions:
                sets = await _one_session(searcher, q.question, record.speakers, calls)
                row = per.setdefault(q.category, {})
                gold = set(q.evidence)
                for name, turns in sets.items():
                    row.setdefault(f"R_{name}", []).append(len(turns & gold) / len(gold))
                    row.setdefault(f"ALL_{name}", []).append(float(gold <= turns))

        if via == "mcp":
            anyio.run(_Mcp(memory, record.conversation_id).run, script)
        else:
            anyio.run(script, _Synced(_Direct(memory, record.conversation_id)))
    report: dict[str, Any] = {
        "schema": "kgmem-bench-agent-session/2",
        "file": str(file),
        "via": via,
        "conversations": [r.conversation_id for r in records],
        **calls,
        "categories": {},
    }
    for cat in sorted(per):
        row = per[cat]
        report["categories"][str(cat)] = {"n": len(row["R_1"])} | {
            key: round(100 * statistics.fmean(values), 1) for key, values in row.items()
        }
    return report


class _Synced:
    """A `_Direct` searcher behind the awaitable interface the script uses."""

    def __init__(self, direct: _Direct) -> None:
        self.direct = direct

    async def search(self, query: str, **options: Any) -> tuple[list[str], str | None]:
        return self.direct.search(query, **options)


async def _one_session(
    searcher: Any, question: str, speakers: Sequence[str], calls: dict[str, int]
) -> dict[str, set[str]]:
    """One question's calls: page 1, page 2 (its cursor), the third call if the question
    gives one, and the k = 30 call apart."""
    first = await searcher.search(question, k=DEFAULT_K)
    second = await searcher.search(question, k=DEFAULT_K, cursor=first[1]) if first[1] else None
    extra = third_call(question, speakers)
    third = None
    if extra is not None:
        calls["third_calls"] += 1
        third = await searcher.search(question, k=DEFAULT_K, **extra)
    wide = await searcher.search(question, k=30)
    calls["tool_calls"] += 2 + (second is not None) + (third is not None)
    return _session_sets(first, second, third, wide)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _stats(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)

    def q(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)

    return {
        "n": len(ordered),
        "p50": q(0.5),
        "p95": q(0.95),
        "mean": round(statistics.fmean(ordered), 2),
    }


def http_latency(
    memory: Memory,
    file: Path,
    conversation: str,
    *,
    k: int = DEFAULT_K,
    warmup: int = 20,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """``POST /search`` against ``Memory.search`` in-process (see the module); ms."""
    import httpx
    import uvicorn

    from kgmem.service import build_app

    (record,) = load_locomo(file, [conversation])
    _ensure(memory, record)
    memory.warm()
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            build_app(memory), host="127.0.0.1", port=port, log_level="warning", access_log=False
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    questions = [q.question for q in record.questions][: (limit or None)]
    times: dict[str, list[float]] = {"in_process": [], "steered": [], "http": []}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            for i, question in enumerate([*questions[:warmup], *questions]):
                body = {"query": question, "conversation_id": conversation, "k": k}
                sides = list(times)
                for side in sides[i % 3 :] + sides[: i % 3]:  # rotate who goes first
                    t0 = time.perf_counter()
                    if side == "in_process":
                        memory.search(question, conversation, k)
                    elif side == "steered":
                        steered_search(
                            memory, question, conversation_id=conversation, options=Options(k=k)
                        )
                    else:
                        http.post("/search", json=body).raise_for_status()
                    if i >= warmup:
                        times[side].append((time.perf_counter() - t0) * 1000)
                if progress:
                    progress(i + 1, warmup + len(questions))
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    stats = {side: _stats(values) for side, values in times.items()}
    a, b = stats["in_process"], stats["http"]
    return {
        "schema": "kgmem-bench-http/1",
        "conversation": conversation,
        "k": k,
        "load_average": list(os.getloadavg()),
        **stats,
        "overhead_ms": {"p50": round(b["p50"] - a["p50"], 2), "p95": round(b["p95"] - a["p95"], 2)},
    }
