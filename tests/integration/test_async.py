"""`AsyncMemory` on ``neo4j.AsyncDriver`` against the real Neo4j: the same results as the sync
`Memory` (one copy of the logic), and an event loop that keeps running while models work."""

from __future__ import annotations

import uuid
from typing import Any

import anyio

from kgmem.aio import AsyncMemory
from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.store.async_driver import LoopStore

TURNS = [
    {"speaker": "Ana", "text": "I live in Berlin, right by the canal."},
    {"speaker": "Ben", "text": "Nice! How is the bakery job?"},
    {"speaker": "Ana", "text": "Big news: I moved to Lisbon last week!"},
]


def test_async_memory_matches_sync_and_keeps_the_loop_free(
    settings: Settings, memory: Memory
) -> None:
    conversation = f"it-async-{uuid.uuid4().hex[:8]}"

    async def main() -> dict[str, Any]:
        ticks = 0
        done = anyio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await anyio.sleep(0.01)

        async with AsyncMemory.from_settings(settings) as amem, anyio.create_task_group() as tg:
            assert isinstance(amem.sync.store, LoopStore)
            tg.start_soon(ticker)
            await amem.verify()
            report = await amem.add_turns(conversation, TURNS)  # embedding + spaCy in a thread
            result = await amem.search("Where does Ana live now?", conversation, k=3)
            out = {
                "report": report,
                "result": result,
                "counts": await amem.counts(conversation),
                "history": await amem.history(conversation, "Ana", "live_in"),
                "listed": [c["conversation_id"] for c in await amem.conversations()],
                "round_trips": amem.store.timing.round_trips,
            }
            done.set()
        out["ticks"] = ticks
        return out

    try:
        out = anyio.run(main)
        assert out["report"].turns_written == 3 and out["counts"]["turns"] == 3
        assert conversation in out["listed"] and out["round_trips"] > 0
        assert out["ticks"] > 10  # the loop ran its other task while models and Neo4j worked
        sync = memory.search("Where does Ana live now?", conversation, k=3)
        got = out["result"]
        assert [h.turn_id for h in got.hits] == [h.turn_id for h in sync.hits]
        assert [h.terms for h in got.hits] == [h.terms for h in sync.hits]
        assert out["history"] == memory.history(conversation, "Ana", "live_in")
    finally:
        memory.forget(conversation)
