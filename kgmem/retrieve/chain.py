"""Chain questions over current values: "the country of citizenship of the spouse of X".

A read-path operator usable on any conversation whose facts use the relations of
`kgmem.lexicon` (statement facts, `kgmem.ingest.extraction.relations`). Nothing here reads gold
answers.

1. the parse (`kgmem.retrieve.chain_parse.compile_question`, re-exported here; the read path
   takes it from `kgmem.retrieve.question.Question.walk`): relation cues, the answer type, the
   name spans that may be the base, the cues ordered into a chain relative to the base;
2. `follow_chain`: resolves the base against the conversation's entities (names and aliases,
   compared by `name_key`), walks the fact graph hop by hop (``read/chain_facts``, one round trip
   per hop level), newest value per (entity, relation) first, and returns the best complete path
   by the fixed costs in `COSTS`, every hop traced (fact, serial, cited turns, whether it was the
   current value).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from kgmem.config import shipped_default
from kgmem.lexicon import lexicon
from kgmem.retrieve.chain_parse import (
    ChainPlan,
    Mention,
    NameSpan,
    chain_order,
    name_key,
)
from kgmem.retrieve.generators import candidate
from kgmem.retrieve.plan import QueryPlan
from kgmem.retrieve.question import Question
from kgmem.retrieve.score import Candidate
from kgmem.store import Store

__all__ = [
    "COSTS",
    "ChainResult",
    "FactSource",
    "Hop",
    "StoreFactSource",
    "chain_into_pool",
    "chain_stage",
    "follow_chain",
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
#: the longest chain `follow_chain` follows, in hops (one per relation cue and one more;
#: not `Settings.max_hops`, the read path's graph expansion)

PLACE_KINDS = frozenset({"city", "country", "continent", "place"})


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
    older value adds nothing), at most ``versions`` (the ``chain_versions`` setting)."""

    def __init__(self, source: FactSource, versions: int) -> None:
        self.versions = versions
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
                if len(versions) < self.versions and all(
                    v["object"] != row["object"] for v in versions
                ):
                    versions.append(row)
                    if row["object"] not in self.facts:
                        self.pending.add(row["object"])
        return self.facts[entity]


def follow_chain(
    source: Store | FactSource,
    conversation_id: str,
    question: Question,
    *,
    hops: int = shipped_default("chain_hops"),
    versions: int = shipped_default("chain_versions"),
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
        question: the question's reading (`Question.walk` is the plan).
        hops: the longest chain walked (at most one hop more than the plan's mentions;
            `kgmem.retrieve.config.EngineConfig.chain_hops`).
        versions: newest distinct values kept per (entity, relation); older ones never win
            (`kgmem.retrieve.config.EngineConfig.chain_versions`).

    Returns:
        a `ChainResult` (``answer`` None when no base entity or no fact was found).
    """
    plan = question.walk
    src: FactSource = (
        StoreFactSource(source, conversation_id) if isinstance(source, Store) else source
    )
    bases = _bases(plan, src)
    if not bases:
        return ChainResult(None, bases[0][1][0][1] if bases else None, plan.relations)
    depth = min(hops, len(plan.mentions) + 1)
    graph = _Graph(src, versions)
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
    _, cost, path, relax = best  # not `hops`: that is the longest walk allowed
    return ChainResult(
        path[-1].object_name, best_base, plan.relations, path, cost, 1.0 / (1.0 + cost), relax
    )


def chain_stage(
    store: Store,
    cache: dict[str, StoreFactSource],
    qplan: QueryPlan,
    pool: list[Candidate],
    *,
    conversation_id: str,
    off: str | None,
    embedding: list[float],
    hops: int,
    versions: int,
    sources: Sequence[str] | None,
) -> tuple[list[Candidate], ChainResult | None, QueryPlan]:
    """The linked retriever's chain stage: the plan's relation chain walked into ``pool``
    (`chain_into_pool`, from conversation ``conversation_id``; ``cache`` holds each
    conversation's entity names, keyed by conversation id) when the plan has one and nothing
    switches the walk off; with ``off`` (why the walk may not run: ``as_of``, ``owner``,
    ``filters``) the operator is switched off and the plan says why. Returns the pool, the
    walk's result (None: no path) and the plan."""
    if not qplan.has("chain"):
        return pool, None, qplan
    if off is not None:
        return (
            pool,
            None,
            qplan.model_copy(
                update={
                    "operators": tuple(o for o in qplan.operators if o != "chain"),
                    "cues": (*qplan.cues, f"chain:off ({off})"),
                }
            ),
        )
    source = cache.get(conversation_id)
    if source is None:
        source = cache[conversation_id] = StoreFactSource(store, conversation_id)
    pool, result = chain_into_pool(
        store,
        source,
        qplan.reading,
        pool,
        embedding=embedding,
        hops=hops,
        versions=versions,
        sources=sources,
    )
    return pool, result, qplan


def chain_into_pool(
    store: Store,
    source: StoreFactSource,
    question: Question,
    pool: list[Candidate],
    *,
    embedding: list[float],
    hops: int,
    versions: int,
    sources: Sequence[str] | None,
) -> tuple[list[Candidate], ChainResult | None]:
    """Walk the question's relation chain (`follow_chain` from ``source``: the entity names
    once per conversation, then one round trip per hop level). Cited turns not yet in ``pool``
    join it (one round trip, ``read/chain_turns``, ``embedding`` the question's vector,
    ``sources`` the source kinds read) and every cited turn gets the ``chain`` signal
    (`_credit_chain`). Returns the pool unchanged and None when the walk finds no path."""
    cid = source.conversation_id
    result = follow_chain(source, cid, question, hops=hops, versions=versions)
    if result.answer is None or not result.turn_ids:
        return pool, None
    by_id = {c.turn_id: c for c in pool}
    wanted = [t for t in result.turn_ids if t not in by_id]
    if wanted:
        rows = store.read(
            "read/chain_turns",
            conversation_id=cid,
            turn_ids=wanted,
            embedding=embedding,
            sources=sources,
        )
        for row in rows:
            joined = candidate(row, "chain")
            if row["fact_id"] is not None and row["fact_cosine"] is not None:
                joined.fact_id, joined.fact_cosine = row["fact_id"], float(row["fact_cosine"])
            by_id[joined.turn_id] = joined
    _credit_chain(result, by_id)
    return list(by_id.values()), result


def _credit_chain(result: ChainResult, by_id: dict[str, Candidate]) -> None:
    """Give every turn the path's facts cite the ``chain`` signal and a trace of its hop: hop i
    of n gets ``score · i / n`` (the path's score is ``1 / (1 + cost)``), so the last hop, whose
    object is the answer, ranks first."""
    subject = result.base
    for n, hop in enumerate(result.hops, start=1):
        for turn_id in hop.cites:
            c = by_id.get(turn_id)
            if c is None:  # a turn forgotten since the fact was written
                continue
            c.generators.add("chain")
            share = result.score * n / len(result.hops)  # the answer's hop gets it all
            c.bonus["chain"] = max(c.bonus.get("chain", 0.0), share)
            c.trace.setdefault(
                "chain",
                {
                    "hop": n,
                    "subject": subject,
                    "relation": hop.relation,
                    "object": hop.object_name,
                    "fact_id": hop.fact_id,
                    "latest": hop.latest,
                },
            )
        subject = hop.object_name
