"""Write safety against the real Neo4j: concurrent writers lose nothing, a `Memory` is safe across
threads, and forgetting single turns leaves no trace (cases ``truth-08`` and ``truth-09`` of
``../shared/data/cases/truth-and-safety.json``).

Concurrent writers are forked processes (tests/integration/forking.py) with their own drivers,
released together through a pipe. Each test works in conversations of its own and forgets them.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j
import pytest
from click.testing import CliRunner

from kgmem import Memory
from kgmem.cli.admin import forget as forget_cli
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, TurnNotFound
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.ingest.loaders.locomo import parse_locomo_sample
from tests.integration.forking import fork_writer, wait
from tests.strategies import DATA, record_figure, snapshot

# slow: forked writers racing on one conversation (minutes under load)
pytestmark = pytest.mark.slow

WHEN = datetime(2025, 5, 8, 12, 0, tzinfo=UTC)
CASES = Path(
    os.environ.get(
        "KGMEM_CASES_FILE",
        Path(__file__).resolve().parents[3] / "shared" / "data" / "cases" / "truth-and-safety.json",
    )
)
#: truth-08's conversation, inlined so the test runs without the shared data folder
TRUTH_08 = {
    "conversation_id": "truth-08",
    "sessions": [
        {
            "started_at": "2025-05-01T10:00:00+00:00",
            "turns": [
                {
                    "id": "a1",
                    "speaker": "Noa",
                    "text": "My bank PIN is 4471-QZ, please never repeat it.",
                },
                {"id": "a2", "speaker": "Noa", "text": "I live in Bonn."},
                {"id": "a3", "speaker": "Noa", "text": "I'm allergic to peanuts."},
            ],
        },
        {
            "started_at": "2025-08-01T10:00:00+00:00",
            "turns": [{"id": "b1", "speaker": "Noa", "text": "I moved to Cologne last week."}],
        },
    ],
}


def new_cid(what: str) -> str:
    return f"ws-{what}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as mem:
        mem.apply_schema()
        yield mem


def forget_quietly(memory: Memory, *cids: str) -> None:
    for cid in cids:
        with contextlib.suppress(ConversationNotFound):
            memory.forget(cid)


def chain(driver: neo4j.Driver, cid: str) -> dict[str, Any]:
    """The shape of a conversation's timeline: turns, distinct indexes, heads, tails, NEXT edges
    and NEXT edges that do not go from one index to the next stored index."""
    with driver.session() as session:
        row = session.run(
            """
            MATCH (t:Turn {conversation_id: $cid})
            WITH collect(t) AS turns, collect(DISTINCT t.index) AS indexes
            RETURN size(turns) AS turns, size(indexes) AS indexes,
                   size([t IN turns WHERE NOT EXISTS { (:Turn)-[:NEXT]->(t) }]) AS heads,
                   size([t IN turns WHERE NOT EXISTS { (t)-[:NEXT]->(:Turn) }]) AS tails,
                   COUNT { (:Turn {conversation_id: $cid})-[:NEXT]->(:Turn) } AS next,
                   COUNT { MATCH (a:Turn {conversation_id: $cid})-[:NEXT]->(b:Turn)
                           WHERE b.index <> COUNT { (x:Turn {conversation_id: $cid})
                                                    WHERE x.index <= a.index } } AS skips
            """,
            cid=cid,
        ).single()
    assert row is not None
    return dict(row)


# --- truth-09: concurrent appends ----------------------------------------------------------------


def test_truth_09_four_processes_append_25_turns_each(
    memory: Memory, settings: Settings, driver: neo4j.Driver
) -> None:
    writers, appends = 4, 25
    cid = new_cid("truth09")

    def append(w: int) -> Any:
        def work(child: Memory) -> None:
            for i in range(appends):
                child.add_turns(
                    cid,
                    [{"speaker": f"W{w}", "text": f"Writer {w} reports item {i} on the list."}],
                    observed_at=WHEN,
                )

        return work

    read_end, write_end = os.pipe()
    try:
        pids = [fork_writer(memory, settings, append(w), gate=read_end) for w in range(writers)]
        os.write(write_end, b"go" * writers)
        codes = [wait(pid) for pid in pids]
        assert codes == [0] * writers  # no call raised
        shape = chain(driver, cid)
        assert shape == {
            "turns": writers * appends,
            "indexes": writers * appends,
            "heads": 1,
            "tails": 1,
            "next": writers * appends - 1,
            "skips": 0,
        }
        with driver.session() as session:
            rows = session.run(
                "MATCH (t:Turn {conversation_id: $cid}) RETURN t.speaker AS w, t.text AS text, "
                "t.index AS i, t.id AS id ORDER BY t.index",
                cid=cid,
            ).data()
        assert [r["i"] for r in rows] == list(range(writers * appends))
        assert all(r["id"] == f"{cid}:t{r['i']}" for r in rows)  # default ids from the index
        for w in range(writers):  # each writer's turns in its own call order
            mine = [r["text"] for r in rows if r["w"] == f"W{w}"]
            assert mine == [f"Writer {w} reports item {i} on the list." for i in range(appends)]
        record_figure("concurrent_append_writers", writers)
        record_figure("concurrent_appends_tried", writers * appends)
        record_figure("concurrent_turns_lost", writers * appends - shape["turns"])
    finally:
        os.close(read_end)
        os.close(write_end)
        forget_quietly(memory, cid)


def test_explicit_repeat_ids_from_two_processes_are_stored_once(
    memory: Memory, settings: Settings, driver: neo4j.Driver
) -> None:
    cid = new_cid("repeat")
    turns = [{"id": f"m{i}", "speaker": "Ana", "text": f"Message number {i}."} for i in range(8)]

    def work(child: Memory) -> None:
        for turn in turns:
            child.add_turns(cid, [turn], observed_at=WHEN)

    read_end, write_end = os.pipe()
    try:
        memory.add_turns(cid, [{"id": "t3", "speaker": "Bo", "text": "An explicit t3 first."}])
        pids = [fork_writer(memory, settings, work, gate=read_end) for _ in range(2)]
        os.write(write_end, b"go")
        assert [wait(pid) for pid in pids] == [0, 0]
        memory.add_turns(cid, [{"speaker": "Bo", "text": "A default id after them."}])
        shape = chain(driver, cid)
        assert shape["turns"] == shape["indexes"] == 10
        assert (shape["heads"], shape["tails"], shape["skips"]) == (1, 1, 0)
        with driver.session() as session:
            ids = session.run(
                "MATCH (t:Turn {conversation_id: $cid}) RETURN t.id AS id ORDER BY t.index",
                cid=cid,
            ).value()
        assert sorted(ids[1:9]) == sorted(f"{cid}:m{i}" for i in range(8))
        assert ids[0] == f"{cid}:t3"  # explicit t3 ...
        assert ids[9] == f"{cid}:t9"
        memory.add_turns(
            cid,
            [
                {"speaker": "Bo", "text": "Index 10."},
                {"id": "t11", "speaker": "Bo", "text": "Explicit t11."},
            ],
        )
        memory.add_turns(
            cid,
            [
                {"speaker": "Bo", "text": "Index 12 wants t12."},
                {"speaker": "Bo", "text": "Index 13."},
            ],
        )
        with driver.session() as session:
            tail = session.run(
                "MATCH (t:Turn {conversation_id: $cid}) WHERE t.index >= 10 "
                "RETURN t.dia_id AS id ORDER BY t.index",
                cid=cid,
            ).value()
        assert tail == ["t10", "t11", "t12", "t13"]
    finally:
        os.close(read_end)
        os.close(write_end)
        forget_quietly(memory, cid)


def test_two_processes_ingesting_one_file_equal_one_ingest(
    memory: Memory, settings: Settings, driver: neo4j.Driver
) -> None:
    ref, cid = new_cid("ref"), new_cid("twice")

    def record(conversation_id: str) -> Any:
        [sample] = json.loads((DATA / "small_locomo.json").read_text(encoding="utf-8"))
        sample["sample_id"] = conversation_id
        return parse_locomo_sample(sample, file="small_locomo.json")

    small = settings.model_copy(update={"write_batch_size": 2})
    read_end, write_end = os.pipe()
    try:
        memory.add_conversation(record(ref), facts="both")
        pids = [
            fork_writer(
                memory,
                small,
                lambda child: child.add_conversation(record(cid), facts="both"),
                gate=read_end,
            )
            for _ in range(2)
        ]
        os.write(write_end, b"go")
        assert [wait(pid) for pid in pids] == [0, 0]
        assert snapshot(driver, cid).canonical(cid) == snapshot(driver, ref).canonical(ref)
        record_figure("concurrent_same_file_ingests", 2)
    finally:
        os.close(read_end)
        os.close(write_end)
        forget_quietly(memory, ref, cid)


def test_one_memory_shared_by_threads(memory: Memory, driver: neo4j.Driver) -> None:
    """One `Memory` (one driver, a session per call) used by 4 appending threads and a searcher
    at once: no error, no lost turn, one chain."""
    cid = new_cid("threads")
    threads_n, appends = 4, 10
    errors: list[BaseException] = []
    searches = 0
    start = threading.Barrier(threads_n + 1)

    def append(w: int) -> None:
        try:
            start.wait()
            for i in range(appends):
                memory.add_turns(
                    cid, [{"speaker": f"T{w}", "text": f"Thread {w} line {i}."}], observed_at=WHEN
                )
        except BaseException as exc:
            errors.append(exc)

    done = threading.Event()

    def search() -> None:
        nonlocal searches
        try:
            start.wait()
            while not done.is_set():
                try:
                    memory.search("What did thread 2 say?", cid, k=3)
                    searches += 1
                except ConversationNotFound:
                    time.sleep(0.01)
        except BaseException as exc:
            errors.append(exc)

    try:
        workers = [threading.Thread(target=append, args=(w,)) for w in range(threads_n)]
        searcher = threading.Thread(target=search)
        for t in [*workers, searcher]:
            t.start()
        for t in workers:
            t.join(timeout=600)
        done.set()
        searcher.join(timeout=120)
        assert not errors, errors
        shape = chain(driver, cid)
        assert shape["turns"] == shape["indexes"] == threads_n * appends
        assert (shape["heads"], shape["tails"], shape["skips"]) == (1, 1, 0)
        record_figure("thread_appends_tried", threads_n * appends)
        record_figure("thread_turns_lost", threads_n * appends - shape["turns"])
        record_figure("thread_searches", searches)
    finally:
        forget_quietly(memory, cid)


# --- truth-08: forgetting single turns -----------------------------------------------------------


def strings_containing(
    driver: neo4j.Driver, needles: list[str], conversation_id: str | None = None
) -> list[str]:
    """Every string (or string in a list) property of every node and relationship in the whole
    database that contains one of ``needles``, case-insensitively (embeddings are float lists
    and never match). With ``conversation_id``, only that tenant's nodes (``conversation_id``
    or ``id`` equal to it) and the relationships leaving them: for words that other tenants
    (e.g. LoCoMo conversations loaded by other tests) may legitimately hold."""
    lowered = [n.lower() for n in needles]
    with driver.session() as session:
        rows = session.run(
            """
            CALL {
              MATCH (n)
              WHERE $cid IS NULL OR n.conversation_id = $cid OR n.id = $cid
              UNWIND keys(n) AS k
              RETURN 'node ' + elementId(n) + '.' + k AS where, n[k] AS v
              UNION ALL
              MATCH (a)-[r]->()
              WHERE $cid IS NULL OR a.conversation_id = $cid OR a.id = $cid
              UNWIND keys(r) AS k
              RETURN 'rel ' + elementId(r) + '.' + k AS where, r[k] AS v
            }
            WITH where, CASE WHEN v IS :: LIST<ANY> THEN v ELSE [v] END AS values
            UNWIND values AS value
            WITH where, value WHERE value IS :: STRING
              AND any(needle IN $needles WHERE toLower(value) CONTAINS needle)
            RETURN where + ' = ' + value AS hit
            """,
            needles=lowered,
            cid=conversation_id,
        ).value()
    return [str(x) for x in rows]


def fulltext_hits(driver: neo4j.Driver, cid: str, words: list[str]) -> list[str]:
    hits: list[str] = []
    with driver.session() as session:
        for index in ("turn_text", "fact_text", "entity_name_text"):
            for word in words:
                hits += session.run(
                    "CALL db.index.fulltext.queryNodes($index, $q) YIELD node "
                    "WHERE node.conversation_id = $cid RETURN $index + ' ' + node.id AS hit",
                    index=index,
                    q=word,
                    cid=cid,
                ).value()
    return hits


def test_truth_08_forget_turns_leaves_no_trace(memory: Memory, driver: neo4j.Driver) -> None:
    doc = json.loads(json.dumps(TRUTH_08))
    if CASES.is_file():  # the shared case file wins when it is there
        case = next(
            c
            for c in json.loads(CASES.read_text(encoding="utf-8"))["cases"]
            if c["id"].startswith("truth-08")
        )
        doc = case["conversation"]
    cid = new_cid("truth08")
    doc["conversation_id"] = cid
    secrets = ["4471-QZ", "Cologne"]
    try:
        memory.add_conversation(parse_chat_conversation(doc), facts="extracted")
        before = memory.current(cid, "Noa", "residence")
        assert before is not None and before["cites"] == [f"{cid}:b1"]
        memory.search("Where does Noa live?", cid)  # fills the per-process context cache
        assert strings_containing(driver, secrets)  # the scan does see them before
        counts = memory.forget_turns(cid, ["a1", "b1"])
        assert counts["turns"] == 2 and counts["facts"] >= 2

        found = strings_containing(driver, secrets)
        assert found == []
        assert fulltext_hits(driver, cid, ["Cologne", "4471", "QZ", "PIN"]) == []
        assert cid not in memory.caches.contexts  # the cached entity names are gone
        hits = memory.search("What is Noa's PIN?", cid, k=10).hits
        assert f"{cid}:a1" not in [h.turn_id for h in hits]
        assert all("4471" not in json.dumps(h.trace, default=str) for h in hits)
        now = memory.current(cid, "Noa", "residence")
        assert now is not None and now["cites"] == [f"{cid}:a2"] and now["valid_to"] is None
        assert now["superseded_by"] is None
        assert memory.search("What is Noa allergic to?", cid, k=10).hits[0].turn_id == f"{cid}:a3"
        context = memory.caches.contexts.get(cid)  # rebuilt by the searches above
        assert context is not None
        cached = json.dumps(context, default=lambda o: getattr(o, "__dict__", str(o))).lower()
        assert "noa" in cached and "cologne" not in cached and "4471" not in cached
        shape = chain(driver, cid)
        assert (shape["turns"], shape["heads"], shape["tails"], shape["next"]) == (2, 1, 1, 1)

        # idempotent: the same call again changes nothing; an unknown id is a typed error
        settled = snapshot(driver, cid)
        assert memory.forget_turns(cid, ["a1", f"{cid}:b1"])["turns"] == 0
        assert snapshot(driver, cid).checksum == settled.checksum
        with pytest.raises(TurnNotFound, match="nope") as info:
            memory.forget_turns(cid, ["a2", "nope"])
        assert info.value.turn_ids == [f"{cid}:nope"]
        assert snapshot(driver, cid).checksum == settled.checksum  # nothing changed
        record_figure("forget_scan_strings_found", len(found))
        record_figure("forget_turns_forgotten", counts["turns"])
    finally:
        forget_quietly(memory, cid)


def test_forget_drops_a_fact_citing_a_forgotten_and_a_kept_turn(
    memory: Memory, settings: Settings, driver: neo4j.Driver
) -> None:
    """LoCoMo annotation facts cite several turns; one citing a forgotten turn goes whole, and
    the CLI reports what it removed."""
    [sample] = json.loads((DATA / "small_locomo.json").read_text(encoding="utf-8"))
    cid = new_cid("mixed")
    sample["sample_id"] = cid
    record = parse_locomo_sample(sample, file="small_locomo.json")
    # the fixture's annotation facts cite one turn each: make one cite a second, kept turn
    single = next(f for f in record.facts if f.cites)
    target = single.cites[0]
    kept = next(t.id for t in record.turns if t.id != target)
    fact = single.model_copy(update={"cites": (target, kept)})
    record = record.model_copy(
        update={"facts": tuple(fact if f.id == fact.id else f for f in record.facts)}
    )
    try:
        memory.add_conversation(record, facts="both")
        with driver.session() as session:
            cited = session.run(
                "MATCH (:Fact {id: $id})-[:CITES]->(t:Turn) RETURN collect(t.id) AS ids",
                id=fact.id,
            ).single()
        assert cited is not None and sorted(cited["ids"]) == sorted([target, kept])
        text = next(t.text for t in record.turns if t.id == target)
        result = CliRunner().invoke(
            forget_cli,
            ["--conversation", cid, "--turn", target.split(":", 1)[1], "--json"],
            obj=settings,
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["turns"] == 1
        with driver.session() as session:
            left = session.run("MATCH (f:Fact {id: $id}) RETURN count(f) AS n", id=fact.id).single()
        assert left is not None and left["n"] == 0
        distinctive = max(text.split(), key=len).strip(".,!?").lower()
        remaining = " ".join(t.text for t in record.turns if t.id != target).lower()
        if distinctive not in remaining:  # this tenant only: others may hold the word
            assert strings_containing(driver, [distinctive], conversation_id=cid) == []
        shape = chain(driver, cid)
        assert shape["turns"] == len(record.turns) - 1
        assert (shape["heads"], shape["tails"], shape["next"]) == (1, 1, len(record.turns) - 2)
        bad = CliRunner().invoke(
            forget_cli, ["--conversation", cid, "--turn", "D99:1"], obj=settings
        )
        assert isinstance(bad.exception, TurnNotFound)
    finally:
        forget_quietly(memory, cid)
