"""What owners and search filters cost on the read path (``kgmem bench filters``).

For each store size (1 owner, 100 owners, ...) the benchmark writes synthetic owners, each with
two threads of ``turns_per_owner`` turns in total (random unit embeddings, texts over a small
shared vocabulary, no facts: the vector and BM25 indexes do the work), through the batched write
statements. Every owner has 3 turns that each filter alone keeps (speaker ``Zed``, session 99,
observed in 2030, source kind ``document``). It then times `kgmem.api.Memory.search` over one
owner at a time, unfiltered and with each filter, and reports the read-path p50 and p95 in ms
(``timings_ms["read_path"]``: everything after the query embedding) and whether every filtered
search returned exactly the owner's 3 turns (``exact``).

The figures are wall-clock times of one process against one server: on a shared or loaded
machine they are indicative only.
"""

from __future__ import annotations

import contextlib
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from kgmem.api import Memory
from kgmem.config import DEFAULT_K
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.ingest.writing.writer import BulkWriter
from kgmem.models import SessionRecord, TurnRecord

__all__ = ["FILTERS", "run_filters"]

WHEN = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
LATER = datetime(2030, 6, 1, 9, 0, tzinfo=UTC)
WORDS = [
    "harbour",
    "lighthouse",
    "keeper",
    "boats",
    "market",
    "bakery",
    "garden",
    "trains",
    "football",
    "weather",
    "cello",
    "library",
    "passport",
    "landlord",
    "deposit",
    "lease",
    "trip",
    "lisbon",
    "berlin",
    "beach",
    "dog",
    "cat",
    "teacher",
]
QUERIES = (
    "where is the lighthouse keeper",
    "what did we say about the lease deposit",
    "the trip to the beach with the dog",
    "cello lessons at the library",
)
#: the filters timed, by name: keyword arguments of `Memory.search`
FILTERS: dict[str, dict[str, Any]] = {
    "none": {},
    "speakers": {"speakers": ["Zed"]},
    "sessions": {"sessions": [99]},
    "between": {"between": (LATER - timedelta(days=1), None)},
    "sources": {"sources": ["document"]},
}
_SPECIAL = ("speakers", "sessions", "between", "sources")

Progress = Callable[[str, int, int], None]


def _owner_turns(
    owner: str, n: int, rng: np.random.Generator, dim: int
) -> tuple[list[TurnRecord], np.ndarray, dict[str, set[str]]]:
    threads = (f"{owner}-a", f"{owner}-b")
    special = {name: set(range(10 + 7 * i, 13 + 7 * i)) for i, name in enumerate(_SPECIAL)}
    kind_of = {i: name for name, span in special.items() for i in span}
    turns: list[TurnRecord] = []
    half = max(n // 2, 1)
    for i in range(n):
        cid, index = threads[min(i // half, 1)], i % half if i < 2 * half else i - half
        kind = kind_of.get(i)
        words = " ".join(rng.choice(WORDS, size=8))
        turns.append(
            TurnRecord(
                id=f"{cid}:t{index}",
                conversation_id=cid,
                session=99 if kind == "sessions" else 1 + index // 100,
                index=index,
                dia_id=f"t{index}",
                speaker="Zed" if kind == "speakers" else ("Ana" if i % 2 else "Ben"),
                text=f"{words} note {i}",
                observed_at=(LATER if kind == "between" else WHEN) + timedelta(minutes=index),
                source="notes.md#Section" if kind == "sources" else None,
                source_kind="document" if kind == "sources" else "chat",
            )
        )
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    targets = {name: {turns[i].id for i in span} for name, span in special.items()}
    return turns, vectors, targets


def _write(memory: Memory, owners: Sequence[str], n: int, seed: int) -> dict[str, Any]:
    """Write the owners; returns owner -> filter name -> its 3 turn ids."""
    rng = np.random.default_rng(seed)
    dim = memory.embedder.dimension
    writer = BulkWriter(memory.store, batch_size=1000)
    targets: dict[str, Any] = {}
    for owner in owners:
        turns, vectors, targets[owner] = _owner_turns(owner, n, rng, dim)
        sessions = sorted({(t.conversation_id, t.session) for t in turns})
        for cid in sorted({t.conversation_id for t in turns}):
            memory.owners.claim(cid, owner)
        writer.sessions(
            [SessionRecord(conversation_id=c, session=s, started_at=WHEN) for c, s in sessions]
        )
        writer.turns(turns, vectors)
    memory.store.write("write/await_indexes")
    return targets


def run_filters(
    memory: Memory,
    *,
    owner_counts: Sequence[int] = (1, 100),
    turns_per_owner: int = 200,
    searches: int = 20,
    seed: int = 26,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Time the read path with and without each filter at each store size.

    Args:
        memory: an open memory (its store gets synthetic owners, forgotten at the end).
        owner_counts: store sizes, in owners.
        turns_per_owner: turns of each owner (two threads), at least 40.
        searches: timed searches per (size, filter), over owners round-robin.
        seed: embeddings and texts.
        progress: optional ``(stage, done, total)`` callback.

    Returns:
        ``{"turns_per_owner", "searches", "sizes": [{"owners", "turns", "write_s", "filters":
        {name: {"p50_ms", "p95_ms", "neo4j_p50_ms", "exact"}}}], "note"}``.

    Raises:
        ValueError: ``turns_per_owner`` < 40 or no size.
    """
    if turns_per_owner < 40 or not owner_counts:
        raise MalformedInput("turns_per_owner must be >= 40 and owner_counts non-empty")
    memory.apply_schema()
    sizes: list[dict[str, Any]] = []
    for count in owner_counts:
        run = uuid.uuid4().hex[:8]
        owners = [f"bench-filters-{run}-{n:04d}" for n in range(count)]
        t0 = time.perf_counter()
        if progress:
            progress(f"write {count} owner(s)", 0, 1)
        targets = _write(memory, owners, turns_per_owner, seed)
        write_s = time.perf_counter() - t0
        try:
            # loads the model and warms the caches outside the timings
            memory.search(QUERIES[0], owner=owners[0], k=DEFAULT_K)
            out: dict[str, Any] = {}
            for name, options in FILTERS.items():
                read, neo, exact = [], [], True
                for i in range(searches):
                    owner = owners[i % len(owners)]
                    query = QUERIES[i % len(QUERIES)]
                    result = memory.search(query, owner=owner, k=DEFAULT_K, **options)
                    read.append(result.timings_ms["read_path"])
                    neo.append(result.timings_ms["neo4j"])
                    if name != "none":
                        exact &= {h.turn_id for h in result.hits} == targets[owner][name]
                    if progress:
                        progress(f"{count} owner(s): {name}", i + 1, searches)
                out[name] = {
                    "p50_ms": round(statistics.median(read), 1),
                    "p95_ms": round(float(np.percentile(read, 95)), 1),
                    "neo4j_p50_ms": round(statistics.median(neo), 1),
                    **({"exact": exact} if name != "none" else {}),
                }
            sizes.append(
                {
                    "owners": count,
                    "turns": count * turns_per_owner,
                    "write_s": round(write_s, 1),
                    "filters": out,
                }
            )
        finally:
            for owner in owners:
                with contextlib.suppress(ConversationNotFound):
                    memory.forget_owner(owner)
    return {
        "turns_per_owner": turns_per_owner,
        "searches": searches,
        "sizes": sizes,
        "note": "wall-clock ms of one process; indicative only on a shared or loaded machine",
    }
