"""One person across an owner's threads (kgmem.ingest.writing.threads), against the real Neo4j.

One owner, two threads a month apart: thread A says where the user lives, a passport number
and a trip to Lisbon; thread B says the user moved to Lisbon and asks to delete the passport
number. The user and Lisbon are one entity each for the owner; B's residence is current and
A's superseded, with both in the history; B's request removes A's passport turn; forgetting A
keeps Lisbon (B mentions it) and makes B's value the only one. A second owner with the same
words shares nothing with the first, and a conversation without an owner keeps its own
entities.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kgmem import Memory
from kgmem.errors import ConversationNotFound
from kgmem.ingest.writing.threads import share_entities, unshared

WHEN = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
THREAD_A = (
    ("user", "I live in Berlin."),
    ("assistant", "Berlin is a great city."),
    ("user", "My passport number is X9876543."),
    ("assistant", "Noted."),
    ("user", "I flew to Lisbon for a conference."),
)
THREAD_B = (
    ("user", "I moved to Lisbon last month."),
    ("assistant", "How do you like Lisbon?"),
    ("user", "Please delete my passport number."),
)


def _rows(memory: Memory, query: str, **params: Any) -> list[dict[str, Any]]:
    return memory.store.run_read(lambda tx: tx.run(query, **params).data())


def _entities(memory: Memory, owner: str) -> list[dict[str, Any]]:
    return _rows(
        memory,
        "MATCH (e:Entity {owner: $owner}) RETURN e.id AS id, e.name AS name, e.type AS type, "
        "e.conversation_id AS scope ORDER BY e.id",
        owner=owner,
    )


def _add(
    memory: Memory, cid: str, turns: tuple[tuple[str, str], ...], days: int, owner: str | None
):
    return memory.add_turns(
        cid,
        [{"speaker": who, "text": text} for who, text in turns],
        observed_at=WHEN + timedelta(days=days),
        owner=owner,
    )


@pytest.fixture
def owner(memory: Memory) -> Iterator[str]:
    name = f"threads-{uuid.uuid4().hex[:8]}"
    yield name
    with contextlib.suppress(ConversationNotFound):
        memory.forget_owner(name)


def test_one_person_across_an_owners_threads(memory: Memory, owner: str) -> None:
    a, b = f"{owner}-a", f"{owner}-b"
    _add(memory, a, THREAD_A, 0, owner)
    passport = f"{a}:t2"
    assert passport in {
        r["id"]
        for r in _rows(memory, "MATCH (t:Turn {conversation_id: $c}) RETURN t.id AS id", c=a)
    }
    report = _add(memory, b, THREAD_B, 30, owner)

    # one entity each: the user and Lisbon are the owner's, not a thread's
    entities = _entities(memory, owner)
    persons = [e for e in entities if e["type"] == "person"]
    assert [e["name"] for e in persons] == ["assistant", "user"]  # speakers are persons
    assert [e["name"] for e in entities if e["name"] == "Lisbon"] == ["Lisbon"]
    assert {e["scope"] for e in entities} == {f"owner:{owner}"}
    own = _rows(
        memory,
        "MATCH (e:Entity) WHERE e.conversation_id IN $cids RETURN count(e) AS n",
        cids=[a, b],
    )
    assert own[0]["n"] == 0
    lisbon = next(e["id"] for e in entities if e["name"] == "Lisbon")
    mentioned_in = _rows(
        memory,
        "MATCH (t:Turn)-[:MENTIONS]->(:Entity {id: $id}) RETURN DISTINCT t.conversation_id AS c",
        id=lisbon,
    )
    assert {r["c"] for r in mentioned_in} == {a, b}

    # the later value of thread B is current; thread A's is superseded; history shows both
    history = memory.history(None, "user", "live_in", owner=owner)
    assert [(h["conversation_id"], "Lisbon" in h["text"]) for h in history] == [
        (a, False),
        (b, True),
    ]
    assert history[0]["valid_to"] is not None and history[-1]["valid_to"] is None
    current = memory.current(None, "user", "live_in", owner=owner)
    assert current is not None and "Lisbon" in current["text"]
    assert memory.current(a, "user", "live_in") is not None
    links = _rows(
        memory,
        "MATCH (n:Fact {conversation_id: $b})-[:SUPERSEDES]->(o:Fact {conversation_id: $a}) "
        "RETURN count(*) AS n",
        a=a,
        b=b,
    )
    assert links[0]["n"] >= 1

    # B's forget request removed A's passport turn (and nothing of it is left)
    assert passport in report.removed
    left = _rows(
        memory,
        "MATCH (n) WHERE (n:Turn OR n:Fact) AND n.owner = $o AND n.text CONTAINS 'X9876543' "
        "RETURN count(n) AS n",
        o=owner,
    )
    assert left[0]["n"] == 0
    assert passport not in {h.turn_id for h in memory.search("passport", owner=owner, k=10).hits}

    # forgetting thread A keeps what B still uses and drops what only A used
    memory.forget(a)
    names = {e["name"] for e in _entities(memory, owner)}
    assert "Lisbon" in names and "user" in names and "Berlin" not in names
    history = memory.history(None, "user", "live_in", owner=owner)
    assert [h["conversation_id"] for h in history] == [b]
    assert history[0]["valid_to"] is None


def test_owners_and_ownerless_conversations_stay_apart(memory: Memory, owner: str) -> None:
    other = f"{owner}-other"
    loose = f"{owner}-loose"
    try:
        _add(memory, f"{owner}-a", THREAD_A, 0, owner)
        _add(memory, f"{other}-a", THREAD_A, 0, other)
        _add(memory, loose, THREAD_A, 0, None)
        mine, theirs = _entities(memory, owner), _entities(memory, other)
        assert {e["name"] for e in mine} == {e["name"] for e in theirs}
        assert not {e["id"] for e in mine} & {e["id"] for e in theirs}
        assert all(e["id"].startswith(f"owner:{owner}:e:") for e in mine)
        hits = memory.search("Where do I live?", owner=other, k=10).hits
        assert hits and all(h.conversation_id == f"{other}-a" for h in hits)
        loose_ids = _rows(
            memory, "MATCH (e:Entity {conversation_id: $c}) RETURN e.id AS id", c=loose
        )
        assert loose_ids and all(r["id"].startswith(f"{loose}:e:") for r in loose_ids)
        memory.forget_owner(other)
        assert not _entities(memory, other)
        assert {e["id"] for e in _entities(memory, owner)} == {e["id"] for e in mine}
    finally:
        with contextlib.suppress(ConversationNotFound):
            memory.forget_owner(other)
        with contextlib.suppress(ConversationNotFound):
            memory.forget(loose)


def test_a_document_is_no_person(memory: Memory, owner: str) -> None:
    report = memory.add_document(
        "# Travel\n\nThe visa office in Lisbon opens at nine.\n",
        owner=owner,
        source="travel-notes.md",
    )
    persons = _rows(
        memory,
        "MATCH (e:Entity) WHERE (e.owner = $o OR e.conversation_id = $c) AND e.type = 'person' "
        "RETURN e.name AS name",
        o=owner,
        c=report.conversation_id,
    )
    assert report.name not in {r["name"] for r in persons}


def test_older_per_conversation_entities_move_into_the_owner_scope(
    memory: Memory, owner: str
) -> None:
    legacy, late = f"{owner}-legacy", f"{owner}-late"
    _add(memory, legacy, THREAD_A, 0, None)
    # a store of the older layout: an owned conversation holding entities of its own
    memory.store.run_write(
        lambda tx: tx.run(
            "MATCH (c:Conversation {id: $c}) SET c.owner = $o", c=legacy, o=owner
        ).consume()
    )
    assert [r["conversation_id"] for r in unshared(memory.store) if r["owner"] == owner] == [legacy]
    before = memory.counts(legacy)["entities"]
    moved = share_entities(memory.store, legacy)
    assert moved == {"conversations": 1, "entities": before}
    assert not unshared(memory.store, legacy)
    entities = _entities(memory, owner)
    assert len(entities) == before and all(e["scope"] == f"owner:{owner}" for e in entities)
    subjects = _rows(
        memory,
        "MATCH (f:Fact {conversation_id: $c}) WHERE f.subject CONTAINS ':e:' "
        "RETURN DISTINCT f.subject AS s",
        c=legacy,
    )
    assert subjects and all(r["s"].startswith(f"owner:{owner}:e:") for r in subjects)
    assert memory.current(legacy, "user", "live_in") is not None

    # an ownerless conversation claimed by the owner shares its entities at once
    _add(memory, late, THREAD_B[:2], 40, None)
    assert memory.store.read("read/count_conversation", conversation_id=late)[0]["entities"]
    _add(memory, late, (("user", "Lisbon is home now."),), 41, owner)
    assert not unshared(memory.store, late)
    lisbon = [e for e in _entities(memory, owner) if e["name"] == "Lisbon"]
    assert len(lisbon) == 1
