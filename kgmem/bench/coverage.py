"""What a LoCoMo run covers: its questions (the ``counts`` section of `kgmem.bench.locomo`'s
report) and how well each fact source covers their gold evidence (``coverage``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from kgmem.api import Memory
from kgmem.models import ConversationRecord, QuestionRecord

__all__ = ["fact_coverage", "question_counts"]


def fact_coverage(
    memory: Memory, records: Sequence[ConversationRecord], scored: Sequence[QuestionRecord]
) -> dict[str, Any]:
    """How well each fact source covers the gold evidence.

    Returns:
        ``gold_turns_cited``: share of gold turns (category 1-4) cited by at least one fact,
        ``{source: {"all"|"1".."4": share}}`` for sources ``annotation``, ``extracted``, ``any``;
        ``facts_per_turn``: mean facts per turn for each source; ``temporal_dated``: share of
        temporal (category 2) questions whose gold turns carry a fact with a resolved
        ``event_time``.
    """
    per_turn: dict[str, dict[str, int]] = {}
    for record in records:
        for row in memory.store.read(
            "bench/turn_fact_coverage", conversation_id=record.conversation_id
        ):
            per_turn[row["turn_id"]] = row
    n_turns = max(len(per_turn), 1)
    sources = ("annotation", "extracted", "any")

    def cited(turn: str, source: str) -> bool:
        row = per_turn.get(turn)
        if row is None:
            return False
        return bool(row["annotation"] or row["extracted"]) if source == "any" else bool(row[source])

    covered: dict[str, dict[str, float]] = {}
    for source in sources:
        covered[source] = {}
        for key in ("all", "1", "2", "3", "4"):
            gold = [t for q in scored if key in ("all", str(q.category)) for t in q.evidence]
            covered[source][key] = sum(cited(t, source) for t in gold) / len(gold) if gold else 0.0
    temporal = [q for q in scored if q.category == 2 and q.evidence]
    dated = sum(any(per_turn.get(t, {}).get("dated") for t in q.evidence) for q in temporal)
    return {
        "gold_turns_cited": covered,
        "facts_per_turn": {
            s: sum(row[s] for row in per_turn.values()) / n_turns
            for s in ("annotation", "extracted")
        },
        "temporal_dated": dated / len(temporal) if temporal else 0.0,
    }


def question_counts(
    records: Sequence[ConversationRecord],
    questions: Sequence[QuestionRecord],
    scored: Sequence[QuestionRecord],
) -> dict[str, Any]:
    """The report's ``counts``: questions by category, scored, without evidence, turns."""
    by_category = Counter(str(q.category) for q in questions)
    return {
        "questions": len(questions),
        "scored": sum(1 for q in scored if q.evidence),
        "adversarial": by_category.get("5", 0),
        "by_category": dict(sorted(by_category.items())),
        "unresolved_evidence": sum(len(q.unresolved_evidence) for q in questions),
        "no_evidence": sum(1 for q in scored if not q.evidence),
        "turns": sum(len(r.turns) for r in records),
    }
