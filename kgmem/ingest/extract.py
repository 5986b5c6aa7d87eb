"""Rule-based fact extraction (``source = "extracted"``, no LLM) behind a pluggable interface.

`SpacyExtractor` parses every turn with spaCy (``nlp.pipe``, batched), splits sentences into
clauses (a verb or copula with a subject of its own, or inherited through coordination), and
emits one subject-relation-object `FactRecord` per contentful clause:

- first person (I, me, my, we, our) resolves to the speaker, second person to the addressee —
  the previous different speaker (in a two-person chat, the other speaker);
- the relation is lemma-based snake_case: verb lemma, then particle, then the preposition that
  introduces the object when there is no direct object (``go_to``, ``live_in``, ``be``), with a
  ``not_`` prefix under negation;
- the text is the clause with pronouns rewritten and the verb agreed ("Caroline went to a LGBTQ
  support group yesterday"), short and self-contained so it embeds well with all-MiniLM-L6-v2;
- questions, clauses whose subject is a third-person pronoun or demonstrative (unresolvable
  without coreference), imperatives and greetings yield nothing;
- ``[shared image: <caption>]`` yields "<speaker> shared an image of <caption>";
- a clause holding a spaCy DATE/TIME span gets ``event_time`` from
  ``kgmem.ingest.dates.resolve_time(clause, reference=turn.observed_at)`` when that module exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from kgmem.errors import KgmemError
from kgmem.ingest.entities import (
    GREETINGS,
    PARTITIVE,
    WEEKDAYS,
    EntityResolver,
    is_concept_noun,
    ner_type,
)
from kgmem.ingest.modality import REPORTING, clause_modality, reporting_subject
from kgmem.ingest.nlp import DEFAULT_PIPELINE, load_pipeline
from kgmem.models import (
    EntityRecord,
    EntityType,
    FactRecord,
    Modality,
    TimeInterval,
    TurnRecord,
)

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "SERIAL_STRIDE",
    "Extraction",
    "FactExtractor",
    "SpacyExtractor",
    "addressees",
    "split_captions",
]


def _words(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


_CAPTION = re.compile(r"\[shared image:\s*(.*?)\s*\]", re.IGNORECASE | re.DOTALL)
_CAPTION_LEAD = re.compile(
    r"^(a|an|the)\s+"
    r"(photo|picture|image|photograph|photography|pic|close up|closeup|screenshot)\s+of\s+",
    re.IGNORECASE,
)
SERIAL_STRIDE = 1000
"""A fact's ``serial`` is ``turn.index * SERIAL_STRIDE + n``: increasing in conversation order,
and the same whether a turn is extracted with its whole conversation or appended later."""
ResolveTime = Callable[[str, datetime], list[TimeInterval]]


@dataclass(frozen=True)
class Extraction:
    """What an extractor produces for one conversation.

    Attributes:
        facts: in conversation order; ``serial`` = ``turn.index * SERIAL_STRIDE + n``
            (n counts the turn's facts from 0), so it increases through the conversation.
        entities: canonical, de-duplicated; speakers first.
        mentions: ``(turn_id, entity_id)`` pairs, unique, for ``(:Turn)-[:MENTIONS]->(:Entity)``.
    """

    facts: list[FactRecord]
    entities: list[EntityRecord]
    mentions: list[tuple[str, str]]


class FactExtractor(Protocol):
    """Anything that turns a conversation's turns into facts, entities and mentions."""

    name: str

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """Extract from ``turns`` (utterance order) of one conversation with these speakers."""
        ...


def split_captions(text: str) -> tuple[str, list[str]]:
    """Split turn text into the utterance and its image captions (leading "a photo of" dropped)."""
    captions = [_CAPTION_LEAD.sub("", m.strip()) for m in _CAPTION.findall(text)]
    return _CAPTION.sub(" ", text).strip(), [c for c in captions if c]


def addressees(turns: Sequence[TurnRecord], speakers: Sequence[str]) -> list[str | None]:
    """Addressee of each turn: the previous different speaker.

    With no previous different speaker (the opening turns), the next different speaker, or in a
    two-person conversation the other speaker; None if nobody else ever speaks.
    """
    result: list[str | None] = []
    last_other: str | None = None
    current: str | None = None
    for turn in turns:
        if turn.speaker != current:
            last_other, current = current, turn.speaker
        result.append(last_other)
    for i, value in enumerate(result):
        if value is not None:
            continue
        speaker = turns[i].speaker
        later = next((t.speaker for t in turns[i + 1 :] if t.speaker != speaker), None)
        others = [s for s in speakers if s != speaker]
        result[i] = later or (others[0] if len(others) == 1 else None)
    return result


def _load_resolve_time() -> ResolveTime | None:
    try:
        from kgmem.ingest.dates import resolve_time
    except ImportError:
        return None
    return resolve_time


class SpacyExtractor:
    """The rule-based `FactExtractor` (``name = "extracted"``).

    Args:
        pipeline: spaCy pipeline name, loaded lazily on the first `extract` via
            `kgmem.ingest.nlp.load_pipeline`.
        batch_size: ``nlp.pipe`` batch size.

    Speed (LoCoMo dev, 1,451 turns, 2 cores): about 6 s per 1,000 turns on an idle machine,
    of which ``nlp.pipe`` is over 85%; 2-3x that while other jobs share the cores.
    """

    name = "extracted"

    def __init__(self, pipeline: str = DEFAULT_PIPELINE, batch_size: int = 128) -> None:
        self.pipeline = pipeline
        self.batch_size = batch_size
        self._nlp: Language | None = None
        self._resolve_time: ResolveTime | None = None
        self._dates_checked = False

    def _load(self) -> Language:
        if self._nlp is None:
            self._nlp = load_pipeline(self.pipeline)
        if not self._dates_checked:
            self._resolve_time = _load_resolve_time()
            self._dates_checked = True
        return self._nlp

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """Extract facts, canonical entities and mentions from one conversation.

        Args:
            conversation_id: tenant; prefixes every fact and entity id.
            turns: the conversation's turns in utterance order (any subset works; addressees
                are computed within it).
            speakers: the conversation's speakers (registered as person entities).

        Returns:
            An `Extraction`. Fact ids are ``<conversation_id>:x:<dia_id>:<n>`` with n counting
            the turn's facts from 0, so re-extracting the same input gives the same ids.

        Raises:
            ModelUnavailable: the spaCy pipeline cannot be loaded.
        """
        nlp = self._load()
        resolver = EntityResolver(conversation_id, speakers)
        split = [split_captions(t.text) for t in turns]
        docs = list(nlp.pipe([body for body, _ in split], batch_size=self.batch_size))
        not_persons = self._register_persons(resolver, docs, speakers)
        lower = {t.text.casefold() for doc in docs for t in doc if t.is_lower}
        facts: list[FactRecord] = []
        mentions: dict[tuple[str, str], None] = {}
        for turn, (_, captions), doc, addressee in zip(
            turns, split, docs, addressees(turns, speakers), strict=True
        ):
            turn_facts = self._turn_facts(
                turn, doc, captions, addressee, resolver, mentions, not_persons, lower
            )
            for n, clause_fact in enumerate(turn_facts):
                facts.append(
                    clause_fact.model_copy(
                        update={
                            "id": f"{conversation_id}:x:{turn.dia_id}:{n}",
                            "serial": turn.index * SERIAL_STRIDE + n,
                        }
                    )
                )
        return Extraction(facts=facts, entities=resolver.entities(), mentions=list(mentions))

    @staticmethod
    def _register_persons(
        resolver: EntityResolver, docs: Sequence[Doc], speakers: Sequence[str]
    ) -> set[str]:
        """Register PERSON spans longest first (so nicknames find their full name).

        A PERSON span is rejected when every word of it is also written in lower case somewhere
        in the conversation ("Glad", "Guitar", "Nature" opening a sentence): evidence that it is
        a common word, not a name. Speakers are always persons.

        Returns:
            The rejected PERSON surfaces.
        """
        lower = {t.text for doc in docs for t in doc if t.is_lower}
        keep = {s.casefold() for s in speakers}
        names = {ent.text for doc in docs for ent in doc.ents if ent.label_ == "PERSON"}
        rejected = {
            name
            for name in names
            if name.casefold() not in keep
            and (name[:1].islower() or all(w.casefold() in lower for w in name.split()))
        }
        for name in sorted(names - rejected, key=lambda n: (-len(n), n)):
            resolver.resolve(name, "person")
        return rejected

    def _turn_facts(
        self,
        turn: TurnRecord,
        doc: Doc,
        captions: list[str],
        addressee: str | None,
        resolver: EntityResolver,
        mentions: dict[tuple[str, str], None],
        not_persons: set[str],
        lower: set[str],
    ) -> list[FactRecord]:
        speaker = resolver.resolve(turn.speaker, "person")
        token_entity: dict[int, str] = {}
        for ent in doc.ents:
            etype = ner_type(ent.label_)
            if etype == "person" and ent.text in not_persons:
                continue
            if etype not in ("person", "date") and _common_word_span(ent, lower):
                continue  # "Pottery's so relaxing": a capitalised common word, not a name
            if ent.label_ == "ORG" and _org_modifier(ent):
                continue  # "a new LGBTQ activist group": the group is the thing
            rec = resolver.resolve(ent.text, etype) if etype else None
            if rec is None:
                continue
            mentions[(turn.id, rec.id)] = None
            for tok in ent:
                token_entity[tok.i] = rec.id
        out: list[FactRecord] = []
        seen: set[str] = set()
        for clause in clauses_of(doc, turn.speaker, addressee, token_entity, resolver):
            if clause.text.casefold() in seen:
                continue
            seen.add(clause.text.casefold())
            if clause.informant:
                mentions[(turn.id, clause.informant)] = None
            for entity_id in (*clause.subject_entities, *clause.object_entities):
                if ":e:other:" in entity_id or ":e:concept:" in entity_id:
                    mentions[(turn.id, entity_id)] = None
            out.append(self._fact(turn, clause))
        for caption in captions:
            if speaker is None:
                break
            out.append(
                FactRecord(
                    id="",
                    conversation_id=turn.conversation_id,
                    subject=speaker.id,
                    relation="share_image",
                    object=caption,
                    text=f"{turn.speaker} shared an image of {caption}",
                    source="extracted",
                    cites=(turn.id,),
                    about=((speaker.id, "subject"),),
                    valid_from=turn.observed_at,
                    confidence=0.9,
                    session=turn.session,
                )
            )
        return out

    def _fact(
        self,
        turn: TurnRecord,
        clause: Clause,
    ) -> FactRecord:
        about = {(e, "subject"): None for e in clause.subject_entities}
        about.update({(e, "object"): None for e in clause.object_entities})
        event_time = None
        if clause.date_phrase and self._resolve_time is not None:
            event_time = self._event_time(clause.source_text, turn.observed_at)
        modality = clause.modality
        if (
            modality == "asserted"
            and event_time is not None
            and not clause.past
            and event_time.start > turn.observed_at
        ):
            modality = "planned"  # "I'm seeing the dentist next week"
        return FactRecord(
            id="",
            conversation_id=turn.conversation_id,
            subject=clause.subject_entity or clause.subject_text,
            relation=clause.relation,
            object=clause.object_entity or clause.object_text,
            text=clause.text,
            source="extracted",
            cites=(turn.id,),
            about=tuple(about),
            event_time=event_time,
            valid_from=turn.observed_at,
            confidence=clause.confidence,
            session=turn.session,
            modality=modality,
            informant=clause.informant if modality == "reported" else None,
            reporter=turn.speaker if modality == "reported" else None,
        )

    def _event_time(self, text: str, reference: datetime) -> TimeInterval | None:
        assert self._resolve_time is not None
        try:
            intervals = self._resolve_time(text, reference)
        except KgmemError:
            return None
        return intervals[0] if intervals else None


# --- clauses -------------------------------------------------------------------------------

_FIRST = frozenset({"i", "me", "myself", "we", "us", "ourselves"})
_PLURAL_FIRST = frozenset({"we", "us", "ourselves"})
_SECOND = frozenset({"you", "u", "yourself", "yourselves", "ya"})
_POSS_FIRST = frozenset({"my", "mine", "our", "ours"})
_POSS_SECOND = frozenset({"your", "yours", "ur"})
_CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis"})
_SUBJ_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_DROP_DEPS = frozenset({"intj", "punct", "cc", "parataxis", "discourse", "meta"})
_DISCOURSE = _words(
    "so well anyway anyways btw honestly actually also plus oh yeah now then and but totally "
    "definitely"
)
_LIGHT = _words(
    "be have do get go agree think guess know see mean say tell feel sound look seem bet hope "
    "wish want need let make keep try love like thank talk chat catch come happen"
)
_SPEECH_ACTS = frozenset({"thank", "congratulate", "congrat", "welcome", "bye", "excuse"})
_NONFACTUAL_HEADS = frozenset({"hope", "wish", "bet", "imagine", "suppose", "wonder", "if"})
_FEELING = frozenset({"love", "like", "hate", "enjoy", "miss", "appreciate", "adore"})
_EMPTY_WORDS = _words(
    "cool great awesome nice good fun amazing sweet lovely wonderful fantastic incredible true "
    "right sure glad welcome okay ok interesting exciting special happy so really very too much "
    "such a an the that this it just pretty super totally all thing things stuff lot there here "
    "well"
)
_CONTRACTIONS = {
    "n't": "not",
    "'ll": "will",
    "'m": "am",
    "'re": "are",
    "'ve": "have",
    "gon": "going",
    "wan": "want",
}
_TRAILING_CONJ = re.compile(r"[\s,]+(and|but|or|yet|so|because|cause|'cause|as|while)$", re.I)
_SPACED = frozenset({*_CONTRACTIONS, "'d", "'s", "na"})
_OBJECT_CASE = frozenset({"me", "us", "him", "them", "her"})
_INTENSIFIERS = r"^((so|really|very|super|truly|pretty|totally|such|a|an|the)\s+)+"
_IRREGULAR_3SG = {
    "be": "is",
    "am": "is",
    "'m": "is",
    "are": "is",
    "'re": "is",
    "have": "has",
    "'ve": "has",
    "do": "does",
    "go": "goes",
    "were": "was",
    "wanna": "wants to",
    "gotta": "has to",
}


@dataclass(frozen=True)
class Clause:
    """One extracted clause, before it becomes a `FactRecord`.

    Attributes:
        text: rendered, self-contained sentence ("Caroline went to a LGBTQ support group").
        source_text: the clause's original text span (what dates are resolved from).
        relation: lemma-based snake_case relation.
        subject_text / subject_entity: rendered subject and its entity id, if any.
        object_text / object_entity: rendered object (leading article dropped) and entity id.
        subject_entities / object_entities: ids for ``ABOUT`` edges by role.
        date_phrase: the first DATE/TIME span in the clause, or "".
        confidence: in [0, 1].
        modality: see `kgmem.ingest.modality` (a future event time can still make an
            ``asserted`` clause ``planned`` once dates are resolved, unless ``past``).
        informant: for ``reported`` clauses, the entity id (or name) the content came from.
        past: the clause's verb is in the past tense.
    """

    text: str
    source_text: str
    relation: str
    subject_text: str
    subject_entity: str | None
    object_text: str
    object_entity: str | None
    subject_entities: tuple[str, ...]
    object_entities: tuple[str, ...]
    date_phrase: str
    confidence: float
    modality: Modality = "asserted"
    informant: str | None = None
    past: bool = False


def _third_person(tok: Token) -> str:
    low = tok.lower_
    if low in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[low]
    word = tok.lemma_.lower() if tok.lemma_ else low
    if word in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[word]
    if re.search(r"(s|sh|ch|x|z|o)$", word):
        return word + "es"
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


class _TurnContext:
    """Pronoun substitutions and entity lookups for one parsed turn."""

    def __init__(
        self,
        doc: Doc,
        speaker: str,
        addressee: str | None,
        token_entity: dict[int, str],
        resolver: EntityResolver,
    ) -> None:
        self.doc = doc
        self.token_entity = dict(token_entity)
        self.resolver = resolver
        self.subst: dict[int, str] = {}
        #: (entity id, name) of the last clause subject that was a named non-speaker person
        self.last_person: tuple[str, str] | None = None
        self.vocatives = _vocatives(doc, resolver)
        speaker_rec = resolver.resolve(speaker, "person")
        addr_rec = resolver.resolve(addressee, "person") if addressee else None
        for tok in doc:
            low = tok.lower_
            if not tok.whitespace_ and tok.i + 1 < len(doc) and doc[tok.i + 1].text == "-":
                continue  # "me-time"
            if low == "na" and tok.i > 0 and doc[tok.i - 1].lower_ in ("gon", "wan"):
                self.subst[tok.i] = "to"
            elif low in ("all", "both") and tok.i > 0 and doc[tok.i - 1].lower_ in _PLURAL_FIRST:
                self.subst[tok.i] = ""  # "we all have" -> "Caroline has"
            elif low in _FIRST or (low in _SECOND and addressee and tok.tag_ == "PRP"):
                name, rec = (speaker, speaker_rec) if low in _FIRST else (addressee, addr_rec)
                self.subst[tok.i] = name or tok.text
                if rec is not None:
                    self.token_entity[tok.i] = rec.id
                if tok.dep_ in ("nsubj", "nsubjpass"):
                    self._agree(tok)
            elif low in _POSS_FIRST or (low in _POSS_SECOND and addressee):
                name, rec = (speaker, speaker_rec) if low in _POSS_FIRST else (addressee, addr_rec)
                self.subst[tok.i] = f"{name}'s"
                if rec is not None:
                    self.token_entity[tok.i] = rec.id
            elif low in _CONTRACTIONS and tok.i not in self.subst:
                self.subst[tok.i] = _CONTRACTIONS[low]
            elif low in ("wanna", "gonna", "gotta") and tok.i not in self.subst:
                self.subst[tok.i] = {"wanna": "want to", "gonna": "going to"}.get(low, "have to")
            elif low == "'d":
                self.subst[tok.i] = "would" if tok.tag_ == "MD" else "had"
            elif low in ("ca", "wo") and tok.i + 1 < len(doc) and doc[tok.i + 1].lower_ == "n't":
                self.subst[tok.i] = "can" if low == "ca" else "will"

    def _agree(self, subj: Token) -> None:
        head = subj.head
        auxes = [c for c in head.children if c.dep_ in ("aux", "auxpass") and c.i < head.i]
        finite = auxes[0] if auxes else head
        if finite.tag_ == "VBP" or finite.lower_ in (
            "am",
            "'m",
            "are",
            "'re",
            "were",
            "wanna",
            "gotta",
        ):
            self.subst[finite.i] = _third_person(finite)
        for conj in head.conjuncts:
            if conj.i > head.i and _subject_of(conj) is None and conj.tag_ == "VBP":
                self.subst[conj.i] = _third_person(conj)

    def render(self, tokens: Sequence[Token]) -> str:
        parts: list[str] = []
        previous: Token | None = None
        for tok in tokens:
            word = self.subst.get(tok.i, tok.text)
            if (
                previous is not None
                and not previous.whitespace_
                and (tok.i != previous.i + 1 or (tok.i in self.subst and tok.lower_ in _SPACED))
            ):
                parts.append(" ")
            parts.append(word + tok.whitespace_)
            previous = tok
        text = "".join(parts).strip()
        text = re.sub(r"\s+", " ", text).strip(" ,;:-\u2013\u2014.!?")
        return _TRAILING_CONJ.sub("", text)


def _vocatives(doc: Doc, resolver: EntityResolver) -> set[int]:
    """Token indices of names used to address someone ("Hey Jon, ...", "..., Mel!").

    Names are PERSON spans, and proper nouns the resolver knows as persons (NER misses
    "Hey Maria," often).
    """
    out: set[int] = set()
    spans = [ent for ent in doc.ents if ent.label_ == "PERSON"]
    spans += [
        doc[t.i : t.i + 1]
        for t in doc
        if t.pos_ == "PROPN" and not t.ent_type_ and resolver.lookup(t.text, "person")
    ]
    for ent in spans:
        sent = ent.sent
        after_ok = ent.end >= sent.end or doc[ent.end].is_punct
        before = doc[sent.start : ent.start]
        opening = all(t.is_punct or t.pos_ == "INTJ" or t.lower_ in GREETINGS for t in before)
        closing = (
            ent.start > sent.start
            and doc[ent.start - 1].text == ","
            and (ent.end >= sent.end or doc[ent.end].text in ("!", ".", "?", "!!"))
        )
        if (opening and after_ok) or closing:
            out.update(range(ent.start, ent.end))
    return out


def _subject_of(head: Token) -> Token | None:
    """The clause's subject: with several (a vocative parsed as nsubj), the closest before."""
    subjects = [c for c in head.children if c.dep_ in _SUBJ_DEPS]
    if len(subjects) > 1:
        before = [c for c in subjects if c.i < head.i]
        return before[-1] if before else subjects[0]
    return subjects[0] if subjects else None


def _inherited_subject(head: Token) -> tuple[Token, list[Token]] | None:
    """Subject of a coordinated verb, plus the auxiliaries it shares ("has made ... and given")."""
    node = head
    while node.dep_ == "conj" and node.head.i != node.i:
        node = node.head
        subj = _subject_of(node)
        if subj is not None:
            own_aux = any(c.dep_ in ("aux", "auxpass") for c in head.children)
            shared = [c for c in node.children if c.dep_ in ("aux", "auxpass") and c.i < node.i]
            return subj, [] if own_aux else shared
    return None


def _is_question(sent: Span) -> bool:
    return sent.text.rstrip().endswith("?")


def _clause_tokens(head: Token, ctx: _TurnContext) -> list[Token]:
    dropped: set[int] = set()
    subject = _subject_of(head)
    for child in head.children:
        vocative = (child.dep_ in ("npadvmod", "appos", "dep") and child.ent_type_ == "PERSON") or (
            child.dep_ in _SUBJ_DEPS and (subject is None or child.i != subject.i)
        )
        own_clause = child.dep_ in ("conj", "ccomp", "advcl") and (
            _subject_of(child) is not None
            or (child.dep_ == "conj" and child.pos_ in ("VERB", "AUX"))
        )
        if child.dep_ in _DROP_DEPS or vocative or own_clause:
            dropped.update(t.i for t in child.subtree)
    dropped.update(ctx.vocatives)
    tokens = [t for t in head.subtree if t.i not in dropped]
    while tokens and (
        tokens[0].lower_ in _DISCOURSE
        or tokens[0].is_punct
        or (
            (tokens[0].dep_ == "mark" or tokens[0].tag_ in ("WRB", "WDT"))
            and tokens[0].head.i == head.i
        )
    ):
        tokens.pop(0)
    return tokens


_QUOTE_CHARS = frozenset("\"'`\u2018\u2019\u201c\u201d")


def _common_word_span(ent: Span, lower: set[str]) -> bool:
    """A non-person NER span that opens its sentence (capitalised by position only), is not
    quoted, and all of whose words the conversation also writes in lower case ("Pottery's so
    relaxing", "Clay is so forgiving"): evidence of a common word, not a name. Titles in quotes
    ("Brave" by Sara Bareilles) stay. A span whose first word has no capital at all ("kids &
    work", "ya, Melanie") is never a name either ("iPhone" has one)."""
    if not any(c.isupper() for c in ent.text.split(" ")[0]):
        return True
    first = ent.sent.start
    while first < ent.start and (ent.doc[first].is_punct or ent.doc[first].pos_ == "INTJ"):
        first += 1
    if ent.start != first:
        return False
    before = ent.doc[ent.start - 1].text if ent.start > 0 else ""
    if before and before[-1] in _QUOTE_CHARS:
        return False
    words = [w.casefold() for w in re.findall(r"[\w']+", ent.text)]
    return bool(words) and all(w in lower for w in words)


def _org_modifier(ent: Span) -> bool:
    """A one-word ORG span that modifies the common noun right after it ("the *Perseid* meteor
    shower", "a new *LGBTQ* activist group", "the *Pride* fest"): spaCy tags such modifiers ORG,
    but the thing named is the noun phrase, which the object rules keep as a `concept`."""
    if len(ent) != 1 or ent.end >= len(ent.doc):
        return False
    after = ent.doc[ent.end]
    return after.is_alpha and after.is_lower and after.pos_ in ("NOUN", "ADJ")


def _chunk_name(tok: Token) -> str:
    """A noun's name in its surface form: its compounds and itself ("mango smoothies"), never a
    lemma (spaCy lemmatises "ramen" to "raman" and "smoothies" to "smoothy")."""
    if tok.pos_ not in ("NOUN", "PROPN"):
        return ""
    compounds = [t for c in tok.children if c.dep_ == "compound" and c.i < tok.i for t in c.subtree]
    if tok.pos_ == "PROPN":  # "my neighbour Pia": the name, not the description
        compounds = [t for t in compounds if t.pos_ == "PROPN"]
    return " ".join(t.text for t in sorted([*compounds, tok], key=lambda t: t.i))


_VALUE_ENTS = frozenset({"MONEY", "QUANTITY", "CARDINAL", "PERCENT", "TIME", "DATE", "ORDINAL"})


def _possessed_attr(head: Token) -> bool:
    """A copula whose predicate is someone's thing: "X is my go-to lunch", "X is his hobby"."""
    if head.lemma_.lower() != "be":
        return False
    attr = next((c for c in head.children if c.dep_ == "attr"), None)
    return attr is not None and any(c.dep_ == "poss" for c in attr.children)


def _concepts(tok: Token, ctx: _TurnContext) -> list[str]:
    """`concept` entity ids for a common-noun object (or possessed-copula subject) and its
    conjuncts: "ramen and mango smoothies" -> ramen, mango smoothies. Abstract and evaluative
    nouns are skipped (`kgmem.ingest.entities.is_concept_noun`)."""
    out: list[str] = []
    nouns: dict[int, Token] = {}
    for conjunct in (tok, *tok.conjuncts):
        real = _through_partitive(conjunct)
        if real is not None:  # "loads of love and lots of cookies": look through each
            for noun in (real, *real.conjuncts) if real is not conjunct else (real,):
                seen = _through_partitive(noun)
                if seen is not None:
                    nouns.setdefault(seen.i, seen)
    for noun in nouns.values():
        if noun.i in ctx.token_entity:
            out.append(ctx.token_entity[noun.i])
            continue
        if not _common_noun(noun) or noun.ent_type_ in _VALUE_ENTS:
            continue  # "30 euros", "two hours": values, not things
        name = _chunk_name(noun)
        gerund = _gerund_head(noun)
        if gerund is not None:
            name = f"{name} {gerund.text}"
        if not is_concept_noun(name):
            continue
        rec = ctx.resolver.resolve(name, "concept")
        if rec is not None:
            out.append(rec.id)
            ctx.token_entity.setdefault(noun.i, rec.id)
    return out


def _through_partitive(tok: Token) -> Token | None:
    """The real object behind a quantity or kind head ("*loads* of love" -> love, "all *kinds* of
    art" -> art); the token itself otherwise; None for a bare partitive ("a lot")."""
    if tok.lower_ not in PARTITIVE:
        return tok
    of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    return next((c for c in of.children if c.dep_ == "pobj"), None) if of else None


def _gerund_head(noun: Token) -> Token | None:
    """The -ing noun a determiner phrase really ends in when the tagger reads it as a verb
    ("went to a poetry *reading* last Fri": spaCy parses ``reading`` as an ``acl`` of
    ``poetry``). Only when the -ing word directly follows, the phrase has a determiner, and the
    -ing word governs nothing but a date ("a man reading a book" keeps ``man``)."""
    if noun.i + 1 >= len(noun.doc) or not any(c.dep_ == "det" for c in noun.children):
        return None
    nxt = noun.doc[noun.i + 1]
    if nxt.head.i != noun.i or nxt.dep_ != "acl" or nxt.tag_ != "VBG":
        return None
    if any(
        not (c.ent_type_ in ("DATE", "TIME") or c.lower_.strip(".") in WEEKDAYS or c.is_punct)
        for c in nxt.children
    ):
        return None
    return nxt


_LIGHT_IDIOMS: dict[str, frozenset[str]] = {
    "do": frozenset({"job", "favor", "favour", "best", "trick", "justice"}),
    "take": frozenset({"care", "part", "place", "turn", "turns", "advantage", "note"}),
    "make": frozenset({"sense", "difference", "point", "effort", "use", "progress"}),
    "pay": frozenset({"attention", "tribute", "visit"}),
}
"""Light-verb idioms whose object names nothing ("doing an awesome *job*", "take *care*", "make a
*difference*"): no `concept` entity (the fact itself is kept)."""


def _name_type(tok: Token) -> EntityType:
    """The type of a proper-noun subject or object no NER span covers: ``work`` for a quoted
    title ("*Brave*" by Sara Bareilles: quotes mark song, book and film titles in English
    prose), ``other`` otherwise."""
    left = min((t.i for t in tok.subtree if not t.is_punct), default=tok.i)
    before = tok.doc[left - 1].text if left > 0 else ""
    return "work" if before and before[-1] in _QUOTE_CHARS else "other"


def _common_noun(tok: Token) -> bool:
    """A common noun, or a lower-case word the tagger calls a proper noun ("continue my *edu*"):
    a name is capitalised."""
    return tok.pos_ == "NOUN" or (tok.pos_ == "PROPN" and tok.text[:1].islower())


_TIME_PREPS = frozenset({"since", "until", "till", "after", "before", "during", "throughout"})
"""Prepositions whose object is a time or occasion ("since our last *chat*", "after the
*drive*"): no `concept` entity."""

_CHANGE_VERBS = frozenset({"move", "relocate", "switch", "change", "transfer", "go", "convert"})


def _pick_object(head: Token) -> tuple[Token | None, str]:
    """The clause's object token and the relation suffix (a preposition, or "")."""
    kids = list(head.children)
    for deps in (("dobj", "obj"), ("attr", "acomp", "oprd")):
        obj = next((c for c in kids if c.dep_ in deps), None)
        if obj is not None:
            return obj, ""
    preps = [c for c in kids if c.dep_ in ("prep", "agent")]
    if head.lemma_.lower() in _CHANGE_VERBS:  # "moved from Graz to Linz": the destination
        preps.sort(key=lambda c: c.lower_ not in ("to", "into", "onto"))
    for prep in preps:
        pobj = next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)
        if pobj is not None:
            return pobj, prep.lower_
    xcomp = next((c for c in kids if c.dep_ in ("xcomp", "ccomp") and _subject_of(c) is None), None)
    return xcomp, ""


