"""Reliability of the write path against the real Neo4j: idempotent re-ingests, idempotent
appends, concurrent ingests with searches, oversized and odd turns, and ``kgmem forget``.

Each test works in conversations of its own (``rel-<what>-<random>``) and forgets them after.
"""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import neo4j
import pytest
from click.testing import CliRunner

from kgmem import Memory
from kgmem.cli.admin import forget as forget_cli
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, KgmemError, MalformedInput
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.ingest.loaders.locomo import parse_locomo_sample
from kgmem.models import ConversationRecord
from tests.strategies import DATA, record_figure, snapshot

WHEN = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)


def new_cid(what: str) -> str:
    return f"rel-{what}-{uuid.uuid4().hex[:8]}"


def chat_fixture(cid: str) -> ConversationRecord:
    doc = json.loads((DATA / "small_chat.json").read_text(encoding="utf-8"))
    doc["conversation_id"] = cid
    return parse_chat_conversation(doc, file="small_chat.json")


def locomo_fixture(cid: str) -> ConversationRecord:
    [sample] = json.loads((DATA / "small_locomo.json").read_text(encoding="utf-8"))
    sample["sample_id"] = cid
    return parse_locomo_sample(sample, file="small_locomo.json")


def forget_quietly(memory: Memory, *cids: str) -> None:
    for cid in cids:
        with contextlib.suppress(ConversationNotFound):
            memory.forget(cid)


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as mem:
        mem.apply_schema()
        yield mem


@pytest.mark.parametrize(
    ("loader", "facts"), [(chat_fixture, "extracted"), (locomo_fixture, "both")]
)
def test_three_ingests_leave_identical_graph(
    memory: Memory, driver: neo4j.Driver, loader: Any, facts: str
) -> None:
    cid = new_cid("idem")
    record = loader(cid)
    try:
        first_report = memory.add_conversation(record, facts=facts)
        first = snapshot(driver, cid)
        assert first.counts["Turn"] == len(record.turns)
        assert first_report.turns_written == len(record.turns)
        for _ in range(2):
            report = memory.add_conversation(record, facts=facts)
            again = snapshot(driver, cid)
            assert report.turns_written == 0 and report.facts_written == 0
            assert again.counts == first.counts
            assert again.checksum == first.checksum, set(again.nodes) ^ set(first.nodes)
            assert again.max_embedding_drift(first) == 0.0
            record_figure("reingests_identical", 1)
        assert memory.counts(cid)["next"] == len(record.turns) - 1
    finally:
        forget_quietly(memory, cid)


def test_add_turns_twice_with_same_id_stores_once(memory: Memory, driver: neo4j.Driver) -> None:
    cid = new_cid("append")
    turns = [
        {"id": "a", "speaker": "Ana", "text": "I moved to Lisbon last month."},
        {"id": "b", "speaker": "Bo", "text": "Nice! I adopted a puppy named Pixel."},
    ]
    try:
        memory.add_turns(cid, turns, observed_at=WHEN)
        before = snapshot(driver, cid)
        memory.add_turns(cid, [turns[1]], observed_at=WHEN)  # the last turn again
        memory.add_turns(cid, [turns[0]], observed_at=WHEN)  # an earlier turn again
        after = snapshot(driver, cid)
        assert after.counts == before.counts
        assert after.checksum == before.checksum, set(after.edges) ^ set(before.edges)
        memory.add_turns(
            cid, [{"id": "c", "speaker": "Ana", "text": "Send me photos!"}], observed_at=WHEN
        )
        with driver.session() as session:
            chain = session.run(
                "MATCH (x:Turn {conversation_id: $cid})-[:NEXT]->(y) "
                "RETURN x.id AS a, y.id AS b ORDER BY x.index",
                cid=cid,
            ).data()
        assert [(r["a"], r["b"]) for r in chain] == [
            (f"{cid}:a", f"{cid}:b"),
            (f"{cid}:b", f"{cid}:c"),
        ]
        record_figure("reingests_identical", 2)
    finally:
        forget_quietly(memory, cid)


