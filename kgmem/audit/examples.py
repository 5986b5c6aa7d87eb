"""The three questions the audit shows (notebook, ``make figures``), picked by what they exercise.

Never by id or text, so any LoCoMo-layout file (or the shipped sample chat) gives its own:

- ``multi-hop``: the first LoCoMo category-1 question with two or more gold turns of which one
  is outside the top ``k`` (else the first such question, else the first category-1 one);
- ``current value``: the first question for which the search made a current- or past-value
  decision (else the first the planner reads as asking what holds now);
- ``temporal``: the first category-2 question not picked yet.

Each search asks for the whole scored pool (`kgmem.audit.picture.POOL_K`), as the picture does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kgmem.audit.model import POOL_K
from kgmem.config import DEFAULT_K

if TYPE_CHECKING:
    from kgmem.api import Memory
    from kgmem.models import QuestionRecord
    from kgmem.retrieve.retriever import SearchResult

__all__ = ["EXAMPLE_KINDS", "pick_examples"]

#: the kinds of question shown, in order
EXAMPLE_KINDS: tuple[str, ...] = ("multi-hop", "current value", "temporal")


def pick_examples(
    memory: Memory, questions: Sequence[QuestionRecord], conversation_id: str, k: int = DEFAULT_K
) -> dict[str, QuestionRecord]:
    """One question per kind of `EXAMPLE_KINDS` (see the module docstring), each different.

    Args:
        memory: a connected memory holding the conversation.
        questions: its questions with gold evidence (LoCoMo categories 1-4).
        conversation_id: the conversation.
        k: the cut-off a gold turn must miss for the multi-hop pick.

    Returns:
        kind -> question; a kind is left out only when ``questions`` is empty.

    Raises:
        ConversationNotFound, StoreError: as `Memory.search`.
    """
    searched: dict[str, SearchResult] = {}
    picked: dict[str, QuestionRecord] = {}

    def result(q: QuestionRecord) -> SearchResult:
        if q.id not in searched:
            searched[q.id] = memory.search(q.question, conversation_id, POOL_K)
        return searched[q.id]

    def first(
        pool: Sequence[QuestionRecord], test: Callable[[QuestionRecord], bool]
    ) -> QuestionRecord | None:
        taken = {p.id for p in picked.values()}
        return next((q for q in pool if q.id not in taken and test(q)), None)

    def missed(q: QuestionRecord) -> bool:
        top = {h.turn_id for h in result(q).hits[:k]}
        return any(g not in top for g in q.evidence)

    if not questions:
        return picked
    multi = [q for q in questions if q.category == 1]
    wide = [q for q in multi if len(q.evidence) >= 2] or multi or list(questions)
    picked["multi-hop"] = first(wide, missed) or wide[0]
    current = first(questions, lambda q: bool(result(q).current)) or first(
        questions, lambda q: result(q).plan.get("state") == "current"
    )
    picked["current value"] = current or first(questions, lambda q: True) or questions[0]
    temporal = [q for q in questions if q.category == 2] or list(questions)
    picked["temporal"] = first(temporal, lambda q: True) or temporal[0]
    return picked
