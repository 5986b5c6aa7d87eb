"""MemoryAgentBench FactConsolidation with no reader: question → relation chain → graph walk.

FactConsolidation (Hu, Wang, McAuley, ICLR 2026; built from MQuAKE, Zhong et al., EMNLP 2023)
gives a numbered fact list in which later serials overwrite earlier ones, and single- and
multi-hop questions over it. Nothing here reads gold answers except the scorer.

1. `compile_question` (pure): finds relation cues (`CUES`: phrasings of the MQuAKE relations as
   Wikidata labels and their common paraphrases), the answer type the question names, the name
   spans that may be the base entity, and orders the cues into a chain relative to the base:
   "the capital of the country that X comes from" is ``[country_of_origin, capital]``.
2. `resolve_chain`: resolves the base through ``read/mab_match_entities`` (entity ids are
   normalised names), walks the fact graph hop by hop (``read/mab_follow_facts``, one round
   trip per hop level), and returns the best complete path by the fixed costs in `COSTS`.
3. `run_mab_bench`: ingests what is missing, answers every question, scores with
   `kgmem.bench.metrics.substring_exact_match`, reports accuracy per lane and latency.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kgmem.bench.metrics import percentile, substring_exact_match
from kgmem.errors import MalformedInput
from kgmem.ingest.numbered import (
    RELATION_BY_ID,
    ParsedFacts,
    entity_id,
    entity_key,
    fact_rows,
    ingest_numbered,
    json_rows,
    parse_numbered_facts,
)
from kgmem.store.driver import Store

__all__ = [
    "COSTS",
    "ChainPlan",
    "FactSource",
    "Hop",
    "MemoryFactSource",
    "Mention",
    "Resolution",
    "StoreFactSource",
    "compile_question",
    "resolve_chain",
    "run_mab_bench",
]

#: Fixed relaxation costs (dimensionless; a path's score is ``1 / (1 + total cost)``, in (0, 1]).
COSTS: dict[str, float] = {
    "older_version": 1.0,  # a superseded value, per hop (tried only below a dead end's cost)
    "skip_cue": 1.5,  # a relation cue the path does not follow
    "skip_weak_cue": 0.2,  # a weak cue ("located", "written") left unused
    "added_hop": 1.5,  # one hop no cue names (at most one per path)
    "answer_type": 2.0,  # the last relation's object kind is not the type the question names
    "inversion": 0.1,  # per pair of cues followed against the surface-derived order
    "base_rank": 0.5,  # per rank of the base candidate (longest name span first)
}
MAX_HOPS = 4
MAX_VERSIONS = 3  # newest distinct values kept per (entity, relation); older ones never win

# --- lexicon -------------------------------------------------------------------------------
# (regex, {relation: synonym cost}, weak). Cues are matched case-insensitively on word
# boundaries, longest first, non-overlapping. A named group ``x`` is a slot (the base entity
# inside "head of the X government") and is not part of the cue.
_PLACE = {
    "located_in": 0.0,
    "country": 0.3,
    "continent": 0.3,
    "location_of_formation": 0.3,
    "headquarters": 0.3,
}
_LANG = {
    "languages_spoken": 0.3,
    "official_language": 0.3,
    "language_of_work": 0.3,
    "original_language": 0.3,
}
_ORIGIN = {
    "country_of_origin": 0.0,
    "citizenship": 0.3,
    "location_of_formation": 0.5,
    "place_of_birth": 0.5,
}
CUES: tuple[tuple[str, dict[str, float], bool], ...] = (
    (r"spouse|partner|wife|husband|married(?: to)?|marriage|marry", {"spouse": 0.0}, False),
    (r"child(?:ren)?|son|daughter|offspring", {"child": 0.0}, False),
    (r"country of citizenship|citizen(?:ship|s)?|nationality", {"citizenship": 0.0}, False),
    (
        r"place of death|die[sd]?|death|pass(?:ed|es)? away|breathed? (?:his|her|their|its) last"
        r"|last breath",
        {"place_of_death": 0.0},
        False,
    ),
    (
        r"place of birth|birth ?place|born|birth",
        {"place_of_birth": 0.0, "country_of_origin": 0.3},
        False,
    ),
    (r"religio(?:n|us)(?: affiliation)?|faith", {"religion": 0.0}, False),
    (r"speak(?:s|ing)?|spoken", {"languages_spoken": 0.0}, False),
    (r"languages?", _LANG, True),
    (r"official(?:ly)? languages?|official(?:ly)?", {"official_language": 0.0}, False),
    (r"original language", {"original_language": 0.0, "language_of_work": 0.3}, False),
    (r"written(?: in)?", {"language_of_work": 0.0, "original_language": 0.3}, True),
    (r"author(?:ed)?|written by|wrote|writer", {"author": 0.0, "creator": 0.3}, False),
    (
        r"creat(?:or|ed by)|who created",
        {"creator": 0.0, "author": 0.3, "founded_by": 0.5, "developer": 0.5},
        False,
    ),
    (r"created", {"creator": 0.3, "author": 0.3}, True),
    (
        r"notable work|famous(?: for)?|best known for|significant (?:creation|work)|masterpiece",
        {"notable_work": 0.0},
        False,
    ),
    (r"known for|works?", {"notable_work": 0.0}, True),
    (r"perform(?:er|ers|ed|s|ing|ance)?|singer|sung|sang", {"performer": 0.0}, False),
    (r"sports?|sportsperson", {"sport": 0.0}, False),
    (r"position(?! of\b)", {"position": 0.0}, False),
    (r"speciali[sz]\w*(?: in)?|specialty", {"position": 0.0}, True),
    (r"continent", {"continent": 0.0}, False),
    (r"capital(?: city)?", {"capital": 0.0}, False),
    (
        r"head of (?:the )?state|chief of state|president|monarch|king|queen|sovereign",
        {"head_of_state": 0.0, "head_of_government": 0.3},
        False,
    ),
    (
        r"head of (?:the )?government|prime minister|premier|chancellor",
        {"head_of_government": 0.0, "head_of_state": 0.3},
        False,
    ),
    (r"head of the (?P<x>.+?) government", {"head_of_government": 0.0}, False),
    (r"ceo|chief executive officer", {"ceo": 0.0}, False),
    (r"chief executive", {"head_of_government": 0.1, "ceo": 0.1}, False),
    (r"chair(?:person|man|woman)?", {"chairperson": 0.0}, False),
    (r"director(?:/\w+)?|manager|directed|managed", {"director": 0.0, "head_coach": 0.3}, False),
    (r"head coach|coach(?:ed)?", {"head_coach": 0.0, "director": 0.3}, False),
    (
        r"found(?:er|ers|ed by|ing|ed)|established by",
        {"founded_by": 0.0, "location_of_formation": 0.3},
        False,
    ),
    (
        r"(?:first )?(?:founded|established|formed) in|first established|established"
        r"|c[oa]me into existence|place of (?:formation|founding)",
        {"location_of_formation": 0.0, "country_of_origin": 0.3},
        False,
    ),
    (
        r"headquarter(?:s|ed)?|head office",
        {"headquarters": 0.0, "location_of_formation": 0.3},
        False,
    ),
    (
        r"educat(?:ed|ion|ional(?: institution)?)|universit(?:y|ies)|univeristy|alma mater"
        r"|studied|attended|school|college|graduated?",
        {"educated_at": 0.0},
        False,
    ),
    (r"employ(?:er|ed|s|ee|ment|ing)?|work(?:s|ed|ing)? for", {"employer": 0.0}, False),
    (
        r"part of|member of|belong(?:s|ed|ing)? to|belongs|belonged",
        {"citizenship": 0.3, "religion": 0.3, "employer": 0.3},
        True,
    ),
    (
        r"location of work|work ?location|place of work|work(?:place| hours)"
        r"|work(?:s|ed|ing)? (?:in|at)(?! the field)",
        {"work_location": 0.0},
        False,
    ),
    (
        r"occupation|profession(?:al role)?|job(?: title)?|field(?: of work)?|career"
        r"|kind of work|line of work|role",
        {"occupation": 0.0},
        False,
    ),
    (r"genre|(?:type|kind|style) of music|music(?:al genre)?", {"genre": 0.0}, False),
    (
        r"(?:original )?broadcast(?:er|s|ed|ing)?|network|channel|aired",
        {"original_broadcaster": 0.0},
        False,
    ),
    (
        r"manufactur(?:er|ed|es|ing)|produc(?:ed|er|es|tion)|made by|maker",
        {"manufacturer": 0.0, "developer": 0.3},
        False,
    ),
    (r"develop(?:er|ers|ed by)", {"developer": 0.0}, False),
    (r"developed|development", {"developer": 0.3, "country_of_origin": 0.3}, False),
    (
        r"origin(?:ate[sd]?|ating|ally|al)?|c[oa]mes? from|hail(?:s|ed)? from|gave rise to"
        r"|created in|invented in|originally made|made in",
        _ORIGIN,
        False,
    ),
    (r"located|location|situated", _PLACE, True),
    (r"owned by|owner|owns", {"owned_by": 0.0}, False),
    (r"record label|music label|represented by|signed to", {"record_label": 0.0}, False),
    (r"office ?holder|incumbent", {"officeholder": 0.0}, False),
)
_CUE_RE = [
    (re.compile(rf"(?<![\w/]){p}(?![\w/])", re.IGNORECASE), rels, weak) for p, rels, weak in CUES
]

# Answer-type words of the wh-phrase → kinds an answer may have (first match wins).
_TYPES: tuple[tuple[str, frozenset[str]], ...] = (
    (r"cit(?:y|ies)|town", frozenset({"city", "place"})),
    (r"countr(?:y|ies)|nation", frozenset({"country", "place"})),
    (r"continent", frozenset({"continent"})),
    (r"languages?", frozenset({"language"})),
    (r"sports?", frozenset({"sport"})),
    (r"religion|faith|religious affiliation", frozenset({"religion"})),
    (
        r"universit(?:y|ies)|school|college|(?:educational )?institution|company|organi[sz]ation"
        r"|network|broadcaster|employer|manufacturer",
        frozenset({"organization"}),
    ),
    (r"position", frozenset({"position"})),
    (r"genre|music", frozenset({"genre"})),
    (r"occupation|job|profession|field", frozenset({"occupation"})),
    (r"who|whom|person|individual|leader|man|woman", frozenset({"person", "organization"})),
    (r"where|place|location", frozenset({"city", "country", "continent", "place"})),
)
_TYPE_RE = [(re.compile(rf"\b(?:{p})\b", re.IGNORECASE), kinds) for p, kinds in _TYPES]
PLACE_KINDS = frozenset({"city", "country", "continent", "place"})
_STOP = (
    "a an the of in on at to for from by with and or is are was were be been does did do has "
    "have had what which who whom whose where when how that this these those his her their its "
    "he she they it name called known as serves serve"
)
STOPWORDS = frozenset(_STOP.split())
_TOKEN = re.compile(r"[^\s\"\u201c\u201d()\[\],?!;:]+")
_GOVERNED = re.compile(
    r"^\s*(?:of|for|by|with|from|in|to|under)?\s*(?:the\s+)?['\u2018]?\s*$", re.IGNORECASE
)
_POSSESSIVE = re.compile(r"(?:'|\u2019)s$")
_NAME_PARTICLES = frozenset({"of", "the", "and", "de", "du", "von", "van", "la", "le", "al", "y"})
_TYPE_WORD = re.compile("|".join(p for p, _ in _TYPES), re.IGNORECASE)
_LAST_CLAUSE = re.compile(r",?\s+and\s+(who|what|which|where)\b", re.IGNORECASE)
_ARTICLE = re.compile(r"^the\s", re.IGNORECASE)  # entity_key drops a leading "the"


# --- plan ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mention:
    """A relation cue in a question: character ``spans`` (two when a slot splits the cue),
    candidate relations with synonym costs, and whether it is weak (optional at low cost)."""

    text: str
    spans: tuple[tuple[int, int], ...]
    relations: dict[str, float]
    weak: bool

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]


@dataclass(frozen=True)
class NameSpan:
    """A token n-gram that may name the base entity: surface text, key, char span, tokens."""

    text: str
    key: str
    start: int
    end: int
    tokens: int


@dataclass
class ChainPlan:
    """A compiled question.

    Attributes:
        question: the question text.
        base: the surface guessed for the base entity (the resolver re-checks it in the graph).
        relations: the literal chain, hop order (first relation applies to the base); each item
            is the primary relation of a cue.
        answer_kinds: kinds the answer may have (from the wh-phrase), or None.
        mentions: every cue, in surface order.
        names: every n-gram that may name the base (resolved against the graph).
    """

    question: str
    base: str | None
    relations: list[str]
    answer_kinds: frozenset[str] | None
    mentions: list[Mention]
    names: list[NameSpan]
    order: list[int] = field(default_factory=list)


def _find_mentions(question: str) -> list[Mention]:
    found: list[Mention] = []
    for pattern, rels, weak in _CUE_RE:
        for m in pattern.finditer(question):
            spans: tuple[tuple[int, int], ...]
            if "x" in pattern.groupindex and m.start("x") >= 0:
                spans = ((m.start(), m.start("x")), (m.end("x"), m.end()))
            else:
                spans = ((m.start(), m.end()),)
            found.append(Mention(m.group(0), spans, rels, weak))
    found.sort(key=lambda mm: (-sum(e - s for s, e in mm.spans), mm.start))
    taken: list[tuple[int, int]] = []
    kept: list[Mention] = []
    for mention in found:
        if any(s < te and ts < e for s, e in mention.spans for ts, te in taken):
            continue
        taken.extend(mention.spans)
        kept.append(mention)
    return sorted(kept, key=lambda mm: mm.start)


def _name_spans(question: str, max_tokens: int = 10) -> list[NameSpan]:
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(question)]
    spans: dict[tuple[str, int, int], NameSpan] = {}
    for i in range(len(tokens)):
        for j in range(i, min(len(tokens), i + max_tokens)):
            start, end = tokens[i][0], tokens[j][1]
            text = question[start:end]
            variants = [(text, end)]
            if _POSSESSIVE.search(text):
                variants.append((text[:-2], end - 2))
            if _ARTICLE.match(text):
                continue  # "the X" has the key of "X": keep the span without the article
            for surface, stop in variants:
                key = entity_key(surface)
                if len(key) < 2 or key in STOPWORDS:
                    continue
                spans.setdefault((key, start, stop), NameSpan(surface, key, start, stop, j - i + 1))
    return list(spans.values())


def _guess_base(question: str, mentions: list[Mention], names: list[NameSpan]) -> NameSpan | None:
    """The longest run of content tokens outside every cue, preferring quoted or capitalised."""
    covered = [span for m in mentions for span in m.spans]

    def free(n: NameSpan) -> bool:
        if any(n.start < e and s < n.end for s, e in covered):
            return False
        words = [w.lower().strip("'\"\u2018\u2019\u201c\u201d") for w in n.text.split()]
        if any(_TYPE_WORD.fullmatch(w) for w in words):
            return False
        inner_ok = all(w not in STOPWORDS or w in _NAME_PARTICLES for w in words[1:-1])
        return inner_ok and words[0] not in STOPWORDS and words[-1] not in STOPWORDS

    def rank(n: NameSpan) -> tuple[int, int, int, int]:
        quoted = question[max(0, n.start - 1) : n.start] in "\"\u201c'\u2018" and n.start > 0
        caps = sum(1 for w in n.text.split() if w[:1].isupper())
        initial = 1 if n.start == 0 else 0
        return (int(quoted), caps - initial, n.tokens, -n.start)

    candidates = [n for n in names if free(n)]
    return max(candidates, key=rank) if candidates else None


def chain_order(
    question: str, mentions: Sequence[Mention], base_start: int, base_end: int
) -> list[int]:
    """Order cue indices into hop order relative to the base span.

    Cues before the base apply inside-out (nearest first); cues after it (the base is a clause
    subject: "the country where X was a citizen") apply before them — unless the nearest cue
    before the base governs it ("the CEO of Twitter holds citizenship of…": CEO first).
    """
    pre = sorted(
        (i for i, m in enumerate(mentions) if m.end <= base_start), key=lambda i: -mentions[i].end
    )
    post = sorted(
        (i for i, m in enumerate(mentions) if m.start >= base_end), key=lambda i: mentions[i].start
    )
    around = [i for i in range(len(mentions)) if i not in pre and i not in post]  # a slot cue
    if pre and _GOVERNED.match(question[mentions[pre[0]].end : base_start]):
        return [*around, pre[0], *post, *pre[1:]]
    return [*around, *post, *pre]


def _answer_kinds(prefix: str) -> frozenset[str] | None:
    best: tuple[int, frozenset[str]] | None = None
    for pattern, kinds in _TYPE_RE:
        m = pattern.search(prefix)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), kinds)
    return best[1] if best else None


def compile_question(question: str) -> ChainPlan:
    """Compile a question into a base surface, an ordered relation chain and an answer type.

    Pure and deterministic; no store access. The chain is "literal": the resolver may relax it.

    Args:
        question: e.g. "What is the capital of the country that X comes from?".

    Returns:
        a `ChainPlan`; ``relations`` may be empty when no cue is recognised.
    """
    mentions = _find_mentions(question)
    names = _name_spans(question)
    base = _guess_base(question, mentions, names)
    if base is not None:
        order = chain_order(question, mentions, base.start, base.end)
    else:
        order = list(range(len(mentions)))[::-1]
    cut = min([m.start for m in mentions] + ([base.start] if base else []) + [len(question)])
    if (
        mentions
        and cut == mentions[0].start
        and all(w.lower() in STOPWORDS for w in question[:cut].split())
    ):
        cut = mentions[0].end  # "What is the country of citizenship of X": the cue names it
    relations: list[str] = []
    for i in order:
        primary = min(mentions[i].relations.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if not mentions[i].weak and primary not in relations:
            relations.append(primary)
    kinds = _answer_kinds(question[:cut])
    last = list(_LAST_CLAUSE.finditer(question))
    if last:  # "In which country …, and who is …?": the last question asked names the type
        kinds = _answer_kinds(question[last[-1].start(1) :]) or kinds
    return ChainPlan(
        question, base.text if base else None, relations, kinds, mentions, names, order
    )


# --- graph access --------------------------------------------------------------------------
class FactSource(Protocol):
    """What the resolver needs from a tenant's fact graph (the Cypher or the in-memory one)."""

    def match_entities(self, ids: Sequence[str]) -> dict[str, str]:
        """``{entity id: name}`` for the ids that exist."""
        ...

    def follow(self, entity_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Every fact whose subject is one of ``entity_ids``, all versions: rows ``{fact_id,
        subject, relation, object, object_name, serial}``."""
        ...


class StoreFactSource:
    """`FactSource` over Neo4j: ``read/mab_match_entities`` and ``read/mab_follow_facts``."""

    def __init__(self, store: Store, conversation_id: str) -> None:
        self.store = store
        self.conversation_id = conversation_id

    def match_entities(self, ids: Sequence[str]) -> dict[str, str]:
        rows = self.store.read(
            "read/mab_match_entities", conversation_id=self.conversation_id, ids=list(ids)
        )
        return {str(r["id"]): str(r["name"]) for r in rows}

    def follow(self, entity_ids: Sequence[str]) -> list[dict[str, Any]]:
        return self.store.read(
            "read/mab_follow_facts",
            conversation_id=self.conversation_id,
            entity_ids=list(entity_ids),
            relations=None,
        )


class MemoryFactSource:
    """`FactSource` over parsed facts, with the same semantics as the Cypher statements
    (for unit tests and for running without a server)."""

    def __init__(self, conversation_id: str, parsed: ParsedFacts) -> None:
        entities, facts = fact_rows(conversation_id, parsed)
        self.names = {e["id"]: e["name"] for e in entities}
        self.by_subject: dict[str, list[dict[str, Any]]] = {}
        for f in facts:
            self.by_subject.setdefault(f["subject"], []).append(
                {
                    "fact_id": f["id"],
                    "subject": f["subject"],
                    "relation": f["relation"],
                    "object": f["object"],
                    "object_name": self.names[f["object"]],
                    "serial": f["serial"],
                }
            )

    def match_entities(self, ids: Sequence[str]) -> dict[str, str]:
        return {i: self.names[i] for i in ids if i in self.names}

    def follow(self, entity_ids: Sequence[str]) -> list[dict[str, Any]]:
        return [row for i in entity_ids for row in self.by_subject.get(i, [])]


# --- resolution ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Hop:
    """One followed fact: id, relation, serial, object, and whether it was the latest value."""

    fact_id: str
    relation: str
    serial: int
    object_id: str
    object_name: str
    latest: bool


@dataclass
class Resolution:
    """The resolver's answer.

    Attributes:
        answer: the last object's name, or None when no path was found.
        base: the base entity's name (as stored), or None.
        path: the hops, in order.
        cost: total relaxation cost (0 = the literal plan with latest values).
        score: ``1 / (1 + cost)`` in (0, 1]; 0.0 when nothing was found.
        relaxations: what the path relaxed, e.g. ``["synonym country_of_origin 0.3"]``.
    """

    answer: str | None
    base: str | None = None
    path: list[Hop] = field(default_factory=list)
    cost: float = 0.0
    score: float = 0.0
    relaxations: list[str] = field(default_factory=list)


def _compatible(relation: str, kinds: frozenset[str] | None) -> bool:
    if kinds is None:
        return True
    rel = RELATION_BY_ID.get(relation)
    kind = rel.object_kind if rel else "other"
    return kind == "other" or kind in kinds or (kind == "place" and bool(kinds & PLACE_KINDS))


def _overlaps(m: Mention, n: NameSpan) -> bool:
    return any(s < n.end and n.start < e for s, e in m.spans)


def _bases(
    plan: ChainPlan, source: FactSource, conversation_id: str
) -> list[tuple[NameSpan, str, str]]:
    by_id: dict[str, list[NameSpan]] = {}
    for n in plan.names:
        by_id.setdefault(entity_id(conversation_id, n.text), []).append(n)
    found = source.match_entities(sorted(by_id))
    spans = sorted(
        ((n, i) for i in found for n in by_id[i]),
        key=lambda ni: (-ni[0].tokens, ni[0].start, ni[1]),
    )
    inside = [
        any(a <= n.start and n.end <= b for m in plan.mentions for a, b in m.spans)
        for n, _ in spans
    ]
    if not all(inside):  # a name that is part of a cue ("sport") is a base only as last resort
        spans = [s for s, ins in zip(spans, inside, strict=True) if not ins]
    chosen: list[tuple[NameSpan, str, str]] = []
    for n, i in spans:
        if all(n.end <= c.start or c.end <= n.start for c, _, _ in chosen):
            chosen.append((n, i, found[i]))
    return chosen[:3]


@dataclass
class _Walk:
    """Search state shared by one question's depth-first walk."""

    plan: ChainPlan
    mentions: list[Mention]
    rank: dict[int, int]
    graph: _Graph
    depth: int
    base_rank: int
    bound: float = float("inf")  # cost of the best complete path so far (costs only grow)

    def paths(
        self,
        entity: str,
        hops: list[Hop],
        used: list[int],
        covered: frozenset[int],
        cost: float,
        relax: list[str],
        added: bool,
    ) -> Iterator[tuple[Any, ...]]:
        if cost > self.bound:
            return
        if hops:
            done = self.finish(hops, used, covered, cost, relax)
            self.bound = min(self.bound, done[1])
            yield done
        if len(hops) >= self.depth:
            return
        outgoing = self.graph.get(entity)
        for mi, mention in enumerate(self.mentions):
            if mi in covered:
                continue
            for rel, syn in sorted(mention.relations.items()):
                versions = outgoing.get(rel)
                if not versions:
                    continue
                now = covered | {j for j, m in enumerate(self.mentions) if rel in m.relations}
                extra = [f"synonym {rel} {syn}"] if syn else []
                for vi, row in enumerate(versions):
                    older = [f"older version of {rel} (serial {row['serial']})"] if vi else []
                    yield from self.paths(
                        row["object"],
                        [*hops, _hop(row, vi == 0)],
                        [*used, mi],
                        now,
                        cost + syn + (COSTS["older_version"] if vi else 0.0),
                        relax + extra + older,
                        added,
                    )
        if not added:
            for rel in sorted(outgoing):
                row = outgoing[rel][0]
                yield from self.paths(
                    row["object"],
                    [*hops, _hop(row, True)],
                    used,
                    covered,
                    cost + COSTS["added_hop"],
                    [*relax, f"added hop {rel}"],
                    True,
                )

    def finish(
        self,
        hops: list[Hop],
        used: list[int],
        covered: frozenset[int],
        cost: float,
        relax: list[str],
    ) -> tuple[Any, ...]:
        relax = list(relax)
        for mi, mention in enumerate(self.mentions):
            if mi not in covered:
                cost += COSTS["skip_weak_cue"] if mention.weak else COSTS["skip_cue"]
                relax.append(f"skipped cue {mention.text!r}")
        inversions = sum(
            1
            for a in range(len(used))
            for b in range(a + 1, len(used))
            if self.rank[used[a]] > self.rank[used[b]]
        )
        cost += COSTS["inversion"] * inversions
        if inversions:
            relax.append(f"reordered ({inversions} inversions)")
        if not _compatible(hops[-1].relation, self.plan.answer_kinds):
            cost += COSTS["answer_type"]
            relax.append("answer type mismatch")
        cost += COSTS["base_rank"] * self.base_rank
        key = (
            round(cost, 6),
            len(relax),
            inversions,
            tuple(-h.serial for h in hops),
            self.base_rank,
            hops[-1].object_name,
        )
        return key, cost, hops, relax


def _hop(row: dict[str, Any], latest: bool) -> Hop:
    return Hop(
        str(row["fact_id"]),
        str(row["relation"]),
        int(row["serial"]),
        str(row["object"]),
        str(row["object_name"]),
        latest,
    )


class _Graph:
    """Lazy hop-by-hop view of a tenant's facts. The first time the walk needs an entity's
    outgoing facts, one `FactSource.follow` fetches them together with every object already
    seen but not yet fetched (so each hop level costs one round trip, and levels the walk never
    reaches cost none). Versions are kept newest first, one per distinct object (a repeated
    older value adds nothing), at most `MAX_VERSIONS`."""

    def __init__(self, source: FactSource) -> None:
        self.source = source
        self.facts: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self.pending: set[str] = set()

    def get(self, entity: str) -> dict[str, list[dict[str, Any]]]:
        if entity not in self.facts:
            batch = sorted((self.pending | {entity}) - self.facts.keys())
            self.pending.clear()
            for e in batch:
                self.facts[e] = {}
            for row in sorted(self.source.follow(batch), key=lambda r: -int(r["serial"])):
                versions = self.facts[row["subject"]].setdefault(row["relation"], [])
                if len(versions) < MAX_VERSIONS and all(
                    v["object"] != row["object"] for v in versions
                ):
                    versions.append(row)
                    if row["object"] not in self.facts:
                        self.pending.add(row["object"])
        return self.facts[entity]


def resolve_chain(store: Store | FactSource, conversation_id: str, plan: ChainPlan) -> Resolution:
    """Answer a compiled question from tenant ``conversation_id``'s fact graph.

    The literal plan follows, from the base entity, the latest serial per (entity, relation).
    When that leads nowhere, the search relaxes it; every relaxation has a fixed cost
    (`COSTS`): a near-synonym relation (the cue's synonym cost, 0.1-0.5), an older version
    (1.0 per hop), a skipped cue (1.5; 0.2 if weak), one added hop (1.5), a chain order against
    the surface order (0.1 per inversion), an answer of another type than the question names
    (2.0), a shorter base name (0.5 per rank). The best complete path wins; ties go to fewer
    relaxations, fewer inversions, then later serials. Deterministic; reads no gold.

    Args:
        store: a `Store` (Cypher) or any `FactSource` (e.g. `MemoryFactSource`).
        conversation_id: the tenant.
        plan: from `compile_question`.

    Returns:
        a `Resolution` (``answer`` None if no base entity or no fact was found).
    """
    source: FactSource = (
        StoreFactSource(store, conversation_id) if isinstance(store, Store) else store
    )
    bases = _bases(plan, source, conversation_id)
    if not bases:
        return Resolution(None)
    depth = min(MAX_HOPS, len(plan.mentions) + 1)
    graph = _Graph(source)
    graph.pending.update(i for _, i, _ in bases)
    best: tuple[Any, ...] | None = None
    best_base = ""
    for rank, (span, eid, name) in enumerate(bases):
        mentions = [m for m in plan.mentions if not _overlaps(m, span)]
        order = chain_order(plan.question, mentions, span.start, span.end)
        walk = _Walk(
            plan,
            mentions,
            {mi: r for r, mi in enumerate(order)},
            graph,
            depth,
            rank,
            best[1] if best else float("inf"),
        )
        for cand in walk.paths(eid, [], [], frozenset(), 0.0, [], False):
            if best is None or cand[0] < best[0]:
                best, best_base = cand, name
    if best is None:
        return Resolution(None, bases[0][2])
    _, cost, hops, relax = best
    return Resolution(hops[-1].object_name, best_base, hops, cost, 1.0 / (1.0 + cost), relax)


# --- benchmark -----------------------------------------------------------------------------
_LANE = re.compile(r"(?:^|[_\-])(sh|mh)(?:[_\-]|$)", re.IGNORECASE)
_LANE_NAMES = {"sh": "single-hop", "mh": "multi-hop"}


def _lane(name: str) -> str:
    m = _LANE.search(name)
    return _LANE_NAMES[m.group(1).lower()] if m else name


def _bench_rows(path: Path) -> list[dict[str, Any]]:
    rows = json_rows(path.read_text(encoding="utf-8-sig"), path)
    for i, row in enumerate(rows):
        ok = (
            isinstance(row, dict)
            and isinstance(row.get("context"), str)
            and isinstance(row.get("questions"), list)
            and isinstance(row.get("answers"), list)
            and len(row["questions"]) == len(row["answers"])
        )
        if not ok:
            raise MalformedInput(
                "row needs 'context', and 'questions' and 'answers' of equal length",
                file=str(path),
                turn=f"row {i}",
            )
    return rows


def run_mab_bench(
    store: Store,
    path: Path,
    *,
    progress: Callable[[int], None] | None = None,
    tenant_prefix: str = "",
    failures: int = 20,
) -> dict[str, Any]:
    """Run FactConsolidation with no reader over a MemoryAgentBench file.

    Each row goes into its own tenant ``<tenant_prefix><metadata.source>`` (ingested unless the
    tenant already holds exactly the row's parsed facts). Each question is compiled, resolved in
    Cypher, and scored with `substring_exact_match` against its gold answers (gold is used only
    here). Lanes come from the row name (``_sh_`` single-hop, ``_mh_`` multi-hop).

    Args:
        store: an open store.
        path: MemoryAgentBench JSON (``data`` rows with ``context``, ``questions``, ``answers``).
        progress: called with 1 after each answered question.
        tenant_prefix: prepended to tenant names (tests use a unique one).
        failures: how many wrong answers to include in the report.

    Returns:
        a JSON-able report: ``lanes`` {lane: {n, accuracy, tenant}} and ``overall`` (accuracy in
        percent, 0-100), ``latency_ms`` {p50, p95} per question (compile + resolve, wall time),
        ``ingest`` {tenant: counts and ``ms`` (None if already present)}, ``unparsed_lines``,
        ``n_questions``, ``failures`` (a sample), ``costs`` (the relaxation costs used).

    Raises:
        MalformedInput: the file is not in the expected layout.
    """
    rows = _bench_rows(path)
    report: dict[str, Any] = {
        "file": str(path),
        "lanes": {},
        "ingest": {},
        "failures": [],
        "costs": dict(COSTS),
    }
    latencies: list[float] = []
    scores: dict[str, list[float]] = {}
    unparsed = 0
    for i, row in enumerate(rows):
        meta = row.get("metadata")
        source_name = meta.get("source") if isinstance(meta, dict) else None
        name = source_name if isinstance(source_name, str) else f"{path.stem}-{i}"
        tenant = f"{tenant_prefix}{name}"
        parsed = parse_numbered_facts(row["context"], source=tenant)
        unparsed += len(parsed.unparsed)
        have = store.read("read/mab_count_tenant", conversation_id=tenant)[0]
        if int(have["facts"]) == len(parsed.facts) and int(have["about"]) == 2 * len(parsed.facts):
            report["ingest"][tenant] = {**{k: int(v) for k, v in have.items()}, "ms": None}
        else:
            t0 = time.perf_counter()
            counts = ingest_numbered(store, tenant, parsed)
            report["ingest"][tenant] = {**counts, "ms": (time.perf_counter() - t0) * 1000.0}
        lane = _lane(name)
        source = StoreFactSource(store, tenant)
        for question, golds in zip(row["questions"], row["answers"], strict=True):
            gold = [str(g) for g in golds] if isinstance(golds, list) else [str(golds)]
            t0 = time.perf_counter()
            resolution = resolve_chain(source, tenant, compile_question(str(question)))
            latencies.append((time.perf_counter() - t0) * 1000.0)
            score = substring_exact_match(resolution.answer or "", gold)
            scores.setdefault(lane, []).append(score)
            if score == 0.0 and len(report["failures"]) < failures:
                report["failures"].append(
                    {
                        "lane": lane,
                        "question": question,
                        "gold": gold,
                        "prediction": resolution.answer,
                        "base": resolution.base,
                        "path": [
                            f"{h.relation}:{h.object_name}@{h.serial}" for h in resolution.path
                        ],
                        "relaxations": resolution.relaxations,
                    }
                )
            if progress is not None:
                progress(1)
        report["lanes"].setdefault(lane, {})["tenant"] = tenant
    for lane, values in scores.items():
        report["lanes"][lane].update(n=len(values), accuracy=100.0 * sum(values) / len(values))
    every = [v for values in scores.values() for v in values]
    report["overall"] = {
        "n": len(every),
        "accuracy": 100.0 * sum(every) / len(every) if every else 0.0,
    }
    report["n_questions"] = len(every)
    report["unparsed_lines"] = unparsed
    report["latency_ms"] = (
        {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)}
        if latencies
        else {"p50": None, "p95": None}
    )
    return report
