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
