"""Supersession keys: which facts a newer fact replaces, decided in code, never by a reader.

A *single-valued* relation has one current value per subject: where someone lives, who employs
them, their job, their relationship status, a current favourite, the date a plan is set for. Its
facts get the key ``f"{subject}|{family}"``, where the *family* groups relations that answer the
same question ("live_in" and "move_to" are both *residence*, so "I moved to Lisbon" replaces
"I live in Berlin"). On one key, a newer fact (higher ``serial``, then later ``valid_from``, then
the larger ``id`` as a deterministic tie-break) supersedes its immediate predecessor; the graph
keeps both, linked by ``SUPERSEDES`` (docs/design.md §1, §3.6; the "latest serial wins" rule is the
one MemoryAgentBench FactConsolidation, Hu et al. ICLR 2026, scores).

Families beyond the relation table (conversation rarely uses its keys) are read off the
relation's verb and the object's words (`classify`):

- **single-valued** — a later *asserted* (or negated) fact with the same subject and family
  supersedes the earlier one: residence (live/move/relocate/settle, renting a flat),
  employer, occupation, assignment (working on / leading X, being on a team or project),
  school, relationship status, usual drink (drink/like/switch to/go off + a drink word),
  diet (vegan, vegetarian, …);
- **multi-valued** — pets (an animal word), owned items (own/buy/sell/lose + a thing), hobbies
  and clubs (play/practise/join/quit …), health conditions (allergic to, have asthma), likes
  (like/love/enjoy/hate): their key carries the object's head word
  (``"<subject>|pets|dog"``), so "we also got a cat" leaves the dog current and only a later
  fact naming the same object (a change cue: "we gave the dog away", "I sold my bike", "I
  don't like sushi anymore") supersedes it.

**Modality** (`kgmem.ingest.extraction.modality`): only ``asserted`` and ``negated`` facts get a
key; a plan, a hypothetical, a question or something someone else said never changes a current
value.

**Retractions** ("I don't drink lattes anymore", "no longer", "not … anymore"): a negated fact
of the family gets the key and so ends the old value's validity even when no replacement is
given; the current value is then the retraction itself (modality ``negated``). Formerly
"no longer" / "not anymore" were read as retrospective and got no key; that was changed
deliberately, since in conversation they announce a change of state ("I'm no longer at Acme").
"used to", "previously", "formerly", "back then" still mark a fact as retrospective (no key),
and additive words ("also", "another", "a second", "as well", "…, too") still keep a
single-valued fact from replacing the value.

Every ``SUPERSEDES`` link carries the ``cue`` that fired (`CHANGE_CUE`: "moved", "switched
to", "no longer", "gave up", "gone off", "quit", "stopped", "left", "pulled off", "taken off",
"instead", "sold", "lost", "now", …; else ``"later value"``) and a ``confidence``: 0.9 with an
explicit change cue, 0.7 when a later single-valued assertion alone implies the change.

The families, their multiplicity, the relations that key them and the question words that name
them come from the attribute vocabulary (``kgmem/data/attributes.json``: ``multiplicity``,
``relations``, ``questions``, ``state_words``); this module keeps only the words `classify`
reads a family by.

Relation names are the extractor's lemma-based snake_case (``live_in``, ``work_at``, ``be``,
``not_drink``); they are normalised (case, spaces and hyphens) before lookup.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from types import MappingProxyType

from kgmem.ingest.extraction.attributes import attribute_key, vocabulary
from kgmem.models import FactRecord
from kgmem.store.tenant import key_holder

__all__ = [
    "CHANGE_CUE",
    "FAMILY_WORDS",
    "MULTI_VALUED",
    "SINGLE_VALUED",
    "Link",
    "assign_keys",
    "change_cue",
    "classify",
    "current",
    "relation_family",
    "restates",
    "supersession_chain",
    "supersession_key",
    "supersession_links",
]

_VOCABULARY = vocabulary().attributes.values()  # the families: kgmem/data/attributes.json

SINGLE_VALUED: Mapping[str, str] = MappingProxyType(
    {relation: a.id for a in _VOCABULARY for relation in a.relations}
)
"""Single-valued relation (normalised snake_case lemma) → relation family: each attribute's
``relations`` in ``kgmem/data/attributes.json``."""

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
    r"\b(?:used\s+to|previously|formerly|once\s+lived|back\s+then)\b",
    re.I,
)
CHANGE_CUE = re.compile(
    r"\b(?:moved|relocated|switched|changed|transferred|no\s+longer|not\b[^.;!?]{0,40}?"
    r"\b(?:any\s?more|these\s+days)|gave\s+up|given\s+up|giving\s+up|gone\s+off|went\s+off"
    r"|quit|stopped|left|pulled\s+(?:\w+\s+)?off|taken\s+(?:\w+\s+)?off|took\s+(?:\w+\s+)?off"
    r"|instead|sold|lost|gave\s+(?:\w+\s+){0,2}away|rehomed|now|these\s+days|nowadays)\b",
    re.I,
)
"""Change cues, words that announce a new value (moved/relocated/switched/changed to, no
longer, not … anymore, gave up, gone off, quit, stopped, left, pulled/taken off, instead, sold,
lost, now)."""

MULTI_VALUED = frozenset(a.id for a in _VOCABULARY if a.multiplicity == "multi")
"""Families where a subject holds several values at once (the attributes whose multiplicity is
``multi``: pets, owned things, hobbies, health, likes, children, languages); keys carry the
object's head word."""


