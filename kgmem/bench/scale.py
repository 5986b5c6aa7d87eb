"""The scale benchmark (issue 15): the read path with many tenants and in one long conversation.

It grows one store step by step and measures at each step:

1. **Dev baseline.** The LoCoMo dev conversations are ingested as themselves (the full write
   path: embeddings, annotation and extracted facts) and the linked engine's LoCoMo run is
   recorded (the *single-tenant* run: nothing else in the store).
2. **Tenant levels** (default 1, 100, 1,000; cumulative). A synthetic tenant is a slice of
   ``tenant_turns`` consecutive turns of one dev conversation with the facts citing them, their
   entities, mentions, events and ``SUPERSEDES`` pairs, under a fresh conversation id
   (``scale-t00042``). Its embeddings are the stored embeddings of the real turns and facts
   plus Gaussian noise (``noise`` per component), renormalised: every tenant sits in the same
   semantic region as the others, the hard case for a filter inside a vector index. Nothing is
   embedded or extracted again: the template is read back once (``read/scale_template``) and
   copied through `kgmem.ingest.writer.BulkWriter` (the ``write/merge_*`` statements, one
   transaction per batch of ``batch_size`` rows).
3. **One long conversation** (``scale-long``), grown to each length of ``long_lengths``
   (default 1,000, 10,000, 50,000 turns) by concatenating perturbed copies of the dev
   conversations, each copy shifted in time to start a day after the previous one ends.
4. **LoCoMo with everything loaded**: the same LoCoMo run again, compared per category with
   the single-tenant run.

Measured at each level (`Level`): node / relationship totals and store size; write
throughput; the shipped read path's latency (``SearchResult.timings_ms["read_path"]``, query
embedding excluded) over a fixed seeded sample of (tenant, dev question) pairs, after one
warm-up pass over the same sample; dense-seed recall@``recall_k`` of the vector index
``SEARCH`` (``read/linked_read``, dense turns only) against the exact scan
(``read/search_turns_exact``) and the exact scan's own latency; BM25 drift: how many of a
tenant's BM25 top-10 sets (turn index and fact index, separately) differ from those at the
first tenant level (the same tenant ``scale-t00000`` and the same questions), and how many of
the dev conversations' sets (a seeded sample of their questions) differ from the dev
baseline's; optionally the LoCoMo run.

The JSON report (``--json``) has this schema (version 1)::

    {"schema": "kgmem.bench.scale/1", "git_commit": str|null, "file": str,
     "config": {...ScaleConfig...}, "server": {"uri", "heap", "pagecache"},
     "seconds": float, "other_conversations": [str],
     "dev": {"conversations": [str], "turns": int, "facts": int, "ingest_seconds": float},
     "locomo": {"single": Locomo, "loaded": Locomo|null,
                "lost_questions": {"1".."4"|"all": int}},
     "levels": [Level], "long": [Level]}
    Level = {"name": str, "kind": "tenants"|"long", "tenants": int, "conversation_turns": int,
             "totals": {"nodes", "relationships", "turns", "facts", "entities", "conversations"},
             "store_bytes": int|null, "data_bytes": int|null,
             "write": {"seconds", "build_seconds", "nodes", "relationships", "turns",
                       "nodes_per_s", "relationships_per_s"},
             "read_path_ms": Pct, "neo4j_ms": Pct, "dense_seed_ms": Pct, "exact_scan_ms": Pct,
             "recall": {"k", "queries", "mean", "min", "perfect", "tenants", "tenant_min"},
             "bm25": {"tenant": Drift|null, "dev": Drift|null},
             "seconds": float}
    Pct = {"n", "p50", "p95", "mean"}
    Drift = {"questions", "turn_sets_changed", "fact_sets_changed", "mean_jaccard"}
    Locomo = {"questions", "by_category": {"1".."4"|"all": {"n", "all_at_10", "ndcg_at_10",
              "all_at_10_questions"}}, "read_path_ms": {"p50", "p95"}, "seconds": float}

Times are milliseconds unless named seconds; shares are in [0, 1]. Sizes are bytes of the
local server's ``data/databases/<db>`` folder (``store_bytes``) and whole ``data`` folder
(``data_bytes``, transaction logs included), or null when the server is not the local one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.api import Memory
from kgmem.bench.ablation import default_row
from kgmem.bench.locomo import SCORED_CATEGORIES, git_commit, run_locomo_bench
from kgmem.bench.metrics import percentile
from kgmem.errors import ConfigError, StoreError
from kgmem.ingest.locomo import load_locomo
from kgmem.ingest.writer import BulkWriter
from kgmem.models import (
    EntityRecord,
    EventRecord,
    FactRecord,
    QuestionRecord,
    SessionRecord,
    TimeInterval,
    TurnRecord,
)
from kgmem.retrieve import generators as gen
from kgmem.retrieve.engine import EngineConfig
from kgmem.retrieve.plan import plan
from kgmem.store import Store

__all__ = [
    "PREFIX",
    "SCHEMA",
    "Copy",
    "ScaleConfig",
    "Template",
    "copy_piece",
    "long_id",
    "read_template",
    "run_scale_bench",
    "tenant_id",
]

SCHEMA = "kgmem.bench.scale/1"
#: every synthetic conversation id starts with this (the benchmark refuses a store holding any)
PREFIX = "scale-"
Progress = Callable[[str, int, int], None]
Vectors = npt.NDArray[np.float32]


def tenant_id(n: int) -> str:
    """The conversation id of synthetic tenant ``n`` (0-based): ``scale-t00042``."""
    return f"{PREFIX}t{n:05d}"


def long_id() -> str:
    """The conversation id of the long synthetic conversation."""
    return f"{PREFIX}long"


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


# --- the template: one stored dev conversation, read back once ------------------------------
@dataclass
class Template:
    """One stored conversation as plain rows (``read/scale_template``), embeddings as arrays.

    Attributes:
        conversation_id: the source conversation.
        sessions / turns / facts / entities / events: rows as the statement returns them
            (without the ``embedding`` key); turns in utterance order.
        turn_vectors / fact_vectors: ``(len(turns), dim)`` / ``(len(facts), dim)`` float32.
        mentions / supersedes: ``(turn id, entity id)`` / ``(newer, older)`` pairs.
    """

    conversation_id: str
    sessions: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    turn_vectors: Vectors
    facts: list[dict[str, Any]]
    fact_vectors: Vectors
    entities: dict[str, dict[str, Any]]
    mentions: list[tuple[str, str]]
    events: list[dict[str, Any]]
    supersedes: list[tuple[str, str]]

    @property
    def started(self) -> datetime:
        first: datetime = min(t["observed_at"] for t in self.turns)
        return first

    @property
    def ended(self) -> datetime:
        last: datetime = max(t["observed_at"] for t in self.turns)
        return last


def read_template(store: Store, conversation_id: str) -> Template:
    """Read one stored conversation back (one round trip).

    Raises:
        ConfigError: the conversation holds no turns with embeddings.
    """
    row = store.read("read/scale_template", conversation_id=conversation_id)[0]
    turns = [t for t in row["turns"] if t["embedding"] is not None]
    if not turns:
        raise ConfigError(f"conversation {conversation_id!r} holds no embedded turns")
    facts = [f for f in row["facts"] if f["embedding"] is not None and f["cites"]]
    return Template(
        conversation_id=conversation_id,
        sessions=row["sessions"],
        turns=[{k: v for k, v in t.items() if k != "embedding"} for t in turns],
        turn_vectors=np.asarray([t["embedding"] for t in turns], dtype=np.float32),
        facts=[{k: v for k, v in f.items() if k != "embedding"} for f in facts],
        fact_vectors=np.asarray([f["embedding"] for f in facts], dtype=np.float32).reshape(
            len(facts), len(turns[0]["embedding"])
        ),
        entities={e["id"]: e for e in row["entities"]},
        mentions=[(m[0], m[1]) for m in row["mentions"]],
        events=row["events"],
        supersedes=[(p[0], p[1]) for p in row["supersedes"]],
    )


# --- copies ---------------------------------------------------------------------------------
@dataclass
class Copy:
    """Records of one or more copied pieces, ready for `BulkWriter` (written in this order)."""

    sessions: list[SessionRecord] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    turn_vectors: list[Vectors] = field(default_factory=list)
    next_rows: list[dict[str, str]] = field(default_factory=list)
    entities: list[EntityRecord] = field(default_factory=list)
    facts: list[FactRecord] = field(default_factory=list)
    fact_vectors: list[Vectors] = field(default_factory=list)
    mentions: list[tuple[str, str]] = field(default_factory=list)
    supersedes: list[tuple[str, str]] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)

    def extend(self, other: Copy) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(other, name))

    def write(self, writer: BulkWriter) -> None:
        """Write everything through the batched ``write/merge_*`` statements."""
        writer.sessions(self.sessions)
        if self.turns:
            writer.turns(self.turns, np.concatenate(self.turn_vectors))
        if self.next_rows:
            writer.store.write_batches(
                "write/merge_next", self.next_rows, batch_size=writer.batch_size
            )
        writer.entities(self.entities)
        if self.facts:
            writer.facts(self.facts, np.concatenate(self.fact_vectors))
        writer.mentions(self.mentions)
        writer.supersedes(self.supersedes)
        writer.events(self.events)


def perturb(vectors: Vectors, rng: np.random.Generator, noise: float) -> Vectors:
    """``vectors`` plus N(0, noise²) per component, each row renormalised to unit length."""
    if noise == 0 or len(vectors) == 0:
        return vectors.astype(np.float32, copy=True)
    out = vectors + rng.normal(0.0, noise, size=vectors.shape).astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(norms == 0, 1.0, norms)).astype(np.float32)


def copy_piece(
    template: Template,
    start: int,
    stop: int,
    *,
    conversation_id: str,
    tag: str = "",
    index_offset: int = 0,
    session_offset: int = 0,
    shift: timedelta = timedelta(0),
    rng: np.random.Generator,
    noise: float,
    previous_turn_id: str | None = None,
) -> Copy:
    """Turns ``[start, stop)`` of ``template`` (utterance order) with everything that cites or
    links them, as records of ``conversation_id``.

    Every id ``<source>:<rest>`` becomes ``<conversation_id>:<tag><rest>`` (a tag keeps the
    copies inside one conversation apart); turn indexes start at ``index_offset``, session
    numbers move by ``session_offset``, every time by ``shift``; facts keep only the cited turns
    inside the slice (a fact citing none is dropped), events only their kept facts.
    ``previous_turn_id`` links the first copied turn to the end of an earlier piece.
    """
    src = template.conversation_id + ":"
    dst = f"{conversation_id}:{tag}"

    def rid(value: str) -> str:
        return dst + value[len(src) :] if value.startswith(src) else value

    def moved(value: datetime | None) -> datetime | None:
        return value + shift if value is not None else None

    rows = template.turns[start:stop]
    first_index = rows[0]["index"] if rows else 0
    kept = {t["id"] for t in rows}
    out = Copy()
    sessions = {t["session"] for t in rows}
    out.sessions = [
        SessionRecord(
            conversation_id=conversation_id,
            session=s["session"] + session_offset,
            started_at=s["started_at"] + shift,
        )
        for s in template.sessions
        if s["session"] in sessions
    ]
    for t in rows:
        out.turns.append(
            TurnRecord(
                id=rid(t["id"]),
                conversation_id=conversation_id,
                session=t["session"] + session_offset,
                index=t["index"] - first_index + index_offset,
                dia_id=tag + t["dia_id"],
                speaker=t["speaker"],
                text=t["text"],
                observed_at=t["observed_at"] + shift,
            )
        )
    out.turn_vectors.append(perturb(template.turn_vectors[start:stop], rng, noise))
    ids = ([previous_turn_id] if previous_turn_id else []) + [t.id for t in out.turns]
    out.next_rows = [{"prev": a, "next": b} for a, b in pairwise(ids)]

    picked: list[int] = []
    entity_ids: set[str] = set()
    for n, f in enumerate(template.facts):
        cites = tuple(rid(c) for c in f["cites"] if c in kept)
        if not cites:
            continue
        picked.append(n)
        about = tuple(
            (rid(a["entity_id"]), a["role"])
            for a in f["about"]
            if a["entity_id"] in template.entities
        )
        entity_ids.update(a["entity_id"] for a in f["about"])
        interval = None
        if f["event_time"] is not None and f["event_end"] is not None:
            interval = TimeInterval(
                start=f["event_time"] + shift,
                end=f["event_end"] + shift,
                granularity=f["event_granularity"],
                phrase=f["event_phrase"] or "",
            )
        out.facts.append(
            FactRecord(
                id=rid(f["id"]),
                conversation_id=conversation_id,
                subject=rid(f["subject"] or ""),
                relation=f["relation"] or "",
                object=rid(f["object"] or ""),
                text=f["text"],
                source=f["source"],
                cites=cites,
                about=about,
                event_time=interval,
                valid_from=moved(f["valid_from"]),
                key=rid(f["key"]) if f["key"] else None,
                serial=int(f["serial"] or 0) + (index_offset - first_index) * 1000,
                confidence=float(f["confidence"] if f["confidence"] is not None else 1.0),
                session=f["session"] + session_offset if f["session"] is not None else None,
            )
        )
    out.fact_vectors.append(perturb(template.fact_vectors[picked], rng, noise))
    fact_ids = {template.facts[n]["id"] for n in picked}
    for turn, entity in template.mentions:
        if turn in kept and entity in template.entities:
            out.mentions.append((rid(turn), rid(entity)))
            entity_ids.add(entity)
    out.entities = [
        EntityRecord(
            id=rid(e["id"]),
            conversation_id=conversation_id,
            name=e["name"],
            type=e["type"],
            aliases=tuple(e["aliases"]),
        )
        for eid, e in template.entities.items()
        if eid in entity_ids
    ]
    out.supersedes = [
        (rid(a), rid(b)) for a, b in template.supersedes if a in fact_ids and b in fact_ids
    ]
    for ev in template.events:
        members = tuple(rid(f) for f in ev["fact_ids"] if f in fact_ids)
        if not members:
            continue
        time_ = None
        if ev["time"] is not None and ev["time_end"] is not None and ev["granularity"]:
            time_ = TimeInterval(
                start=ev["time"] + shift, end=ev["time_end"] + shift, granularity=ev["granularity"]
            )
        out.events.append(
            EventRecord(
                id=rid(ev["id"]),
                conversation_id=conversation_id,
                name=ev["name"] or "",
                time=time_,
                fact_ids=members,
            )
        )
    return out


def tenant_slice(
    templates: Sequence[Template], n: int, tenant_turns: int, seed: int
) -> tuple[Template, int]:
    """Which template and start offset tenant ``n`` copies (round robin over the templates, a
    seeded random offset), independent of the levels asked for."""
    template = templates[n % len(templates)]
    rng = random.Random(seed * 1_000_003 + n)
    return template, rng.randrange(max(1, len(template.turns) - tenant_turns + 1))


def long_pieces(
    templates: Sequence[Template], total: int
) -> Iterator[tuple[int, Template, int, int]]:
    """``(copy number, template, start, stop)`` pieces whose concatenation is ``total`` turns:
    whole conversations in round robin, the last one cut."""
    done = 0
    n = 0
    while done < total:
        template = templates[n % len(templates)]
        take = min(len(template.turns), total - done)
        yield n, template, 0, take
        done += take
        n += 1


# --- measurements ---------------------------------------------------------------------------
def _pct(values: Sequence[float]) -> dict[str, float | int]:
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
    )
    return [c.turn_id for c in sorted(pools.seeds.get("dense_turns", []), key=lambda c: -c.cosine)]


def exact_ids(store: Store, conversation_id: str, vector: Vectors, k: int) -> list[str]:
    """The exact top-``k`` turn ids by cosine (``read/search_turns_exact``), best first."""
    params = {"conversation_id": conversation_id, "embedding": vector.tolist()}
    return [c.turn_id for c in gen.dense_turns(store, params, k)]


def bm25_sets(
    store: Store, conversation_id: str, question: str, vector: Vectors, k: int = 10
) -> tuple[frozenset[str], frozenset[str]]:
    """A question's BM25 top-``k`` inside one tenant (``read/linked_read``, fulltext only):
    the turn ids from the turn index and the fact ids from the fact index."""
    qplan = plan(question).model_copy(update={"budgets": {"fulltext": k}})
    pools = gen.linked_read(
        store,
        {"conversation_id": conversation_id, "embedding": vector.tolist()},
        qplan,
        _fulltext_config(k),
    )
    rows = pools.seeds.get("fulltext", [])
    turns = frozenset(c.turn_id for c in rows if c.fact_id is None)
    facts = frozenset(c.fact_id for c in rows if c.fact_id is not None)
    return turns, facts


def _drift(
    reference: Sequence[tuple[frozenset[str], frozenset[str]]],
    now: Sequence[tuple[frozenset[str], frozenset[str]]],
) -> dict[str, float | int]:
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


def _locomo_summary(report: dict[str, Any], seconds: float) -> dict[str, Any]:
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


def _sizes(memory: Memory) -> tuple[int | None, int | None]:
    """(store bytes, data bytes) of the local server when the memory talks to it, else None."""
    from kgmem.store.server import LocalNeo4j, tree_bytes

    settings = memory.settings
    server = LocalNeo4j.from_settings(settings)
    if settings.neo4j_uri.rstrip("/") != server.bolt_uri or not server.status().running:
        return None, None

    data = server.home / "data"
    return tree_bytes(data / "databases" / settings.neo4j_database), tree_bytes(data)


def _server_memory(store: Store) -> dict[str, str | None]:
    """The heap and page cache the server runs with (``read/server_memory``), None where the
    server does not say (e.g. a user without the privilege to list settings)."""
    try:
        rows = {row["name"]: row["value"] for row in store.read("read/server_memory")}
    except StoreError:
        rows = {}
    return {
        "heap": rows.get("server.memory.heap.max_size"),
        "pagecache": rows.get("server.memory.pagecache.size"),
    }


@dataclass
class _Sample:
    conversation_id: str
    question: QuestionRecord
    vector: Vectors


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
        return _locomo_summary(report, time.perf_counter() - t0) | {"_ingest": report["ingest"]}

    # --- loading ---
    def totals(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.store.read("read/graph_totals")[0].items()}

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
        for chunk in range(first, stop, cfg.tenants_per_write):
            batch = Copy()
            for n in range(chunk, min(stop, chunk + cfg.tenants_per_write)):
                template, start = tenant_slice(self.templates, n, cfg.tenant_turns, cfg.seed)
                batch.extend(
                    copy_piece(
                        template,
                        start,
                        start + cfg.tenant_turns,
                        conversation_id=tenant_id(n),
                        rng=np.random.default_rng([cfg.seed, n]),
                        noise=cfg.noise,
                    )
                )
            yield batch

    def long_copies(self, have: int, want: int) -> Iterator[Copy]:
        cfg = self.config
        index = 0
        session = 0
        end: datetime | None = None
        previous: str | None = None
        for n, template, start, stop in long_pieces(self.templates, want):
            shift = (end + timedelta(days=1) - template.started) if end else timedelta(0)
            size = stop - start
            if index + size > have:  # not written yet (lengths grow the same conversation)
                skip = max(0, have - index)
                if skip:  # the piece was cut at the previous length: go on from its cut
                    previous = self._long_turn_id(n, template, start + skip - 1)
                yield copy_piece(
                    template,
                    start + skip,
                    stop,
                    conversation_id=long_id(),
                    tag=f"c{n}:",
                    index_offset=index + skip,
                    session_offset=session,
                    shift=shift,
                    rng=np.random.default_rng([cfg.seed, 1_000_000 + n, skip]),
                    noise=cfg.noise,
                    previous_turn_id=previous,
                )
            index += size
            session += max(s["session"] for s in template.sessions)
            end = template.ended + shift
            previous = self._long_turn_id(n, template, stop - 1)

    @staticmethod
    def _long_turn_id(copy: int, template: Template, position: int) -> str:
        """The id turn ``position`` of ``template`` gets in copy ``copy`` of the long one."""
        source = template.turns[position]["id"]
        return f"{long_id()}:c{copy}:{source[len(template.conversation_id) + 1 :]}"

    # --- measuring ---
    def sample(self, tenants: int, salt: int) -> list[_Sample]:
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
            out.append(_Sample(cid, q, self.vectors[q.id]))
        return out

    def measure(self, name: str, samples: Sequence[_Sample], recall_n: int) -> dict[str, Any]:
        cfg = self.config
        for s in samples:  # warm-up: page cache and the per-conversation context cache
            self.engine.search(s.question.question, s.conversation_id, 10, embedding=s.vector)
        read_ms: list[float] = []
        neo4j_ms: list[float] = []
        for s in samples:
            found = self.engine.search(
                s.question.question, s.conversation_id, 10, embedding=s.vector
            )
            read_ms.append(found.timings_ms["read_path"])
            neo4j_ms.append(found.timings_ms["neo4j"])
            self.tick(f"{name} read", 1, len(samples))
        seed_ms: list[float] = []
        exact_ms: list[float] = []
        recalls: dict[str, list[float]] = {}
        for s in samples[:recall_n]:
            t0 = self.store.timing.ms
            got = dense_seed_ids(
                self.store, s.conversation_id, s.question.question, s.vector, cfg.recall_k
            )
            t1 = self.store.timing.ms
            want = exact_ids(self.store, s.conversation_id, s.vector, cfg.recall_k)
            t2 = self.store.timing.ms
            seed_ms.append(t1 - t0)
            exact_ms.append(t2 - t1)
            value = len(set(got) & set(want)) / len(want) if want else 1.0
            recalls.setdefault(s.conversation_id, []).append(value)
            self.tick(f"{name} recall", 1, recall_n)
        flat = [v for vs in recalls.values() for v in vs]
        per_tenant = [sum(vs) / len(vs) for vs in recalls.values()]
        return {
            "read_path_ms": _pct(read_ms),
            "neo4j_ms": _pct(neo4j_ms),
            "dense_seed_ms": _pct(seed_ms),
            "exact_scan_ms": _pct(exact_ms),
            "recall": {
                "k": cfg.recall_k,
                "queries": len(flat),
                "mean": round(sum(flat) / len(flat), 4) if flat else None,
                "min": round(min(flat), 4) if flat else None,
                "perfect": sum(v == 1.0 for v in flat),
                "tenants": len(per_tenant),
                "tenant_min": round(min(per_tenant), 4) if per_tenant else None,
            },
        }

    def bm25_tenant_questions(self) -> list[QuestionRecord]:
        template, _ = tenant_slice(self.templates, 0, self.config.tenant_turns, self.config.seed)
        pool = self.questions[template.conversation_id]
        rng = random.Random(self.config.seed)
        return rng.sample(pool, min(self.config.bm25_questions, len(pool)))

    def bm25_tenant(
        self, questions: Sequence[QuestionRecord]
    ) -> list[tuple[frozenset[str], frozenset[str]]]:
        return [
            bm25_sets(self.store, tenant_id(0), q.question, self.vectors[q.id]) for q in questions
        ]

    def bm25_dev_questions(self) -> list[QuestionRecord]:
        every = [q for r in self.records for q in self.questions[r.conversation_id]]
        rng = random.Random(self.config.seed + 1)
        return rng.sample(every, min(self.config.bm25_questions, len(every)))

    def bm25_dev(self) -> list[tuple[frozenset[str], frozenset[str]]]:
        return [
            bm25_sets(self.store, q.conversation_id, q.question, self.vectors[q.id])
            for q in self.dev_bm25
        ]


def run_scale_bench(
    memory: Memory,
    path: str | Path,
    config: ScaleConfig | None = None,
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the scale benchmark on ``memory``'s server; returns the JSON-ready report described
    in the module docstring. Run it on a server of its own: the synthetic tenants stay in the
    store afterwards (delete the server's data folder), and other data changes BM25 statistics.

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
    leftover = [c for c in stored if c.startswith(PREFIX)]
    if leftover:
        raise ConfigError(
            f"the store already holds {len(leftover)} synthetic conversations ({leftover[0]}, ...)"
            " from an earlier `kgmem bench scale`; run it on an empty server (see README,"
            " 'Scaling out') or delete that server's data folder first"
        )
    bench = _Bench(memory, path, config, progress)
    dev_ids = [r.conversation_id for r in bench.records]
    settings = memory.settings
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "git_commit": git_commit(),
        "file": str(path),
        "config": asdict(config),
        "server": {"uri": settings.neo4j_uri, **_server_memory(memory.store)},
        "other_conversations": [c for c in stored if c not in dev_ids],
    }

    # 1. the dev conversations as themselves, and the single-tenant LoCoMo run
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

    # 2. tenant levels
    tenant_questions = bench.bm25_tenant_questions()
    tenant_reference: list[tuple[frozenset[str], frozenset[str]]] | None = None
    report["levels"] = []
    have = 0
    for level in config.tenant_levels:
        t0 = time.perf_counter()
        name = f"tenants-{level}"
        write = bench.load(
            bench.tenant_copies(have, level), (level - have) * config.tenant_turns, f"{name} load"
        )
        have = level
        store_bytes, data_bytes = _sizes(memory)
        entry: dict[str, Any] = {
            "name": name,
            "kind": "tenants",
            "tenants": level,
            "conversation_turns": config.tenant_turns,
            "totals": bench.totals(),
            "store_bytes": store_bytes,
            "data_bytes": data_bytes,
            "write": write,
        }
        entry |= bench.measure(name, bench.sample(level, level), config.questions)
        sets = bench.bm25_tenant(tenant_questions)
        if tenant_reference is None:
            tenant_reference = sets
        entry["bm25"] = {
            "tenant": _drift(tenant_reference, sets) | {"conversation_id": tenant_id(0)},
            "dev": _drift(dev_reference, bench.bm25_dev()),
        }
        entry["locomo"] = bench.locomo() if config.locomo == "every" else None
        if entry["locomo"] is not None:
            entry["locomo"].pop("_ingest", None)
        entry["seconds"] = round(time.perf_counter() - t0, 1)
        report["levels"].append(entry)

    # 3. the long conversation
    report["long"] = []
    have = 0
    for length in config.long_lengths:
        t0 = time.perf_counter()
        name = f"long-{length}"
        write = bench.load(bench.long_copies(have, length), length - have, f"{name} load")
        have = length
        store_bytes, data_bytes = _sizes(memory)
        entry = {
            "name": name,
            "kind": "long",
            "tenants": config.tenant_levels[-1] if config.tenant_levels else 0,
            "conversation_turns": length,
            "totals": bench.totals(),
            "store_bytes": store_bytes,
            "data_bytes": data_bytes,
            "write": write,
        }
        entry |= bench.measure(name, bench.sample(0, length), config.long_recall_questions)
        entry["bm25"] = {"tenant": None, "dev": _drift(dev_reference, bench.bm25_dev())}
        entry["locomo"] = None
        entry["seconds"] = round(time.perf_counter() - t0, 1)
        report["long"].append(entry)

    # 4. LoCoMo with everything loaded
    if single is not None and (config.tenant_levels or config.long_lengths):
        loaded = bench.locomo()
        loaded.pop("_ingest", None)
        report["locomo"]["loaded"] = loaded
        report["locomo"]["lost_questions"] = {
            key: single["by_category"][key]["all_at_10_questions"]
            - loaded["by_category"][key]["all_at_10_questions"]
            for key in single["by_category"]
        }
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report
