"""Turn metadata against a real Neo4j: stored with the turn, returned with hits, filtered by
equality, ``in`` and ranges on numbers and dates; declared keys filter inside the vector index
(found however low the unfiltered ranking puts the turn), other keys a widened pool (and the
result says so); bad metadata writes nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import date

import anyio
import pytest

from kgmem import Memory
from kgmem.aio import AsyncMemory
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.steer import Options, steered_search

QUERY = "How did the database migration go?"
FILLER = [
    "The database migration finished overnight without errors.",
    "We rolled the database migration back once, then it worked.",
    "The migration of the orders table took four hours.",
    "Schema changes for the database were reviewed on Monday.",
    "The migration scripts now run in the deploy pipeline.",
    "Database indexes were rebuilt after the migration.",
    "The replica lagged during the migration but caught up.",
    "We tested the migration on a copy of production first.",
]
FAR = "My grandmother bakes plum cake every Sunday afternoon."


@pytest.fixture(scope="module")
def chat(memory: Memory) -> Iterator[str]:
    cid = f"it-meta-{uuid.uuid4().hex[:8]}"
    turns = [
        {
            "speaker": "Ana",
            "text": text,
            "metadata": {"importance": n, "due": f"2024-0{n % 9 + 1}-15"},
        }
        for n, text in enumerate(FILLER)
    ]
    turns.append({"speaker": "Bo", "text": FAR, "metadata": {"project": "rare", "importance": 9}})
    memory.add_turns(cid, turns, metadata={"project": "infra", "reviewed": True}, requests=False)
    yield cid
    memory.forget(cid)


def test_metadata_is_stored_and_returned(memory: Memory, chat: str) -> None:
    hits = memory.search(QUERY, chat, k=20).hits
    by_text = {h.text: h.metadata for h in hits}
    assert by_text[FILLER[0]] == {
        "due": date(2024, 1, 15),
        "importance": 0,
        "project": "infra",
        "reviewed": True,
    }
    assert by_text[FAR]["project"] == "rare"  # the turn's own key wins over the call's


def test_filters_equality_in_and_ranges(memory: Memory, chat: str) -> None:
    def texts(where: dict[str, object]) -> set[str]:
        return {h.text for h in memory.search(QUERY, chat, k=20, where=where).hits}

    assert texts({"project": "rare"}) == {FAR}
    assert texts({"importance": [1, 2]}) == {FILLER[1], FILLER[2]}
    assert texts({"importance": {"gte": 6, "lt": 9}}) == {FILLER[6], FILLER[7]}
    assert texts({"due": {"gte": "2024-07-01"}}) == {FILLER[6], FILLER[7]}
    assert texts({"due": {"lt": date(2024, 2, 1)}, "reviewed": True}) == {FILLER[0]}
    assert texts({"project": "none-such"}) == set()
    result = memory.search(QUERY, chat, k=5, where={"project": "rare"})
    assert result.filters["where"] == {"project": {"eq": "rare"}}
    assert any("best" in note and "project" in note for note in result.notes)


def test_bad_metadata_writes_nothing(memory: Memory) -> None:
    cid = f"it-meta-bad-{uuid.uuid4().hex[:8]}"
    good = {"speaker": "Ana", "text": "A first sentence."}
    with pytest.raises(MalformedInput) as caught:
        memory.add_turns(cid, [good, {**good, "metadata": {"tags": ["a"]}}])
    assert caught.value.argument == "turns[1].metadata.tags"
    with pytest.raises(MalformedInput) as caught:
        memory.add_turns(cid, [good], metadata={"speaker": "x"})
    assert caught.value.argument == "metadata.speaker"
    with pytest.raises(ConversationNotFound):  # nothing of either call was written
        memory.search(QUERY, cid)
    with pytest.raises(MalformedInput) as caught:
        memory.search(QUERY, cid, where={"importance": {"gt": "high"}})
    assert caught.value.argument == "where.importance"


def test_pages_carry_metadata_and_bind_the_filter(memory: Memory, chat: str) -> None:
    page = steered_search(
        memory, QUERY, conversation_id=chat, options=Options(k=2, where={"project": "infra"})
    )
    assert len(page.hits) == 2 and all(h.metadata["project"] == "infra" for h in page.hits)
    assert page.next_cursor is not None
    following = steered_search(
        memory,
        QUERY,
        conversation_id=chat,
        options=Options(k=2, cursor=page.next_cursor, where={"project": "infra"}),
    )
    assert not {h.turn_id for h in following.hits} & {h.turn_id for h in page.hits}
    with pytest.raises(MalformedInput):  # the cursor is bound to the filter
        steered_search(
            memory,
            QUERY,
            conversation_id=chat,
            options=Options(k=2, cursor=page.next_cursor, where={"project": "rare"}),
        )


def test_declared_keys_filter_inside_the_index(settings: Settings, chat: str) -> None:
    """With a pool of 3, the far turn is missed by the widened pool, found inside the index."""
    narrow = settings.model_copy(update={"metadata_pool": 3})
    declared = narrow.model_copy(update={"metadata_filter_keys": ["project"]})
    with Memory.from_settings(narrow) as plain:
        missed = plain.search(QUERY, chat, k=3, where={"project": "rare"})
        assert missed.hits == [] and "missed" in missed.notes[0]
    try:
        with Memory.from_settings(declared) as indexed:
            assert "turn_embedding" in indexed.rebuild_schema()
            rows = indexed.store.read("read/list_vector_indexes")
            props = next(r["properties"] for r in rows if r["name"] == "turn_embedding")
            assert props[-1] == "meta_project"
            found = indexed.search(QUERY, chat, k=3, where={"project": "rare"})
            assert [h.text for h in found.hits] == [FAR]
            assert found.hits[0].metadata["project"] == "rare"
            assert "inside the vector index" in found.notes[0]
            both = indexed.search(QUERY, chat, k=3, where={"project": "rare", "importance": 9})
            assert [h.text for h in both.hits] == [FAR]  # declared inside, the rest after
            assert len(both.notes) == 2

        async def through_the_loop() -> list[str]:  # AsyncMemory: the same statements
            amem = AsyncMemory.from_settings(declared)
            try:
                result = await amem.search(QUERY, chat, 3, where={"project": "rare"})
                return [h.text for h in result.hits]
            finally:
                await amem.close()

        assert anyio.run(through_the_loop) == [FAR]
    finally:  # the layout every other test expects
        with Memory.from_settings(settings) as restore:
            restore.rebuild_schema()
