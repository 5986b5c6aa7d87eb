"""Searches and appends mixed on ONE conversation, concurrently, on every surface: `Memory`
(8 threads), `AsyncMemory` (20 tasks), the LangGraph store (8 threads) and the MCP server (20
tool calls). No exception, no lost write, and every search equals the same search run alone.

The searches are made independent of the concurrent writes (``as_of`` before the appended
turns, a store filter on the items that existed before, the original turns of MCP hits), so
"equal to a sequential run" is exact; what they still share with the writes is everything the
issue was about: the context and support caches every write invalidates, the stemmer, the
embedder, the tokenizers and the Neo4j driver.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from kgmem.aio import AsyncMemory
from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.ingest.loaders.chat import parse_chat_conversation

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample_chat.json"
AS_OF = datetime(2024, 7, 1, tzinfo=UTC)  # after the sample, before every appended turn
LATER = datetime(2025, 1, 1, tzinfo=UTC)
QUERIES = [
    "Where did Ana move to?",
    "What does Ana do for work?",
    "Who ran the half marathon?",
    "What did Ana do the weekend before the move?",
]


@pytest.fixture
def chat(memory: Memory) -> Iterator[str]:
    """The sample conversation under a fresh id (forgotten afterwards)."""
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    raw["conversation_id"] = f"it-concurrent-{uuid.uuid4().hex[:8]}"
    memory.add_conversation(parse_chat_conversation(raw), facts="extracted")
    yield raw["conversation_id"]
    memory.forget(raw["conversation_id"])


def _note(n: int) -> dict[str, Any]:
    return {"speaker": "Ben", "text": f"Note {n}: the tram was late again.", "observed_at": LATER}


Digest = list[tuple[str, dict[str, float]]]


def _digest(result: Any) -> Digest:
    """Each hit's turn id with its score terms, BM25's left out: Lucene's statistics are
    index-wide, so every appended turn moves every BM25 score (by up to a few hundredths on a
    small store), whoever searches and whenever."""
    return [
        (hit.turn_id, {k: v for k, v in hit.terms.items() if k != "bm25"}) for hit in result.hits
    ]


#: how far one turn's score terms may differ between two runs: a turn's cosine is the vector
#: index's score (float32) when the dense search returns it and is recomputed by
#: `vector.similarity.cosine` when only another generator finds it, and the approximate search
#: over an index that concurrent appends are changing may miss a turn it found alone; the two
#: values agree to about 1e-6
TOLERANCE = 1e-5


def _same(seen: Digest, alone: Digest) -> bool:
    """The same turns in the same order, and every other score term equal (to `TOLERANCE`)."""
    return [t for t, _ in seen] == [t for t, _ in alone] and all(
        a.keys() == b.keys() and all(abs(a[k] - b[k]) < TOLERANCE for k in a)
        for (_, a), (_, b) in zip(seen, alone, strict=True)
    )


def test_memory_eight_threads(memory: Memory, chat: str) -> None:
    alone = {q: _digest(memory.search(q, chat, k=5, as_of=AS_OF)) for q in QUERIES}
    before = memory.counts(chat)["turns"]

    def work(n: int) -> list[tuple[str, Digest]]:
        out = []
        for round_ in range(2):
            memory.add_turns(chat, [_note(n * 10 + round_)])
            q = QUERIES[(n + round_) % len(QUERIES)]
            out.append((q, _digest(memory.search(q, chat, k=5, as_of=AS_OF))))
        return out

    with ThreadPoolExecutor(max_workers=8) as pool:
        seen = [pair for part in pool.map(work, range(8)) for pair in part]
    assert all(_same(hits, alone[q]) for q, hits in seen)
    assert memory.counts(chat)["turns"] == before + 16  # no write lost
    assert memory.counts(chat)["next"] == before + 16 - 1  # one NEXT line


def test_async_memory_twenty_tasks(settings: Settings, memory: Memory, chat: str) -> None:
    alone = {q: _digest(memory.search(q, chat, k=5, as_of=AS_OF)) for q in QUERIES}
    before = memory.counts(chat)["turns"]

    async def main() -> list[tuple[str, Digest]]:
        async with AsyncMemory.from_settings(settings) as amem:

            async def append(n: int) -> None:
                await amem.add_turns(chat, [_note(100 + n)])

            async def search(n: int) -> tuple[str, Digest]:
                q = QUERIES[n % len(QUERIES)]
                return q, _digest(await amem.search(q, chat, k=5, as_of=AS_OF))

            results = await asyncio.gather(*(append(n) if n % 2 else search(n) for n in range(20)))
            return [r for r in results if r is not None]

    seen = anyio.run(main)
    assert len(seen) == 10 and all(_same(hits, alone[q]) for q, hits in seen)
    assert memory.counts(chat)["turns"] == before + 10


def test_langgraph_store_eight_threads(memory: Memory) -> None:
    pytest.importorskip("langgraph.store.base")
    from kgmem.adapters.langgraph import KgmemStore

    store = KgmemStore(memory)
    ns = ("concurrent", uuid.uuid4().hex[:8])
    try:
        store.put(ns, "home", {"text": "Ana lives in Lisbon by the river.", "kind": "old"})
        store.put(ns, "job", {"text": "Ana bakes bread at a bakery in Alfama.", "kind": "old"})
        query = "Where does Ana live and work?"

        def keys() -> list[str]:
            return [h.key for h in store.search(ns, query=query, filter={"kind": "old"})]

        alone = keys()
        assert set(alone) == {"home", "job"}

        def work(n: int) -> list[list[str]]:
            out = []
            for round_ in range(2):
                store.put(ns, f"note{n}", {"text": f"Note {n}.{round_}: trams.", "kind": "new"})
                out.append(keys())
            return out

        with ThreadPoolExecutor(max_workers=8) as pool:
            seen = [k for part in pool.map(work, range(8)) for k in part]
        assert all(k == alone for k in seen)
        listed = store.search(ns, limit=100)
        assert sorted(h.key for h in listed) == sorted(
            ["home", "job"] + [f"note{n}" for n in range(8)]
        )
        for n in range(8):  # each key's latest version is the second put
            item = store.get(ns, f"note{n}")
            assert item is not None and item.value["text"] == f"Note {n}.1: trams."
    finally:
        memory.forget(".".join(ns))


def test_mcp_twenty_tool_calls(memory: Memory, chat: str) -> None:
    from mcp import Client

    from kgmem.mcp import build_server

    server = build_server(memory, chat, k=3)
    before = memory.counts(chat)["turns"]

    async def call_all() -> tuple[dict[str, list[str]], list[Any]]:
        async with Client(server) as client:
            alone = {}
            for q in QUERIES:
                res = await client.call_tool("search_memory", {"query": q})
                alone[q] = [h["turn_id"] for h in res.structured_content["hits"]]

            async def one(n: int) -> Any:
                if n % 2:
                    return await client.call_tool("remember", {"text": f"Note {n}: trams."})
                q = QUERIES[n % len(QUERIES)]
                return q, await client.call_tool("search_memory", {"query": q})

            return alone, list(await asyncio.gather(*(one(n) for n in range(20))))

    alone, results = anyio.run(call_all)
    searches = [r for r in results if isinstance(r, tuple)]
    writes = [r for r in results if not isinstance(r, tuple)]
    assert not any(w.is_error for w in writes) and not any(r.is_error for _, r in searches)
    for q, res in searches:  # the notes are off-topic: the hits are the ones found alone
        assert [h["turn_id"] for h in res.structured_content["hits"]] == alone[q]
    assert memory.counts(chat)["turns"] == before + 10
