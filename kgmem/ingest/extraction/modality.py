"""Modality of an extracted clause: does it say something *is* so, or only might be, will be,
is asked, or was said by someone else?

Rules read the clause head's dependency children and its sentence (spaCy English parse), in
this order of precedence (the first that fires wins):

- ``reported``: the clause is the complement of a reporting verb (`REPORTING`: "Pia *told* me
  she can't stand jazz", "Tomas *says* the budget is fine") whose subject is not the speaker.
  The fact is about the reported content's subject; the reporting verb's subject is recorded as
  the informant, the speaker as the reporter.
- ``question``: the sentence ends with "?".
- ``hypothetical``: a modal of possibility or condition on the head (would, could, might, may,
  should, 'd), an ``if``/``unless`` condition in or above the clause ("If I get the grant, I'd
  buy …"), a hedge adverb (maybe, perhaps, possibly, probably), or the complement of a wish
  verb (hope, wish, imagine, consider, think about).
- ``planned``: future or intention — will/shall/'ll, "going to" / "gonna" + verb, "about to",
  plan/intend/aim/mean/want/hope + to-infinitive ("I'm planning to move"), or a resolved
  event time that starts after the turn was said ("… next week").
- ``negated``: a negation on the head (not, n't, never, no longer).
- ``asserted``: everything else.

Only ``asserted`` and ``negated`` facts take part in current values
(`kgmem.ingest.extraction.supersession.supersession_key`). The cue lists are generic English
function words (Quirk et al., *A Comprehensive Grammar of the English Language*, ch. 4 on modality).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from kgmem.models import Modality, TimeInterval

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["CURRENT_MODALITIES", "REPORTING", "clause_modality", "reporting_subject"]

#: the modalities that take part in current values and supersession
CURRENT_MODALITIES: frozenset[str] = frozenset({"asserted", "negated"})

#: verbs that report what someone else said or thinks (lemmas)


def _words(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


REPORTING = _words(
    "tell say mention report claim explain admit complain write text warn announce confess "
    "insist reckon swear promise "
)
_HYPOTHETICAL_MODALS = frozenset({"would", "could", "might", "may", "should", "'d", "ought"})
_FUTURE_MODALS = frozenset({"will", "shall", "'ll", "wo"})
_HEDGES = frozenset({"maybe", "perhaps", "possibly", "probably", "hopefully"})
_WISH_HEADS = frozenset({"hope", "wish", "imagine", "consider", "dream", "wonder", "suppose"})
_INTENT = frozenset({"plan", "intend", "aim", "mean", "want", "hope", "decide", "prepare"})
_CONDITION_MARKS = frozenset({"if", "unless", "whether"})


def reporting_subject(head: Token) -> Token | None:
    """The subject of the reporting verb that governs ``head``, when ``head`` is its reported
    complement ("told me [she can't stand jazz]" → the token of "Pia"); else None."""
    parent = head.head
    if head.dep_ not in ("ccomp", "conj") or parent.i == head.i:
        return None
    if head.dep_ == "conj":  # "she said she moved and loves it": inherit from the first conjunct
        return reporting_subject(parent) if parent.dep_ == "ccomp" else None
    if parent.lemma_.lower() not in REPORTING:
        return None
    return next((c for c in parent.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _is_speaker(token: Token) -> bool:
    return token.lower_ in ("i", "we")


def clause_modality(
    head: Token,
    *,
    event_time: TimeInterval | None = None,
    said_at: datetime | None = None,
) -> Modality:
    """The modality of the clause headed by ``head`` (see the module docstring for the rules).

    Args:
        head: the clause's head verb or copula.
        event_time: the clause's resolved event time, if any.
        said_at: when the turn was said (timezone-aware); with ``event_time`` it marks a
            future-dated clause as ``planned``.
    """
    reporter = reporting_subject(head)
    if reporter is not None and not _is_speaker(reporter):
        return "reported"
    sent = head.sent
    if sent.text.rstrip().endswith("?"):
        return "question"
    children = list(head.children)
    aux = [c for c in children if c.dep_ in ("aux", "auxpass")]
    aux_words = {c.lower_ for c in aux}
    if aux_words & _HYPOTHETICAL_MODALS or any(
        c.tag_ == "MD" and c.lower_ in _HYPOTHETICAL_MODALS for c in aux
    ):
        return "hypothetical"
    if any(c.lower_ in _HEDGES for c in children if c.dep_ == "advmod"):
        return "hypothetical"
    if any(c.dep_ == "mark" and c.lower_ in _CONDITION_MARKS for c in children):
        return "hypothetical"
    # the consequent of a condition: the head governs an "if"-clause
    if any(
        c.dep_ == "advcl"
        and any(m.dep_ == "mark" and m.lower_ in _CONDITION_MARKS for m in c.children)
        for c in children
    ):
        return "hypothetical"
    ancestor = head
    while ancestor.dep_ in ("xcomp", "ccomp", "conj") and ancestor.head.i != ancestor.i:
        parent = ancestor.head
        if ancestor.dep_ == "ccomp" and parent.lemma_.lower() in _WISH_HEADS:
            return "hypothetical"
        if ancestor.dep_ == "xcomp" and parent.lemma_.lower() in _INTENT and parent.tag_ != "VBD":
            return "planned"  # "I want to move", not "I wanted to feel closer"
        ancestor = parent
    if aux_words & _FUTURE_MODALS:
        return "planned"
    if _going_to(head) or _going_to(head.head):
        return "planned"
    xcomp = next((c for c in children if c.dep_ == "xcomp"), None)
    if head.lemma_.lower() in _INTENT and xcomp is not None and head.tag_ != "VBD":
        return "planned"
    if (
        event_time is not None
        and said_at is not None
        and event_time.start > said_at
        and not any(c.tag_ == "VBD" for c in (head, *aux))
    ):
        return "planned"
    if any(c.dep_ == "neg" for c in children):
        return "negated"
    if any(c.lower_ in ("longer", "anymore") and c.dep_ == "advmod" for c in head.subtree) and any(
        c.lower_ == "no" for c in head.subtree
    ):
        return "negated"
    return "asserted"


def _going_to(head: Token) -> bool:
    """``head`` is "going"/"gon" (or "about") with a to-infinitive complement."""
    if head.lower_ not in ("going", "gon", "about") or head.tag_ not in ("VBG", "IN", "RB", "JJ"):
        return False
    return any(
        c.dep_ == "xcomp" and any(a.tag_ == "TO" for a in c.children) for c in head.children
    ) or (head.lower_ == "gon")
