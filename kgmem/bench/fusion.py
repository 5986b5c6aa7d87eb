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

from collections.abc import Callable, Mapping, Sequence

from kgmem.models import Hit
from kgmem.retrieve import generators as gen
from kgmem.retrieve.plan import plan_question
from kgmem.retrieve.retriever import Ranking, Request, Retriever
from kgmem.retrieve.score import Candidate

__all__ = ["FUSION_ROW", "RRF_DEPTH", "RRF_K", "FusionRetriever", "fuse"]

RRF_K = 60
"""The rank offset of Cormack et al. (SIGIR 2009)."""
RRF_DEPTH = 100
"""How deep every generator's whole list goes."""
FUSION_ROW = "(neg) RRF of whole lists"
"""The ablation row that `kgmem.bench.locomo` runs through `FusionRetriever`."""

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


class FusionRetriever(Retriever):
    """Reciprocal-rank fusion as a retriever (the benchmark's negative row): one `linked_read`
    round trip to depth `RRF_DEPTH` for the generators of `_OWN_SCORE`, fused by `fuse`. Its
    results carry the configuration's engine name (``linked``). See `Retriever` for the
    arguments; the configuration's fact sources and BM25 switches apply."""

    def _rank(self, request: Request) -> Ranking:
        qplan = plan_question(request.reading.question)
        whole = self.config.with_(generators=frozenset(_OWN_SCORE))
        scope = gen.conversation_scope(self.store, request.conversation_id, None)
        pools = gen.linked_read(
            self.store, request.params, qplan, whole, scope=scope, depth=RRF_DEPTH
        ).seeds
        hits = fuse(pools)
        return Ranking(hits=hits, plan=qplan, candidates=len(hits))
