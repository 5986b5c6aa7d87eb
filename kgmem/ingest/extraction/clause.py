"""The clause grammar: one parsed turn -> its contentful clauses, each a `Clause` that
`kgmem.ingest.extraction.extract.SpacyExtractor` turns into a `FactRecord`.

A clause is a verb or copula with a subject of its own, or one inherited through coordination
("has made ... and given"). Questions, clauses whose subject is an unresolvable pronoun or
demonstrative, imperatives, speech acts and greetings yield nothing. Word lists live in
`kgmem.ingest.extraction.clause_words`, pronoun substitution in
`kgmem.ingest.extraction.clause_context`, noun phrases and entities in
`kgmem.ingest.extraction.clause_nouns`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgmem.ingest.extraction.clause_context import TurnContext, subject_of, third_person
from kgmem.ingest.extraction.clause_nouns import (
    chunk_name,
    common_noun,
    concepts,
    name_type,
    possessed_attr,
    resolve_reporter,
)
from kgmem.ingest.extraction.clause_words import (
    CHANGE_VERBS,
    CLAUSE_DEPS,
    DISCOURSE,
    DROP_DEPS,
    EMPTY_WORDS,
    FEELING,
    INTENSIFIERS,
    LIGHT,
    LIGHT_IDIOMS,
    NONFACTUAL_HEADS,
    OBJECT_CASE,
    PLURAL_FIRST,
    SECOND,
    SPEECH_ACTS,
    SUBJ_DEPS,
    THIRD_SUBJECT,
    TIME_PREPS,
)
from kgmem.ingest.extraction.entities import EntityResolver
from kgmem.ingest.extraction.modality import REPORTING, clause_modality, reporting_subject
from kgmem.models import Modality

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["Clause", "clauses_of"]


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
        modality: see `kgmem.ingest.extraction.modality` (a future event time can still make an
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


def _inherited_subject(head: Token) -> tuple[Token, list[Token]] | None:
    """Subject of a coordinated verb, plus the auxiliaries it shares ("has made ... and given")."""
    node = head
    while node.dep_ == "conj" and node.head.i != node.i:
        node = node.head
        subj = subject_of(node)
        if subj is not None:
            own_aux = any(c.dep_ in ("aux", "auxpass") for c in head.children)
            shared = [c for c in node.children if c.dep_ in ("aux", "auxpass") and c.i < node.i]
            return subj, [] if own_aux else shared
    return None


def _is_question(sent: Span) -> bool:
    return sent.text.rstrip().endswith("?")


def _clause_tokens(head: Token, ctx: TurnContext) -> list[Token]:
    dropped: set[int] = set()
    subject = subject_of(head)
    for child in head.children:
        vocative = (child.dep_ in ("npadvmod", "appos", "dep") and child.ent_type_ == "PERSON") or (
            child.dep_ in SUBJ_DEPS and (subject is None or child.i != subject.i)
        )
        own_clause = child.dep_ in ("conj", "ccomp", "advcl") and (
            subject_of(child) is not None
            or (child.dep_ == "conj" and child.pos_ in ("VERB", "AUX"))
        )
        if child.dep_ in DROP_DEPS or vocative or own_clause:
            dropped.update(t.i for t in child.subtree)
    dropped.update(ctx.vocatives)
    tokens = [t for t in head.subtree if t.i not in dropped]
    while tokens and (
        tokens[0].lower_ in DISCOURSE
        or tokens[0].is_punct
        or (
            (tokens[0].dep_ == "mark" or tokens[0].tag_ in ("WRB", "WDT"))
            and tokens[0].head.i == head.i
        )
    ):
        tokens.pop(0)
    return tokens


def _pick_object(head: Token) -> tuple[Token | None, str]:
    """The clause's object token and the relation suffix (a preposition, or "")."""
    kids = list(head.children)
    for deps in (("dobj", "obj"), ("attr", "acomp", "oprd")):
        obj = next((c for c in kids if c.dep_ in deps), None)
        if obj is not None:
            return obj, ""
    preps = [c for c in kids if c.dep_ in ("prep", "agent")]
    if head.lemma_.lower() in CHANGE_VERBS:  # "moved from Graz to Linz": the destination
        preps.sort(key=lambda c: c.lower_ not in ("to", "into", "onto"))
    for prep in preps:
        pobj = next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)
        if pobj is not None:
            return pobj, prep.lower_
    xcomp = next((c for c in kids if c.dep_ in ("xcomp", "ccomp") and subject_of(c) is None), None)
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
        if head.tag_ == "VBD" or head.lemma_.lower() in FEELING:
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


