"""Cluster-ready connections against the real server: a ``neo4j://`` routing URI, reads in read
transactions, bookmarks for read-after-write across `Memory` objects (processes), and a
planner cache that stays correct when another process writes to the same conversation."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, StoreError


@pytest.fixture(scope="module")
def routed(settings: Settings) -> Settings:
    """The session's server through a routing URI (what Aura and clusters use)."""
    return settings.model_copy(
        update={"neo4j_uri": settings.neo4j_uri.replace("bolt://", "neo4j://")}
    )


@pytest.fixture()
def cid(memory: Memory) -> Iterator[str]:
    conversation_id = f"it-route-{uuid.uuid4().hex[:8]}"
    yield conversation_id
    with contextlib.suppress(ConversationNotFound):
        memory.forget(conversation_id)


def _turn(text: str, speaker: str = "Ana") -> dict[str, object]:
    return {"speaker": speaker, "text": text, "observed_at": datetime(2024, 5, 8, 12, tzinfo=UTC)}


def test_routing_uri_reads_its_own_writes(routed: Settings, cid: str) -> None:
    with Memory.from_settings(routed) as writer:
        report = writer.add_turns(cid, [_turn("I adopted a greyhound called Pixel.")])
        assert report.bookmarks, "writes return bookmarks"
        hits = writer.search("What is the dog called?", cid, k=3).hits
        assert any("Pixel" in h.text for h in hits)
        # a second Memory is another process's view: it waits for the writer's bookmarks
        with Memory.from_settings(routed) as reader:
            reader.use_bookmarks(report.bookmarks)
            hits = reader.search("What is the dog called?", cid, k=3).hits
            assert any("Pixel" in h.text for h in hits)


def test_reads_run_in_read_transactions(routed: Settings) -> None:
    with Memory.from_settings(routed) as memory, pytest.raises(StoreError, match=r"(?i)read"):
        # a write statement sent through the read path is refused by the server
        memory.store.read("write/drop_index", name="no_such_index_kgmem")


def test_context_cache_follows_writes_of_another_process(settings: Settings, cid: str) -> None:
    with Memory.from_settings(settings) as one, Memory.from_settings(settings) as two:
        one.add_turns(cid, [_turn("Morning! Coffee first.")])
        before = one.search("When is the trip to Zanzibar?", cid, k=3)  # caches the context
        assert "zanzibar" not in {e["surface"].casefold() for e in before.plan["entities"]}
        # another process adds a place the cached context has never seen
        two.add_turns(cid, [_turn("We are flying to Zanzibar next month.", "Ben")])
        again = one.search("When is the trip to Zanzibar?", cid, k=3)
        surfaces = {e["surface"].casefold() for e in again.plan["entities"]}
        assert "zanzibar" in surfaces, again.plan


def test_search_with_a_fresh_context_cache_is_one_round_trip(settings: Settings, cid: str) -> None:
    with Memory.from_settings(settings) as memory:
        memory.add_turns(cid, [_turn("We are flying to Zanzibar next month.")])
        memory.search("When is the trip?", cid, k=3)  # fills the context cache
        before = memory.store.timing.round_trips
        memory.search("When is the trip to Zanzibar?", cid, k=3)
        assert memory.store.timing.round_trips - before == 1
