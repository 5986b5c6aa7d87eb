"""Each turn's language is recorded at ingest; other languages are said, not taken silently;
the text indexes' analyzer is a setting the schema checks."""

from __future__ import annotations

import logging
import uuid

import neo4j
import pytest

from kgmem.api import Memory
from kgmem.errors import SchemaOutdated
from kgmem.store.schema import DEFAULT_ANALYZER, apply_schema, outdated_search_indexes


def test_turns_carry_their_language_and_a_thai_chat_is_warned_once(
    memory: Memory, driver: neo4j.Driver, caplog: pytest.LogCaptureFixture
) -> None:
    cid = f"lang-{uuid.uuid4().hex[:8]}"
    turns = [
        {"speaker": "user", "text": "ฉันไปเดินป่ากับพี่สาวเมื่อวานนี้ และเราเห็นกวางใกล้ทะเลสาบ"},
        {"speaker": "assistant", "text": "That sounds like a lovely walk by the lake, well done!"},
        {"speaker": "user", "text": "ok"},
    ]
    try:
        with caplog.at_level(logging.WARNING, logger="kgmem.ingest.extraction.language"):
            memory.add_turns(cid, turns)
            memory.add_turns(cid, [{"speaker": "user", "text": turns[0]["text"] + " อีกครั้ง"}])
        records, _, _ = driver.execute_query(
            "MATCH (t:Turn {conversation_id: $c}) RETURN t.language AS lang ORDER BY t.index",
            c=cid,
        )
        assert [r["lang"] for r in records] == ["th", "en", None, "th"]
        warned = [r for r in caplog.records if cid in r.getMessage()]
        assert len(warned) == 1 and "th" in warned[0].getMessage()
        # still stored, embedded and found
        assert memory.search("กวาง ทะเลสาบ", cid).hits
    finally:
        memory.forget(cid)


def test_a_changed_analyzer_is_an_outdated_index(memory: Memory) -> None:
    assert outdated_search_indexes(memory.store, DEFAULT_ANALYZER) == {}
    changed = outdated_search_indexes(memory.store, "cjk")
    assert set(changed) == {"turn_text", "fact_text"}
    assert changed["turn_text"] == ("analyzer english", "analyzer cjk")
    with pytest.raises(SchemaOutdated):
        apply_schema(memory.store, memory.embedder.dimension, "cjk")
