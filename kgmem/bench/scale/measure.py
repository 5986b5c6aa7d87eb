"""The scale benchmark's measurements: read-path latency, dense-seed recall against the exact
scan, BM25 drift, store totals and sizes, and the summary of a LoCoMo run.

Latency is ``SearchResult.timings_ms["read_path"]`` (query embedding excluded) after one warm-up
pass over the same sample; recall@k compares the vector index's tenant-filtered dense seeds
(``read/linked_read``, dense turns only) with the exact per-tenant scan
(``read/search_turns_exact``); drift counts the BM25 top-10 sets (turn index and fact index
separately) that differ from a reference run of the same questions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kgmem.api import Memory
from kgmem.bench.metrics import percentile
from kgmem.bench.scale.generator import Vectors
from kgmem.config import DEFAULT_K
from kgmem.errors import StoreError
from kgmem.models import QuestionRecord
from kgmem.retrieve import generators as gen
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.plan import plan
from kgmem.retrieve.retriever import SearchResult
from kgmem.store import Store

__all__ = [
    "Sample",
    "Searcher",
    "Sets",
    "bm25_sets",
    "dense_seed_ids",
    "drift",
    "exact_ids",
    "graph_totals",
    "locomo_summary",
    "measure_level",
    "pct",
    "server_memory",
    "store_sizes",
]

#: a question's BM25 top-10: (turn ids from the turn index, fact ids from the fact index)
Sets = tuple[frozenset[str], frozenset[str]]
Tick = Callable[[str, int, int], None]


class Searcher(Protocol):
    """What the latency measurement needs of the shipped engine (`Memory.engine`)."""

    def search(
        self,
        query: str,
        conversation_id: str,
        k: int = DEFAULT_K,
        *,
        embedding: Vectors | None = None,
    ) -> SearchResult: ...


@dataclass
class Sample:
    """One (conversation, question) pair of a level's sample, with the question's embedding."""

    conversation_id: str
    question: QuestionRecord
    vector: Vectors


def pct(values: Sequence[float]) -> dict[str, float | int]:
    """``{"n", "p50", "p95", "mean"}`` of ``values`` (milliseconds), zeros when empty."""
    if not values:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "mean": 0.0}
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 3),
        "p95": round(percentile(values, 95), 3),
        "mean": round(sum(values) / len(values), 3),
    }


def _dense_config(k: int) -> EngineConfig:
    return EngineConfig(generators=frozenset({"dense_turns"}), pools={"dense_turns": k})


def _fulltext_config(k: int) -> EngineConfig:
    return EngineConfig(
        generators=frozenset({"fulltext"}), pools={"fulltext": k}, bm25_content_words=False
    )


def dense_seed_ids(
    store: Store, conversation_id: str, question: str, vector: Vectors, k: int
) -> list[str]:
    """The turn ids of the vector index's dense seeds (``read/linked_read``, dense turns only,
    pool ``k``), best first."""
    qplan = plan(question).model_copy(update={"budgets": {"dense_turns": k}})
    pools = gen.linked_read(
        store,
        {"conversation_id": conversation_id, "embedding": vector.tolist()},
        qplan,
        _dense_config(k),
        scope=gen.conversation_scope(store, conversation_id, None),
    )
    return [c.turn_id for c in sorted(pools.seeds.get("dense_turns", []), key=lambda c: -c.cosine)]


def exact_ids(store: Store, conversation_id: str, vector: Vectors, k: int) -> list[str]:
    """The exact top-``k`` turn ids by cosine (``read/search_turns_exact``), best first."""
    params = {"conversation_id": conversation_id, "embedding": vector.tolist()}
    return [c.turn_id for c in gen.dense_turns(store, params, k)]


def bm25_sets(
    store: Store, conversation_id: str, question: str, vector: Vectors, k: int = DEFAULT_K
) -> Sets:
    """A question's BM25 top-``k`` inside one tenant (``read/linked_read``, fulltext only):
    the turn ids from the turn index and the fact ids from the fact index."""
    qplan = plan(question).model_copy(update={"budgets": {"fulltext": k}})
    pools = gen.linked_read(
        store,
        {"conversation_id": conversation_id, "embedding": vector.tolist()},
        qplan,
        _fulltext_config(k),
        scope=gen.conversation_scope(store, conversation_id, None),
    )
    rows = pools.seeds.get("fulltext", [])
    turns = frozenset(c.turn_id for c in rows if c.fact_id is None)
    facts = frozenset(c.fact_id for c in rows if c.fact_id is not None)
    return turns, facts


def drift(reference: Sequence[Sets], now: Sequence[Sets]) -> dict[str, float | int]:
    """How many of the same questions' BM25 sets changed since ``reference``, and the mean
    Jaccard similarity of the turn and fact sets (1.0 when there are none)."""

    def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
        return len(a & b) / len(a | b) if a | b else 1.0

    pairs = list(zip(reference, now, strict=True))
    return {
        "questions": len(pairs),
        "turn_sets_changed": sum(a[0] != b[0] for a, b in pairs),
        "fact_sets_changed": sum(a[1] != b[1] for a, b in pairs),
        "mean_jaccard": round(
            sum(jaccard(a[0], b[0]) + jaccard(a[1], b[1]) for a, b in pairs) / (2 * len(pairs)), 4
        )
        if pairs
        else 1.0,
    }


def locomo_summary(report: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The scale report's ``Locomo`` entry from a one-row `run_locomo_bench` report."""
    row = report["rows"][0]
    out: dict[str, Any] = {"questions": report["counts"]["scored"], "by_category": {}}
    for key, m in row["metrics"].items():
        out["by_category"][key] = {
            "n": m["n"],
            "all_at_10": round(m["all_at"]["10"], 4),
            "ndcg_at_10": round(m["ndcg_at"]["10"], 4),
            "all_at_10_questions": round(m["all_at"]["10"] * m["n"]),
        }
    out["read_path_ms"] = row["latency_ms"]["read_path"]
    out["seconds"] = round(seconds, 1)
    return out


