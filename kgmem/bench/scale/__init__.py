"""The scale benchmark: the read path with many tenants and in one long conversation.

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
   embedded or extracted again: the template is read back once (``bench/scale_template``) and
   copied through `kgmem.ingest.writing.writer.BulkWriter` (the ``write/merge_*`` statements, one
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

Modules: `kgmem.bench.scale.generator` (templates and their copies), `kgmem.bench.scale.measure`
(latency, recall, drift, totals), `kgmem.bench.scale.runner` (`ScaleConfig`, `run_scale_bench`).
"""

from __future__ import annotations

from kgmem.bench.scale.generator import (
    PREFIX,
    Copy,
    Template,
    copy_piece,
    long_id,
    long_pieces,
    perturb,
    read_template,
    tenant_id,
    tenant_slice,
)
from kgmem.bench.scale.measure import drift
from kgmem.bench.scale.runner import SCHEMA, ScaleConfig, run_scale_bench

__all__ = [
    "PREFIX",
    "SCHEMA",
    "Copy",
    "ScaleConfig",
    "Template",
    "copy_piece",
    "drift",
    "long_id",
    "long_pieces",
    "perturb",
    "read_template",
    "run_scale_bench",
    "tenant_id",
    "tenant_slice",
]
