"""Compare two bench JSON reports number by number; exit 1 on any difference.

Usage::

    python scripts/compare_bench.py BEFORE.json AFTER.json [--tolerance 0] [--ignore KEY ...]
        [--unordered KEY ...]

Works on any report that `kgmem bench ... --json` writes (locomo, mab, cases, beam, truth):
both files are walked together as nested dicts and lists, and every leaf (number, string,
bool, null) must be equal. Floats are equal when ``abs(a - b) <= tolerance`` (default 0:
exactly equal). A key present on one side only is a difference; list lengths must match.

Timing varies from run to run and is left out: a key is skipped, with everything under it,
when it is one of ``IGNORED_KEYS`` (``seconds``, ``ms``, ``p50``, ``p95``, ``turns_per_s``,
``git_commit``, ``elapsed``, and ``bookmarks``: Neo4j's opaque tokens of a run's writes) or
ends in one of ``IGNORED_SUFFIXES`` (``_ms``, ``_seconds``, ``_per_s``), e.g. ``latency_ms``,
``embedding_ms``, ``latency_p50_ms``. ``--ignore KEY`` adds keys. ``--unordered KEY``
compares the lists under ``KEY`` as multisets, for lists whose order the store does not
define (a check's ``entities`` in the cases report). Prints one line per difference (path,
before, after; at most ``--limit``) and a summary; exit status 0 = identical, 1 = different,
2 = unreadable input.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from typing import Any

IGNORED_KEYS = frozenset(
    {"seconds", "ms", "p50", "p95", "turns_per_s", "git_commit", "elapsed", "bookmarks"}
)
IGNORED_SUFFIXES = ("_ms", "_seconds", "_per_s")


def ignored(key: str, extra: frozenset[str] = frozenset()) -> bool:
    """Whether a dict key names a timing (or run-specific) figure that is not compared."""
    return key in IGNORED_KEYS or key in extra or key.endswith(IGNORED_SUFFIXES)


def _equal_leaf(a: Any, b: Any, tolerance: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return abs(a - b) <= tolerance
    return type(a) is type(b) and a == b


def differences(
    before: Any,
    after: Any,
    path: str = "$",
    tolerance: float = 0.0,
    extra_ignored: frozenset[str] = frozenset(),
    unordered: frozenset[str] = frozenset(),
) -> Iterator[tuple[str, Any, Any]]:
    """Every (path, before, after) where the two reports differ, in document order.

    A missing key or list item is reported with the string ``"<missing>"`` on its side.
    """
    if isinstance(before, dict) and isinstance(after, dict):
        for key in list(before) + [k for k in after if k not in before]:
            if ignored(str(key), extra_ignored):
                continue
            sub = f"{path}.{key}"
            if key not in after:
                yield sub, before[key], "<missing>"
            elif key not in before:
                yield sub, "<missing>", after[key]
            elif (
                str(key) in unordered
                and isinstance(before[key], list)
                and isinstance(after[key], list)
            ):
                if sorted(map(_canonical, before[key])) != sorted(map(_canonical, after[key])):
                    yield sub, before[key], after[key]
            else:
                yield from differences(
                    before[key], after[key], sub, tolerance, extra_ignored, unordered
                )
    elif isinstance(before, list) and isinstance(after, list):
        for i in range(max(len(before), len(after))):
            sub = f"{path}[{i}]"
            if i >= len(after):
                yield sub, before[i], "<missing>"
            elif i >= len(before):
                yield sub, "<missing>", after[i]
            else:
                yield from differences(
                    before[i], after[i], sub, tolerance, extra_ignored, unordered
                )
    elif (
        isinstance(before, (dict, list))
        or isinstance(after, (dict, list))
        or not _equal_leaf(before, after, tolerance)
    ):
        yield path, before, after


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--ignore", action="append", default=[], metavar="KEY")
    parser.add_argument("--unordered", action="append", default=[], metavar="KEY")
    parser.add_argument("--limit", type=int, default=50, help="differences printed at most")
    args = parser.parse_args(argv)
    try:
        with open(args.before, encoding="utf-8") as f:
            before = json.load(f)
        with open(args.after, encoding="utf-8") as f:
            after = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"cannot read report: {exc}", file=sys.stderr)
        return 2
    found = list(
        differences(
            before,
            after,
            tolerance=args.tolerance,
            extra_ignored=frozenset(args.ignore),
            unordered=frozenset(args.unordered),
        )
    )
    for path, a, b in found[: args.limit]:
        print(f"{path}: {_short(a)} != {_short(b)}")
    if found:
        print(f"{len(found)} difference(s) between {args.before} and {args.after}")
        return 1
    print(f"identical (timings ignored): {args.before} == {args.after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