def _relation(head: Token, prep: str) -> str:
    lemma = head.lemma_.lower() or head.lower_
    lemma = {"wanna": "want", "gonna": "go", "gotta": "have", "gon": "go"}.get(lemma, lemma)
    parts = [lemma]
    parts += [c.lower_ for c in head.children if c.dep_ == "prt"]
    if prep:
        parts.append(prep)
    if any(c.dep_ == "neg" for c in head.children):
        parts.insert(0, "not")
    rel = re.sub(r"[^a-z0-9]+", "_", "_".join(parts)).strip("_")
    return rel or "relate"


def _implicit_prefix(head: Token) -> list[str] | None:
    """Words to put after the speaker's name when a chatty clause drops "I", else None.

    Covers a sentence-initial past or -ing verb ("Went hiking", "Loving it"), a feeling verb
    ("Love that painting!"), and "Gonna/Wanna <verb>" with its coordinated verbs. A bare
    present-tense verb is an imperative ("Take a look") and yields None.
    """
    skip = ("intj", "advmod", "cc")
    first = next((t for t in head.sent if not (t.is_punct or t.dep_ in skip)), None)
    if not any(not c.is_punct for c in head.children):
        return None  # a one-word exclamation: "Uplifting!"
    if head.dep_ == "ROOT" and first is not None and first.i == head.i:
        if head.tag_ == "VBG":
            return ["is"]  # "Loving the support" -> "<speaker> is loving the support"
        if head.tag_ == "VBD" or head.lemma_.lower() in _FEELING:
            return []
        return None
    if (
        head.dep_ in ("advcl", "xcomp")
        and head.head.lower_ in ("gon", "wan")
        and first is not None
        and first.i == head.head.i
    ):
        return ["is going"] if head.head.lower_ == "gon" else ["wants"]
    if head.dep_ == "conj":
        parent = _implicit_prefix(head.head)
        if parent:
            return [*parent, "to"]
        return parent
    return None


