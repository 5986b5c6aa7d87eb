"""The answer itself: the fact that gives the asked attribute its value, with its evidence.

When a question asks for an attribute (`kgmem.retrieve.asked`) and current/past-value
resolution (`kgmem.retrieve.resolve`) chose a value on a key of that attribute, `answer_of`
reads that fact (``read/fact_answers``, one round trip, only then) and returns it as
`SearchResult.answer <kgmem.retrieve.retriever.SearchResult>`:

``{"subject", "attribute", "value", "value_type", "valid_from", "valid_to", "turn_id",
"fact_id", "text", "why", "key", "negated"}`` — the holder's entity id, the attribute and its
typed value, the validity interval (ISO 8601; ``valid_to`` None while current), the first turn
the fact cites (the evidence an agent should quote), and why it won (the decision's reason: "latest
value", "valid during March 2026", "value before the one naming 'Ghent'", …). When the
chosen fact is a retraction ("I don't drink lattes any more", modality ``negated``), ``negated``
is True and ``why`` begins with "retracted": the value is what no longer holds, never a value
to give as current. A superseded value is never chosen as the latest value
(`kgmem.retrieve.resolve`: the latest on its key wins).

Whole turns mix entities and values; the fact is what a reader should take first, with the turn
as its evidence. None when the question asks for no attribute or no decision is on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgmem.retrieve.answerable import JOB
from kgmem.retrieve.question import Question
from kgmem.store import Store
from kgmem.turns import conversation_of

__all__ = ["answer_of", "asked_decision"]


def asked_decision(
    question: Question, decisions: Sequence[dict[str, Any]]
) -> dict[str, Any] | None:
    """The decision on the attribute the question asks for: one marked ``answer``, else the
    first whose key's attribute is the asked one (or one that answers it, `JOB`)."""
    ask = question.ask
    if ask is None:
        return None
    accept = {ask.attribute, *ask.also}
    if accept & JOB:
        accept |= JOB
    marked = [d for d in decisions if d.get("answer")]
    if marked:
        return marked[0]
    for decision in decisions:
        parts = str(decision.get("key", "")).split("|")
        if len(parts) > 1 and parts[1] in accept:
            if ask.thing and len(parts) > 2 and parts[2] != ask.thing:
                continue
            return decision
    return None


def answer_of(
    store: Store, conversation_id: str, question: Question, decisions: Sequence[dict[str, Any]]
) -> dict[str, Any] | None:
    """`SearchResult.answer` (module docstring), or None."""
    decision = asked_decision(question, decisions)
    if decision is None:
        return None
    winner = str(decision["winner"])
    # an owner search has no one conversation: a fact id starts with its conversation's id
    cid = conversation_id or conversation_of(winner)
    rows = store.read("read/fact_answers", conversation_id=cid, fact_ids=[winner])
    if not rows:
        return None
    row = rows[0]
    cites = list(row["cites"] or [])
    negated = row.get("modality") == "negated"
    return {
        "subject": row["holder"] or row["subject"],
        "attribute": row["attribute"],
        "value": row["value"] if row["value"] is not None else row["object"],
        "value_type": row["value_type"],
        "valid_from": row["valid_from"],
        "valid_to": row["valid_to"],
        "turn_id": cites[0] if cites else None,
        "fact_id": row["fact_id"],
        "text": row["text"],
        "why": f"retracted: {decision.get('reason')}" if negated else decision.get("reason"),
        "key": decision.get("key"),
        "negated": negated,
    }
