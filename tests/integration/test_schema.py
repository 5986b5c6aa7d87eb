"""Schema layout checks against the real server: an index of an older layout is refused with a
typed error that says how to rebuild, and the rebuild restores tenant-scoped search."""

from __future__ import annotations

import pytest

from kgmem.api import Memory
from kgmem.errors import SchemaOutdated
from kgmem.store.schema import SEARCH_INDEXES, outdated_search_indexes


def test_current_layout_is_what_apply_creates(memory: Memory) -> None:
    memory.apply_schema()
    assert outdated_search_indexes(memory.store) == {}
    rows = {r["name"]: r for r in memory.store.read("read/list_vector_indexes")}
    for name, spec in SEARCH_INDEXES.items():
        assert tuple(rows[name]["properties"]) == spec.properties


def test_old_fulltext_layout_is_refused_then_rebuilt(memory: Memory, conversation: str) -> None:
    store = memory.store
    store.write("write/drop_index", name="turn_text")
    # the 0.1 layout: text only, no tenant token, so BM25 had to filter after a global top-N
    store.run_write(
        lambda tx: tx.run(
            "CREATE FULLTEXT INDEX turn_text FOR (t:Turn) ON EACH [t.text] "
            "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
        ).consume()
    )
    try:
        with pytest.raises(SchemaOutdated, match=r"turn_text.*schema apply --rebuild"):
            memory.apply_schema()
    finally:
        rebuilt = memory.rebuild_schema()
    assert rebuilt == ["turn_text"]
    assert outdated_search_indexes(store) == {}
    hits = memory.search("Where does Ana live?", conversation, k=5)
    assert any("bm25" in h.trace for h in hits.hits), "BM25 seeds work again after the rebuild"


def test_pre_owner_vector_layout_is_refused_then_migrated(
    memory: Memory, conversation: str
) -> None:
    """A store written before owners and filters: vector indexes without the owner, session and
    source-kind filter properties, turns and facts without ``owner`` / ``source_kind``. Apply
    says to rebuild; the rebuild keeps the data, backfills the properties and search works."""
    store = memory.store
    dim = memory.embedder.dimension
    for name in ("turn_embedding", "fact_embedding"):
        store.write("write/drop_index", name=name)
    old = (
        "CYPHER 25 CREATE VECTOR INDEX turn_embedding FOR (t:Turn) ON t.embedding "
        "WITH [t.conversation_id, t.observed_at, t.speaker] ",
        "CYPHER 25 CREATE VECTOR INDEX fact_embedding FOR (f:Fact) ON f.embedding "
        "WITH [f.conversation_id, f.source] ",
    )
    options = (
        "OPTIONS {indexConfig: {`vector.dimensions`: $d, `vector.similarity_function`: "
        "'cosine', `vector.quantization.type`: 'NONE'}}"
    )
    for text in old:
        store.run_write(lambda tx, text=text: tx.run(text + options, d=dim).consume())
    store.run_write(
        lambda tx: tx.run(
            "MATCH (n) WHERE (n:Turn OR n:Fact) AND n.conversation_id = $c "
            "REMOVE n.owner, n.source_kind",
            c=conversation,
        ).consume()
    )
    try:
        with pytest.raises(SchemaOutdated, match=r"(turn|fact)_embedding.*schema apply --rebuild"):
            memory.apply_schema()
    finally:
        rebuilt = memory.rebuild_schema()
    assert rebuilt == ["fact_embedding", "turn_embedding"]
    assert outdated_search_indexes(store) == {}
    left = store.run_read(
        lambda tx: tx.run(
            "MATCH (t:Turn {conversation_id: $c}) "
            "WHERE t.owner <> '' OR t.owner IS NULL OR t.source_kind <> 'chat' "
            "RETURN count(t) AS n",
            c=conversation,
        ).single()["n"]
    )
    assert left == 0
    hits = memory.search("Where does Ana live?", conversation, k=5).hits
    assert len(hits) == 5 and any("dense_turns" in h.trace["generators"] for h in hits)
