"""Noun phrases of the clause grammar: which spans are names, which common nouns become
`concept` entities, and who a reporting verb's subject is.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgmem.ingest.extraction.clause_context import TurnContext
from kgmem.ingest.extraction.clause_words import QUOTE_CHARS, VALUE_ENTS
from kgmem.ingest.extraction.entities import PARTITIVE, WEEKDAYS, is_concept_noun
from kgmem.models import EntityType

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = [
    "chunk_name",
    "common_noun",
    "common_word_span",
    "concepts",
    "name_type",
    "org_modifier",
    "possessed_attr",
    "resolve_reporter",
]


def common_word_span(ent: Span, lower: set[str]) -> bool:
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
    if before and before[-1] in QUOTE_CHARS:
        return False
    words = [w.casefold() for w in re.findall(r"[\w']+", ent.text)]
    return bool(words) and all(w in lower for w in words)


def org_modifier(ent: Span) -> bool:
    """A one-word ORG span that modifies the common noun right after it ("the *Perseid* meteor
    shower", "a new *LGBTQ* activist group", "the *Pride* fest"): spaCy tags such modifiers ORG,
    but the thing named is the noun phrase, which the object rules keep as a `concept`."""
    if len(ent) != 1 or ent.end >= len(ent.doc):
        return False
    after = ent.doc[ent.end]
    return after.is_alpha and after.is_lower and after.pos_ in ("NOUN", "ADJ")


def chunk_name(tok: Token) -> str:
    """A noun's name in its surface form: its compounds and itself ("mango smoothies"), never a
    lemma (spaCy lemmatises "ramen" to "raman" and "smoothies" to "smoothy")."""
    if tok.pos_ not in ("NOUN", "PROPN"):
        return ""
    compounds = [t for c in tok.children if c.dep_ == "compound" and c.i < tok.i for t in c.subtree]
    if tok.pos_ == "PROPN":  # "my neighbour Pia": the name, not the description
        compounds = [t for t in compounds if t.pos_ == "PROPN"]
    return " ".join(t.text for t in sorted([*compounds, tok], key=lambda t: t.i))


def possessed_attr(head: Token) -> bool:
    """A copula whose predicate is someone's thing: "X is my go-to lunch", "X is his hobby"."""
    if head.lemma_.lower() != "be":
        return False
    attr = next((c for c in head.children if c.dep_ == "attr"), None)
    return attr is not None and any(c.dep_ == "poss" for c in attr.children)


def concepts(tok: Token, ctx: TurnContext) -> list[str]:
    """`concept` entity ids for a common-noun object (or possessed-copula subject) and its
    conjuncts: "ramen and mango smoothies" -> ramen, mango smoothies. Abstract and evaluative
    nouns are skipped (`kgmem.ingest.extraction.entities.is_concept_noun`)."""
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
        if not common_noun(noun) or noun.ent_type_ in VALUE_ENTS:
            continue  # "30 euros", "two hours": values, not things
        name = chunk_name(noun)
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


def name_type(tok: Token) -> EntityType:
    """The type of a proper-noun subject or object no NER span covers: ``work`` for a quoted
    title ("*Brave*" by Sara Bareilles: quotes mark song, book and film titles in English
    prose), ``other`` otherwise."""
    left = min((t.i for t in tok.subtree if not t.is_punct), default=tok.i)
    before = tok.doc[left - 1].text if left > 0 else ""
    return "work" if before and before[-1] in QUOTE_CHARS else "other"


def common_noun(tok: Token) -> bool:
    """A common noun, or a lower-case word the tagger calls a proper noun ("continue my *edu*"):
    a name is capitalised."""
    return tok.pos_ == "NOUN" or (tok.pos_ == "PROPN" and tok.text[:1].islower())


def resolve_reporter(tok: Token, ctx: TurnContext) -> tuple[str, str] | None:
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


def _span_text(tok: Token, ctx: TurnContext) -> str:
    return next((e.text for e in ctx.doc.ents if e.start <= tok.i < e.end), tok.text)