def _clause(head: Token, ctx: TurnContext, speaker: str) -> Clause | None:
    """The clause headed by ``head``, or None when it states nothing self-contained.

    The steps run in this order because each may rewrite ``ctx`` (pronoun substitutions,
    entity ids) for the next: subject, reported speech, the checks that reject a clause,
    rendering, then the subject's and the object's entities.
    """
    found = _clause_subject(head, ctx, speaker)
    if found is None:
        return None
    subj, prefix, confidence = found
    informant = _reported_subject(head, subj, ctx)
    if _not_a_statement(head, subj, ctx):
        return None
    if subj is not None and subj.lower_ in PLURAL_FIRST:
        confidence -= 0.1
    tokens = _clause_tokens(head, ctx)
    obj, prep = _pick_object(head)
    relation = _relation(head, prep)
    text, obj_text = _render(head, ctx, prefix, tokens, obj)
    if _says_nothing(head, obj, text, obj_text):
        return None
    if subj is not None and any(
        c.dep_ == "det" and c.lower_ in ("this", "that", "these", "those") for c in subj.children
    ):
        confidence -= 0.2  # "That photo is stunning": true, but not self-contained
    subject_entity, subject_text, subj_ids = _subject_entities(head, subj, prefix, ctx, speaker)
    subj_span = {t.i for t in subj.subtree} if subj is not None else set()
    object_entity, obj_ids = _object_entities(head, obj, prep, tokens, subj_span, ctx)
    confidence = _adjusted_confidence(
        confidence, head, obj, text, ctx, linked=bool(object_entity or subject_entity)
    )
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
        date_phrase=_date_phrase(tokens, ctx),
        confidence=max(0.05, min(1.0, round(confidence, 2))),
    )


def _clause_subject(
    head: Token, ctx: TurnContext, speaker: str
) -> tuple[Token | None, list[str], float] | None:
    """The clause's subject token, the words that stand in for a missing one, and the starting
    confidence (0.8; 0.55 when the speaker is supplied for a dropped "I"); None when a
    subjectless clause is not a chatty first-person one."""
    subj = subject_of(head)
    if subj is not None:
        return subj, [], 0.8
    inherited = _inherited_subject(head)
    if inherited is not None:
        prefix = [ctx.render([t for t in inherited[0].subtree])]
        if inherited[1]:
            prefix.append(ctx.render(inherited[1]))
        return inherited[0], prefix, 0.8
    implicit = _implicit_prefix(head)
    if implicit is None:
        return None
    if any(t.lower_ in ("me", "us") for t in head.subtree):
        return None  # "Really made me proud": the dropped subject is "it", not "I"
    if not implicit and head.tag_ in ("VB", "VBP"):
        ctx.subst[head.i] = third_person(head)  # "Love that painting!"
    return None, [speaker, *implicit], 0.55


def _reported_subject(head: Token, subj: Token | None, ctx: TurnContext) -> str | None:
    """Resolve he/she subjects from reported speech or the turn's last named person, and return
    the informant of a reporting verb ("Pia told me …" -> Pia's entity id), if any."""
    informant: str | None = None
    reporter_tok = reporting_subject(head)
    if reporter_tok is not None and reporter_tok.lower_ not in ("i", "we"):
        found = resolve_reporter(reporter_tok, ctx)
        informant = found[0] if found else None
        if subj is not None and subj.lower_ in THIRD_SUBJECT and found is not None:
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
    return informant


def _not_a_statement(head: Token, subj: Token | None, ctx: TurnContext) -> bool:
    """True for clauses that assert nothing about a resolvable subject: unresolved pronoun or
    demonstrative subjects, speech acts, wishes, conditionals, embedded questions and
    infinitives, vocatives, participles and small clauses."""
    if subj is not None:
        low = subj.lower_
        if subj.i not in ctx.subst and (
            subj.tag_ in ("PRP", "WDT", "WP", "DT", "EX")
            or low in ("this", "that", "there", "here")
        ):
            return True
        if (low in SECOND and subj.i not in ctx.subst) or low in OBJECT_CASE:
            return True
    if head.lemma_.lower() in SPEECH_ACTS:
        return True
    if head.dep_ == "ccomp" and head.head.lemma_.lower() in NONFACTUAL_HEADS:
        return True
    if any(c.dep_ == "mark" and c.lower_ == "if" for c in head.children):
        return True
    if head.dep_ != "ROOT" and any(
        c.tag_ in ("WP", "WDT", "WRB") or (c.dep_ == "aux" and c.tag_ == "TO" and subj is not None)
        for c in head.children
    ):
        return True  # embedded question or infinitive: "what we can do", "for kids to check out"
    if subj is not None and subj.i in ctx.vocatives:
        return True
    unaux = not any(c.dep_ == "aux" for c in head.children)
    if head.dep_ != "ROOT" and head.tag_ == "VBG" and unaux:
        return True  # participle, not a clause: "seeing you making a difference"
    return head.dep_ == "ccomp" and head.tag_ == "VB" and unaux  # "makes everyone feel welcome"


def _render(
    head: Token, ctx: TurnContext, prefix: list[str], tokens: list[Token], obj: Token | None
) -> tuple[str, str]:
    """The fact's text (capitalised, with the stand-in subject) and the object's text (leading
    intensifiers and articles dropped)."""
    body = ctx.render(tokens)
    if prefix and tokens and tokens[0].pos_ != "PROPN":
        body = body[:1].lower() + body[1:]
    text = " ".join([*prefix, body]).strip()
    text = text[:1].upper() + text[1:]
    obj_text = ctx.render(list(obj.subtree)) if obj is not None else ""
    obj_text = re.sub(INTENSIFIERS, "", obj_text, flags=re.IGNORECASE)
    return text, obj_text


