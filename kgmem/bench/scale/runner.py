"""The scale benchmark's runner: grows one store level by level and measures each level
(the steps and the report schema are in the `kgmem.bench.scale` package docstring)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kgmem.api import Memory
from kgmem.bench.ablation import default_row
from kgmem.bench.locomo import SCORED_CATEGORIES, git_commit, run_locomo_bench
from kgmem.bench.scale.generator import (
    PREFIX,
    Copy,
    Template,
    Vectors,
    long_copies,
    long_id,
    read_template,
    tenant_copies,
    tenant_id,
    tenant_slice,
)
from kgmem.bench.scale.measure import (
    Sample,
    Sets,
    bm25_sets,
    drift,
    graph_totals,
    locomo_summary,
    measure_level,
    server_memory,
    store_sizes,
)
from kgmem.errors import ConfigError
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.ingest.writing.writer import BulkWriter
from kgmem.models import QuestionRecord

__all__ = ["SCHEMA", "ScaleConfig", "run_scale_bench"]

SCHEMA = "kgmem.bench.scale/1"
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ScaleConfig:
    """What `run_scale_bench` loads and measures.

    Attributes:
        tenant_levels: cumulative tenant counts to measure at (increasing, each >= 1).
        long_lengths: cumulative lengths (turns) of the long conversation to measure at
            (increasing; empty = no long conversation).
        tenant_turns: turns per synthetic tenant (a slice of one dev conversation).
        questions: (tenant, question) pairs sampled per level for latency and recall.
        long_recall_questions: of those, how many get an exact scan in the long conversation
            (the exact scan is O(turns); it is the baseline, not the thing measured).
        recall_k: dense seeds compared with the exact scan (the shipped dense pool is 40).
        bm25_questions: questions asked of tenant ``scale-t00000`` for the BM25 drift, and
            dev questions (a seeded sample of all three conversations') for the dev drift.
        noise: standard deviation of the Gaussian noise added to each embedding component
            before renormalising (0.02 on 384 dimensions: cosine to the original ~0.93).
        seed: seeds slices, noise and samples (the same seed gives the same store and sample).
        locomo: run the LoCoMo dev evaluation at ``"ends"`` (single-tenant and fully loaded),
            ``"every"`` level, or ``"off"``.
        batch_size: rows per write transaction.
        tenants_per_write: tenants whose records are built and written together.
    """

    tenant_levels: tuple[int, ...] = (1, 100, 1000)
    long_lengths: tuple[int, ...] = (1000, 10_000, 50_000)
    tenant_turns: int = 100
    questions: int = 200
    long_recall_questions: int = 50
    recall_k: int = 40
    bm25_questions: int = 100
    noise: float = 0.02
    seed: int = 7
    locomo: str = "ends"
    batch_size: int = 500
    tenants_per_write: int = 10

    def __post_init__(self) -> None:
        for name, values in (
            ("tenant_levels", self.tenant_levels),
            ("long_lengths", self.long_lengths),
        ):
            if any(v < 1 for v in values) or list(values) != sorted(set(values)):
                raise ConfigError(f"{name} must be increasing positive integers, got {values}")
        if self.tenant_turns < 2:
            raise ConfigError("tenant_turns must be at least 2")
        if self.questions < 1 or self.recall_k < 1 or self.batch_size < 1:
            raise ConfigError("questions, recall_k and batch_size must be at least 1")
        if self.noise < 0:
            raise ConfigError("noise must be >= 0")
        if self.locomo not in ("ends", "every", "off"):
            raise ConfigError("locomo must be 'ends', 'every' or 'off'")


class _Bench:
    """State of one run: the memory, the templates, the questions and their embeddings."""

    def __init__(
        self,
        memory: Memory,
        path: Path,
        config: ScaleConfig,
        progress: Progress | None,
    ) -> None:
        self.memory = memory
        self.store = memory.store
        self.path = path
        self.config = config
        self.progress = progress
        self.records = load_locomo(path)
        self.questions = {
            r.conversation_id: [
                q for q in r.questions if q.category in SCORED_CATEGORIES and q.evidence
            ]
            for r in self.records
        }
        self.templates: list[Template] = []
        self.vectors: dict[str, Vectors] = {}
        self.engine = memory.engine()
        self.writer = BulkWriter(self.store, batch_size=config.batch_size)
        self.row = default_row(memory.settings, "linked", "both")
        self.dev_bm25: list[QuestionRecord] = []

    def tick(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    # --- setup ---
    def embed_questions(self) -> None:
        qs = [q for r in self.records for q in self.questions[r.conversation_id]]
        vectors = self.memory.embedder.encode([q.question for q in qs])
        self.vectors = {q.id: vectors[n] for n, q in enumerate(qs)}

    def locomo(self) -> dict[str, Any]:
        t0 = time.perf_counter()
        report = run_locomo_bench(self.memory, self.path, ks=(10,), rows=[self.row])
        return locomo_summary(report, time.perf_counter() - t0) | {"_ingest": report["ingest"]}

    # --- loading ---
    def totals(self) -> dict[str, int]:
        return graph_totals(self.store)

    def load(self, pieces: Iterator[Copy], units: int, stage: str) -> dict[str, Any]:
        before = self.totals()
        build = write = 0.0
        turns = 0
        t0 = time.perf_counter()
        for piece in pieces:
            t1 = time.perf_counter()
            build += t1 - t0
            piece.write(self.writer)
            t0 = time.perf_counter()
            write += t0 - t1
            turns += len(piece.turns)
            self.tick(stage, len(piece.turns), units)
        self.store.write("write/await_indexes")
        write += time.perf_counter() - t0
        after = self.totals()
        nodes = after["nodes"] - before["nodes"]
        rels = after["relationships"] - before["relationships"]
        return {
            "seconds": round(write, 2),
            "build_seconds": round(build, 2),
            "nodes": nodes,
            "relationships": rels,
            "turns": turns,
            "nodes_per_s": round(nodes / write, 1) if write else 0.0,
            "relationships_per_s": round(rels / write, 1) if write else 0.0,
        }

    def tenant_copies(self, first: int, stop: int) -> Iterator[Copy]:
        cfg = self.config
        return tenant_copies(
            self.templates,
            first,
            stop,
            tenant_turns=cfg.tenant_turns,
            tenants_per_write=cfg.tenants_per_write,
            seed=cfg.seed,
            noise=cfg.noise,
        )

    def long_copies(self, have: int, want: int) -> Iterator[Copy]:
        return long_copies(
            self.templates, have, want, seed=self.config.seed, noise=self.config.noise
        )

    # --- measuring ---
    def sample(self, tenants: int, salt: int) -> list[Sample]:
        """The fixed seeded (tenant, question) sample of a tenant level (or of the long
        conversation when ``tenants`` is 0): each tenant is asked questions about the dev
        conversation it was sliced from."""
        rng = random.Random(self.config.seed * 7919 + salt)
        out = []
        every = [q for r in self.records for q in self.questions[r.conversation_id]]
        for _ in range(self.config.questions):
            if tenants:
                n = rng.randrange(tenants)
                template, _start = tenant_slice(
                    self.templates, n, self.config.tenant_turns, self.config.seed
                )
                q = rng.choice(self.questions[template.conversation_id])
                cid = tenant_id(n)
            else:
                q = rng.choice(every)
                cid = long_id()
            out.append(Sample(cid, q, self.vectors[q.id]))
        return out

    def measure(self, name: str, samples: Sequence[Sample], recall_n: int) -> dict[str, Any]:
        return measure_level(
            self.engine,
            self.store,
            samples,
            recall_n=recall_n,
            recall_k=self.config.recall_k,
            name=name,
            tick=self.tick,
        )

    def bm25_tenant_questions(self) -> list[QuestionRecord]:
        template, _ = tenant_slice(self.templates, 0, self.config.tenant_turns, self.config.seed)
        pool = self.questions[template.conversation_id]
        rng = random.Random(self.config.seed)
        return rng.sample(pool, min(self.config.bm25_questions, len(pool)))

    def bm25_tenant(self, questions: Sequence[QuestionRecord]) -> list[Sets]:
        return [
            bm25_sets(self.store, tenant_id(0), q.question, self.vectors[q.id]) for q in questions
        ]

    def bm25_dev_questions(self) -> list[QuestionRecord]:
        every = [q for r in self.records for q in self.questions[r.conversation_id]]
        rng = random.Random(self.config.seed + 1)
        return rng.sample(every, min(self.config.bm25_questions, len(every)))

    def bm25_dev(self) -> list[Sets]:
        return [
            bm25_sets(self.store, q.conversation_id, q.question, self.vectors[q.id])
            for q in self.dev_bm25
        ]

    def level_entry(self, name: str, kind: str, tenants: int, turns: int) -> dict[str, Any]:
        """The fields every level shares, read after its load: totals and sizes."""
        store_bytes, data_bytes = store_sizes(self.memory)
        return {
            "name": name,
            "kind": kind,
            "tenants": tenants,
            "conversation_turns": turns,
            "totals": self.totals(),
            "store_bytes": store_bytes,
            "data_bytes": data_bytes,
        }


def _refuse_leftovers(stored: Sequence[str]) -> None:
    """Raise `ConfigError` when an earlier run's synthetic conversations are in the store."""
    leftover = [c for c in stored if c.startswith(PREFIX)]
    if leftover:
        raise ConfigError(
            f"the store already holds {len(leftover)} synthetic conversations ({leftover[0]}, ...)"
            " from an earlier `kgmem bench scale`; run it on an empty server (see"
            " docs/benchmarks.md, 'The scale benchmark') or delete that server's data folder"
            " first"
        )


def _dev_baseline(
    bench: _Bench, report: dict[str, Any]
) -> tuple[dict[str, Any] | None, list[Sets]]:
    """Step 1: the dev conversations ingested as themselves and the single-tenant LoCoMo run
    (or a plain ingest with ``locomo = "off"``); the templates read back, the questions
    embedded, the dev BM25 reference sets. Returns the single-tenant run and those sets."""
    memory, config = bench.memory, bench.config
    dev_ids = [r.conversation_id for r in bench.records]
    bench.tick("dev baseline", 0, 1)
    single = bench.locomo() if config.locomo != "off" else None
    ingest: dict[str, dict[str, Any]]
    if single is None:
        t0 = time.perf_counter()
        ingest = {r.conversation_id: memory.add_conversation(r).as_dict() for r in bench.records}
        ingest_seconds = time.perf_counter() - t0
    else:
        ingest = single.pop("_ingest")
        ingest_seconds = single["seconds"]
    bench.templates = [read_template(memory.store, cid) for cid in dev_ids]
    bench.embed_questions()
    report["dev"] = {
        "conversations": dev_ids,
        "turns": sum(len(t.turns) for t in bench.templates),
        "facts": sum(len(t.facts) for t in bench.templates),
        "ingest_seconds": round(sum(sum(i["seconds"].values()) for i in ingest.values()), 2)
        if ingest
        else round(ingest_seconds, 2),
    }
    report["locomo"] = {"single": single, "loaded": None, "lost_questions": None}
    bench.dev_bm25 = bench.bm25_dev_questions()
    dev_reference = bench.bm25_dev()
    bench.tick("dev baseline", 1, 1)
    return single, dev_reference


def _tenant_levels(bench: _Bench, dev_reference: list[Sets]) -> list[dict[str, Any]]:
    """Step 2: the tenant levels, cumulative; BM25 drift of tenant 0 against the first level
    and of the dev questions against the dev baseline."""
    config = bench.config
    tenant_questions = bench.bm25_tenant_questions()
    tenant_reference: list[Sets] | None = None
    levels = []
    have = 0
    for level in config.tenant_levels:
        t0 = time.perf_counter()
        name = f"tenants-{level}"
        write = bench.load(
            bench.tenant_copies(have, level), (level - have) * config.tenant_turns, f"{name} load"
        )
        have = level
        entry = bench.level_entry(name, "tenants", level, config.tenant_turns)
        entry["write"] = write
        entry |= bench.measure(name, bench.sample(level, level), config.questions)
        sets = bench.bm25_tenant(tenant_questions)
        if tenant_reference is None:
            tenant_reference = sets
        entry["bm25"] = {
            "tenant": drift(tenant_reference, sets) | {"conversation_id": tenant_id(0)},
            "dev": drift(dev_reference, bench.bm25_dev()),
        }
        entry["locomo"] = bench.locomo() if config.locomo == "every" else None
        if entry["locomo"] is not None:
            entry["locomo"].pop("_ingest", None)
        entry["seconds"] = round(time.perf_counter() - t0, 1)
        levels.append(entry)
    return levels


def _long_levels(bench: _Bench, dev_reference: list[Sets]) -> list[dict[str, Any]]:
    """Step 3: the long conversation grown to each length, on top of every tenant."""
    config = bench.config
    levels = []
    have = 0
    for length in config.long_lengths:
        t0 = time.perf_counter()
        name = f"long-{length}"
        write = bench.load(bench.long_copies(have, length), length - have, f"{name} load")
        have = length
        tenants = config.tenant_levels[-1] if config.tenant_levels else 0
        entry = bench.level_entry(name, "long", tenants, length)
        entry["write"] = write
        entry |= bench.measure(name, bench.sample(0, length), config.long_recall_questions)
        entry["bm25"] = {"tenant": None, "dev": drift(dev_reference, bench.bm25_dev())}
        entry["locomo"] = None
        entry["seconds"] = round(time.perf_counter() - t0, 1)
        levels.append(entry)
    return levels


def _locomo_loaded(bench: _Bench, single: dict[str, Any], report: dict[str, Any]) -> None:
    """Step 4: the LoCoMo run again with everything loaded, and the questions each category
    lost against the single-tenant run."""
    loaded = bench.locomo()
    loaded.pop("_ingest", None)
    report["locomo"]["loaded"] = loaded
    report["locomo"]["lost_questions"] = {
        key: single["by_category"][key]["all_at_10_questions"]
        - loaded["by_category"][key]["all_at_10_questions"]
        for key in single["by_category"]
    }


def run_scale_bench(
    memory: Memory,
    path: str | Path,
    config: ScaleConfig | None = None,
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the scale benchmark on ``memory``'s server; returns the JSON-ready report described
    in the `kgmem.bench.scale` docstring. Run it on a server of its own: the synthetic tenants
    stay in the store afterwards (delete the server's data folder), and other data changes BM25
    statistics.

    Args:
        memory: a connected memory (its embedder embeds the dev conversations once, and the
            questions).
        path: the LoCoMo dev file (``locomo10.json`` layout).
        config: levels and sample sizes (default: the full benchmark).
        progress: callback ``(stage, done, total)``.

    Raises:
        ConfigError: the store already holds synthetic conversations (``scale-*``), or a bad
            configuration.
        InputError: the LoCoMo file is malformed.
        StoreError: Neo4j failed.
    """
    config = config or ScaleConfig()
    path = Path(path)
    started = time.perf_counter()
    memory.apply_schema()
    stored = [row["conversation_id"] for row in memory.conversations()]
    _refuse_leftovers(stored)
    bench = _Bench(memory, path, config, progress)
    dev_ids = [r.conversation_id for r in bench.records]
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "git_commit": git_commit(),
        "file": str(path),
        "config": asdict(config),
        "server": {"uri": memory.settings.neo4j_uri, **server_memory(memory.store)},
        "other_conversations": [c for c in stored if c not in dev_ids],
    }
    single, dev_reference = _dev_baseline(bench, report)
    report["levels"] = _tenant_levels(bench, dev_reference)
    report["long"] = _long_levels(bench, dev_reference)
    if single is not None and (config.tenant_levels or config.long_lengths):
        _locomo_loaded(bench, single, report)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report
