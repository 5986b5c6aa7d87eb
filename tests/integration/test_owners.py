"""Owners: one owner's conversations searched together in one read, isolated inside the index.

100 owners, each with two threads, all with the SAME vocabulary: every owner says the same
sentences with the same embeddings, facts and entities (copies of owner 0's, which went through
`Memory.add_turns(owner=...)`), so every cosine, BM25 score and entity name ties across owners.
An owner search must return the owner's turns from both threads in one ranking, and no id of
another owner's turn, fact or entity may appear anywhere in the result (hits, traces,
current-value decisions, answerability).
`forget_owner` removes everything of one owner and nothing of the others.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from kgmem import Memory
from kgmem.bench.scale import Copy, copy_piece, read_template
from kgmem.errors import ConversationNotFound, MalformedInput, OwnerNotFound
from kgmem.ingest.writing.writer import BulkWriter

OWNERS = 100
WHEN = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)
THREAD_A = (
    ("user", "I moved to Lisbon last spring and I love the light there."),
    ("assistant", "Lisbon is lovely. How is the new flat?"),
    ("user", "My dog Pixel loves the beach near the flat."),
)
THREAD_B = (
    ("user", "I started learning the cello with a teacher called Marta."),
    ("assistant", "How often do you practise the cello?"),
    ("user", "I practise every morning before work at the library."),
)
QUESTIONS = (
    "Where do I live?",
    "What is my dog called?",
    "Who teaches me the cello?",
    "Lisbon cello Pixel Marta library",
)


class Owners:
    def __init__(self, run: str) -> None:
        self.run = run
        self.owners = [f"owner-{run}-{n:03d}" for n in range(OWNERS)]

    def threads(self, owner: str) -> list[str]:
        return [f"{owner}-a", f"{owner}-b"]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


@pytest.fixture(scope="module")
def owners(memory: Memory) -> Iterator[Owners]:
    """Owner 0's two threads through the whole write path (facts extracted, entities); owners
    1-99 get exact copies of them (same texts, same embeddings, same facts and entities under
    their own ids: `kgmem.bench.scale.copy_piece` with no noise), written in bulk."""
    data = Owners(uuid.uuid4().hex[:8])
    first = data.owners[0]
    for thread, turns, days in zip(data.threads(first), (THREAD_A, THREAD_B), (0, 30), strict=True):
        memory.add_turns(
            thread,
            [{"speaker": who, "text": text} for who, text in turns],
            observed_at=WHEN + timedelta(days=days),
            owner=first,
        )
    templates = [read_template(memory.store, t) for t in data.threads(first)]
    copies = Copy()
    rng = np.random.default_rng(0)
    for owner in data.owners[1:]:
        for template, thread in zip(templates, data.threads(owner), strict=True):
            memory.owners.claim(thread, owner)
            copies.extend(
                copy_piece(
                    template,
                    0,
                    len(template.turns),
                    conversation_id=thread,
                    rng=rng,
                    noise=0.0,
                )
            )
    copies.write(BulkWriter(memory.store, batch_size=1000))
    memory.store.write("write/await_indexes")
    yield data
    for owner in data.owners:
        with contextlib.suppress(ConversationNotFound):
            memory.forget_owner(owner)


def _ids_of(memory: Memory, cids: list[str]) -> set[str]:
    """Every Turn, Fact, Entity and Event id of these conversations."""
    rows = memory.store.run_read(
        lambda tx: tx.run(
            "MATCH (n) WHERE (n:Turn OR n:Fact OR n:Entity OR n:Event) "
            "AND n.conversation_id IN $cids RETURN n.id AS id",
            cids=cids,
        ).data()
    )
    return {r["id"] for r in rows}


def test_owner_search_is_one_ranking_and_isolated(memory: Memory, owners: Owners) -> None:
    sample = owners.owners[:: OWNERS // 4]
    everyone = [t for o in owners.owners for t in owners.threads(o)]
    all_ids = _ids_of(memory, everyone)
    assert len(all_ids) > OWNERS * 6  # turns, facts and entities of every owner
    for owner in sample:
        own = owners.threads(owner)
        foreign = all_ids - _ids_of(memory, own)
        for question in QUESTIONS:
            result = memory.search(question, owner=owner, k=10)
            assert result.hits, question
            assert {h.conversation_id for h in result.hits} <= set(own)
            leaked = {s for s in _strings(result.model_dump(mode="json")) if s in foreign}
            assert not leaked, (owner, question, sorted(leaked)[:5])
        # one ranking over both threads: a question that matches both brings both
        both = memory.search("Lisbon cello Pixel Marta library", owner=owner, k=6)
        assert {h.conversation_id for h in both.hits} == set(own)
        assert both.owner == owner and both.conversation_id == ""


def test_the_user_is_one_person_across_threads(memory: Memory, owners: Owners) -> None:
    owner = owners.owners[3]
    result = memory.search("Who teaches me the cello?", owner=owner, k=3)
    assert result.question["asker"] == "user"
    assert result.hits[0].conversation_id == f"{owner}-b"
    assert "Marta" in result.hits[0].text
    result = memory.search("Where do I live?", owner=owner, k=3)
    assert result.hits[0].conversation_id == f"{owner}-a"
    assert "Lisbon" in result.hits[0].text


def test_conversation_search_inside_an_owner(memory: Memory, owners: Owners) -> None:
    owner = owners.owners[5]
    result = memory.search("cello", f"{owner}-b", k=5, owner=owner)
    assert {h.conversation_id for h in result.hits} == {f"{owner}-b"}
    with pytest.raises(ConversationNotFound):  # the conversation is someone else's
        memory.search("cello", f"{owner}-b", k=5, owner=owners.owners[6])
    assert memory.owner_of(f"{owner}-b") == owner


def test_a_conversation_keeps_its_owner(memory: Memory, owners: Owners) -> None:
    thread = owners.threads(owners.owners[7])[0]
    before = memory.counts(thread)
    with pytest.raises(MalformedInput, match="another owner"):
        memory.add_turns(thread, [{"speaker": "user", "text": "x"}], owner="somebody-else")
    assert memory.counts(thread) == before
    with pytest.raises(MalformedInput):
        memory.add_turns(thread, [{"speaker": "user", "text": "x"}], owner="  ")
    with pytest.raises(MalformedInput):
        memory.search("x", owner="")
    with pytest.raises(MalformedInput):
        memory.search("x")
    with pytest.raises(OwnerNotFound):
        memory.search("x", owner=f"nobody-{owners.run}")


def test_an_ownerless_conversation_can_be_claimed(memory: Memory) -> None:
    owner, cid = f"late-{uuid.uuid4().hex[:8]}", f"late-{uuid.uuid4().hex[:8]}"
    memory.add_turns(cid, [{"speaker": "Ana", "text": "I keep bees on the roof."}])
    try:
        memory.add_turns(cid, [{"speaker": "Ana", "text": "The bees made honey."}], owner=owner)
        hits = memory.search("bees", owner=owner, k=5).hits
        assert {h.turn_id for h in hits} == {f"{cid}:t0", f"{cid}:t1"}
    finally:
        with contextlib.suppress(ConversationNotFound):
            memory.forget_owner(owner)


def test_forget_owner_leaves_no_trace(memory: Memory) -> None:
    run = uuid.uuid4().hex[:8]
    gone, kept = f"gone-{run}", f"kept-{run}"
    for owner in (gone, kept):
        for thread, turns in ((f"{owner}-a", THREAD_A), (f"{owner}-b", THREAD_B)):
            memory.add_turns(
                thread, [{"speaker": w, "text": t} for w, t in turns], observed_at=WHEN, owner=owner
            )
    try:
        counts = memory.forget_owner(gone)
        assert counts["conversations"] == 2 and counts["turns"] == 6
        assert not _ids_of(memory, [f"{gone}-a", f"{gone}-b"])
        leftovers = memory.store.run_read(
            lambda tx: tx.run(
                "MATCH (n) WHERE n.conversation_id STARTS WITH $p OR n.id STARTS WITH $p "
                "OR n.owner = $o RETURN count(n) AS n",
                p=gone,
                o=gone,
            ).single()["n"]
        )
        assert leftovers == 0
        with pytest.raises(OwnerNotFound):
            memory.search("Lisbon", owner=gone)
        with pytest.raises(OwnerNotFound):
            memory.forget_owner(gone)
        assert len(memory.search("Lisbon", owner=kept, k=10).hits) == 6
    finally:
        with contextlib.suppress(ConversationNotFound):
            memory.forget_owner(kept)


def test_forget_owner_removes_its_standing_instructions(memory: Memory) -> None:
    """A standing instruction is stored as an ``Instruction`` node of its conversation;
    forgetting the owner removes it with the rest."""
    owner = f"gone-{uuid.uuid4().hex[:8]}"
    thread = f"{owner}-a"
    turns = [
        ("user", "From now on, always format code answers with syntax highlighting."),
        ("assistant", "Understood, I will."),
    ]
    memory.add_turns(
        thread, [{"speaker": w, "text": t} for w, t in turns], observed_at=WHEN, owner=owner
    )
    count = "MATCH (i:Instruction) WHERE i.conversation_id = $c RETURN count(i) AS n"
    stored = memory.store.run_read(lambda tx: tx.run(count, c=thread).single()["n"])
    assert stored >= 1
    memory.forget_owner(owner)
    assert memory.store.run_read(lambda tx: tx.run(count, c=thread).single()["n"]) == 0
