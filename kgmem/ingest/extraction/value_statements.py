"""`ValueExtractor` is a `FactExtractor` for statements a clause parse misses but whose value
has a recognisable form: an e-mail address, phone number, amount, date or code next to a noun
that names an attribute ("New phone, new number: 0151 …", "you can reach me at x@y.org",
"Correction: the flight is on the 16th, not the 14th": a value after "not" is the one
rejected), a home noun with a place ("the new place in Ghent"), and a value word of an
attribute with a habitual-time phrase ("… every morning"). The attributes are those of
`kgmem.ingest.extraction.attributes`; value forms come from `kgmem.ingest.extraction.values`.

Like the clause parse, it reads a turn's prose only (`kgmem.ingest.extraction.prose`): a fenced
code block or a markdown table is not a statement of the user ("email: 'jane@example.com'" in a
pasted config, a URL in a fetch call), and read as one it keyed pasted code as the user's e-mail
or website, each later snippet superseding the last.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgmem.ingest.extraction.attributes import Attribute, Vocabulary, thing_of, vocabulary
from kgmem.ingest.extraction.extract import SERIAL_STRIDE, Extraction, split_captions
from kgmem.ingest.extraction.prose import parsed_prose
from kgmem.ingest.extraction.values import ValueType, find_values, types_with
from kgmem.models import FactRecord, TurnRecord

__all__ = ["VALUE_OFFSET", "ValueExtractor"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_FIRST = re.compile(r"\b(?:i|me|my|mine|we|us|our|i'm|i've|i'll)\b", re.IGNORECASE)
_REJECTED = re.compile(r"\b(?:not|no longer|instead of|rather than)\s+(?:the\s+)?$", re.I)
_HABIT = re.compile(
    r"\b(?:every|each)\s+(?:day|morning|evening|night|week|weekend)\b|\bin\s+the\s+(?:mornings?"
    r"|evenings?)\b|\b(?:usually|always|daily|nowadays|these\s+days|back\s+to|switched\s+to|"
    r"ritual|habit|routine)\b",
    re.IGNORECASE,
)
_PLACE_AFTER = re.compile(r"\s+(?:in|at)\s+(?P<place>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
#: pattern-typed values this extractor reads (a time alone says too little)
_FORM_TYPES: frozenset[ValueType] = types_with("stated")
VALUE_OFFSET = SERIAL_STRIDE * 7 // 10


_COPULA_TYPES: frozenset[ValueType] = types_with("copula")
_COPULA = re.compile(
    r"\b(?:is|are|'s|was|will\s+be|moved\s+to|changed\s+to|now)\s+(?:on\s+|at\s+|for\s+)?"
    r"(?:the\s+)?$|:\s*$",
    re.IGNORECASE,
)
_SELF_NAMING = types_with("self_naming")
_OTHERS = re.compile(r"\b(?:his|her|their|your|[A-Z][a-z]+'s)\b")


def _only_attribute(kind: str, vocab: Vocabulary) -> tuple[Attribute, str] | None:
    """The one attribute whose only allowed type is ``kind`` (an e-mail address is an e-mail),
    with its first noun; None when several or none are."""
    if kind not in _SELF_NAMING:
        return None  # a date or an amount alone says nothing of what it is the value of
    owners = [a for a in vocab.attributes.values() if a.value_types == (kind,) and a.nouns]
    return (owners[0], owners[0].nouns[0]) if len(owners) == 1 else None


def _noun_before(sentence: str, start: int) -> tuple[Attribute, str] | None:
    """The attribute the nearest vocabulary noun within eight words before ``start`` names."""
    words = list(re.finditer(r"[A-Za-z][\w'-]*", sentence[:start]))[-8:]
    vocab = vocabulary()
    for i in range(len(words) - 1, -1, -1):
        for size in (3, 2, 1):
            if i - size + 1 < 0:
                continue
            phrase = " ".join(w.group(0).lower() for w in words[i - size + 1 : i + 1])
            if phrase in vocab.by_noun:
                return vocab.by_noun[phrase], phrase
    return None


class ValueExtractor:
    """The value-form `FactExtractor` (module docstring): facts with ``source =
    "extracted"``, ids ``<cid>:v:<dia>:<n>``, serial ``index * SERIAL_STRIDE + 700 + n``,
    each carrying its attribute, value and type; the speaker is the holder."""

    name = "values"

    def extract(
        self, conversation_id: str, turns: Sequence[TurnRecord], speakers: Sequence[str]
    ) -> Extraction:
        """Facts for every sentence of ``turns`` that states an attribute value by its form."""
        from kgmem.ingest.extraction.entities import EntityResolver

        resolver = EntityResolver(conversation_id, speakers)
        facts: list[FactRecord] = []
        mentions: dict[tuple[str, str], None] = {}
        vocab = vocabulary()
        for turn in turns:
            if turn.request or turn.role in ("assistant", "system", "tool"):
                continue  # an assistant's reply states no attribute of its own
            speaker = resolver.resolve(turn.speaker, "person")
            if speaker is None:
                continue
            body, _ = split_captions(turn.text)
            body = parsed_prose(body, None)  # code and tables state no attribute of the user
            n = 0
            for sentence in _SENTENCE.split(body):
                sentence = sentence.strip()
                if not sentence or sentence.endswith("?"):
                    continue
                for found in self._sentence(sentence, vocab):
                    attribute, value, kind, thing = found
                    facts.append(
                        FactRecord(
                            id=f"{conversation_id}:v:{turn.dia_id}:{n}",
                            conversation_id=conversation_id,
                            subject=speaker.id,
                            relation=f"has_{attribute.id}",
                            object=value,
                            text=f"{turn.speaker}: {sentence}",
                            source="extracted",
                            cites=(turn.id,),
                            about=((speaker.id, "subject"),),
                            valid_from=turn.observed_at,
                            serial=turn.index * SERIAL_STRIDE + VALUE_OFFSET + n,
                            confidence=0.7,
                            session=turn.session,
                            attribute=attribute.id,
                            value=value,
                            value_type=kind,
                            multiplicity=attribute.multiplicity,
                            holder=speaker.id,
                            thing=thing,
                        )
                    )
                    mentions[(turn.id, speaker.id)] = None
                    n += 1
        used = {f.subject for f in facts}
        entities = [e for e in resolver.entities() if e.id in used]
        return Extraction(facts=facts, entities=entities, mentions=list(mentions))

    @staticmethod
    def _sentence(
        sentence: str, vocab: Vocabulary
    ) -> list[tuple[Attribute, str, ValueType, str | None]]:
        out: list[tuple[Attribute, str, ValueType, str | None]] = []
        first_person = bool(_FIRST.search(sentence))
        seen: set[str] = set()
        for kind, start, _, surface in find_values(sentence):
            if kind not in _FORM_TYPES or _REJECTED.search(sentence[:start]):
                continue
            found = _noun_before(sentence, start) or _only_attribute(kind, vocab)
            if found is None:
                continue
            attribute, noun = found
            if not attribute.allows(kind) or attribute.id in seen:
                continue
            if kind in _COPULA_TYPES and not _COPULA.search(sentence[:start]):
                continue  # "a trip last week" dates an event; "the trip is on the 9th" sets one
            if _OTHERS.search(sentence[:start]) and not first_person:
                continue  # someone else's value: "his number is …"
            seen.add(attribute.id)
            thing = thing_of(noun, noun) if attribute.per_thing else None
            out.append((attribute, surface, kind, thing))
        if _OTHERS.search(sentence) and not first_person:
            return out
        for noun, attribute in vocab.by_noun.items():  # "our flat in Leuven"
            if not attribute.allows("place") or attribute.id in seen:
                continue
            m = re.search(rf"\b{re.escape(noun)}{_PLACE_AFTER.pattern}", sentence)
            if m:
                seen.add(attribute.id)
                out.append((attribute, m["place"], "place", None))
        if _HABIT.search(sentence):
            for attribute in vocab.attributes.values():
                if (
                    attribute.values
                    and attribute.multiplicity == "single"
                    and attribute.id not in seen
                ):
                    positions = [
                        (m.start(), v)
                        for v in attribute.values
                        if (m := re.search(rf"\b{re.escape(v)}\b", sentence, re.I))
                    ]
                    if positions:
                        _, word = min(positions, key=lambda p: (p[0], -len(p[1])))
                        seen.add(attribute.id)
                        out.append((attribute, word, "other", None))
        return out