_THIRD_SUBJECT = frozenset({"he", "she", "they"})


def _resolve_reporter(tok: Token, ctx: _TurnContext) -> tuple[str, str] | None:
    """Entity id and name of a reporting verb's subject: the entity its head token already
    resolves to (a PERSON span, "I"/"you"), else a proper name in it ("my neighbour Pia" ->
    Pia, "Noted - Tomas" -> Tomas), registered as a person: only people tell and say."""
    if tok.i in ctx.token_entity:
        entity_id = ctx.token_entity[tok.i]
        return entity_id, ctx.subst.get(tok.i) or _span_text(tok, ctx)
    name_tok = tok if _looks_like_name(tok) else None
    if name_tok is None:
        name_tok = next(
            (c for c in tok.children if c.dep_ == "appos" and _looks_like_name(c)), None
        )
    if name_tok is None:
        return None
    left = name_tok.i
    while (
        left > 0 and ctx.doc[left - 1].pos_ in ("PROPN", "PUNCT") and ctx.doc[left - 1].text != ","
    ):
        left -= 1
    rec = ctx.resolver.resolve(ctx.doc[left : name_tok.i + 1].text, "person")
    if rec is None:
        return None
    ctx.token_entity[name_tok.i] = rec.id
    return rec.id, rec.name


