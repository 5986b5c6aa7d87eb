"""Chain questions over current values: "the country of citizenship of the spouse of X".

A read-path operator usable on any conversation whose facts use the relations of
`kgmem.lexicon` (statement facts, `kgmem.ingest.relations`). Nothing here reads gold answers.

1. `compile_question` (pure): finds relation cues (the lexicon's ``cues``: relations with their
   common paraphrases), the answer type the question names (``answer_types``), the name spans
   that may be the base entity, and orders the cues into a chain relative to the base:
   "the capital of the country that X comes from" is ``[country_of_origin, capital]``.
2. `follow_chain`: resolves the base against the conversation's entities (names and aliases,
   compared by `name_key`), walks the fact graph hop by hop (``read/chain_facts``, one round trip
   per hop level), newest value per (entity, relation) first, and returns the best complete path
   by the fixed costs in `COSTS`, every hop traced (fact, serial, cited turns, whether it was the
   current value).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from kgmem.lexicon import lexicon
from kgmem.store import Store

__all__ = [
    "COSTS",
    "ChainPlan",
    "ChainResult",
    "FactSource",
    "Hop",
    "Mention",
    "StoreFactSource",
    "chain_question",
    "compile_question",
    "follow_chain",
    "name_key",
    "unexplained_words",
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


PLACE_KINDS = frozenset({"city", "country", "continent", "place"})
_TYPE_RE = [(t.pattern, t.kinds) for t in lexicon().answer_types]
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
_TYPE_WORD = re.compile(
    "|".join(f"(?:{t.pattern.pattern})" for t in lexicon().answer_types), re.IGNORECASE
)
_LAST_CLAUSE = re.compile(r",?\s+and\s+(who|what|which|where)\b", re.IGNORECASE)
_ARTICLE = re.compile(r"^the\s", re.IGNORECASE)  # name_key drops a leading "the"


def name_key(name: str) -> str:
    """Normalised lookup key of a name: NFKC, casefold, punctuation → space (apostrophes inside
    words kept), whitespace collapsed, a leading "the " dropped. ``"The Beatles"`` and
    ``"the beatles"`` share a key; so do ``"Washington, D.C."`` and ``"Washington D.C"``."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("\u2019", "'")
    text = re.sub(r"(?<!\w)'|'(?!\w)", " ", text)
    text = re.sub(r"[^\w' ]+", " ", text)
    text = " ".join(text.split())
    return text[4:] if text.startswith("the ") and len(text) > 4 else text


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
    for cue in lexicon().cues:
        pattern, rels, weak = cue.pattern, cue.relations, cue.weak
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
                key = name_key(surface)
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


#: content words a chain question may hold beyond its cues, base and answer-type words
#: ("Which sport is associated with X?": "associated"); measured on the LoCoMo dev questions
#: (1 lets 8 of 497 through, 2 lets 20) and FactConsolidation (184 of 200 vs 192)
MAX_UNEXPLAINED = 1


def unexplained_words(plan: ChainPlan) -> list[str]:
    """The question's content words that neither a cue, the base span nor an answer-type word
    accounts for (lower-cased, in surface order). Stopwords are not content."""
    spans = [span for m in plan.mentions for span in m.spans]
    if plan.base is not None:
        start = next((n.start for n in plan.names if n.text == plan.base), -1)
        if start >= 0:
            spans.append((start, start + len(plan.base)))
    words = []
    for m in _TOKEN.finditer(plan.question):
        if any(a <= m.start() and m.end() <= b for a, b in spans):
            continue
        word = m.group(0).lower().strip("'\"\u2018\u2019\u201c\u201d")
        if word and word not in STOPWORDS and not _TYPE_WORD.fullmatch(word):
            words.append(word)
    return words


