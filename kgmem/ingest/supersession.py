"""Supersession keys: which facts a newer fact replaces, decided in code, never by a reader.

A *single-valued* relation has one current value per subject: where someone lives, who employs
them, their job, their relationship status, a current favourite, the date a plan is set for. Its
facts get the key ``f"{subject}|{family}"``, where the *family* groups relations that answer the
same question ("live_in" and "move_to" are both *residence*, so "I moved to Lisbon" replaces
"I live in Berlin"). On one key, a newer fact (higher ``serial``, then later ``valid_from``, then
the larger ``id`` as a deterministic tie-break) supersedes its immediate predecessor; the graph
keeps both, linked by ``SUPERSEDES`` (docs/design.md §1, §3.6; the "latest serial wins" rule is the
one MemoryAgentBench FactConsolidation, Hu et al. ICLR 2026, scores).

Multi-valued relations ("like", "visit", "read", "have_hobby", …) are not in `SINGLE_VALUED` and
never get a key. Two kinds of single-valued facts get no key either, because they do not claim
to *replace* the current value (checked on the fact's ``text``, see `_ADDITIVE`, `_RETROSPECTIVE`):

- **additive** facts: "I *also* started a *second* job at X", "*another* job", "a side job",
  "as well", "in addition", "…, too": the first job is still true;
- **retrospective** facts: "I *used to* live in Berlin", "*previously*", "*formerly*",
  "*no longer*": they talk about an old value, and must not overwrite a newer one.

Relation names are the extractor's lemma-based snake_case (``live_in``, ``work_at``, ``be``); they
are normalised (case, spaces and hyphens) before lookup. ``favorite_*`` / ``favourite_*`` relations
are single-valued per thing ("favorite_book" is its own family). A few generic relations are
single-valued only by their object: ``be`` + a relationship status word ("single", "married"),
``lose`` / ``quit`` / ``leave`` + "job" (the employer becomes none).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from types import MappingProxyType

from kgmem.models import FactRecord

__all__ = [
    "SINGLE_VALUED",
    "assign_keys",
    "current",
    "relation_family",
    "supersession_chain",
    "supersession_key",
]

_FAMILIES: dict[str, tuple[str, ...]] = {
    "residence": (
        "live_in",
        "live_at",
        "move_to",
        "move_into",
        "relocate_to",
        "reside_in",
        "settle_in",
        "be_based_in",
    ),
    "employer": (
        "work_at",
        "work_for",
        "be_employed_by",
        "be_employed_at",
        "be_hired_by",
        "get_job_at",
        "start_job_at",
        "start_work_at",
        "start_working_at",
    ),
    "occupation": (
        "work_as",
        "be_employed_as",
        "be_hired_as",
        "get_job_as",
        "start_job_as",
        "start_work_as",
        "start_working_as",
        "have_job_as",
    ),
    "relationship_status": (
        "be_married_to",
        "marry",
        "get_married_to",
        "date",
        "be_dating",
        "be_engaged_to",
        "get_engaged_to",
        "divorce",
        "get_divorced_from",
        "break_up_with",
        "split_up_with",
        "be_single",
        "be_divorced",
    ),
    "school": ("study_at", "be_student_at", "enroll_at", "enroll_in", "attend_school"),
    "major": ("major_in",),
    "scheduled_date": (
        "be_scheduled_for",
        "be_planned_for",
        "be_set_for",
        "reschedule_to",
        "postpone_to",
    ),
    "age": ("be_aged", "turn_age"),
    "name": ("be_named", "be_called", "change_name_to"),
}

SINGLE_VALUED: Mapping[str, str] = MappingProxyType(
    {relation: family for family, relations in _FAMILIES.items() for relation in relations}
)
"""Single-valued relation (normalised snake_case lemma) → relation family."""

_STATUS_WORDS = ("single", "married", "divorced", "engaged", "widowed", "separated", "dating")
_JOB_WORDS = ("job", "position", "post", "role")
_BY_OBJECT: dict[str, tuple[tuple[str, ...], str]] = {
    # generic relation -> (object head words that make it single-valued, family)
    "be": (_STATUS_WORDS, "relationship_status"),  # "I am single"
    "lose": (_JOB_WORDS, "employer"),  # "I lost my job at X": the employer is now none
    "quit": (_JOB_WORDS, "employer"),
    "leave": (_JOB_WORDS, "employer"),
}
_FAVORITE = re.compile(r"^favou?rite_(?P<thing>\w+)$")
_ADDITIVE = re.compile(
    r"\b(?:also|another|second|third|additional|extra|side\s+(?:job|gig|hustle)|as\s+well"
    r"|in\s+addition|additionally|besides|on\s+top\s+of|both)\b|\btoo\s*(?:[.!?,;]|$)",
    re.I,
)
_RETROSPECTIVE = re.compile(
    r"\b(?:used\s+to|previously|formerly|no\s+longer|not\s+anymore|once\s+lived|back\s+then)\b",
    re.I,
)
_EPOCH = datetime.min.replace(tzinfo=UTC)


def _normalise(relation: str) -> str:
    return re.sub(r"[\s\-]+", "_", relation.strip().lower())


def _object_head(obj: str) -> str:
    """Last word of a literal or entity-id object: ``"conv-30:e:other:job"`` -> ``"job"``."""
    words = re.split(r"[\s_\-]+", obj.rsplit(":", 1)[-1].strip().lower())
    return words[-1] if words else ""


def relation_family(relation: str) -> str | None:
    """The family of a single-valued relation, or None for a multi-valued one.

    Args:
        relation: the fact's relation, e.g. ``"live_in"``, ``"Move To"``, ``"favourite_book"``.

    Returns:
        ``"residence"``, ``"employer"``, …, ``"favorite_<thing>"`` for favourites; None when
        the relation is multi-valued or unknown ("like", "visit", "be").
    """
    rel = _normalise(relation)
    fav = _FAVORITE.match(rel)
    if fav:
        return f"favorite_{fav['thing']}"
    return SINGLE_VALUED.get(rel)


def supersession_key(fact: FactRecord) -> str | None:
    """The supersession key ``"<subject>|<family>"`` of a fact, or None.

    The subject is stripped and case-folded. A few generic relations are single-valued by their
    object (`_BY_OBJECT`): ``be`` + a status word ("single") is ``relationship_status``;
    ``lose`` / ``quit`` / ``leave`` + "job" is ``employer`` (its value becomes "none").

    Returns:
        None for multi-valued relations, for facts whose text marks them additive ("also", "a
        second job", "another", "…, too") or retrospective ("used to", "no longer"), and for an
        empty subject.
    """
    family = relation_family(fact.relation)
    rule = _BY_OBJECT.get(_normalise(fact.relation))
    if family is None and rule is not None and _object_head(fact.object) in rule[0]:
        family = rule[1]
    subject = fact.subject.strip().casefold()
    if family is None or not subject:
        return None
    if _ADDITIVE.search(fact.text) or _RETROSPECTIVE.search(fact.text):
        return None
    return f"{subject}|{family}"


def assign_keys(facts: Sequence[FactRecord]) -> list[FactRecord]:
    """Copies of ``facts`` with ``key`` set by `supersession_key` (same order).

    A fact that already carries a key (set by a loader that knows its own relations, e.g. the
    numbered-facts loader) keeps it.
    """
    return [
        f if f.key is not None else f.model_copy(update={"key": supersession_key(f)}) for f in facts
    ]


def _order(fact: FactRecord) -> tuple[int, datetime, str]:
    """Arrival order: serial, then valid_from (unknown first, naive read as UTC), then id."""
    when = fact.valid_from or _EPOCH
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return fact.serial, when, fact.id


def _key(fact: FactRecord) -> str | None:
    return fact.key if fact.key is not None else supersession_key(fact)


def supersession_chain(facts: Sequence[FactRecord]) -> list[tuple[str, str]]:
    """``(newer_id, older_id)`` pairs: each keyed fact supersedes its immediate predecessor.

    Facts are grouped by (conversation, key) — ``fact.key`` when set, else `supersession_key` —
    and ordered by serial, then valid_from, then id. Facts without a key take no part. Pairs are
    returned grouped by key (keys sorted), oldest pair first; a fact listed twice (same id)
    counts once.

    Returns:
        e.g. ``[("f-lisbon", "f-berlin")]`` for "I live in Berlin" (serial 1) and "I moved to
        Lisbon" (serial 2).
    """
    groups: dict[tuple[str, str], dict[str, FactRecord]] = defaultdict(dict)
    for fact in facts:
        key = _key(fact)
        if key is not None:
            groups[(fact.conversation_id, key)][fact.id] = fact
    pairs: list[tuple[str, str]] = []
    for group_key in sorted(groups):
        ordered = sorted(groups[group_key].values(), key=_order)
        pairs.extend((newer.id, older.id) for older, newer in pairwise(ordered))
    return pairs


def current(facts: Sequence[FactRecord], key: str) -> FactRecord | None:
    """The current value on ``key``: the latest by serial, then valid_from, then id.

    Args:
        facts: facts of one conversation (keys embed the subject, not the conversation).
        key: a supersession key, ``"<subject>|<family>"``.

    Returns:
        The winning fact, or None when no fact has that key.
    """
    on_key = [f for f in facts if _key(f) == key]
    return max(on_key, key=_order) if on_key else None