def _nouns(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _value_words(attribute: str) -> frozenset[str]:
    """The one-word ``values`` of ``attribute`` in `kgmem/data/attributes.json`, each also with
    an English plural "s" / "es" / "ies" ("latte", "lattes"; "puppy", "puppies"): the words
    `classify` reads a drink, a diet or a pet by. A word that is a value's plural already
    ("chickens": "I had chicken" is a meal) is listed in its plural."""
    words = {v.lower() for v in vocabulary().attributes[attribute].values if " " not in v}
    return frozenset(words | {_plural(w) for w in words if not w.endswith("s")})


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("sh", "ch", "x")) else "s")


_DRINKS = _value_words("drink")
_DIETS = _value_words("diet")
_ANIMALS = _value_words("pets")
_HOMES = _nouns("flat apartment house home place room studio condo loft")
_TEAMS = _nouns(
    "team project squad crew department unit account shift rotation migration initiative "
    "workstream program programme launch rollout"
)
_SCHOOLS = _nouns("school university college academy uni")
_CLUBS = _nouns("club class classes choir band league gym course orchestra troupe group")
_CONDITIONS = _nouns(
    "allergy allergies allergic asthma diabetes migraine migraines injury injuries cancer "
    "depression anxiety arthritis insomnia eczema flu covid"
)
_DRINK_VERBS = _nouns("drink like love prefer enjoy switch go obsess be start stick")
_RESIDENCE_VERBS = _nouns("live move relocate reside settle")
_ASSIGNMENT_VERBS = _nouns("lead head manage work_on")
_OWN_VERBS = _nouns("own buy purchase sell get")
_HOBBY_VERBS = _nouns("play practice practise join quit take_up do")
_LIKE_VERBS = _nouns("like love enjoy hate dislike adore prefer obsess")
_PET_VERBS = _nouns("have adopt get own rescue lose rehome give foster")
_OFF_VERBS = _nouns("take_off pull_off move_off remove_from take_off_of pull_off_of")
_CHANGE_VERBS = _nouns("quit stop leave lose sell give_up give_away go_off rehome drop")

FAMILY_WORDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        a.id: frozenset({*a.questions, *a.state_words, *(_ANIMALS if a.id == "pets" else ())})
        for a in _VOCABULARY
    }
)
"""Question words that name each family (`kgmem.retrieve.resolve` uses them to pick the
supersession keys a question is about): the attribute's ``questions`` and ``state_words``, and
for pets every animal word `classify` reads a pet by."""

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


def _object_words(obj: str) -> list[str]:
    """Words of a literal or entity-id object: ``"c:e:concept:oat-lattes"`` -> oat, lattes."""
    tail = obj.rsplit(":", 1)[-1] if ":e:" in obj else obj
    return [w for w in re.split(r"[^\w-]+|(?<=\w)-(?=\w)|_", tail.strip().lower()) if w]


def _head_word(words: Sequence[str]) -> str:
    """Singular-ish head word of an object (last word, a plural ``s`` dropped): the part of a
    multi-valued key that a later change must name."""
    if not words:
        return ""
    head = words[-1]
    if len(head) > 3 and head.endswith("s") and not head.endswith("ss"):
        head = head[:-2] if head.endswith(("ies", "ches", "shes", "xes")) else head[:-1]
    return head


