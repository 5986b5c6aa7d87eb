"""Typed entity resolution, scoped to one conversation.

Entities are resolved **by type, never by capitalisation** (docs/design.md §1: hopping through
capitalised words lost 2 points of LoCoMo recall; "Sunday" is not an entity). The extractor
hands in surfaces already typed by spaCy NER labels (see `ner_type`) or by noun-chunk analysis;
this module decides whether a surface is an entity at all, normalises it, and maps it to one
canonical `EntityRecord`:

- Ids are ``<conversation_id>:e:<type>:<slug>``: deterministic, scoped by conversation, built
  from a normalised name. The slug keeps unicode letters and digits, casefolded, and turns every
  other run of characters (quotes, backslashes, backticks, spaces) into ``-``; ids are property
  values, never labels.
- Case variants share the slug, so they share the node.
- Nicknames: a person surface whose first name is a prefix (>= 3 characters) of exactly one
  known longer person name (or of exactly one speaker's), with no conflicting surname, becomes
  an alias of that person ("Mel" -> "Melanie"). Otherwise ambiguity: nothing merges.
- Weekdays, pronouns, kinship words alone ("mom"), greetings, relative dates ("yesterday") and
  generic nouns ("thing", "day") never become entities.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kgmem.models import EntityRecord, EntityType
from kgmem.time import MONTH_ABBREVIATIONS, MONTHS, NUMBERS, WEEKDAY_ABBREVIATIONS
from kgmem.time import WEEKDAYS as _WEEKDAY_NAMES

__all__ = [
    "ABSTRACT",
    "BODY_IDIOMS",
    "GENERIC",
    "GREETINGS",
    "KINSHIP",
    "PARTITIVE",
    "PRONOUNS",
    "QUALITIES",
    "WEEKDAYS",
    "EntityResolver",
    "is_abstract_noun",
    "is_concept_noun",
    "is_non_entity",
    "ner_type",
    "normalize_surface",
    "slugify",
]


def _words(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


_NER_TYPES: dict[str, EntityType] = {
    "PERSON": "person",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "ORG": "organization",
    "WORK_OF_ART": "work",
    "DATE": "date",
    "NORP": "other",
    "EVENT": "other",
    "PRODUCT": "other",
    "LANGUAGE": "other",
    "LAW": "other",
}
"""spaCy OntoNotes NER label -> entity type. TIME, CARDINAL, ORDINAL, QUANTITY, MONEY and
PERCENT are values, not entities. NORP (nationalities, religious or political groups) is
``other``: a group of people is not an organisation."""

PRONOUNS = _words(
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his "
    "himself she her hers herself they them their theirs themselves it its itself this that "
    "these those who whom whose what which someone somebody everyone everybody anyone anybody "
    "one something anything everything nothing y'all ya u"
)
WEEKDAYS = (
    frozenset(_WEEKDAY_NAMES)
    | frozenset(WEEKDAY_ABBREVIATIONS)
    | _words("weekday weekdays weekend weekends")
)
KINSHIP = _words(
    "mom mum mother mommy mama dad father daddy papa parent parents son sons daughter daughters "
    "kid kids child children baby babies brother brothers sister sisters sibling siblings "
    "husband wife spouse partner boyfriend girlfriend fiance fiancee grandma grandpa "
    "grandmother grandfather grandparent grandparents aunt uncle cousin cousins niece nephew "
    "family friend friends bestie buddy pal hubby bro sis"
)
GREETINGS = _words(
    "hi hey hello hiya yo bye goodbye thanks thank thx ty cheers wow omg lol haha hahaha yay "
    "yeah yes no nope ok okay sure cool awesome great congrats congratulations welcome sorry "
    "please bye yep yup aww aw nah hmm oh ah lemme wanna gonna kinda sorta glad dear"
)
GENERIC = _words(
    "thing things stuff way ways lot lots time times day days week weeks month months year "
    "years today tonight tomorrow yesterday moment moments bit kind sort part one ones people "
    "person guy guys folks life experience experiences feeling feelings idea ideas place places "
    "fun reason reasons sense matter point something anything everything nothing other others "
    "stuff end start beginning rest type types piece pieces"
)
ABSTRACT = _words(
    "love joy blast ton tons chance luck fun happiness pleasure pride hope hopes fear fears "
    "anger sadness excitement peace lot lots bit bits deal idea ideas sense point points reason "
    "way ways thing things stuff kind sort type part piece problem problems issue issues "
    "question questions answer answers help support advice news update word words opportunity "
    "opportunities experience experiences feeling feelings mood vibe vibes energy effort "
    "moment moments memory memories time times day days week weeks month months year years "
    "life world care attention interest gratitude thanks inspiration motivation courage "
    "strength passion dream dreams goal goals journey step steps progress success challenge "
    "challenges difference impact change changes break rest look sight view glad shame pity "
    "favor favour surprise trouble mess wonder something anything everything nothing one ones "
    "go shot try lol haha"
)
"""Abstract, evaluative and quantity nouns: never `concept` entities ("it's a *blast*", "a *ton*
of fun", "so much *love*"). Written from a hand audit of conv-26's entities (LoCoMo dev)."""
QUALITIES = _words(
    "beauty grace power health wisdom faith trust respect right rights honesty kindness "
    "patience confidence dedication commitment devotion ambition ambitions determination "
    "connection connections bond bonds relationship relationships company presence "
    "story stories detail details wish wishes theme themes imperfection imperfections setback "
    "setbacks path paths outlet outlets identity identities self selves muse muses spot spots "
    "kick kicks chat chats talk talks conversation conversations thought thoughts mind minds "
    "spirit spirits soul souls voice voices potential talent talents skill skills value values "
    "meaning purpose belief beliefs perspective perspectives role roles place significance "
    "balance calm comfort encouragement reminder reminders lesson lessons color colors colour "
    "colours"
)
"""Qualities, bonds, communication and evaluation nouns ("Caroline's *dedication*", "share her
*story*", "made *connections*", "have creative *outlets*"): general English abstract nouns, no
concrete referent someone owns, eats or goes to."""
BODY_IDIOMS = _words("back backs heart hearts face faces guts head hand hands eye eyes shoulder")
"""Body parts as a fact's object are idioms in conversation ("have your *back*", "follow your
*heart*", "put a smile on my *face*", "got *guts*"), not things someone owns."""
PARTITIVE = _words(
    "load loads lot lots bunch bunches plenty couple kind kinds sort sorts type types variety "
    "varieties number numbers amount amounts ton tons pile piles heap heaps bit bits range "
    "ranges array loads dozen dozens handful"
)
"""Quantity and kind heads whose real object is their ``of`` complement ("*loads* of love",
"all *kinds* of art"): `kgmem.ingest.extraction.extract` looks through them."""
_ABSTRACT_SUFFIXES = ("ness", "ship", "ships", "dom", "doms", "tude", "tudes", "ity", "ities")
"""Suffixes that form abstract nouns from adjectives and nouns (English derivational
morphology: happi*ness*, friend*ship*, free*dom*, grati*tude*, inclusiv*ity*); a word needs
three letters before the suffix. Concrete ``-ity``/``-ship`` nouns are `_CONCRETE_SUFFIXED`."""
_CONCRETE_SUFFIXED = _words(
    "city cities university universities community communities charity charities facility "
    "facilities activity activities ship ships worship township scholarship scholarships "
    "internship internships championship championships kingdom dealership"
)
"""Concrete or countable nouns that happen to end in an abstract suffix."""


def is_abstract_noun(word: str) -> bool:
    """Whether a single lower-case noun is abstract by vocabulary (`ABSTRACT`, `QUALITIES`,
    `BODY_IDIOMS`) or by derivational suffix (-ness, -ship, -dom, -tude, -ity)."""
    if word in ABSTRACT or word in QUALITIES or word in BODY_IDIOMS or word in PARTITIVE:
        return True
    if word in _CONCRETE_SUFFIXED:
        return False
    return any(word.endswith(sfx) and len(word) - len(sfx) >= 3 for sfx in _ABSTRACT_SUFFIXES)


DISCOURSE_LEAD = _words(
    "noted note ps fyi btw update reminder anyway anyways also so well and but oh ok okay yes "
    "no sure right"
)
"""Words a sloppy NER span glues before a name ("Noted - Tomas", "Anyway Jon")."""
NUMBER_WORDS = (frozenset(NUMBERS) - {"a", "an"}) | _words(
    "sixty seventy eighty ninety thousand million billion dozens couple few several"
)
_RELATIVE_DATE_WORDS = _words(
    "today tonight tomorrow yesterday now recently ago last next this past coming weekend week "
    "weeks month months year years day days morning afternoon evening night few couple earlier "
    "later lately soon"
)
_MONTHS = frozenset(MONTHS) | frozenset(MONTH_ABBREVIATIONS)
_YEAR = re.compile(r"\b(1[6-9]|2[0-9])\d\d\b")
_DAY_NUM = re.compile(r"\b\d{1,2}(st|nd|rd|th)?\b")
_LEADING = re.compile(
    r"^(the|a|an|my|your|our|his|her|their|its|this|that|these|those|some)\s+", re.IGNORECASE
)
_QUOTES = "\"'`\u2018\u2019\u201c\u201d\u00ab\u00bb"
_EDGE_PUNCT = ".,!?:;()[]{}<>*_~-\u2013\u2014/|"
_SLUG_SPLIT = re.compile(r"[^\w]+|_+", re.UNICODE)


def ner_type(label: str) -> EntityType | None:
    """Map a spaCy NER label (OntoNotes scheme) to an entity type; None for value labels."""
    return _NER_TYPES.get(label)


def normalize_surface(surface: str, type_: EntityType) -> str:
    """Clean a surface form into a display name.

    NFKC-normalises, collapses whitespace, strips edge punctuation, enclosing or unmatched
    edge quotes (a quote or backtick that belongs to the name stays), a trailing
    possessive ``'s`` and, except for persons, leading determiners/possessives ("the Louvre" ->
    "Louvre"). Returns ``""`` when nothing is left.
    """
    text = unicodedata.normalize("NFKC", surface)
    text = " ".join(text.split())
    previous = None
    while text != previous:
        previous = text
        text = text.strip(_EDGE_PUNCT + " ")
        text = re.sub("['\u2019]s$", "", text)
        if type_ != "person":
            text = _LEADING.sub("", text)
        else:  # "Bye Caroline", "Noted - Tomas": a greeting or note glued to a name by NER
            parts = [p for p in re.split(r"\s+[-\u2013\u2014:]+\s+", text) if p.strip()]
            if len(parts) > 1:
                text = parts[-1]
            words = text.split(" ")
            while len(words) > 1 and (
                words[0].casefold().strip(",!.-") in GREETINGS
                or words[0].casefold().strip(",!.-") in DISCOURSE_LEAD
            ):
                words.pop(0)
            text = " ".join(words)
        if len(text) > 1 and text[0] in _QUOTES and text[-1] in _QUOTES:
            text = text[1:-1]  # an enclosing pair: "Moana"
        elif text and text[-1] in _QUOTES and text.count(text[-1]) % 2:
            text = text[:-1]  # an unmatched closing quote: Chris'
        elif text and text[0] in _QUOTES and text.count(text[0]) % 2:
            text = text[1:]
    return text


def slugify(name: str) -> str:
    """Deterministic, id-safe slug of a name: casefolded unicode words joined by ``-``.

    Quotes, backslashes, backticks and spaces become separators; a name with no letters or
    digits at all (e.g. only emoji) gets ``h`` + 12 hex digits of its SHA-1.
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    slug = "-".join(part for part in _SLUG_SPLIT.split(text) if part)
    if slug:
        return slug
    return "h" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:12]


def is_concept_noun(name: str) -> bool:
    """Whether a common-noun surface can be a `concept` entity: a concrete thing someone owns,
    likes, does or eats — not an abstract, evaluative or quantity noun (`is_abstract_noun`),
    pronoun,
    kinship word, greeting or generic noun, and at least three characters long."""
    words = re.findall(r"[\w']+", name.casefold())
    if not words or len(name) < 3 or not any(c.isalpha() for c in name):
        return False
    head = words[-1]
    return not (
        is_abstract_noun(head)
        or head in PRONOUNS
        or head in GREETINGS
        or head in GENERIC
        or head in KINSHIP
        or head in DISCOURSE_LEAD
        or len(head) < 3
    )


def _is_absolute_date(key: str) -> bool:
    """A date surface that names a calendar point by itself: has a year, or a month and a day."""
    if _YEAR.search(key):
        return True
    words = set(re.findall(r"[a-z]+", key))
    return bool(words & _MONTHS) and bool(_DAY_NUM.search(key))


def is_non_entity(name: str, type_: EntityType) -> bool:
    """True when a normalised surface must never become an entity of ``type_``.

    Rejects: empty or one-character names, numbers and number words (except years as dates),
    pronouns,
    weekdays (alone or with "last"/"next"), kinship words alone, greetings, discourse words
    ("FYI", "btw"), generic nouns, and
    for ``date`` anything that is not an absolute calendar date (relative dates are resolved
    per fact against the session date instead, see kgmem.ingest.extraction.dates).
    """
    key = name.casefold()
    words = re.findall(r"[\w']+", key)
    if len(key) < 2 or not words:
        return True
    if type_ == "date":
        return not _is_absolute_date(key)
    if all(w.isdigit() or w in NUMBER_WORDS for w in words):
        return True
    content = [w for w in words if w not in _RELATIVE_DATE_WORDS or w in WEEKDAYS]
    if content and all(w in WEEKDAYS for w in content):
        return True
    if len(words) == 1:
        w = words[0]
        return (
            w in PRONOUNS
            or w in KINSHIP
            or w in GREETINGS
            or w in GENERIC
            or w in WEEKDAYS
            or w in DISCOURSE_LEAD
        )
    return all(w in PRONOUNS or w in GREETINGS or w in GENERIC for w in words)


@dataclass
class _Entry:
    id: str
    name: str
    type: EntityType
    aliases: list[str] = field(default_factory=list)

    def record(self, conversation_id: str) -> EntityRecord:
        return EntityRecord(
            id=self.id,
            conversation_id=conversation_id,
            name=self.name,
            type=self.type,
            aliases=tuple(self.aliases),
        )


class EntityResolver:
    """Canonical typed entities of one conversation; the write path and the read path share it.

    Args:
        conversation_id: the tenant; every id starts with it.
        speakers: the conversation's speakers, registered as persons from the start.

    Example:
        >>> r = EntityResolver("c1", ["Caroline", "Melanie"])
        >>> r.resolve("Mel", "person").name
        'Melanie'
    """

    def __init__(self, conversation_id: str, speakers: Sequence[str] = ()) -> None:
        self.conversation_id = conversation_id
        self._speakers: set[str] = set()
        self._entries: dict[str, _Entry] = {}
        self._index: dict[tuple[EntityType, str], str] = {}
        for speaker in speakers:
            rec = self.resolve(speaker, "person")
            if rec is not None:
                self._speakers.add(rec.id)

    @classmethod
    def from_records(cls, conversation_id: str, records: Iterable[EntityRecord]) -> EntityResolver:
        """Rebuild a resolver from stored entities (the read path: "Mel" -> Melanie)."""
        resolver = cls(conversation_id)
        for rec in records:
            entry = _Entry(rec.id, rec.name, rec.type, list(rec.aliases))
            resolver._entries[rec.id] = entry
            for surface in (rec.name, *rec.aliases):
                resolver._index.setdefault((rec.type, slugify(surface)), rec.id)
        return resolver

    def entities(self) -> list[EntityRecord]:
        """All canonical entities, in first-seen order, de-duplicated."""
        return [entry.record(self.conversation_id) for entry in self._entries.values()]

    def lookup(self, surface: str, type_: EntityType | None = None) -> EntityRecord | None:
        """Find an existing entity for a surface without creating one.

        Args:
            surface: text as written ("mel", "The Louvre").
            type_: restrict to one type; None tries person first, then every other type.

        Returns:
            The canonical record, or None.
        """
        types: tuple[EntityType, ...] = (
            (type_,)
            if type_
            else ("person", "place", "organization", "work", "other", "concept", "date")
        )
        for t in types:
            name = normalize_surface(surface, t)
            if not name or is_non_entity(name, t):
                continue
            found = self._find(name, t)
            if found is not None:
                return self._entries[found].record(self.conversation_id)
        return None

    def resolve(self, surface: str, type_: EntityType) -> EntityRecord | None:
        """Map a typed surface to its canonical entity, creating it if new.

        A non-person surface that names a known person (exactly, or, for NER types, as a
        one-word nickname; NER often tags first names as ORG or GPE) resolves to that person.

        Args:
            surface: text as written.
            type_: the type the caller's evidence (NER label, noun chunk) gives it.

        Returns:
            The canonical record, or None when the surface is not an entity (see
            `is_non_entity`).
        """
        name = normalize_surface(surface, type_)
        if not name or is_non_entity(name, type_):
            return None
        found = self._find(name, type_)
        if found is None and type_ not in ("person", "date"):
            # NER often tags first names as ORG/GPE: an exact person name (or, for one word, a
            # unique nickname of a known person) wins over the label.
            single = type_ not in ("other", "concept") and len(slugify(name).split("-")) == 1
            found = (
                self._find(name, "person") if single else self._index.get(("person", slugify(name)))
            )
        if found is None:
            slug = slugify(name)
            found = f"{self.conversation_id}:e:{type_}:{slug}"
            self._entries.setdefault(found, _Entry(found, name, type_))
            self._index[(type_, slug)] = found
            return self._entries[found].record(self.conversation_id)
        entry = self._entries[found]
        if name != entry.name and name not in entry.aliases:
            entry.aliases.append(name)
        self._index.setdefault((entry.type, slugify(name)), found)
        return entry.record(self.conversation_id)

    def _find(self, name: str, type_: EntityType) -> str | None:
        slug = slugify(name)
        hit = self._index.get((type_, slug))
        if hit is not None or type_ != "person":
            return hit
        return self._nickname(slug)

    def _nickname(self, slug: str) -> str | None:
        """The one known person whose first name extends this surface's first name, if unique.

        When several match, a unique speaker among them wins (LoCoMo: "Mel" for the speaker
        Melanie while a "Mell" also occurs); otherwise nothing merges. A first name ending in a
        doubled letter also tries its clipped form ("Mell" -> "Mel" -> Melanie).
        """
        parts = slug.split("-")
        first, rest = parts[0], parts[1:]
        if len(first) < 3:
            return None
        found = self._nickname_of(first, rest)
        if found is None and len(first) >= 4 and first[-1] == first[-2]:
            # English nicknames double the clipped name's last consonant ("Matt", "Jess",
            # "Mell"): the clipped form "Mel" is the prefix that must extend a known name
            found = self._nickname_of(first[:-1], rest)
        return found

    def _nickname_of(self, first: str, rest: list[str]) -> str | None:
        candidates: set[str] = set()
        for (t, known), entity_id in self._index.items():
            if t != "person":
                continue
            kparts = known.split("-")
            if not (kparts[0].startswith(first) and len(kparts[0]) > len(first)):
                continue
            if rest and kparts[1:] and rest != kparts[1:]:
                continue
            candidates.add(entity_id)
        if len(candidates) > 1:
            # A nickname in a dialogue most likely names a participant: prefer the one speaker.
            candidates &= self._speakers
        return candidates.pop() if len(candidates) == 1 else None
