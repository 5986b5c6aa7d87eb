"""MemoryAgentBench FactConsolidation through `Memory`, with no reader.

FactConsolidation (Hu, Wang, McAuley, ICLR 2026; built from MQuAKE, Zhong et al., EMNLP 2023)
gives a numbered fact list in which later numbers overwrite earlier ones, and single- and
multi-hop questions over it. This runner measures kgmem itself:

1. each row's list is loaded as an ordinary conversation (`kgmem.ingest.loaders.numbered`) and
   written by `Memory.add_conversation` (turns, embeddings, statement facts citing their turns,
   entities, supersession), unless the conversation already holds exactly those turns;
2. each question is answered by `Memory.chain` (`kgmem.retrieve.chain`: relation cues → a walk
   over current values); the prediction is the last hop's object name;
3. predictions are scored with `kgmem.bench.metrics.substring_exact_match` (gold is read only
   there). Lanes come from the row name (``_sh_`` single-hop, ``_mh_`` multi-hop).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgmem.api import Memory
from kgmem.bench.metrics import percentile, substring_exact_match
from kgmem.errors import MalformedInput
from kgmem.ingest.loaders.numbered import json_rows, parse_numbered, row_name
from kgmem.retrieve.chain import COSTS, ChainResult

__all__ = ["run_mab_bench"]

_LANE = re.compile(r"(?:^|[_\-])(sh|mh)(?:[_\-]|$)", re.IGNORECASE)
_LANE_NAMES = {"sh": "single-hop", "mh": "multi-hop"}


def _lane(name: str) -> str:
    m = _LANE.search(name)
    return _LANE_NAMES[m.group(1).lower()] if m else name


def _bench_rows(path: Path) -> list[dict[str, Any]]:
    rows = json_rows(path.read_text(encoding="utf-8-sig"), path)
    for i, row in enumerate(rows):
        ok = (
            isinstance(row, dict)
            and isinstance(row.get("context"), str)
            and isinstance(row.get("questions"), list)
            and isinstance(row.get("answers"), list)
            and len(row["questions"]) == len(row["answers"])
        )
        if not ok:
            raise MalformedInput(
                "row needs 'context', and 'questions' and 'answers' of equal length",
                file=str(path),
                turn=f"row {i}",
            )
    return rows


def _ingest(memory: Memory, row: dict[str, Any], cid: str, path: Path) -> dict[str, Any]:
    record = parse_numbered(row["context"], cid, file=str(path))
    have = memory.counts(cid)
    if have.get("turns") == len(record.turns) and have.get("facts", 0) > 0:
        return {**have, "ms": None}
    t0 = time.perf_counter()
    memory.add_conversation(record, facts="extracted")
    return {**memory.counts(cid), "ms": (time.perf_counter() - t0) * 1000.0}


def run_mab_bench(
    memory: Memory,
    path: Path,
    *,
    progress: Callable[[int], None] | None = None,
    prefix: str = "",
    failures: int = 20,
) -> dict[str, Any]:
    """Run FactConsolidation over a MemoryAgentBench file (see the module docstring).

    Args:
        memory: an open memory (schema applied on first write).
        path: MemoryAgentBench JSON (``data`` rows with ``context``, ``questions``, ``answers``).
        progress: called with 1 after each answered question.
        prefix: prepended to conversation ids (tests use a unique one).
        failures: how many wrong answers to include in the report.

    Returns:
        a JSON-able report: ``lanes`` {lane: {n, accuracy, conversation}} and ``overall``
        (accuracy in percent, 0-100), ``latency_ms`` {p50, p95} per question (`Memory.chain`,
        wall time), ``ingest`` {conversation: counts and ``ms`` (None if already stored)},
        ``unanswered`` (questions with no path), ``n_questions``, ``failures`` (a sample with
        the hops followed), ``costs`` (the relaxation costs used).

    Raises:
        MalformedInput: the file is not in the expected layout.
    """
    rows = _bench_rows(path)
    report: dict[str, Any] = {
        "file": str(path),
        "lanes": {},
        "ingest": {},
        "failures": [],
        "costs": dict(COSTS),
    }
    latencies: list[float] = []
    scores: dict[str, list[float]] = {}
    unanswered = 0
    for i, row in enumerate(rows):
        name = row_name(row, path, i)
        cid = f"{prefix}{name}"
        report["ingest"][cid] = _ingest(memory, row, cid, path)
        lane = _lane(name)
        report["lanes"].setdefault(lane, {})["conversation"] = cid
        for question, golds in zip(row["questions"], row["answers"], strict=True):
            gold = [str(g) for g in golds] if isinstance(golds, list) else [str(golds)]
            t0 = time.perf_counter()
            result = memory.chain(str(question), cid)
            latencies.append((time.perf_counter() - t0) * 1000.0)
            unanswered += result.answer is None
            score = substring_exact_match(result.answer or "", gold)
            scores.setdefault(lane, []).append(score)
            if score == 0.0 and len(report["failures"]) < failures:
                report["failures"].append(_failure(lane, question, gold, result))
            if progress is not None:
                progress(1)
    for lane, values in scores.items():
        report["lanes"][lane].update(n=len(values), accuracy=100.0 * sum(values) / len(values))
    every = [v for values in scores.values() for v in values]
    report["overall"] = {
        "n": len(every),
        "accuracy": 100.0 * sum(every) / len(every) if every else 0.0,
    }
    report["n_questions"] = len(every)
    report["unanswered"] = unanswered
    report["latency_ms"] = (
        {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)}
        if latencies
        else {"p50": None, "p95": None}
    )
    return report


def _failure(lane: str, question: Any, gold: list[str], result: ChainResult) -> dict[str, Any]:
    """One wrong answer of the report, with the hops the chain followed."""
    return {
        "lane": lane,
        "question": question,
        "gold": gold,
        "prediction": result.answer,
        "base": result.base,
        "path": [f"{h.relation}:{h.object_name}@{h.serial}" for h in result.hops],
        "cites": result.turn_ids,
        "relaxations": result.relaxations,
    }