def _says_nothing(head: Token, obj: Token | None, text: str, obj_text: str) -> bool:
    """A light verb with no object, a text under three words, or an object of only empty words
    ("so cool", "a lot")."""
    if obj is None and head.lemma_.lower() in LIGHT:
        return True
    if len(text.split()) < 3:
        return True
    obj_words = re.findall(r"[\w']+", obj_text.casefold())
    return obj is not None and all(w in EMPTY_WORDS for w in obj_words)


def _subject_entities(
    head: Token, subj: Token | None, prefix: list[str], ctx: TurnContext, speaker: str
) -> tuple[str | None, str, list[str]]:
    """The subject's entity id, its rendered text, and every entity id in the subject."""
    subject_entity: str | None = None
    subject_text = prefix[0] if prefix else ""
    subj_ids: list[str] = []
    if subj is not None:
        subject_entity = ctx.token_entity.get(subj.i)
        subject_concepts: list[str] = []
        if subject_entity is None and subj.pos_ == "PROPN" and head.lemma_.lower() in REPORTING:
            found_subject = resolve_reporter(subj, ctx)  # only people tell and say
            subject_entity = found_subject[0] if found_subject else None
        elif subject_entity is None and subj.pos_ == "PROPN" and not common_noun(subj):
            rec = ctx.resolver.resolve(chunk_name(subj), name_type(subj))
            subject_entity = rec.id if rec else None
        elif subject_entity is None and possessed_attr(head):
            # "Spicy ramen and mango smoothies are my go-to lunch": the subject is the thing
            subject_concepts = concepts(subj, ctx)
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
    return subject_entity, subject_text, subj_ids


def _object_entities(
    head: Token,
    obj: Token | None,
    prep: str,
    tokens: list[Token],
    subj_span: set[int],
    ctx: TurnContext,
) -> tuple[str | None, list[str]]:
    """The object's entity id and every entity id in the clause outside the subject."""
    object_entity: str | None = None
    object_concepts: list[str] = []
    if obj is not None:
        object_entity = ctx.token_entity.get(obj.i)
        if object_entity is None and obj.pos_ == "PROPN" and not common_noun(obj):
            rec = ctx.resolver.resolve(chunk_name(obj), name_type(obj))
            object_entity = rec.id if rec else None
        elif (
            object_entity is None
            and head.lemma_.lower() != "be"
            and prep not in TIME_PREPS
            and obj.lower_ not in LIGHT_IDIOMS.get(head.lemma_.lower(), ())
        ):
            object_concepts = concepts(obj, ctx)
            object_entity = object_concepts[0] if object_concepts else None
    obj_ids = [
        ctx.token_entity[t.i] for t in tokens if t.i in ctx.token_entity and t.i not in subj_span
    ]
    if object_entity:
        obj_ids.insert(0, object_entity)
    obj_ids += [c for c in object_concepts if c not in obj_ids]
    return object_entity, obj_ids


def _adjusted_confidence(
    confidence: float,
    head: Token,
    obj: Token | None,
    text: str,
    ctx: TurnContext,
    *,
    linked: bool,
) -> float:
    """+0.05 when the clause names an entity; -0.2 for an unresolved pronoun object, -0.1 for a
    modal, -0.1 past 20 words. Hand-set on the dev split's extraction samples."""
    if linked:
        confidence += 0.05
    if obj is not None and obj.tag_ in ("PRP", "DT") and obj.i not in ctx.subst:
        confidence -= 0.2
    if any(c.dep_ == "aux" and c.tag_ == "MD" for c in head.children):
        confidence -= 0.1
    if len(text.split()) > 20:
        confidence -= 0.1
    return confidence


def _date_phrase(tokens: list[Token], ctx: TurnContext) -> str:
    """The text of the first DATE/TIME entity span among the clause's tokens, or ""."""
    date = next((t for t in tokens if t.ent_type_ in ("DATE", "TIME")), None)
    if date is None:
        return ""
    return next(e.text for e in ctx.doc.ents if e.start <= date.i < e.end)


def clauses_of(
    doc: Doc,
    speaker: str,
    addressee: str | None,
    token_entity: dict[int, str],
    resolver: EntityResolver,
) -> list[Clause]:
    """Contentful clauses of one parsed turn, in text order (questions skipped)."""
    ctx = TurnContext(doc, speaker, addressee, token_entity, resolver)
    out: list[Clause] = []
    for sent in doc.sents:
        if _is_question(sent):
            continue
        for tok in sent:
            if tok.dep_ in CLAUSE_DEPS and tok.pos_ in ("VERB", "AUX"):
                clause = _clause(tok, ctx, speaker)
                if clause is not None:
                    out.append(clause)
                    subject = clause.subject_entity
                    if subject and ":e:person:" in subject and clause.subject_text != speaker:
                        ctx.last_person = (subject, clause.subject_text)
    return out
