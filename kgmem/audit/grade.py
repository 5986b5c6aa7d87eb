"""The EXACT / SUPPORTED grades of one question (docs/design.md §4), as the notebook shows them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgmem.config import DEFAULT_K

if TYPE_CHECKING:
    from kgmem.api import Memory
    from kgmem.models import QuestionRecord
    from kgmem.retrieve.retriever import SearchResult

__all__ = ["grade"]


def grade(
    memory: Memory, question: QuestionRecord, result: SearchResult, k: int = DEFAULT_K
) -> dict[str, Any]:
    """The EXACT and SUPPORTED grades of one question's top-``k`` hits (docs/design.md §4).

    EXACT: a gold turn is in the top ``k``. SUPPORTED: a top-``k`` turn is gold, shares a fact
    with a gold turn (one ``Fact`` CITES both), or contains the normalised gold answer string
    (the rule of `kgmem.bench.locomo`, so that notebook and benchmark agree).

    Args:
        memory: a connected memory.
        question: a question with gold evidence ids (LoCoMo layout).
        result: the search result for ``question.question``.
        k: cut-off.

    Returns:
        ``{"question_id", "category", "question", "exact": bool, "supported": bool,
        "gold": [ids], "gold_ranks": {id: 1-based rank or None}}``.
    """
    from kgmem.bench.locomo import evidence_support
    from kgmem.bench.metrics import normalize_answer

    top = result.hits[:k]
    top_ids = [hit.turn_id for hit in top]
    gold = set(question.evidence)
    support = evidence_support(memory, question.evidence)
    answer = normalize_answer(question.answer)
    contains = bool(answer) and any(answer in normalize_answer(hit.text) for hit in top)
    return {
        "question_id": question.id,
        "category": question.category,
        "question": question.question,
        "exact": bool(gold & set(top_ids)),
        "supported": bool(support & set(top_ids)) or contains,
        "gold": list(question.evidence),
        "gold_ranks": {g: (top_ids.index(g) + 1 if g in top_ids else None) for g in gold},
    }
