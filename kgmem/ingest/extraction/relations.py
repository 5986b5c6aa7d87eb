"""Statement facts: sentences that assert a lexicon relation ("X is married to Y") → facts.

`RelationExtractor` is a `FactExtractor` that runs beside the spaCy clause extractor on every
turn of every conversation (`CombinedExtractor` joins them). The turn, else each of its
sentences, is matched whole against the statement forms of `kgmem.lexicon` (most specific form
first: the one with the longest literal text); a match gives one fact
``subject -relation-> object`` whose two ends are canonical entities of the one id scheme
(`kgmem.ingest.extraction.entities.EntityResolver`), typed by the relation (an entity's type is the
kind most of its relations give it). The fact cites its turn, its text is the sentence, and a
single-valued relation gives it the supersession key ``<subject entity id>|<relation>``, so
`kgmem.ingest.extraction.supersession` links a later value to the one it replaces exactly as for any
other fact.

A sentence that matches no form as written is tried once more with each unknown word of length
>= 6 replaced by the lexicon word it equals after swapping two adjacent letters ("origianl" →
"original"): typed lists often carry such typos, and the rule needs no word list of its own.
Subjects and objects that are pronouns, numbers or generic words (`is_non_entity`) give no fact.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kgmem.ingest.extraction.entities import EntityResolver
from kgmem.ingest.extraction.extract import SERIAL_STRIDE, Extraction, FactExtractor
from kgmem.lexicon import COARSE_TYPE, Lexicon, Relation, lexicon
from kgmem.models import EntityRecord, EntityType, FactRecord, TurnRecord

__all__ = ["CombinedExtractor", "RelationExtractor", "Statement", "match_statement"]

#: statement facts of a turn take serials after its clause facts (``n`` < SERIAL_STRIDE / 2)
SERIAL_OFFSET = SERIAL_STRIDE // 2
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Statement:
    """A sentence matched to a relation: subject and object surfaces as written."""

    relation: Relation
    subject: str
    object: str
    sentence: str


def _compile(template: str) -> re.Pattern[str]:
    literal = re.escape(template).replace(r"\{s\}", "(?P<s>.+?)").replace(r"\{o\}", "(?P<o>.+)")
    return re.compile(f"^{literal}$", re.IGNORECASE)


class _Forms:
    """Every statement form of a lexicon, most specific first, and its vocabulary."""

    def __init__(self, lex: Lexicon) -> None:
        pairs = [(rel, t) for rel in lex.relations for t in rel.statements]
        pairs.sort(key=lambda p: -len(p[1].replace("{s}", "").replace("{o}", "")))
        self.forms = [(rel, _compile(t)) for rel, t in pairs]
        words = {w.lower() for _, t in pairs for w in _WORD.findall(t.replace("{s}", " "))}
        self.by_letters: dict[tuple[int, str], list[str]] = {}
        for w in words:
            if len(w) >= 6:
                self.by_letters.setdefault((len(w), "".join(sorted(w))), []).append(w)
        self.words = words

    def fix(self, word: str) -> str:
        low = word.lower()
        if len(low) < 6 or low in self.words:
            return word
        for cand in self.by_letters.get((len(low), "".join(sorted(low))), []):
            diff = [i for i in range(len(low)) if low[i] != cand[i]]
            if len(diff) == 2 and diff[1] == diff[0] + 1:  # one swapped pair of adjacent letters
                return cand
        return word


@dataclass
class _Cache:
    forms: _Forms | None = None


_CACHE = _Cache()


def _forms() -> _Forms:
    if _CACHE.forms is None:
        _CACHE.forms = _Forms(lexicon())
    return _CACHE.forms


def match_statement(sentence: str) -> Statement | None:
    """The lexicon relation a sentence asserts, or None.

    Args:
        sentence: one sentence; a final period is ignored ("X was born in the city of London.").

    Returns:
        a `Statement` for the most specific matching form (see the module docstring for typos).
    """
    forms = _forms()
    body = sentence.strip()
    body = body[:-1].rstrip() if body.endswith(".") else body
    candidates = list(dict.fromkeys((body, _WORD.sub(lambda m: forms.fix(m.group(0)), body))))
    for rel, pattern in forms.forms:  # most specific form first, as written or typo-fixed
        for candidate in candidates:
            m = pattern.match(candidate)
            if m and m["s"].strip() and m["o"].strip():
                return Statement(rel, m["s"].strip(), m["o"].strip(), sentence.strip())
    return None


class RelationExtractor:
    """The lexicon `FactExtractor` (facts with ``source = "extracted"``, ids ``<cid>:r:<dia>:<n>``).

    Args:
        lex: the lexicon (default: the shipped one).
    """

    name = "relations"

    def __init__(self, lex: Lexicon | None = None) -> None:
        if lex is not None:
            _CACHE.forms = _Forms(lex)

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """Facts for every sentence of ``turns`` that states a lexicon relation.

        Returns:
            An `Extraction`: facts in turn order (serial ``index * SERIAL_STRIDE + 500 + n``),
            their entities, and ``(turn, entity)`` mentions.
        """
        found: list[tuple[TurnRecord, Statement]] = []
        for turn in turns:
            whole = match_statement(turn.text)  # a one-sentence turn ("St. Louis" stays whole)
            sentences = [whole] if whole else map(match_statement, _SENTENCE.split(turn.text))
            found.extend((turn, st) for st in sentences if st is not None)
        kinds: dict[str, Counter[str]] = {}
        for _, st in found:
            for surface, kind in (
                (st.subject, st.relation.subject_kind),
                (st.object, st.relation.object_kind),
            ):
                kinds.setdefault(surface.casefold(), Counter())[kind] += 1

        def coarse(surface: str) -> EntityType:
            kind = kinds[surface.casefold()].most_common(1)[0][0]
            return COARSE_TYPE.get(kind, "other")  # type: ignore[return-value]

        resolver = EntityResolver(conversation_id, speakers)
        facts: list[FactRecord] = []
        mentions: dict[tuple[str, str], None] = {}
        counts: Counter[str] = Counter()
        for turn, st in found:
            subject = resolver.resolve(st.subject, coarse(st.subject))
            obj = resolver.resolve(st.object, coarse(st.object))
            if subject is None or obj is None:
                continue
            n = counts[turn.id]
            counts[turn.id] += 1
            rel = st.relation
            facts.append(
                FactRecord(
                    id=f"{conversation_id}:r:{turn.dia_id}:{n}",
                    conversation_id=conversation_id,
                    subject=subject.id,
                    relation=rel.id,
                    object=obj.id,
                    text=st.sentence,
                    source="extracted",
                    cites=(turn.id,),
                    about=((subject.id, "subject"), (obj.id, "object")),
                    valid_from=turn.observed_at,
                    key=f"{subject.id.casefold()}|{rel.id}" if rel.single_valued else None,
                    serial=turn.index * SERIAL_STRIDE + SERIAL_OFFSET + n,
                    session=turn.session,
                )
            )
            mentions[(turn.id, subject.id)] = None
            mentions[(turn.id, obj.id)] = None
        used = {e for f in facts for e, _ in f.about}
        entities = [e for e in resolver.entities() if e.id in used]
        return Extraction(facts=facts, entities=entities, mentions=list(mentions))


class CombinedExtractor:
    """Several `FactExtractor`s over the same turns, their outputs concatenated (entities of
    the same id are merged by the writer; mentions are de-duplicated)."""

    name = "combined"

    def __init__(self, extractors: Sequence[FactExtractor]) -> None:
        self.extractors = tuple(extractors)

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        facts: list[FactRecord] = []
        entities: list[EntityRecord] = []
        mentions: dict[tuple[str, str], None] = {}
        for extractor in self.extractors:
            out = extractor.extract(conversation_id, turns, speakers)
            facts.extend(out.facts)
            entities.extend(out.entities)
            mentions.update(dict.fromkeys(out.mentions))
        return Extraction(facts=facts, entities=entities, mentions=list(mentions))
