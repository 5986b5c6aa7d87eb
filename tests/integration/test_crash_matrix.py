"""Crash matrix, because a crash anywhere must leave a state the same call repairs: ``kill -9`` a
writer at fixed, named points of an ingest, an append and a forget — between transactions and
inside them — then run the same call once more: the graph must equal a clean run's (the
reliability page's checksum: every node's properties but embeddings, every edge, sorted,
SHA-256; compared with the conversation id neutralised).

The conversation is examples/sample_chat.json (10 turns, 2 sessions, a Berlin → Lisbon
supersession, dated events) ingested with ``write_batch_size = 4``: three write units of turns
with their facts, entities and links. Writers are forked children (tests/integration/forking.py)
that die by SIGKILL at the armed point, all at once; recovery runs in this process.
"""

from __future__ import annotations

import contextlib
import json
import signal
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import neo4j
import pytest

from kgmem import Memory
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.models import ConversationRecord
from tests.integration.conftest import SAMPLE_CHAT
from tests.integration.forking import KillPoint, fork_writer, wait
from tests.strategies import record_figure, snapshot

# slow: 17 kill -9 points, each a forked writer and a re-run (minutes)
pytestmark = pytest.mark.slow

APPENDED = [
    {"id": "n1", "speaker": "Ana", "text": "Update: I moved to Porto yesterday, new flat!"},
    {"id": "n2", "speaker": "Ben", "text": "Porto! Did Pixel come with you?"},
    {"id": "n3", "speaker": "Ana", "text": "Of course, Pixel loves the river."},
]
FORGOTTEN = ["S2:1"]
WHEN = datetime(2024, 6, 9, 10, 0, tzinfo=UTC)

INGEST_POINTS = [
    KillPoint("ingest: before the first transaction", "<begin>", 1),
    KillPoint("ingest: unit 1, after its turns (open tx)", "write/merge_turns", 1),
    KillPoint("ingest: unit 1, after its facts (open tx)", "write/merge_facts", 1),
    KillPoint("ingest: unit 1 committed", "<commit>", 1),
    KillPoint("ingest: unit 2, after its NEXT edges (open tx)", "write/merge_next", 2),
    KillPoint("ingest: unit 2, after its facts (open tx)", "write/merge_facts", 2),
    KillPoint("ingest: unit 2 committed", "<commit>", 2),
    KillPoint("ingest: after a supersession link (open tx)", "write/merge_supersedes", 1),
    KillPoint("ingest: unit 3, after its mentions (open tx)", "write/merge_mentions", 3),
    KillPoint("ingest: unit 3 committed", "<commit>", 3),
]
APPEND_POINTS = [
    KillPoint("append: holding the conversation lock", "write/lock_conversation", 1),
    KillPoint("append: after its turns (open tx)", "write/merge_turns", 1),
    KillPoint("append: after its facts (open tx)", "write/merge_facts", 1),
    KillPoint("append: committed", "<commit>", 1),
]
FORGET_POINTS = [
    KillPoint("forget: after deleting the turns (open tx)", "write/forget_turns", 1),
    KillPoint("forget: after clearing derived data (open tx)", "write/clear_derived", 1),
    KillPoint("forget: after re-deriving facts (open tx)", "write/merge_facts", 1),
]


def record(cid: str) -> ConversationRecord:
    raw = json.loads(SAMPLE_CHAT.read_text(encoding="utf-8"))
    raw["conversation_id"] = cid
    return parse_chat_conversation(raw)


def ingest(memory: Memory, cid: str) -> None:
    memory.add_conversation(record(cid), facts="extracted")


def append(memory: Memory, cid: str) -> None:
    memory.add_turns(cid, APPENDED, observed_at=WHEN)


def forget(memory: Memory, cid: str) -> None:
    memory.forget_turns(cid, FORGOTTEN)


@pytest.fixture(scope="module")
def small(settings: Settings) -> Iterator[Memory]:
    small_settings = settings.model_copy(update={"write_batch_size": 4})
    with Memory.from_settings(small_settings) as mem:
        mem.apply_schema()
        yield mem


def test_kill_9_matrix_then_one_rerun_equals_clean_run(small: Memory, driver: neo4j.Driver) -> None:
    settings = small.settings
    tag = uuid.uuid4().hex[:6]
    scenarios: list[tuple[str, list[Callable[[Memory, str], None]], Callable[..., None]]] = [
        ("ingest", [], ingest),
        ("append", [ingest], append),
        ("forget", [ingest], forget),
    ]
    points = {"ingest": INGEST_POINTS, "append": APPEND_POINTS, "forget": FORGET_POINTS}
    cids: list[str] = []
    try:
        references: dict[str, str] = {}
        for name, setup, operation in scenarios:
            ref = f"crash-{tag}-ref-{name}"
            cids.append(ref)
            for step in [*setup, operation]:
                step(small, ref)
            references[name] = snapshot(driver, ref).canonical(ref)

        children: list[tuple[str, KillPoint, str, int]] = []
        for name, setup, operation in scenarios:
            for n, point in enumerate(points[name]):
                cid = f"crash-{tag}-{name}{n}"
                cids.append(cid)

                def work(
                    child: Memory,
                    cid: str = cid,
                    setup: list[Any] = setup,
                    operation: Any = operation,
                    point: KillPoint = point,
                ) -> None:
                    for step in setup:
                        step(child, cid)
                    point.arm()
                    operation(child, cid)

                children.append((name, point, cid, fork_writer(small, settings, work)))

        survived: list[str] = []
        for name, point, cid, pid in children:
            assert wait(pid) == -signal.SIGKILL, f"{point!r}: the child was not killed there"
            operation = next(op for n, _, op in scenarios if n == name)
            operation(small, cid)  # one re-run of the same call
            got = snapshot(driver, cid).canonical(cid)
            assert got == references[name], f"{point!r}: graph differs from a clean run"
            survived.append(point.name)
        assert len(survived) >= 10
        record_figure("crash_points_survived", len(survived))
    finally:
        for cid in cids:
            with contextlib.suppress(ConversationNotFound):
                small.forget(cid)
