"""Long turns as passages on a real Neo4j: a fact after a code block in a long assistant turn
is found by dense search, the hit names the passage that matched, a short turn has none,
and forgetting removes the passages with their turn."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import neo4j

from kgmem.api import Memory
from kgmem.ingest.extraction.passages import passage_spans

WHEN = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)
CODE = (
    "```python\n"
    + "\n".join(
        f"def route_{i}(request):\n    return render_template('page_{i}.html')" for i in range(30)
    )
    + "\n```"
)
LONG = (
    "Here is how the pages are wired, one route per template.\n\n"
    + CODE
    + "\n\nOne more thing: the nightly backup of the SQLite file runs at 3am to a bucket in "
    "Frankfurt, and it keeps thirty days of copies."
)


def _passages(driver: neo4j.Driver, cid: str) -> int:
    with driver.session() as session:
        record = session.run(
            "MATCH (p:Passage {conversation_id: $cid}) RETURN count(p) AS n", cid=cid
        ).single()
    return int(record["n"]) if record else 0


def test_a_fact_after_a_code_block_is_found_by_its_passage(
    memory: Memory, driver: neo4j.Driver
) -> None:
    cid = f"passages-{uuid.uuid4().hex[:8]}"
    spans = passage_spans(LONG)
    assert len(spans) > 2
    try:
        memory.add_turns(
            cid,
            [
                {"speaker": "user", "text": "How should I wire the pages of my app?"},
                {"speaker": "assistant", "text": LONG},
                {"speaker": "user", "text": "Thanks, I moved the templates folder."},
            ],
            observed_at=WHEN,
        )
        assert _passages(driver, cid) == len(spans)
        result = memory.search("When does the nightly backup run and where to?", cid, k=3)
        hit = next(h for h in result.hits if h.text == LONG)
        assert hit.passage is not None
        start, end = hit.passage["start"], hit.passage["end"]
        assert (start, end) == spans[-1]
        assert "nightly backup" in hit.text[start:end]
        assert hit.terms["cosine"] == hit.passage["cosine"]
        assert "dense_passages" in hit.trace["generators"]
        short = [h for h in result.hits if h.text != LONG]
        assert all(h.passage is None for h in short)
        memory.forget_turns(cid, [hit.turn_id])
        assert _passages(driver, cid) == 0
    finally:
        memory.forget(cid)
    assert _passages(driver, cid) == 0