def _looks_like_name(tok: Token) -> bool:
    """A proper noun, or a capitalised noun the tagger missed ("Pia said …" tags Pia NOUN)."""
    return tok.pos_ == "PROPN" or (tok.pos_ == "NOUN" and tok.text[:1].isupper())


def _span_text(tok: Token, ctx: _TurnContext) -> str:
    return next((e.text for e in ctx.doc.ents if e.start <= tok.i < e.end), tok.text)


def _clause(head: Token, ctx: _TurnContext, speaker: str) -> Clause | None:
    confidence = 0.8
    subj = _subject_of(head)
    prefix: list[str] = []
    if subj is None:
        inherited = _inherited_subject(head)
        subj = inherited[0] if inherited else None
        if inherited is None:
            implicit = _implicit_prefix(head)
            if implicit is None:
                return None
            if any(t.lower_ in ("me", "us") for t in head.subtree):
                return None  # "Really made me proud": the dropped subject is "it", not "I"
            prefix, confidence = [speaker, *implicit], 0.55
            if not implicit and head.tag_ in ("VB", "VBP"):
                ctx.subst[head.i] = _third_person(head)  # "Love that painting!"
        else:
            prefix = [ctx.render([t for t in inherited[0].subtree])]
            if inherited[1]:
                prefix.append(ctx.render(inherited[1]))
    informant: str | None = None
    reporter_tok = reporting_subject(head)
    if reporter_tok is not None and reporter_tok.lower_ not in ("i", "we"):
        found = _resolve_reporter(reporter_tok, ctx)
        informant = found[0] if found else None
        if subj is not None and subj.lower_ in _THIRD_SUBJECT and found is not None:
            # "Pia told me she can't stand jazz": "she" is the one who told
            ctx.subst[subj.i] = found[1]
            ctx.token_entity[subj.i] = found[0]
    if (
        subj is not None
        and subj.lower_ in ("he", "she")
        and subj.i not in ctx.subst
        and ctx.last_person is not None
    ):
        # "Ivy has been taken off Orchid; she works on Juniper now": within one turn, he/she
        # after a clause about a named (non-speaker) person is that person
        ctx.subst[subj.i], ctx.token_entity[subj.i] = ctx.last_person[1], ctx.last_person[0]
    if subj is not None:
        low = subj.lower_
        if subj.i not in ctx.subst and (
            subj.tag_ in ("PRP", "WDT", "WP", "DT", "EX")
            or low in ("this", "that", "there", "here")
        ):
            return None
        if low in _SECOND and subj.i not in ctx.subst:
            return None
        if low in _OBJECT_CASE:
            return None
        if low in _PLURAL_FIRST:
            confidence -= 0.1
    if head.lemma_.lower() in _SPEECH_ACTS:
        return None
    if head.dep_ == "ccomp" and head.head.lemma_.lower() in _NONFACTUAL_HEADS:
        return None
    if any(c.dep_ == "mark" and c.lower_ == "if" for c in head.children):
        return None
    if head.dep_ != "ROOT" and any(
        c.tag_ in ("WP", "WDT", "WRB") or (c.dep_ == "aux" and c.tag_ == "TO" and subj is not None)
        for c in head.children
    ):
        return None  # embedded question or infinitive: "what we can do", "for kids to check out"
    if subj is not None and subj.i in ctx.vocatives:
        return None
    if (
        head.dep_ != "ROOT"
        and head.tag_ == "VBG"
        and not any(c.dep_ == "aux" for c in head.children)
    ):
        return None  # participle, not a clause: "seeing you making a difference"
    if (
        head.dep_ == "ccomp"
        and head.tag_ == "VB"
        and not any(c.dep_ == "aux" for c in head.children)
    ):
        return None  # small clause: "makes everyone feel welcome"
    tokens = _clause_tokens(head, ctx)
    obj, prep = _pick_object(head)
    relation = _relation(head, prep)
    body = ctx.render(tokens)
    if prefix and tokens and tokens[0].pos_ != "PROPN":
        body = body[:1].lower() + body[1:]
    text = " ".join([*prefix, body]).strip()
    text = text[:1].upper() + text[1:]
    obj_text = ctx.render(list(obj.subtree)) if obj is not None else ""
    obj_text = re.sub(_INTENSIFIERS, "", obj_text, flags=re.IGNORECASE)
    if obj is None and head.lemma_.lower() in _LIGHT:
        return None
    if len(text.split()) < 3:
        return None
    obj_words = re.findall(r"[\w']+", obj_text.casefold())
    if obj is not None and all(w in _EMPTY_WORDS for w in obj_words):
        return None
    # subject
    subject_entity: str | None = None
    subject_text = prefix[0] if prefix else ""
    if subj is not None and any(
        c.dep_ == "det" and c.lower_ in ("this", "that", "these", "those") for c in subj.children
    ):
        confidence -= 0.2  # "That photo is stunning": true, but not self-contained
    subj_ids: list[str] = []
    if subj is not None:
        subject_entity = ctx.token_entity.get(subj.i)
        subject_concepts: list[str] = []
        if subject_entity is None and subj.pos_ == "PROPN" and head.lemma_.lower() in REPORTING:
            found_subject = _resolve_reporter(subj, ctx)  # only people tell and say
            subject_entity = found_subject[0] if found_subject else None
        elif subject_entity is None and subj.pos_ == "PROPN" and not _common_noun(subj):
            rec = ctx.resolver.resolve(_chunk_name(subj), _name_type(subj))
            subject_entity = rec.id if rec else None
        elif subject_entity is None and _possessed_attr(head):
            # "Spicy ramen and mango smoothies are my go-to lunch": the subject is the thing
            subject_concepts = _concepts(subj, ctx)
            subject_entity = subject_concepts[0] if subject_concepts else None
        subj_ids = [ctx.token_entity[t.i] for t in subj.subtree if t.i in ctx.token_entity]
        subj_ids += [c for c in subject_concepts if c not in subj_ids]
        if not subject_text:
            subject_text = ctx.render(list(subj.subtree))
    elif prefix:
        rec = ctx.resolver.resolve(speaker, "person")
        subject_entity = rec.id if rec else None
    if subject_entity and subject_entity not in subj_ids:
        subj_ids.insert(0, subject_entity)
    # object
    object_entity: str | None = None
    if obj is not None:
        object_entity = ctx.token_entity.get(obj.i)
        object_concepts: list[str] = []
        if object_entity is None and obj.pos_ == "PROPN" and not _common_noun(obj):
            rec = ctx.resolver.resolve(_chunk_name(obj), _name_type(obj))
            object_entity = rec.id if rec else None
        elif (
            object_entity is None
            and head.lemma_.lower() != "be"
            and prep not in _TIME_PREPS
            and obj.lower_ not in _LIGHT_IDIOMS.get(head.lemma_.lower(), ())
        ):
            object_concepts = _concepts(obj, ctx)
            object_entity = object_concepts[0] if object_concepts else None
    subj_span = {t.i for t in subj.subtree} if subj is not None else set()
    obj_ids = [
        ctx.token_entity[t.i] for t in tokens if t.i in ctx.token_entity and t.i not in subj_span
    ]
    if object_entity:
        obj_ids.insert(0, object_entity)
    if obj is not None:
        obj_ids += [c for c in object_concepts if c not in obj_ids]
    if object_entity or subject_entity:
        confidence += 0.05
    if obj is not None and obj.tag_ in ("PRP", "DT") and obj.i not in ctx.subst:
        confidence -= 0.2
    if any(c.dep_ == "aux" and c.tag_ == "MD" for c in head.children):
        confidence -= 0.1
    if len(text.split()) > 20:
        confidence -= 0.1
    date = next((t for t in tokens if t.ent_type_ in ("DATE", "TIME")), None)
    date_phrase = ""
    if date is not None:
        date_phrase = next(e.text for e in ctx.doc.ents if e.start <= date.i < e.end)
    span_tokens = sorted({*(t.i for t in tokens), *subj_span})
    source = ctx.doc[span_tokens[0] : span_tokens[-1] + 1].text if span_tokens else ""
    modality = clause_modality(head)
    past = head.tag_ == "VBD" or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in head.children
    )
    return Clause(
        modality=modality,
        informant=informant if modality == "reported" else None,
        past=past,
        text=text,
        source_text=source,
        relation=relation,
        subject_text=subject_text,
        subject_entity=subject_entity,
        object_text=obj_text,
        object_entity=object_entity,
        subject_entities=tuple(dict.fromkeys(subj_ids)),
        object_entities=tuple(dict.fromkeys(i for i in obj_ids if i not in subj_ids)),
        date_phrase=date_phrase,
        confidence=max(0.05, min(1.0, round(confidence, 2))),
    )


def clauses_of(
    doc: Doc,
    speaker: str,
    addressee: str | None,
    token_entity: dict[int, str],
    resolver: EntityResolver,
) -> list[Clause]:
    """Contentful clauses of one parsed turn, in text order (questions skipped)."""
    ctx = _TurnContext(doc, speaker, addressee, token_entity, resolver)
    out: list[Clause] = []
    for sent in doc.sents:
        if _is_question(sent):
            continue
        for tok in sent:
            if tok.dep_ in _CLAUSE_DEPS and tok.pos_ in ("VERB", "AUX"):
                clause = _clause(tok, ctx, speaker)
                if clause is not None:
                    out.append(clause)
                    subject = clause.subject_entity
                    if subject and ":e:person:" in subject and clause.subject_text != speaker:
                        ctx.last_person = (subject, clause.subject_text)
    return out