def classify(fact: FactRecord) -> tuple[str, str] | None:
    """The relation family of a fact and its value slot, or None.

    Returns:
        ``(family, "")`` for a single-valued family (the value is the whole family),
        ``(family, head)`` for a multi-valued one (``head`` = the object's head word), or
        None when no family applies.
    """
    rel = _normalise(fact.relation)
    positive = rel[4:] if rel.startswith("not_") else rel
    family = relation_family(positive)
    words = _object_words(fact.object)
    text_words = set(re.findall(r"[\w-]+", fact.text.lower()))
    wordset = set(words)
    verb, _, prep = positive.partition("_")
    rule = _BY_OBJECT.get(positive)
    if family is None and rule is not None and _object_head(fact.object) in rule[0]:
        family = rule[1]
    if family == "residence" and wordset & _TEAMS:
        family = "assignment"  # "moved to the search team"
    if family is not None:
        return family, ""
    if verb == "drink" or (verb in _DRINK_VERBS and wordset & _DRINKS):
        return "drink", ""
    if verb in ("be", "go", "become", "turn", "eat") and wordset & _DIETS:
        return "diet", ""
    if verb in _RESIDENCE_VERBS and prep in ("to", "into", "in", "at", "back"):
        return "residence", ""
    if verb == "rent" and wordset & _HOMES:
        return "residence", ""
    entity_object = ":e:" in fact.object  # a named thing or a concrete concept, not "time"
    if positive in _OFF_VERBS and (entity_object or wordset & _TEAMS):
        return "assignment", ""  # "taken off Orchid", "pulled off billing": a retraction
    if (positive in _ASSIGNMENT_VERBS or positive in ("lead", "head", "manage")) and (
        entity_object or wordset & _TEAMS
    ):
        return "assignment", ""  # not "headed for greatness", "working on building confidence"
    if verb in ("be", "join", "switch", "transfer", "assign") and wordset & _TEAMS:
        return "assignment", ""
    if verb in ("attend", "go") and wordset & _SCHOOLS:
        return "school", ""
    head = _head_word(words)
    if not head:
        return None
    if wordset & _ANIMALS and (verb in _PET_VERBS or positive in _CHANGE_VERBS):
        animal = next(w for w in reversed(words) if w in _ANIMALS)
        return "pets", _head_word([animal])
    if (verb == "be" and "allergic" in text_words) or (
        verb in ("have", "be", "suffer", "get") and wordset & _CONDITIONS
    ):
        return "health", head
    if verb in _HOBBY_VERBS or (positive in _CHANGE_VERBS and wordset & _CLUBS):
        return "hobbies", head
    if (verb in _OWN_VERBS or positive in ("give_away", "get_rid_of")) and entity_object:
        return "owned", head
    if verb in _LIKE_VERBS:
        return "likes", head
    return None


def change_cue(text: str) -> str | None:
    """The change cue a fact's text carries ("switched", "no longer", "now"), or None."""
    m = CHANGE_CUE.search(text)
    return " ".join(m.group(0).lower().split()) if m else None


def supersession_key(fact: FactRecord) -> str | None:
    """The supersession key of a fact, or None.

    Single-valued families: ``"<subject>|<family>"``; multi-valued families:
    ``"<subject>|<family>|<object head word>"`` (see `classify`). The subject is folded by
    `kgmem.store.tenant.key_holder` (an id's scope stays exact).

    Returns:
        None for facts of no family, for modalities other than ``asserted`` / ``negated``
        (plans, hypotheticals, questions, reported speech), for retrospective facts ("used to",
        "previously"), for single-valued facts marked additive ("also", "a second job",
        "another", "…, too"), and for an empty subject.
    """
    if fact.modality not in ("asserted", "negated"):
        return None
    found = classify(fact)
    subject = key_holder(fact.subject)
    if found is None or not subject:
        return _attribute_key(fact)
    family, head = found
    if _RETROSPECTIVE.search(fact.text):
        return None
    if family in MULTI_VALUED:
        return f"{subject}|{family}|{head}"
    if _ADDITIVE.search(fact.text):
        return None
    return f"{subject}|{family}"


