"""First questions after a server restart: restart the kgmem-launched Neo4j of the current
``KGMEM_*`` settings, then ask every LoCoMo question of a file once, one at a time, timed end to
end (embedding included, model loaded beforehand), and once more. Prints JSON.

Plans compiled after the restart show up as slow questions of the first pass that are fast in
the second. Use a private server (its own ``KGMEM_DATA_DIR`` and ports), never a shared one:
this script stops and starts it. The conversations must be ingested already.

    KGMEM_DATA_DIR=/tmp/me-data KGMEM_NEO4J_BOLT_PORT=17687 KGMEM_NEO4J_HTTP_PORT=17474 \
        python scripts/restart_latency.py ../shared/data/locomo/locomo-dev.json \
        --conversation conv-41 [--no-restart] [--warm] [--limit 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from kgmem import Memory, Settings
from kgmem.config import DEFAULT_K
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.store.server import LocalNeo4j


def _summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {
        "first": round(ms[0], 1),
        "p50": pct(50),
        "p95": pct(95),
        "max": round(ordered[-1], 1),
        "mean": round(statistics.mean(ms), 1),
        "over_200ms": sum(1 for x in ms if x > 200),
        "sum_s": round(sum(ms) / 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--conversation", action="append", default=None)
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions")
    parser.add_argument("--no-restart", action="store_true")
    parser.add_argument(
        "--warm", action="store_true", help="call Memory.warm() first, as a service would"
    )
    args = parser.parse_args()
    settings = Settings()
    restart_s = None
    if not args.no_restart:
        server = LocalNeo4j.from_settings(settings)
        server.stop()
        t0 = time.perf_counter()
        server.start()
        restart_s = round(time.perf_counter() - t0, 1)
    records = load_locomo(args.file, args.conversation)
    questions = [(q.question, r.conversation_id) for r in records for q in r.questions]
    questions = questions[: args.limit]
    passes: list[list[float]] = []
    with Memory.from_settings(settings) as memory:
        memory.embedder.encode_one("load the model outside the timing")
        warmed = memory.warm() if args.warm else None
        for _ in range(2):
            ms = []
            for text, cid in questions:
                t0 = time.perf_counter()
                memory.search(text, cid, k=DEFAULT_K)
                ms.append((time.perf_counter() - t0) * 1000)
            passes.append(ms)
    print(
        json.dumps(
            {
                "questions": len(questions),
                "restart_s": restart_s,
                "warm": warmed,
                "load": [round(x, 2) for x in os.getloadavg()],
                "first_pass": _summary(passes[0]),
                "second_pass": _summary(passes[1]),
            }
        )
    )


if __name__ == "__main__":
    main()