def graph_totals(store: Store) -> dict[str, int]:
    """Whole-store node, relationship and label totals (``bench/graph_totals``)."""
    return {k: int(v) for k, v in store.read("bench/graph_totals")[0].items()}


def store_sizes(memory: Memory) -> tuple[int | None, int | None]:
    """(store bytes, data bytes) of the local server when the memory talks to it, else None."""
    from kgmem.store.server import LocalNeo4j
    from kgmem.store.server_process import tree_bytes

    settings = memory.settings
    server = LocalNeo4j.from_settings(settings)
    if settings.neo4j_uri.rstrip("/") != server.bolt_uri or not server.status().running:
        return None, None

    data = server.home / "data"
    return tree_bytes(data / "databases" / settings.neo4j_database), tree_bytes(data)


def server_memory(store: Store) -> dict[str, str | None]:
    """The heap and page cache the server runs with (``bench/server_memory``), None where the
    server does not say (e.g. a user without the privilege to list settings)."""
    try:
        rows = {row["name"]: row["value"] for row in store.read("bench/server_memory")}
    except StoreError:
        rows = {}
    return {
        "heap": rows.get("server.memory.heap.max_size"),
        "pagecache": rows.get("server.memory.pagecache.size"),
    }


def _read_path(
    engine: Searcher, samples: Sequence[Sample], name: str, tick: Tick
) -> dict[str, Any]:
    """Read-path and Neo4j latency of the shipped search over ``samples``, after a warm-up
    pass over the same sample (page cache and the per-conversation context cache)."""
    for s in samples:
        engine.search(s.question.question, s.conversation_id, 10, embedding=s.vector)
    read_ms: list[float] = []
    neo4j_ms: list[float] = []
    for s in samples:
        found = engine.search(s.question.question, s.conversation_id, 10, embedding=s.vector)
        read_ms.append(found.timings_ms["read_path"])
        neo4j_ms.append(found.timings_ms["neo4j"])
        tick(f"{name} read", 1, len(samples))
    return {"read_path_ms": pct(read_ms), "neo4j_ms": pct(neo4j_ms)}


def _recall(
    store: Store, samples: Sequence[Sample], k: int, name: str, tick: Tick, total: int
) -> dict[str, Any]:
    """Dense-seed recall@``k`` against the exact scan over ``samples``, with both latencies
    (server time, from the store's timing); ``total`` is what the progress ticks count to."""
    seed_ms: list[float] = []
    exact_ms: list[float] = []
    recalls: dict[str, list[float]] = {}
    for s in samples:
        t0 = store.timing.ms
        got = dense_seed_ids(store, s.conversation_id, s.question.question, s.vector, k)
        t1 = store.timing.ms
        want = exact_ids(store, s.conversation_id, s.vector, k)
        t2 = store.timing.ms
        seed_ms.append(t1 - t0)
        exact_ms.append(t2 - t1)
        value = len(set(got) & set(want)) / len(want) if want else 1.0
        recalls.setdefault(s.conversation_id, []).append(value)
        tick(f"{name} recall", 1, total)
    flat = [v for vs in recalls.values() for v in vs]
    per_tenant = [sum(vs) / len(vs) for vs in recalls.values()]
    return {
        "dense_seed_ms": pct(seed_ms),
        "exact_scan_ms": pct(exact_ms),
        "recall": {
            "k": k,
            "queries": len(flat),
            "mean": round(sum(flat) / len(flat), 4) if flat else None,
            "min": round(min(flat), 4) if flat else None,
            "perfect": sum(v == 1.0 for v in flat),
            "tenants": len(per_tenant),
            "tenant_min": round(min(per_tenant), 4) if per_tenant else None,
        },
    }


def measure_level(
    engine: Searcher,
    store: Store,
    samples: Sequence[Sample],
    *,
    recall_n: int,
    recall_k: int,
    name: str,
    tick: Tick,
) -> dict[str, Any]:
    """One level's latency and recall: ``read_path_ms``, ``neo4j_ms`` over every sample,
    ``dense_seed_ms``, ``exact_scan_ms`` and ``recall`` over the first ``recall_n``."""
    out = _read_path(engine, samples, name, tick)
    recall = _recall(store, samples[:recall_n], recall_k, name, tick, recall_n)
    return {
        "read_path_ms": out["read_path_ms"],
        "neo4j_ms": out["neo4j_ms"],
        "dense_seed_ms": recall["dense_seed_ms"],
        "exact_scan_ms": recall["exact_scan_ms"],
        "recall": recall["recall"],
    }
