"""The server's share of ``read/linked_read`` by part: capture the statement's parameters for
the first N questions of a LoCoMo conversation asked of a conversation (by default the same
one; e.g. ``--ask scale-long`` asks them of `kgmem bench scale`'s long conversation), then run
the statement as it is and with one part's budget set to 0 at a time, each over every question,
in ``--rounds`` alternating rounds. Prints JSON: per variant the server time
(``result_available_after + result_consumed_after``) and client time, p50 and mean ms, and the
p50 difference from the whole statement (what that part costs). The conversation must be
ingested already.

    python scripts/read_parts.py ../shared/data/locomo/locomo-dev.json --conversation conv-41
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
from kgmem.config import DEFAULT_K
from kgmem.ingest.loaders.locomo import load_locomo

#: each part and the budgets that switch it off
PARTS: dict[str, tuple[str, ...]] = {
    "whole": (),
    "dense_turns": ("k_turns",),
    "dense_facts": ("k_facts",),
    "speaker": ("k_speaker",),
    "fulltext": ("k_fulltext",),
    "entity": ("k_entity",),
    "window": ("k_window",),
    "events": ("k_events",),
    "holder": ("k_holder",),
    "every generator off": (
        "k_turns", "k_facts", "k_speaker", "k_fulltext", "k_entity", "k_window", "k_events",
        "k_holder",
    ),
}  # fmt: skip


def _captured(memory: Memory, questions: list[str], conversation: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    original = driver.Store.read

    def read(self: driver.Store, name: str, /, **params: Any) -> list[dict[str, Any]]:
        if name == "read/linked_read":
            seen.append(params)
        return original(self, name, **params)

    driver.Store.read = read  # type: ignore[method-assign]
    try:
        for q in questions:
            memory.search(q, conversation, k=DEFAULT_K)
    finally:
        driver.Store.read = original  # type: ignore[method-assign]
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--conversation", default="conv-41", help="whose questions")
    parser.add_argument("--ask", default=None, help="the conversation asked (default: the same)")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    record = load_locomo(args.file, [args.conversation])[0]
    questions = [q.question for q in record.questions][: args.questions]
    server: dict[str, list[float]] = defaultdict(list)
    client: dict[str, list[float]] = defaultdict(list)
    with Memory.from_settings(Settings()) as memory:
        memory.warm()
        params = _captured(memory, questions, args.ask or args.conversation)
        text = memory.store.queries["read/linked_read"]
        with memory.store._driver.session(database=memory.settings.neo4j_database) as session:
            for p in params[:10]:  # warm
                list(session.run(text, p))
            for _ in range(args.rounds):
                for part, budgets in PARTS.items():
                    for p in params:
                        bound = {**p, **dict.fromkeys(budgets, 0)}
                        t0 = time.perf_counter()
                        result = session.run(text, bound)
                        list(result)
                        summary = result.consume()
                        client[part].append((time.perf_counter() - t0) * 1000)
                        server[part].append(
                            float(summary.result_available_after or 0)
                            + float(summary.result_consumed_after or 0)
                        )
    whole = statistics.median(server["whole"])
    out = {
        part: {
            "server_p50": statistics.median(server[part]),
            "server_mean": round(statistics.mean(server[part]), 2),
            "client_p50": round(statistics.median(client[part]), 2),
            "costs_p50": round(whole - statistics.median(server[part]), 2),
        }
        for part in PARTS
    }
    print(json.dumps({"asked": args.ask or args.conversation, "questions": len(params)} | out))


if __name__ == "__main__":
    main()
