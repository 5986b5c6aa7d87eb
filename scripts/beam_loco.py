"""Leave-one-chat-out choice among configurations measured by ``kgmem bench beam``.

Usage::

    python scripts/beam_loco.py NAME=REPORT.json [NAME=REPORT.json ...] [--k 10] [--json FILE]

Each REPORT is a ``kgmem bench beam --json`` report of the same chats and questions, run with
one candidate configuration (for example ``KGMEM_W_FACT_FLOOR=0.5``; ``--reuse`` keeps the
stored chats so only the read path changes). For each chat in turn, the configuration with the
best overall ALL@k of the kgmem row on the *other* chats is chosen (ties go to the earlier
argument) and scored on the held-out chat; the held-out questions of all folds together give
the leave-one-chat-out ALL@k and ANY@k. The in-sample figure (one choice on every chat) is
printed beside it, and the plain-cosine row of the first report for reference. Their gap is the
optimism of choosing on the chats measured. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _chat(question_id: str) -> str:
    return question_id.split(":", 1)[0]


def _row(report: dict[str, Any], name: str) -> list[dict[str, Any]]:
    for row in report["rows"]:
        if row["name"] == name:
            if "questions" not in row:
                raise SystemExit(f"{name} row has no per-question ranks (re-run the bench)")
            return list(row["questions"])
    raise SystemExit(f"no {name} row")


def _at(question: dict[str, Any], k: int) -> tuple[float, float]:
    ranks = list(question["evidence_ranks"].values())
    inside = [r is not None and r <= k for r in ranks]
    return float(all(inside)), float(any(inside))


def _mean(qs: list[dict[str, Any]], k: int) -> dict[str, float | int]:
    if not qs:
        return {"n": 0, "all": 0.0, "any": 0.0}
    pairs = [_at(q, k) for q in qs]
    return {
        "n": len(qs),
        "all": round(sum(a for a, _ in pairs) / len(qs), 4),
        "any": round(sum(b for _, b in pairs) / len(qs), 4),
    }


def loco(configs: dict[str, list[dict[str, Any]]], k: int) -> dict[str, Any]:
    """The leave-one-chat-out choice (module docstring) over ``configs``: name -> the kgmem
    row's per-question entries."""
    names = list(configs)
    chats = sorted({_chat(q["id"]) for q in configs[names[0]]})
    folds, held = [], []
    for chat in chats:
        train = {n: _mean([q for q in configs[n] if _chat(q["id"]) != chat], k) for n in names}
        chosen = max(names, key=lambda n: (train[n]["all"], -names.index(n)))
        test = [q for q in configs[chosen] if _chat(q["id"]) == chat]
        held.extend(test)
        folds.append({"held_out": chat, "chosen": chosen, "test": _mean(test, k)})
    overall = {n: _mean(configs[n], k) for n in names}
    best = max(names, key=lambda n: (overall[n]["all"], -names.index(n)))
    return {
        "k": k,
        "folds": folds,
        "leave_one_chat_out": _mean(held, k),
        "in_sample": {"chosen": best, **overall[best]},
        "per_config": overall,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", help="NAME=REPORT.json")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    configs: dict[str, list[dict[str, Any]]] = {}
    cosine: list[dict[str, Any]] = []
    for item in args.reports:
        name, _, path = item.partition("=")
        if not path:
            parser.error(f"expected NAME=REPORT.json, got {item!r}")
        report = json.loads(Path(path).read_text(encoding="utf-8"))
        configs[name] = _row(report, "kgmem")
        cosine = cosine or _row(report, "cosine")
    out = loco(configs, args.k)
    out["cosine"] = _mean(cosine, args.k)
    text = json.dumps(out, indent=2)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