def chain_question(question: str) -> ChainPlan | None:
    """The compiled chain when ``question`` reads as a chain question, else None.

    A chain question names at least one (non-weak) relation of the lexicon, a base, and little
    else: at most `MAX_UNEXPLAINED` content words outside the cues, the base and the
    answer-type words ("What is the country of citizenship of the spouse of X?" has none;
    "What happened to Melanie's son on their road trip?" has three: "happened", "road",
    "trip"). Whether the wh-phrase asks for an entity (not a time, a manner, a count) is the
    planner's check. Pure; never raises.
    """
    if not any(c.pattern.search(question) for c in lexicon().cues):
        return None  # the cheap test first: most questions name no relation
    plan = compile_question(question)
    if not plan.relations or plan.base is None:
        return None
    return plan if len(unexplained_words(plan)) <= MAX_UNEXPLAINED else None


# --- graph access --------------------------------------------------------------------------
class FactSource(Protocol):
    """What the walk needs from a conversation's graph (Neo4j, or an in-memory one in tests)."""

    def match_names(self, keys: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """``{name key: [(entity id, name), ...]}`` for the keys some entity name or alias has."""
        ...

    def follow(self, entity_ids: Sequence[str], relations: Sequence[str]) -> list[dict[str, Any]]:
        """Every fact of ``relations`` whose subject is one of ``entity_ids``, all versions: rows
        ``{fact_id, subject, relation, object, object_name, serial, text, superseded, cites}``."""
        ...


class StoreFactSource:
    """`FactSource` over Neo4j: ``read/chain_entities`` (once) and ``read/chain_facts``."""

    def __init__(self, store: Store, conversation_id: str) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self._names: dict[str, list[tuple[str, str]]] | None = None

    def match_names(self, keys: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        names = self._names
        if names is None:  # built whole, then published: another thread never sees it half-built
            names = {}
            rows = self.store.read("read/chain_entities", conversation_id=self.conversation_id)
            for row in rows:
                for surface in dict.fromkeys([row["name"], *row["aliases"]]):
                    ids = names.setdefault(name_key(str(surface)), [])
                    if all(i != row["id"] for i, _ in ids):
                        ids.append((str(row["id"]), str(row["name"])))
            self._names = names
        return {k: names[k] for k in keys if k in names}

    def follow(self, entity_ids: Sequence[str], relations: Sequence[str]) -> list[dict[str, Any]]:
        return self.store.read(
            "read/chain_facts",
            conversation_id=self.conversation_id,
            entity_ids=list(entity_ids),
            relations=list(relations),
        )


# --- resolution ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Hop:
    """One followed fact: id, relation, serial, object, whether it was the newest value of its
    (subject, relation), its text and the turns it cites."""

    fact_id: str
    relation: str
    serial: int
    object_id: str
    object_name: str
    latest: bool
    text: str = ""
    cites: tuple[str, ...] = ()


@dataclass
class ChainResult:
    """What `follow_chain` found.

    Attributes:
        answer: the last object's name, or None when no path was found.
        base: the base entity's name (as stored), or None.
        relations: the compiled chain (hop order), before relaxation.
        hops: the followed facts, in order (each one's cited turns are the evidence).
        cost: total relaxation cost (0 = the literal plan over current values).
        score: ``1 / (1 + cost)`` in (0, 1]; 0.0 when nothing was found.
        relaxations: what the path relaxed, e.g. ``["synonym country_of_origin 0.3"]``.
    """

    answer: str | None
    base: str | None = None
    relations: list[str] = field(default_factory=list)
    hops: list[Hop] = field(default_factory=list)
    cost: float = 0.0
    score: float = 0.0
    relaxations: list[str] = field(default_factory=list)

    @property
    def turn_ids(self) -> list[str]:
        """The turns the hops cite, in hop order, without repeats."""
        return list(dict.fromkeys(t for h in self.hops for t in h.cites))

    def as_dict(self) -> dict[str, Any]:
        """JSON-able trace: answer, base, relations, hops (with cites), cost, relaxations."""
        out = asdict(self)
        out["turn_ids"] = self.turn_ids
        return out


def _compatible(relation: str, kinds: frozenset[str] | None) -> bool:
    if kinds is None:
        return True
    rel = lexicon().relation(relation)
    kind = rel.object_kind if rel else "other"
    return kind == "other" or kind in kinds or (kind == "place" and bool(kinds & PLACE_KINDS))


def _overlaps(m: Mention, n: NameSpan) -> bool:
    return any(s < n.end and n.start < e for s, e in m.spans)


def _bases(plan: ChainPlan, source: FactSource) -> list[tuple[NameSpan, list[tuple[str, str]]]]:
    """Up to three non-overlapping name spans that name entities, longest first, each with the
    entities (id, name) it names."""
    found = source.match_names(sorted({n.key for n in plan.names}))
    spans = sorted(
        (n for n in plan.names if n.key in found), key=lambda n: (-n.tokens, n.start, n.key)
    )
    inside = [
        any(a <= n.start and n.end <= b for m in plan.mentions for a, b in m.spans) for n in spans
    ]
    if not all(inside):  # a name that is part of a cue ("sport") is a base only as last resort
        spans = [s for s, ins in zip(spans, inside, strict=True) if not ins]
    chosen: list[tuple[NameSpan, list[tuple[str, str]]]] = []
    for n in spans:
        if all(n.end <= c.start or c.end <= n.start for c, _ in chosen):
            chosen.append((n, found[n.key]))
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
        str(row.get("text") or ""),
        tuple(row.get("cites") or ()),
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
            for row in sorted(
                self.source.follow(batch, lexicon().relation_ids), key=lambda r: -int(r["serial"])
            ):
                versions = self.facts[row["subject"]].setdefault(row["relation"], [])
                if len(versions) < MAX_VERSIONS and all(
                    v["object"] != row["object"] for v in versions
                ):
                    versions.append(row)
                    if row["object"] not in self.facts:
                        self.pending.add(row["object"])
        return self.facts[entity]


def follow_chain(
    source: Store | FactSource, conversation_id: str, question: str | ChainPlan
) -> ChainResult:
    """Answer a chain question from conversation ``conversation_id``'s statement facts.

    The literal plan follows, from the base entity, the newest value per (entity, relation).
    When that leads nowhere, the search relaxes it; every relaxation has a fixed cost
    (`COSTS`): a near-synonym relation (the cue's synonym cost from the lexicon), an older value
    (1.0 per hop), a skipped cue (1.5; 0.2 if weak), one added hop (1.5), a chain order against
    the surface order (0.1 per inversion), an answer of another type than the question names
    (2.0), a shorter base name (0.5 per rank). The best complete path wins; ties go to fewer
    relaxations, fewer inversions, then later serials. Deterministic.

    Args:
        source: a `Store`, or any `FactSource`.
        conversation_id: the conversation (others are never read).
        question: the question, or its `compile_question` plan.

    Returns:
        a `ChainResult` (``answer`` None when no base entity or no fact was found).
    """
    plan = compile_question(question) if isinstance(question, str) else question
    src: FactSource = (
        StoreFactSource(source, conversation_id) if isinstance(source, Store) else source
    )
    bases = _bases(plan, src)
    if not bases:
        return ChainResult(None, bases[0][1][0][1] if bases else None, plan.relations)
    depth = min(MAX_HOPS, len(plan.mentions) + 1)
    graph = _Graph(src)
    graph.pending.update(i for _, ids in bases for i, _ in ids)
    best: tuple[Any, ...] | None = None
    best_base = ""
    for rank, (span, ids) in enumerate(bases):
        mentions = [m for m in plan.mentions if not _overlaps(m, span)]
        order = chain_order(plan.question, mentions, span.start, span.end)
        for eid, name in ids:
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
        return ChainResult(None, bases[0][1][0][1], plan.relations)
    _, cost, hops, relax = best
    return ChainResult(
        hops[-1].object_name, best_base, plan.relations, hops, cost, 1.0 / (1.0 + cost), relax
    )