def test_concurrent_ingests_and_searches(
    settings: Settings, memory: Memory, driver: neo4j.Driver
) -> None:
    """Two ingests (one Memory each, as two agents would) and a searcher run at once; the graphs
    equal those of one-at-a-time ingests of the same inputs."""
    ref_chat, ref_locomo, a, b = (new_cid(x) for x in ("ref1", "ref2", "conc1", "conc2"))
    try:
        memory.add_conversation(chat_fixture(ref_chat), facts="extracted")
        memory.add_conversation(locomo_fixture(ref_locomo), facts="both")
        errors: list[BaseException] = []
        searches = 0
        done = threading.Event()

        def ingest(record: ConversationRecord, facts: str) -> None:
            try:
                with Memory.from_settings(settings) as mem:
                    mem.add_conversation(record, facts=facts)  # type: ignore[arg-type]
            except BaseException as exc:
                errors.append(exc)

        def search() -> None:
            nonlocal searches
            try:
                while not done.is_set() or searches < 4:
                    for cid in (ref_chat, a, b):
                        try:
                            result = memory.search("Where does Ana live now?", cid, k=5)
                        except ConversationNotFound:
                            assert cid != ref_chat  # a conversation still being written
                            continue
                        assert all(h.turn_id.startswith(cid + ":") for h in result.hits)
                        searches += 1
            except BaseException as exc:
                errors.append(exc)

        threads = [
            threading.Thread(target=ingest, args=(chat_fixture(a), "extracted")),
            threading.Thread(target=ingest, args=(locomo_fixture(b), "both")),
        ]
        searcher = threading.Thread(target=search)
        searcher.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        done.set()
        searcher.join(timeout=120)
        assert not errors, errors
        assert snapshot(driver, a).canonical(a) == snapshot(driver, ref_chat).canonical(ref_chat)
        assert snapshot(driver, b).canonical(b) == snapshot(driver, ref_locomo).canonical(
            ref_locomo
        )
        record_figure("concurrent_ingests", 2)
        record_figure("searches_during_ingest", searches)
    finally:
        forget_quietly(memory, ref_chat, ref_locomo, a, b)


@pytest.mark.slow  # extracting facts from a 100 KB turn takes about a minute
def test_100kb_turn_is_stored_whole_and_embedded_as_passages(
    memory: Memory, driver: neo4j.Driver
) -> None:
    """A long turn is stored whole and every part of it is embedded as a passage (no text is
    dropped from dense search because it is long; `kgmem.ingest.extraction.passages`)."""
    cid = new_cid("big")
    text = "".join(f"line {n}: café 🧠 ‮rtl‬ \"q\" 'q' `b` \\ {{x}} $p\n" for n in range(2200))
    assert len(text.encode("utf-8")) > 100_000
    try:
        memory.add_turns(cid, [{"id": "big", "speaker": "Ana", "text": text}], observed_at=WHEN)
        with driver.session() as session:
            row = session.run(
                "MATCH (t:Turn {id: $id}) OPTIONAL MATCH (p:Passage)-[:OF]->(t) "
                "RETURN t.text AS text, size(t.embedding) AS dim, count(p) AS passages, "
                "max(p.end) AS last, min(p.start) AS first",
                id=f"{cid}:big",
            ).single()
        assert row is not None
        assert row["text"].encode("utf-8") == text.encode("utf-8")
        assert row["dim"] == 384
        assert row["passages"] > 1 and row["first"] == 0
        assert row["last"] >= len(text.rstrip())  # trailing whitespace belongs to no passage
        hits = memory.search("café line 2150", cid, k=1).hits
        assert hits and hits[0].text == text and hits[0].passage is not None
    finally:
        forget_quietly(memory, cid)


@pytest.mark.parametrize(
    "turn",
    [
        {"speaker": "", "text": "no speaker"},
        {"text": "no speaker key"},
        {"speaker": "Ana", "text": "   "},
        {"speaker": "Ana", "text": 42},
        {"speaker": "Ana", "text": "naive", "observed_at": datetime(2024, 1, 1)},
        # over MAX_TURN_CHARS counting whitespace runs as one; over MAX_TURN_RAW_CHARS raw
        {"speaker": "Ana", "text": "word " * 40_001},
        {"speaker": "Ana", "text": "a" + " " * 1_000_000 + "b"},
    ],
)
def test_bad_appended_turns_are_typed_and_write_nothing(
    memory: Memory, turn: dict[str, Any]
) -> None:
    cid = new_cid("badturn")
    with pytest.raises(MalformedInput) as info:
        memory.add_turns(cid, [{"speaker": "Bo", "text": "fine"}, turn], observed_at=WHEN)
    assert info.value.conversation_id == cid and info.value.turn == "#1"
    assert memory.counts(cid) == dict.fromkeys(memory.counts(cid), 0)


