"""One parsed turn as the clause grammar sees it: pronoun substitutions ("I" -> the speaker,
"you" -> the addressee, verb agreement), entity lookups by token, vocatives.

`TurnContext.render` turns a token list into the self-contained text of a fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgmem.ingest.extraction.clause_words import (
    CONTRACTIONS,
    FIRST,
    IRREGULAR_3SG,
    PLURAL_FIRST,
    POSS_FIRST,
    POSS_SECOND,
    SECOND,
    SPACED,
    SUBJ_DEPS,
    TRAILING_CONJ,
)
from kgmem.ingest.extraction.entities import GREETINGS, EntityResolver

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["TurnContext", "subject_of", "third_person"]


def third_person(tok: Token) -> str:
    low = tok.lower_
    if low in IRREGULAR_3SG:
        return IRREGULAR_3SG[low]
    word = tok.lemma_.lower() if tok.lemma_ else low
    if word in IRREGULAR_3SG:
        return IRREGULAR_3SG[word]
    if re.search(r"(s|sh|ch|x|z|o)$", word):
        return word + "es"
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


class TurnContext:
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
            elif low in ("all", "both") and tok.i > 0 and doc[tok.i - 1].lower_ in PLURAL_FIRST:
                self.subst[tok.i] = ""  # "we all have" -> "Caroline has"
            elif low in FIRST or (low in SECOND and addressee and tok.tag_ == "PRP"):
                name, rec = (speaker, speaker_rec) if low in FIRST else (addressee, addr_rec)
                self.subst[tok.i] = name or tok.text
                if rec is not None:
                    self.token_entity[tok.i] = rec.id
                if tok.dep_ in ("nsubj", "nsubjpass"):
                    self._agree(tok)
            elif low in POSS_FIRST or (low in POSS_SECOND and addressee):
                name, rec = (speaker, speaker_rec) if low in POSS_FIRST else (addressee, addr_rec)
                self.subst[tok.i] = f"{name}'s"
                if rec is not None:
                    self.token_entity[tok.i] = rec.id
            elif low in CONTRACTIONS and tok.i not in self.subst:
                self.subst[tok.i] = CONTRACTIONS[low]
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
            self.subst[finite.i] = third_person(finite)
        for conj in head.conjuncts:
            if conj.i > head.i and subject_of(conj) is None and conj.tag_ == "VBP":
                self.subst[conj.i] = third_person(conj)

    def render(self, tokens: Sequence[Token]) -> str:
        parts: list[str] = []
        previous: Token | None = None
        for tok in tokens:
            word = self.subst.get(tok.i, tok.text)
            if (
                previous is not None
                and not previous.whitespace_
                and (tok.i != previous.i + 1 or (tok.i in self.subst and tok.lower_ in SPACED))
            ):
                parts.append(" ")
            parts.append(word + tok.whitespace_)
            previous = tok
        text = "".join(parts).strip()
        text = re.sub(r"\s+", " ", text).strip(" ,;:-\u2013\u2014.!?")
        return TRAILING_CONJ.sub("", text)


def _vocatives(doc: Doc, resolver: EntityResolver) -> set[int]:
    """Token indices of names used to address someone ("Hey Jon, ...", "..., Mel!").

    Names are PERSON spans, and proper nouns the resolver knows as persons (NER misses
    "Hey Maria," often). A name that opens the sentence and that the parse describes with an
    appositive or a relative clause closed by a comma ("John, the one in finance, approved …",
    "John, who …, approved …") is the clause's subject, not someone addressed; after a
    greeting ("Hey John, your plan is …") it stays a vocative.
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
        described = not any(not t.is_punct for t in before) and any(
            c.dep_ in ("appos", "relcl")
            and c.right_edge.i + 1 < len(doc)
            and doc[c.right_edge.i + 1].text == ","
            for c in ent.root.children
        )  # "John, the one in finance, approved …": set off by commas on both sides
        if ((opening and after_ok) or closing) and not described:
            out.update(range(ent.start, ent.end))
    return out


def subject_of(head: Token) -> Token | None:
    """The clause's subject: with several (a vocative parsed as nsubj), the closest before."""
    subjects = [c for c in head.children if c.dep_ in SUBJ_DEPS]
    if len(subjects) > 1:
        before = [c for c in subjects if c.i < head.i]
        return before[-1] if before else subjects[0]
    return subjects[0] if subjects else None
