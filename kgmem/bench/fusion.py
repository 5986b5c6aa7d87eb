"""Reciprocal-rank fusion of whole ranked lists: a negative row of the LoCoMo benchmark.

The fused alternative to the product's one scorer over small pools: each seed generator
(dense turns, dense facts → cited turns, BM25) returns its whole ranked list to depth
`RRF_DEPTH`, and a turn's score is ``sum over lists of 1 / (RRF_K + rank)`` (Cormack, Clarke
and Büttcher, "Reciprocal rank fusion outperforms Condorcet and individual rank learning
methods", SIGIR 2009; k = 60 as there). Measured worse than the single scorer on the LoCoMo
dev split (docs/benchmarks.md; docs/design.md §3.6), so it lives in the benchmark, not in
the read path.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.models import Hit
from kgmem.retrieve import generators as gen
from kgmem.retrieve.engine import SearchEngine, SearchResult
from kgmem.retrieve.plan import plan
from kgmem.retrieve.score import Candidate

__all__ = ["FUSION_ROW", "RRF_DEPTH", "RRF_K", "FusionEngine", "fuse"]

RRF_K = 60
"""The rank offset of Cormack et al. (SIGIR 2009)."""
RRF_DEPTH = 100
"""How deep every generator's whole list goes."""
FUSION_ROW = "(neg) RRF of whole lists"
"""The ablation row that `kgmem.bench.locomo` runs through `FusionEngine`."""

_OWN_SCORE: dict[str, Callable[[Candidate], float]] = {
    "dense_turns": lambda c: c.cosine,
    "dense_facts": lambda c: c.fact_cosine or 0.0,
    "fulltext": lambda c: c.bonus.get("bm25", 0.0),
}


def fuse(lists: Mapping[str, Sequence[Candidate]], k: int = RRF_K) -> list[Hit]:
    """Fuse generator lists (generator name → candidates, each list ranked here by the
    generator's own score: cosine, best fact cosine, BM25) into hits, best first.

    A turn counts once per list, at its best rank there. Ties break by turn index. Scores are
    in (0, len(lists) / (k + 1)]; the only term is ``rrf``.
    """
    fused: dict[str, float] = {}
    first: dict[str, Candidate] = {}
    for name, pool in lists.items():
        own = _OWN_SCORE[name]
        seen: set[str] = set()
        for c in sorted(pool, key=lambda c: -own(c)):
            if c.turn_id in seen:
                continue
            seen.add(c.turn_id)
            fused[c.turn_id] = fused.get(c.turn_id, 0.0) + 1.0 / (k + len(seen))
            first.setdefault(c.turn_id, c)
    order = sorted(fused, key=lambda t: (-fused[t], first[t].index))
    return [
        Hit(
            turn_id=t,
            text=first[t].text,
            speaker=first[t].speaker,
            session=first[t].session,
            observed_at=first[t].observed_at,
            score=round(fused[t], 6),
            terms={"rrf": round(fused[t], 6)},
            trace={"generators": sorted(first[t].generators)},
        )
        for t in order
    ]


class FusionEngine:
    """`SearchEngine.search`'s shape over reciprocal-rank fusion (the benchmark's negative row).

    Args:
        engine: the engine whose store, embedder and configuration (fact sources) it reads.
    """

    def __init__(self, engine: SearchEngine) -> None:
        self.engine = engine

    def search(
        self,
        query: str,
        conversation_id: str,
        k: int = 10,
        *,
        embedding: npt.NDArray[np.float32] | None = None,
    ) -> SearchResult:
        """The top ``k`` fused hits (one `linked_read` round trip to depth `RRF_DEPTH`).

        Raises:
            ValueError: ``k`` < 1.
            StoreError: Neo4j failed.
        """
        if k < 1:
            raise ValueError("k must be at least 1")
        engine = self.engine
        t0 = time.perf_counter()
        vector = embedding if embedding is not None else engine.embed(query)
        t_embed = time.perf_counter()
        db0 = engine.store.timing.ms
        params: dict[str, Any] = {"conversation_id": conversation_id, "embedding": vector.tolist()}
        qplan = plan(query)
        whole = engine.config.with_(generators=frozenset(_OWN_SCORE))
        pools = gen.linked_read(engine.store, params, qplan, whole, depth=RRF_DEPTH).seeds
        hits = fuse(pools)
        t_end = time.perf_counter()
        return SearchResult(
            query=query,
            conversation_id=conversation_id,
            k=k,
            engine="linked",
            hits=hits[:k],
            plan=qplan.model_dump(mode="json"),
            candidates=len(hits),
            timings_ms={
                "embed": round((t_embed - t0) * 1000, 3),
                "neo4j": round(engine.store.timing.ms - db0, 3),
                "total": round((t_end - t0) * 1000, 3),
                "read_path": round((t_end - t_embed) * 1000, 3),
            },
        )
