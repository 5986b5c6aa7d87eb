"""The walking skeleton against a real Neo4j: schema, LoCoMo ingest, idempotence, exact
tenant-scoped cosine search, every catalogue statement EXPLAINs.

Only the tests that read the LoCoMo dev file skip without it (through the ``dev`` fixture); the
schema, typed-error and EXPLAIN tests need only the server and always run."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import neo4j
import numpy as np
import pytest

from kgmem import Memory, Settings
from kgmem.errors import ConversationNotFound
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.models import ConversationRecord
from kgmem.retrieve.config import EngineConfig
from kgmem.store import catalogue

# the LoCoMo dev split: KGMEM_LOCOMO_FILE, else ../shared/data/... beside the checkout (where
# developers and CI have it); without it the tests that need it skip, and say why
LOCOMO = Path(
    os.environ.get("KGMEM_LOCOMO_FILE")
    or Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"
)


def renamed(record: ConversationRecord, cid: str) -> ConversationRecord:
    """The same conversation under another tenant id (so tests never touch shared data)."""
    old = record.conversation_id
    turns = tuple(
        t.model_copy(update={"id": t.id.replace(old, cid, 1), "conversation_id": cid})
        for t in record.turns
    )
    facts = tuple(
        f.model_copy(
            update={
                "id": f.id.replace(old, cid, 1),
                "conversation_id": cid,
                "cites": tuple(c.replace(old, cid, 1) for c in f.cites),
            }
        )
        for f in record.facts
    )
    sessions = tuple(s.model_copy(update={"conversation_id": cid}) for s in record.sessions)
    questions = tuple(
        q.model_copy(
            update={
                "id": q.id.replace(old, cid, 1),
                "conversation_id": cid,
                "evidence": tuple(e.replace(old, cid, 1) for e in q.evidence),
            }
        )
        for q in record.questions
    )
    return record.model_copy(
        update={
            "conversation_id": cid,
            "turns": turns,
            "facts": facts,
            "sessions": sessions,
            "questions": questions,
        }
    )


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as m:
        yield m


@pytest.fixture(scope="module")
def dev() -> dict[str, ConversationRecord]:
    if not LOCOMO.is_file():
        pytest.skip(f"LoCoMo dev file not found at {LOCOMO} (set KGMEM_LOCOMO_FILE)")
    return {r.conversation_id: r for r in load_locomo(LOCOMO)}


@pytest.fixture(scope="module")
def loaded(
    memory: Memory, dev: dict[str, ConversationRecord]
) -> Iterator[dict[str, ConversationRecord]]:
    """The three dev conversations under fresh tenant ids, annotation facts only (fast)."""
    tag = uuid.uuid4().hex[:8]
    out = {}
    for cid, record in dev.items():
        copy = renamed(record, f"t{tag}-{cid}")
        memory.add_conversation(copy, facts="annotation")
        out[cid] = copy
    yield out
    for copy in out.values():
        memory.forget(copy.conversation_id)


def _schema_in_database(memory: Memory) -> set[tuple[object, ...]]:
    """Every index and constraint the server holds, with its id (a drop-and-recreate changes
    it), type, schema and state: what an idempotent apply must leave exactly as it was."""

    def work(tx: neo4j.ManagedTransaction) -> set[tuple[object, ...]]:
        indexes = tx.run(
            "SHOW INDEXES YIELD id, name, type, entityType, labelsOrTypes, properties, state, "
            "owningConstraint"
        )
        rows: set[tuple[object, ...]] = {
            (
                "index",
                r["id"],
                r["name"],
                r["type"],
                r["entityType"],
                tuple(r["labelsOrTypes"] or ()),
                tuple(r["properties"] or ()),
                r["state"],
                r["owningConstraint"],
            )
            for r in indexes
        }
        constraints = tx.run(
            "SHOW CONSTRAINTS YIELD id, name, type, entityType, labelsOrTypes, properties, "
            "ownedIndex"
        )
        rows |= {
            (
                "constraint",
                r["id"],
                r["name"],
                r["type"],
                r["entityType"],
                tuple(r["labelsOrTypes"] or ()),
                tuple(r["properties"] or ()),
                r["ownedIndex"],
            )
            for r in constraints
        }
        return rows

    return memory.store.run_read(work)


def test_schema_apply_is_idempotent(memory: Memory) -> None:
    """Applying the schema twice leaves the database's indexes and constraints unchanged (same
    ids, so nothing was dropped and recreated), and every one the schema files name exists and
    is online."""
    memory.apply_schema()
    before = _schema_in_database(memory)
    memory.apply_schema()
    after = _schema_in_database(memory)
    assert after == before
    declared = {
        match.group(1)
        for name in catalogue().names("schema")
        for match in [
            re.search(r"CREATE .*?(?:INDEX|CONSTRAINT) (\w+) IF NOT EXISTS", catalogue()[name])
        ]
        if match
    }
    assert len(declared) == len(list(catalogue().names("schema")))
    online = {row[2] for row in after if row[0] == "constraint" or row[7] == "ONLINE"}
    assert declared <= online, declared - online


def test_conv26_turns_and_timeline(memory: Memory, loaded: dict[str, ConversationRecord]) -> None:
    cid = loaded["conv-26"].conversation_id
    counts = memory.counts(cid)
    assert counts["turns"] == 419
    assert counts["next"] == 418
    assert counts["sessions"] == 19
    assert counts["facts"] == len(loaded["conv-26"].facts)
    assert counts["cites"] >= counts["facts"]


def test_reingest_changes_nothing(memory: Memory, loaded: dict[str, ConversationRecord]) -> None:
    record = loaded["conv-26"]
    before = memory.counts(record.conversation_id)
    report = memory.add_conversation(record, facts="annotation")
    assert report.turns_written == 0 and report.facts_written == 0
    assert memory.counts(record.conversation_id) == before


def test_annotation_facts_cite_their_turns(
    memory: Memory, loaded: dict[str, ConversationRecord]
) -> None:
    record = loaded["conv-26"]
    fact = next(f for f in record.facts if f.cites)
    rows = memory.store.run_read(
        lambda tx: tx.run(
            "MATCH (f:Fact {id: $id})-[:CITES]->(t:Turn) RETURN collect(t.id) AS cites", id=fact.id
        ).single()
    )
    assert rows is not None and sorted(rows["cites"]) == sorted(fact.cites)


def test_cosine_search_is_exact_top_k_within_one_tenant(
    memory: Memory, loaded: dict[str, ConversationRecord]
) -> None:
    """With three conversations loaded, results are exactly the tenant's top-k by cosine."""
    record = loaded["conv-30"]
    cosine = EngineConfig(engine="cosine")
    vectors = memory.embedder.encode([t.text for t in record.turns])
    ids = [t.id for t in record.turns]
    for question in [q.question for q in record.questions[:8]] + [
        "",
        "a question about nothing in particular",
    ]:
        result = memory.search(question, record.conversation_id, 10, config=cosine)
        query = memory.embedder.encode_one(question)
        expected = [ids[i] for i in np.argsort(-(vectors @ query), kind="stable")[:10]]
        got = [h.turn_id for h in result.hits]
        assert all(h.turn_id.startswith(record.conversation_id + ":") for h in result.hits)
        # same set; order may differ only between float32 near-ties
        assert len(set(got) & set(expected)) >= 9, (question, got, expected)
        assert [h.score for h in result.hits] == sorted(
            (h.score for h in result.hits), reverse=True
        )
        assert result.hits[0].terms.keys() == {"cosine"}


def test_linked_search_stays_in_tenant(
    memory: Memory, loaded: dict[str, ConversationRecord]
) -> None:
    record = loaded["conv-41"]
    for q in record.questions[:10]:
        result = memory.search(q.question, record.conversation_id, 20)
        assert result.hits
        assert all(h.turn_id.startswith(record.conversation_id + ":") for h in result.hits)
        assert result.candidates >= len(result.hits)
        assert set(result.timings_ms) >= {"embed", "neo4j", "read_path", "total"}


def test_unknown_conversation_is_a_typed_error(memory: Memory) -> None:
    with pytest.raises(ConversationNotFound):
        memory.search("anything", f"missing-{uuid.uuid4().hex}", 5)


# schema statements are *run* (twice) by test_schema_apply_is_idempotent; procedures that cannot
# be planned without running are run there too
EXPLAINABLE = [
    n for n in catalogue().names() if not n.startswith("schema/") and n != "write/await_indexes"
]


@pytest.mark.parametrize("name", EXPLAINABLE)
def test_every_cypher_file_explains(memory: Memory, name: str) -> None:
    memory.store.explain(name)