def _attribute_key(fact: FactRecord) -> str | None:
    """The key of a fact's listed attribute
    (`kgmem.ingest.extraction.attributes.attribute_key`), under the same retrospective and
    additive rules as the families above."""
    key = attribute_key(fact)
    if key is None or _RETROSPECTIVE.search(fact.text):
        return None
    if fact.multiplicity == "single" and _ADDITIVE.search(fact.text):
        return None
    return key


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
    counts once. A fact that `restates` its predecessor supersedes nothing; the next real change
    then supersedes every fact that stated the value it replaces.

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
        kinds = {f.multiplicity for f in ordered}
        # an attribute says its multiplicity; a family key with a value slot is multi-valued
        multi = "multi" in kinds or (kinds == {None} and group_key[1].count("|") >= 2)
        run: list[FactRecord] = ordered[:1]  # the facts stating the value now current
        for older, newer in pairwise(ordered):
            # a multi-valued value changes only with a change cue or a negation naming it
            if multi and newer.modality != "negated" and not change_cue(newer.text):
                run = [newer]
                continue
            if restates(older, newer):
                run.append(newer)  # the same value said again: it confirms, never replaces
                continue
            pairs.extend((newer.id, old.id) for old in run)
            run = [newer]
    return pairs


_CONTINUATION = re.compile(r"\b(still|keeps?|kept|keeping|continu\w*|again)\b", re.IGNORECASE)
"""Continuation cues: "Jon is *still* working on his biz", "I *keep* running the store"."""


def restates(older: FactRecord, newer: FactRecord) -> bool:
    """Whether an extracted ``newer`` fact says the same value as ``older`` again rather than a
    new one: same polarity and modality, and either the same relation and object head word
    ("lost her job" after "lost her job at Door Dash"), or, with no change cue, the same object
    head word ("working on her online store" twice) or a continuation cue ("still", "keep",
    "continue", "again"), or they give their attribute the same value (`_same_value`: a clause
    fact and a value-form fact of one turn, or the value said again). A negation never restates
    (it is a retraction). Only extracted facts qualify, and apart from an equal attribute value
    only those keyed by this module's rules: annotations, manual facts and the relation-lexicon
    statements of numbered lists (key ``<subject>|<relation id>``) never restate; there the
    latest wins.
    """
    if newer.source != "extracted" or older.source != "extracted":
        return False
    if _same_value(older, newer):
        return True
    for fact in (older, newer):  # keyed by these rules, not by a relation lexicon
        derived = supersession_key(fact)
        if derived is None or (fact.key is not None and fact.key != derived):
            return False
    if newer.modality != older.modality or newer.modality == "negated":
        return False
    if _normalise(newer.relation).startswith("not_") != _normalise(older.relation).startswith(
        "not_"
    ):
        return False
    old_words = {_head_word([w]) for w in _object_words(older.object)}
    new_words = {_head_word([w]) for w in _object_words(newer.object)}
    old_head = _head_word(_object_words(older.object))
    new_head = _head_word(_object_words(newer.object))
    same_head = bool(old_head and new_head) and (old_head in new_words or new_head in old_words)
    if same_head and _normalise(newer.relation) == _normalise(older.relation):
        return True  # the same event told twice, even with a change verb ("lost her job")
    if change_cue(newer.text):
        return False  # "quit my job" after "got a job": a change naming the same thing
    return same_head or bool(_CONTINUATION.search(newer.text))


def _same_value(older: FactRecord, newer: FactRecord) -> bool:
    """Whether two extracted facts on one key give their attribute the same value (case and
    spacing aside) with the same modality: a clause fact and a value-form fact of one turn
    ("I moved to Leuven" / "Leuven"), or a later turn saying it again. Such a fact confirms the
    value; a ``SUPERSEDES`` link between them would say a value replaced itself. A negation is
    never the same value (it is a retraction)."""
    if older.value is None or newer.value is None or newer.modality == "negated":
        return False
    if older.modality != newer.modality:
        return False
    return " ".join(older.value.casefold().split()) == " ".join(newer.value.casefold().split())


class Link(tuple[str, str, str, float]):
    """``(newer_id, older_id, cue, confidence)`` of one ``SUPERSEDES`` edge."""

    __slots__ = ()

    def __new__(cls, newer: str, older: str, cue: str, confidence: float) -> Link:
        return super().__new__(cls, (newer, older, cue, confidence))


#: confidence of a supersession with an explicit change cue / implied by a later value only
CUE_CONFIDENCE = 0.9
LATER_CONFIDENCE = 0.7


def supersession_links(facts: Sequence[FactRecord]) -> list[Link]:
    """`supersession_chain` with each link's change cue and confidence (see module docstring)."""
    by_id = {f.id: f for f in facts}
    links: list[Link] = []
    for newer, older in supersession_chain(facts):
        cue = change_cue(by_id[newer].text)
        links.append(
            Link(newer, older, cue or "later value", CUE_CONFIDENCE if cue else LATER_CONFIDENCE)
        )
    return links


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
