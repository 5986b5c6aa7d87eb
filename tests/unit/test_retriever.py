"""The retriever template (`kgmem.retrieve.retriever.Retriever`) with a stub strategy: input
checks, timing and the `SearchResult` are the base's; ``_rank`` is all a strategy writes. The
store is never connected (the stub reads nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest

from kgmem.embed import Embedder
from kgmem.errors import MalformedInput
from kgmem.models import Hit
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.plan import plan
from kgmem.retrieve.retriever import Ranking, Request, Retriever
from kgmem.store import Store

T0 = datetime(2024, 1, 1, tzinfo=UTC)
VECTOR = np.zeros(4, dtype=np.float32)


class Stub(Retriever):
    """Ranks five fixed hits and records every request it gets."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, Embedder("unused-model"), EngineConfig(engine="cosine"))
        self.requests: list[Request] = []

    def _standing(self, request, vector, hits, order):  # type: ignore[no-untyped-def]
        return hits, [], [], order or "relevance"  # no instructions or conflicts to read

    def _attach_metadata(self, request, hits):  # type: ignore[no-untyped-def]
        pass  # no metadata to read

    def _rank(self, request: Request) -> Ranking:
        self.requests.append(request)
        hits = [
            Hit(
                turn_id=f"c:t{i}",
                text=f"turn {i}",
                speaker="A",
                session=1,
                observed_at=T0,
                score=1.0 - i / 10,
                terms={"cosine": 1.0 - i / 10},
            )
            for i in range(5)
        ]
        decision = {
            "key": "e|residence",
            "winner": "f2",
            "winner_turns": ["c:t1"],
            "other_turns": ["c:t3"],
        }
        return Ranking(
            hits=hits,
            plan=plan(request.query),
            candidates=5,
            current=[decision],
            answerability={"answerable": False, "unsupported": ["parrot"]},
        )


@pytest.fixture
def stub() -> Iterator[Stub]:
    store = Store("bolt://127.0.0.1:1", "neo4j", None)  # never connected: the stub reads nothing
    try:
        yield Stub(store)
    finally:
        store.close()


def test_the_base_builds_the_result_from_the_ranking(stub: Stub) -> None:
    result = stub.search("Where does Ana live?", "c", 3, embedding=VECTOR)
    assert [h.turn_id for h in result.hits] == ["c:t0", "c:t1", "c:t2"]  # top k of the ranking
    assert result.candidates == 5 and result.engine == "cosine" and result.k == 3
    assert result.plan["question"] == "Where does Ana live?"
    assert set(result.timings_ms) == {"embed", "neo4j", "total", "read_path"}
    assert all(v >= 0 for v in result.timings_ms.values())
    assert result.timings_ms["neo4j"] == 0  # the stub made no round trip
    # current decisions lose their turn lists but name the winner's turns
    assert result.current == [{"key": "e|residence", "winner": "f2", "turns": ["c:t1"]}]
    assert result.answerable is False and result.unsupported == ["parrot"]
    (request,) = stub.requests
    assert request.params == {"conversation_id": "c", "embedding": [0.0] * 4}
    assert request.k == 3 and request.as_of is None and request.asked_by is None


def test_the_base_checks_input_before_ranking(stub: Stub) -> None:
    with pytest.raises(MalformedInput, match="at least 1"):
        stub.search("q", "c", 0, embedding=VECTOR)
    with pytest.raises(MalformedInput):
        stub.search("bad \ud800 text", "c", 3, embedding=VECTOR)
    assert stub.requests == []


def test_the_base_reads_a_naive_as_of_as_utc_and_passes_asked_by(stub: Stub) -> None:
    result = stub.search(
        "q", "c", 2, embedding=VECTOR, as_of=datetime(2024, 5, 1, 12), asked_by="A"
    )
    (request,) = stub.requests
    assert request.as_of == datetime(2024, 5, 1, 12, tzinfo=UTC) == result.as_of
    assert request.asked_by == "A"
