"""Where one question's time goes: ask every question of a LoCoMo conversation through
`Memory.search` and time each Neo4j statement it runs (client wall time, and the server's
``result_available_after + result_consumed_after``), the query embedding, and the rest
(Python: plan, merge, score, answerability) by difference. Prints JSON (p50 / p95 / mean ms
of each part, and round trips per question). The conversation must be ingested already.

The companion `scripts/read_parts.py` splits the server's share of ``read/linked_read``.

    python scripts/latency_parts.py ../shared/data/locomo/locomo-dev.json --conversation conv-41
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from typing import Any

import kgmem.store.driver as driver
from kgmem import Memory, Settings
from kgmem.bench.metrics import percentile
from kgmem.config import DEFAULT_K
from kgmem.ingest.loaders.locomo import load_locomo

Calls = list[tuple[str, float, float]]


def _timed_reads(calls: Calls) -> None:
    """Make `Store.read` record (statement, client ms, server ms) into ``calls``."""

    def read(self: driver.Store, name: str, /, **params: Any) -> list[dict[str, Any]]:
        text = self.queries[name]
        server: list[float] = []

        def work(tx: Any) -> list[dict[str, Any]]:
            result = tx.run(text, params)
            rows = [driver._row(record) for record in result]
            summary = result.consume()
            server.append(
                float(summary.result_available_after or 0)
                + float(summary.result_consumed_after or 0)
            )
            return rows

        t0 = time.perf_counter()
        rows: list[dict[str, Any]] = self.run_read(work)
        calls.append((name, (time.perf_counter() - t0) * 1000, server[-1] if server else 0.0))
        return rows

    driver.Store.read = read  # type: ignore[method-assign]


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "mean": round(statistics.mean(values), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--conversation", default="conv-41")
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    calls: Calls = []
    _timed_reads(calls)
    record = load_locomo(args.file, [args.conversation])[0]
    questions = [q.question for q in record.questions]
    parts: dict[str, list[float]] = defaultdict(list)
    with Memory.from_settings(Settings()) as memory:
        memory.warm()
        for q in questions[: args.warmup]:
            memory.search(q, args.conversation, k=DEFAULT_K)
        for q in questions:
            calls.clear()
            t0 = time.perf_counter()
            result = memory.search(q, args.conversation, k=DEFAULT_K)
            total = (time.perf_counter() - t0) * 1000
            embed = result.timings_ms["embed"]
            parts["total"].append(total)
            parts["embedding"].append(embed)
            parts["python"].append(total - embed - sum(ms for _, ms, _ in calls))
            parts["round_trips"].append(float(len(calls)))
            for name, client, server in calls:
                parts[f"{name} client"].append(client)
                parts[f"{name} server"].append(server)
    print(
        json.dumps(
            {"conversation": args.conversation, "questions": len(questions)}
            | {name: _stats(values) for name, values in sorted(parts.items())},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
