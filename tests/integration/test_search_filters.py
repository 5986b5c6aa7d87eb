"""Search filters are applied inside the index: a filter leaving 3 turns among 5,000 returns
exactly those 3, although none of them is anywhere near the default top-k.

One owner with two threads of 2,500 turns each, written through the batched write statements
with precomputed embeddings (no model for the turns, no facts). Every turn shares the query's
words; the 3 turns each filter keeps point AWAY from the query vector (the farthest turns of the
5,000), so a post-filter of the unfiltered top-k would return none of them. A 50,000-turn copy
of the check is in `kgmem bench filters` (``--turns 50000``), not in CI.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from kgmem import Memory
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.ingest.writing.writer import BulkWriter
from kgmem.models import SessionRecord, TurnRecord

TURNS = 5_000
QUERY = "the lighthouse keeper by the harbour"
WHEN = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
LATER = datetime(2030, 6, 1, 9, 0, tzinfo=UTC)


@dataclass
class Loaded:
    owner: str
    threads: list[str]
    targets: dict[str, set[str]]  # filter name -> the 3 turn ids it must return


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def loaded(memory: Memory) -> Iterator[Loaded]:
    memory.apply_schema()
    query = memory.embedder.encode_one(QUERY)
    rng = np.random.default_rng(26)
    run = uuid.uuid4().hex[:8]
    owner = f"filters-{run}"
    threads = [f"filters-{run}-a", f"filters-{run}-b"]
    # the special turns, by position in the whole owner: 3 per filter, far from the query
    special = {
        "speaker": range(100, 103),
        "session": range(2600, 2603),
        "between": range(4000, 4003),
        "source": range(1200, 1203),
    }
    role = {i: name for name, span in special.items() for i in span}
    sessions: list[SessionRecord] = []
    turns: list[TurnRecord] = []
    vectors = []
    per = TURNS // len(threads)
    for n in range(TURNS):
        cid = threads[n // per]
        index = n % per
        kind = role.get(n)
        session = 9 if kind == "session" else 1 + index // 400
        turns.append(
            TurnRecord(
                id=f"{cid}:t{index}",
                conversation_id=cid,
                session=session,
                index=index,
                dia_id=f"t{index}",
                speaker="Zed" if kind == "speaker" else ("Ana" if n % 2 else "Ben"),
                text=f"{QUERY} and the boats, note {n}",
                observed_at=(LATER if kind == "between" else WHEN) + timedelta(minutes=index),
                source="notes.md#Harbour" if kind == "source" else None,
                source_kind="document" if kind == "source" else "chat",
            )
        )
        far = -query if kind else query
        vectors.append(_unit(far + rng.normal(0, 0.08, query.shape[0])))
    for cid in threads:
        for s in sorted({t.session for t in turns if t.conversation_id == cid}):
            sessions.append(SessionRecord(conversation_id=cid, session=s, started_at=WHEN))
        memory.owners.claim(cid, owner)
    writer = BulkWriter(memory.store, batch_size=500)
    writer.sessions(sessions)
    writer.turns(turns, np.stack(vectors))
    memory.store.write("write/await_indexes")
    targets = {name: {turns[i].id for i in span} for name, span in special.items()}
    yield Loaded(owner, threads, targets)
    with contextlib.suppress(ConversationNotFound):
        memory.forget_owner(owner)


def _ids(memory: Memory, loaded: Loaded, **filters: object) -> set[str]:
    result = memory.search(QUERY, owner=loaded.owner, k=10, **filters)  # type: ignore[arg-type]
    return {h.turn_id for h in result.hits}


def test_unfiltered_top_k_holds_none_of_them(memory: Memory, loaded: Loaded) -> None:
    hits = _ids(memory, loaded)
    assert len(hits) == 10
    assert not hits & set().union(*loaded.targets.values())


@pytest.mark.parametrize(
    ("name", "filters"),
    [
        ("speaker", {"speakers": ["Zed"]}),
        ("session", {"sessions": [9]}),
        ("between", {"between": (LATER - timedelta(days=1), None)}),
        ("source", {"sources": ["document"]}),
    ],
)
def test_a_filter_leaving_three_returns_those_three(
    memory: Memory, loaded: Loaded, name: str, filters: dict[str, object]
) -> None:
    assert _ids(memory, loaded, **filters) == loaded.targets[name]


def test_filters_combine_and_scope_to_one_conversation(memory: Memory, loaded: Loaded) -> None:
    both = _ids(memory, loaded, speakers="Zed", sources=["chat"])
    assert both == loaded.targets["speaker"]
    assert not _ids(memory, loaded, speakers="Zed", sources=["document"])
    one = memory.search(QUERY, loaded.threads[1], k=10, sessions=9)
    assert {h.turn_id for h in one.hits} == loaded.targets["session"]
    assert one.filters == {"sessions": [9]}
    assert not memory.search(QUERY, loaded.threads[0], k=10, sessions=9).hits


def test_bad_filters_are_refused_before_any_read(memory: Memory, loaded: Loaded) -> None:
    for bad in (
        {"speakers": []},
        {"sessions": [0]},
        {"sessions": ["1"]},
        {"between": (LATER, WHEN)},
        {"between": ("2024-01-01", None)},
        {"sources": ["email"]},
    ):
        with pytest.raises(MalformedInput):
            memory.search(QUERY, owner=loaded.owner, **bad)  # type: ignore[arg-type]
