"""Deterministic current-value resolution (docs/design.md §3.6): for a question planned as
``current_value``, group the facts on supersession keys about the resolved entities and take,
per key, the latest ``serial`` (then ``valid_from``, then id) — in code. The reader never
adjudicates contradictions.

The winner's turns get a bonus and a trace naming the winning fact and the facts it supersedes;
turns cited only by superseded facts get the same amount as a penalty, so the old value cannot
outrank the current one on wording alone.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from kgmem.ingest.supersession import SINGLE_VALUED
from kgmem.retrieve.score import Candidate

__all__ = ["CURRENT_BONUS", "relevant_rows", "resolve_current"]

#: score added to turns of the current value / subtracted from turns of superseded values
#: (larger than the adjacency and time terms, smaller than a cosine gap that signals topic)
CURRENT_BONUS = 0.1
_EPOCH = datetime.min.replace(tzinfo=UTC)


def _order(row: dict[str, Any]) -> tuple[int, datetime, str]:
    return (int(row["serial"] or 0), row["valid_from"] or _EPOCH, str(row["fact_id"]))


def _family_words() -> dict[str, set[str]]:
    """Words that name each relation family: the family's own name parts and the first word of
    each of its relations (``live_in`` → "live"), from `kgmem.ingest.supersession.SINGLE_VALUED`."""
    words: dict[str, set[str]] = defaultdict(set)
    for relation, family in SINGLE_VALUED.items():
        words[family].update(family.split("_"))
        words[family].add(relation.split("_")[0])
    return words


def relevant_rows(question: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the keyed facts whose relation family the question names ("live" → residence);
    all of them when it names none."""
    asked = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
    asked |= {w[:-1] for w in asked if w.endswith("s")}
    words = _family_words()
    named = {family for family, cues in words.items() if cues & asked}
    if not named:
        return list(rows)
    return [row for row in rows if str(row["key"]).rsplit("|", 1)[-1] in named]


def resolve_current(
    rows: Sequence[dict[str, Any]], pool: dict[str, Candidate]
) -> list[dict[str, Any]]:
    """Apply latest-wins per key to ``pool`` (turn id → candidate) in place.

    Args:
        rows: keyed fact rows (``read/keyed_facts_about``): fact_id, key, serial, valid_from,
            text, cites.
        pool: the candidate turns; only turns already in the pool are re-scored.

    Returns:
        one decision per key: ``{"key", "winner", "text", "superseded": [fact ids]}``.
    """
    by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_key[row["key"]].append(row)
    decisions: list[dict[str, Any]] = []
    winners: set[str] = set()
    losers: set[str] = set()
    for key in sorted(by_key):
        ordered = sorted(by_key[key], key=_order)
        winner = ordered[-1]
        superseded = [r["fact_id"] for r in ordered[:-1]]
        decision = {
            "key": key,
            "winner": winner["fact_id"],
            "text": winner["text"],
            "superseded": superseded,
        }
        decisions.append(decision)
        for turn in winner["cites"]:
            winners.add(turn)
            if turn in pool:
                pool[turn].bonus["current"] = CURRENT_BONUS
                pool[turn].trace["current"] = decision
        for row in ordered[:-1]:
            losers.update(row["cites"])
    for turn in losers - winners:
        if turn in pool:
            pool[turn].bonus["current"] = -CURRENT_BONUS
            pool[turn].trace["superseded"] = True
    return decisions
