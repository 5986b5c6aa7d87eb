"""The answerability stage of the linked retriever: whether memory supports the question for
the persons it names (`answerability`), from the rules of `kgmem.retrieve.answerable` and the
trained decision of `kgmem.retrieve.answerable_model`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from kgmem.models import Hit
from kgmem.retrieve.answerable import (
    NOT_PERSONS,
    Support,
    attribute_verdict,
    decide,
    holder_gap,
    judge,
    speaker_person,
)
from kgmem.retrieve.answerable_model import combine, trained_support
from kgmem.retrieve.request_read import RequestRead
from kgmem.store import Store

__all__ = ["answerability", "speaker_gap"]


def answerability(
    store: Store,
    read: RequestRead,
    hits: Sequence[Hit] = (),
    holder: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Whether memory supports the question of ``read`` (its plan) for the persons it names,
    `RequestRead.persons` (`kgmem.retrieve.answerable.judge` on the question's key terms, then
    `decide` with the speaker gap of ``hits``, the whole ranked pool, and the holder gap of
    ``holder``, the facts nearest the question that `linked_read` returned when the question
    names a person, `LinkedPools.holder`; the support read is one round trip, cached per
    conversation when ``as_of`` is None); then the trained decision on the held facts
    (`kgmem.retrieve.answerable_model`, on the question's embedding) may overrule the rules
    past its thresholds.

    Returns:
        ``{"answerable", "unsupported", "terms", "persons", "reason", "best_own",
        "best_other", "asked", "in_memory", "fact_rule", "speaker_gap", "holder_gap",
        "trained", "trained_fact"}`` (the last nine: the features, for calibration;
        `kgmem.retrieve.answerable.unanswerable`, `kgmem.retrieve.answerable.decide`).

    Raises:
        StoreError: Neo4j failed.
    """
    qplan, context, persons = read.plan, read.context, list(read.persons)
    support = _support(store, read) or Support((), frozenset())
    gap = speaker_gap(hits, qplan.speakers, context.roles)
    # the rules (`kgmem.retrieve.answerable`), then the trained decision over them
    decision = judge(qplan.reading, persons, support)
    ids = {entity_id for entity_id, _ in persons}
    held = holder_gap(holder, ids, speaker_person) if persons else None
    ruled = not decide(not decision.answerable, gap, held, in_memory=decision.in_memory)
    verdict = attribute_verdict(qplan.reading.ask, persons, support)
    trained, trained_fact = (
        trained_support(read.embedding, qplan.reading, holder, ids, speaker_person)
        if persons
        else (None, None)
    )
    answerable = combine(ruled, trained)
    reason = decision.reason
    if verdict is not None:  # the asked attribute decides where it has an opinion
        answerable, reason = verdict.answerable, verdict.reason
        decision = replace(decision, unsupported=verdict.unsupported or decision.unsupported)
    elif answerable != ruled:
        reason = (
            f"the trained decision: {trained_fact} answers the question ({trained:.2f})"
            if answerable
            else f"the trained decision: no fact the person holds answers ({trained:.2f})"
        )
    elif answerable != decision.answerable:
        who = ", ".join(decision.persons) or "the person asked about"
        reason = (
            f"what others said matches the question better than what {who} said (speaker "
            f"gap {gap:.2f})"
            if not answerable and gap is not None
            else f"{decision.reason}; but facts {who} holds match the question as well as "
            f"anyone's (holder gap {held:.2f})"
            if held is not None
            else decision.reason
        )
    return {
        "answerable": answerable,
        "unsupported": list(decision.unsupported),
        "terms": list(decision.terms),
        "persons": list(decision.persons),
        "reason": reason,
        "best_own": decision.best_own,
        "best_other": decision.best_other,
        "asked": decision.asked,
        "in_memory": decision.in_memory,
        "fact_rule": not decision.answerable,
        "speaker_gap": gap,
        "holder_gap": held,
        "trained": trained,
        "trained_fact": trained_fact,
    }


def _support(store: Store, read: RequestRead) -> Support | None:
    """What the conversations' persons said and hold (``read/person_support``; read only when
    the question is about a person and not cached), cached per conversation when ``as_of`` is
    None until the conversation is written to."""
    context, as_of = read.context, read.as_of
    support = context.support.get(as_of)
    if support is None and read.persons:
        rows = store.read(
            "read/person_support", conversation_ids=list(read.conversation_ids), as_of=as_of
        )
        support = Support.from_rows(rows)
        if as_of is None:
            context.support[as_of] = support
    return support


def speaker_gap(
    hits: Sequence[Hit], speakers: Sequence[str], roles: Mapping[str, str] | None = None
) -> float | None:
    """The best score of a hit said by any other person than the one speaker the question
    names minus the best score (without its ``speaker`` term) of a hit said by that speaker;
    None unless exactly one speaker is named and both sides have a hit
    (`kgmem.retrieve.answerable.decide`). Speakers whose role (``roles``) is in
    `kgmem.retrieve.answerable.NOT_PERSONS` are no other person: an assistant's replies are
    not what someone else holds. Scores are the scorer's sums (unbounded; typically within
    [-1, 3]) without the ``stand_in`` term, as the gap's thresholds were chosen."""
    if len(speakers) != 1:
        return None
    own = [_matched(h) - h.terms.get("speaker", 0.0) for h in hits if h.speaker == speakers[0]]
    other = [
        _matched(h)
        for h in hits
        if h.speaker != speakers[0] and (roles or {}).get(h.speaker) not in NOT_PERSONS
    ]
    if not own or not other:
        return None
    return round(max(other) - max(own), 6)


def _matched(hit: Hit) -> float:  # the score without the turn's own text standing in
    return hit.score - hit.terms.get("stand_in", 0.0)