def test_a_padded_turn_is_kept_whole_and_found(memory: Memory) -> None:
    """Blank padding does not count towards the limit: a turn of a few words padded with more
    than MAX_TURN_CHARS blanks (BEAM has one) is stored exactly and searchable."""
    cid = new_cid("padded")
    text = "The angle bisector splits the apex angle." + " " * 250_000 + "\n\nThen label it D."
    try:
        memory.add_turns(cid, [{"speaker": "assistant", "text": text}], observed_at=WHEN)
        hits = memory.search("angle bisector apex", cid, k=1).hits
        assert hits and hits[0].text == text
    finally:
        forget_quietly(memory, cid)


def test_lone_surrogate_in_appended_turn_is_typed(memory: Memory) -> None:
    cid = new_cid("surrogate")
    try:
        with pytest.raises(KgmemError, match="not valid Unicode"):
            memory.add_turns(
                cid, [{"speaker": "Ana", "text": "half an emoji \ud83d"}], observed_at=WHEN
            )
        with pytest.raises(KgmemError, match="not valid Unicode"):
            memory.search("where \udc00", cid)
        assert memory.counts(cid)["turns"] == 0
    finally:
        forget_quietly(memory, cid)


def _total_counts(driver: neo4j.Driver) -> dict[str, int]:
    with driver.session() as session:
        rows = session.run(
            "MATCH (n) WHERE n.conversation_id IS NOT NULL "
            "RETURN n.conversation_id AS cid, labels(n)[0] AS label, count(*) AS n"
        ).data()
    return {f"{r['cid']}|{r['label']}": r["n"] for r in rows}


def _orphans(driver: neo4j.Driver, cid: str) -> dict[str, int]:
    """Facts citing nothing, entities nothing points at, empty sessions, and any node whose id
    carries the conversation's prefix."""
    with driver.session() as session:
        row = session.run(
            """
            CALL { MATCH (f:Fact {conversation_id: $cid})
                   WHERE NOT EXISTS { (f)-[:CITES|ABOUT]->() } RETURN count(f) AS facts }
            CALL { MATCH (e:Entity {conversation_id: $cid})
                   WHERE NOT EXISTS { (e)<-[:ABOUT|MENTIONS]-() } RETURN count(e) AS entities }
            CALL { MATCH (s:Session {conversation_id: $cid})
                   WHERE NOT EXISTS { (s)<-[:IN_SESSION]-() } RETURN count(s) AS sessions }
            CALL { MATCH (n) WHERE n.id STARTS WITH $prefix RETURN count(n) AS leftovers }
            RETURN facts, entities, sessions, leftovers
            """,
            cid=cid,
            prefix=cid + ":",
        ).single()
    assert row is not None
    return dict(row)


def test_forget_removes_one_conversation_and_leaves_no_orphans(
    settings: Settings, memory: Memory, driver: neo4j.Driver
) -> None:
    gone, kept = new_cid("forget"), new_cid("keep")
    try:
        memory.add_conversation(locomo_fixture(gone), facts="both")
        memory.add_conversation(locomo_fixture(kept), facts="both")
        kept_before = snapshot(driver, kept)
        kept_orphans = _orphans(driver, kept)
        others_before = {k: v for k, v in _total_counts(driver).items() if k.startswith(kept + "|")}
        result = CliRunner().invoke(forget_cli, ["--conversation", gone, "--json"], obj=settings)
        assert result.exit_code == 0, result.output
        deleted = json.loads(result.output)
        assert deleted["turns"] == 5 and deleted["facts"] > 0 and deleted["sessions"] == 2
        assert snapshot(driver, gone).nodes == []
        assert snapshot(driver, kept).checksum == kept_before.checksum
        assert {
            k: v for k, v in _total_counts(driver).items() if k.startswith(kept + "|")
        } == others_before
        assert _orphans(driver, gone) == {"facts": 0, "entities": 0, "sessions": 0, "leftovers": 0}
        assert _orphans(driver, kept) == kept_orphans
        again = CliRunner().invoke(forget_cli, ["--conversation", gone], obj=settings)
        assert isinstance(again.exception, ConversationNotFound)  # the main group makes it exit 1
        record_figure("forgets_clean", 1)
    finally:
        forget_quietly(memory, gone, kept)
