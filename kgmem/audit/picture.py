"""One question's evidence as a layered picture: why each turn came back, and where gold was lost.

`EvidencePicture` is the one data model both renderers draw (`kgmem.audit.draw.draw_picture`,
a static matplotlib PNG; `kgmem.audit.interactive`, a neo4j-viz view for notebooks and
``kgmem explain --html``). It is built from what the read path already returns, with no
query of its own: the `SearchResult` (hits with their score terms and trace, the plan, the
current-value decisions) and the evidence subgraph of the hits (`evidence_subgraph`, the code
twin of the Browser statement `Memory.evidence_cypher` prints). Five layers, left to right:

1. ``question``: the question with its plan (operators, entities, dates, cues);
2. ``hits``: the top-k turns in rank order (local id, speaker, date, snippet, score terms),
   then each gold turn that is not among them, with why (`MissedGold`);
3. ``facts``: for each hit, the facts that brought it (the best citing fact behind the
   ``fact`` term, the current value behind ``current``, a chain or hop fact), with the term
   each contributed;
4. ``links``: the entities and events that connected them (the trace's ``via_entities``,
   ``event_id``, hop entity; the facts' ``ABOUT`` / ``MEMBER_OF`` targets) and the older values
   their ``SUPERSEDES`` links point to;
5. ``decision``: the current- or past-value decision per supersession key, and the abstention
   when memory does not support the question.

By default the picture holds the hits' own evidence and at most `MAX_NODES` nodes (question,
hits, missed gold and decisions always; then bringing facts, connectors, other links, in that
order); ``expand=True`` adds every citing fact and every link of the subgraph.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import networkx as nx

from kgmem.audit.labels import shorten
from kgmem.audit.subgraph import evidence_subgraph
from kgmem.audit.terms import format_terms, term_names

if TYPE_CHECKING:
    from datetime import datetime

    from kgmem.api import Memory
    from kgmem.models import Hit
    from kgmem.retrieve.engine import EngineConfig, SearchResult

__all__ = [
    "LAYERS",
    "MAX_NODES",
    "POOL_K",
    "EvidencePicture",
    "MissedGold",
    "PictureEdge",
    "PictureNode",
    "build_picture",
    "evidence_picture",
    "key_label",
    "missed_gold",
    "shorten",
]

#: the layers, left to right
LAYERS: tuple[str, ...] = ("question", "hits", "facts", "links", "decision")
#: default node budget: about what a person can follow in one picture
MAX_NODES = 30
#: ``k`` asked of `Memory.search` so that every candidate comes back ranked: the linked engine
#: scores its whole pool whatever ``k`` is and only cuts the list, so the rank of a gold turn
#: below the top ``k`` is read off the same ranking (no other query path)
POOL_K = 100_000


@dataclass(frozen=True)
class PictureNode:
    """One box of the picture.

    Attributes:
        id: the store id (turn, fact, entity, event id) or ``question`` / ``decision:<key>``.
        layer: one of `LAYERS`.
        kind: ``question`` | ``hit`` | ``gold_hit`` | ``missed`` | ``fact`` | ``superseded`` |
            ``entity`` | ``event`` | ``decision`` | ``abstain`` (renderers colour by it).
        title: the first line (short: a rank and id, a relation, a name).
        lines: the body lines (unwrapped; renderers wrap and cut them).
        properties: everything a person may click through to (full text, terms, trace).
        order: position within the layer (smaller is higher up).
    """

    id: str
    layer: str
    kind: str
    title: str
    lines: tuple[str, ...] = ()
    properties: dict[str, Any] = field(default_factory=dict)
    order: float = 0.0


@dataclass(frozen=True)
class PictureEdge:
    """A directed link between two nodes of the picture.

    ``type`` is a stored relationship type (``CITES``, ``ABOUT``, ``MEMBER_OF``, ``SUPERSEDES``,
    ``MENTIONS``) or one of the picture's own: ``RANKED`` (question → hit), ``MISSED``
    (question → missed gold turn), ``VIA`` (hit → the entity or event its generator came
    through), ``CHOSE`` (decision → chosen fact). ``caption`` carries the term or rank."""

    source: str
    target: str
    type: str
    caption: str = ""


@dataclass(frozen=True)
class MissedGold:
    """Why a gold turn is not in the top k.

    Attributes:
        turn_id: the gold turn.
        rank: its 1-based rank in the whole scored pool, or None when no generator brought it
            into the pool.
        candidates: the pool size.
        reason: one sentence for people.
        short_term: the term where it fell furthest behind the last hit (rank k), if ranked.
        deficit: that term's value on the last hit minus its value on the gold turn.
        gap: the last hit's score minus the gold turn's score.
    """

    turn_id: str
    rank: int | None
    candidates: int
    reason: str
    short_term: str | None = None
    deficit: float | None = None
    gap: float | None = None


@dataclass
class EvidencePicture:
    """The layered evidence of one question (see the module docstring).

    Attributes:
        question / conversation_id / k: what was asked, where, and how many hits are shown.
        nodes: every node, each in one layer.
        edges: links between nodes of the picture (both ends present).
        missed: one entry per gold turn outside the top k, in the order given.
        gold: the gold turn ids given (full ids).
        omitted: nodes of the evidence subgraph left out by the node budget.
        cypher: the Browser script drawing the hits' whole subgraph (`Memory.evidence_cypher`).
    """

    question: str
    conversation_id: str
    k: int
    nodes: list[PictureNode]
    edges: list[PictureEdge]
    missed: list[MissedGold] = field(default_factory=list)
    gold: tuple[str, ...] = ()
    omitted: int = 0
    cypher: str = ""

    def layer(self, name: str) -> list[PictureNode]:
        """The nodes of one layer, top to bottom."""
        return sorted((n for n in self.nodes if n.layer == name), key=lambda n: n.order)

    def node(self, node_id: str) -> PictureNode:
        """The node with id ``node_id``.

        Raises:
            KeyError: no such node in the picture.
        """
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def to_networkx(self) -> nx.MultiDiGraph:
        """The picture as a graph: node attributes ``layer``, ``kind``, ``title``, ``lines``
        and the properties; edges keyed by type with a ``caption``."""
        graph = nx.MultiDiGraph()
        for n in self.nodes:
            graph.add_node(
                n.id, **n.properties, layer=n.layer, kind=n.kind, title=n.title, lines=n.lines
            )
        for e in self.edges:
            graph.add_edge(e.source, e.target, key=e.type, type=e.type, caption=e.caption)
        return graph


def _local(turn_id: str) -> str:
    return turn_id.split(":", 1)[-1]


def missed_gold(
    ranked: Sequence[Hit], k: int, gold: Iterable[str], candidates: int | None = None
) -> list[MissedGold]:
    """Each gold turn outside the first ``k`` of ``ranked``, with why.

    Args:
        ranked: the whole scored pool, best first (a search with ``k`` = `POOL_K`); a shorter
            list only tells "not among the first len(ranked)".
        k: the cut-off shown.
        gold: gold turn ids (full ids).
        candidates: the pool size (default ``len(ranked)``).

    Returns:
        one `MissedGold` per gold turn not in the top ``k``: ranked at N (with the term that
        fell furthest behind the hit at rank k) or not in the pool.
    """
    pool = len(ranked) if candidates is None else candidates
    position = {hit.turn_id: i for i, hit in enumerate(ranked, 1)}
    last = ranked[min(k, len(ranked)) - 1] if ranked else None
    out: list[MissedGold] = []
    for turn_id in dict.fromkeys(gold):
        rank = position.get(turn_id)
        if rank is not None and rank <= k:
            continue
        if rank is None or last is None:
            complete = len(ranked) >= pool
            reason = (
                f"not in the pool: none of the generators brought it ({pool} candidates)"
                if complete
                else f"not among the {len(ranked)} hits returned (ask with k={POOL_K})"
            )
            out.append(MissedGold(turn_id, None, pool, reason))
            continue
        hit = ranked[rank - 1]
        deficits = {
            name: last.terms.get(name, 0.0) - hit.terms.get(name, 0.0)
            for name in term_names([*last.terms, *hit.terms])
        }
        short = max(deficits, key=lambda name: deficits[name])
        gap = last.score - hit.score
        mine, theirs = hit.terms.get(short, 0.0), last.terms.get(short, 0.0)
        reason = (
            f"ranked {rank} of {pool}, {gap:.2f} below #{k}; "
            f"short in {short}: {mine:+.2f} vs {theirs:+.2f}"
        )
        out.append(
            MissedGold(turn_id, rank, pool, reason, short, round(deficits[short], 6), round(gap, 6))
        )
    return out


def key_label(key: str) -> str:
    """A supersession key for people: ``conv-26:e:person:caroline|hobbies|g`` becomes
    ``caroline · hobbies · g`` (the entity's own name part, then the key's other fields)."""
    subject, _, rest = key.partition("|")
    parts = [subject.rsplit(":", 1)[-1], *(p for p in rest.split("|") if p)]
    return " · ".join(parts)


def _plan_lines(plan: dict[str, Any]) -> list[str]:
    lines = [f"operators: {', '.join(plan.get('operators') or ['semantic'])}"]
    entities = [str(e.get("surface") or e.get("id")) for e in plan.get("entities") or []]
    if entities:
        lines.append(f"entities: {', '.join(entities)}")
    if plan.get("speakers"):
        lines.append(f"speakers: {', '.join(plan['speakers'])}")
    span = plan.get("time_range")
    if span:
        lines.append(f"time: {str(span.get('start'))[:10]} .. {str(span.get('end'))[:10]}")
    elif plan.get("named_year") or plan.get("named_month"):
        lines.append(f"time: year {plan.get('named_year')} month {plan.get('named_month')}")
    if plan.get("state"):
        lines.append(f"state: {plan['state']}")
    cues = [str(c) for c in plan.get("cues") or []]
    if cues:
        lines.append(
            "cues: " + "; ".join(cues[:4]) + (f" (+{len(cues) - 4})" if len(cues) > 4 else "")
        )
    return lines


def _turn_lines(props: dict[str, Any]) -> tuple[str, str]:
    """(``"D2:14 · Caroline · 2023-05-08"``, text) of a turn node of the subgraph."""
    when = str(props.get("observed_at") or "")[:10]
    who = props.get("speaker") or "?"
    local = props.get("dia_id") or _local(str(props.get("id") or ""))
    return f"{local} · {who} · {when}", str(props.get("text") or "")


class _Builder:
    def __init__(self, subgraph: nx.MultiDiGraph, budget: int | None) -> None:
        self.sub = subgraph
        self.budget = budget
        self.nodes: dict[str, PictureNode] = {}
        self.edges: list[PictureEdge] = []
        self.wanted: set[str] = set()

    def room(self) -> bool:
        return self.budget is None or len(self.nodes) < self.budget

    def add(self, node: PictureNode, *, force: bool = False) -> bool:
        if node.id in self.nodes:
            return True
        if not force and not self.room():
            self.wanted.add(node.id)
            return False
        self.nodes[node.id] = node
        return True

    def edge(self, source: str, target: str, rel: str, caption: str = "") -> None:
        e = PictureEdge(source, target, rel, caption)
        if e not in self.edges:
            self.edges.append(e)

    def props(self, node_id: str) -> dict[str, Any]:
        if node_id in self.sub:
            return {k: v for k, v in self.sub.nodes[node_id].items() if k not in ("caption", "hit")}
        return {}

    def fact(self, fact_id: str, kind: str = "fact", layer: str = "facts") -> PictureNode:
        props = {"id": fact_id, **self.props(fact_id)}
        title = str(props.get("relation") or "fact")
        if kind == "superseded":
            title = f"older value · {title}"
        return PictureNode(fact_id, layer, kind, title, (str(props.get("text") or fact_id),), props)

    def link(self, node_id: str) -> PictureNode:
        props = {"id": node_id, **self.props(node_id)}
        label = str(props.get("label") or ("Event" if ":ev" in node_id else "Entity"))
        if label == "Fact":
            return self.fact(node_id, "superseded", "links")
        kind = "event" if label == "Event" else "entity"
        name = str(props.get("name") or props.get("text") or _local(node_id))
        extra = props.get("type") or str(props.get("time") or "")[:10]
        return PictureNode(
            node_id, "links", kind, name, (f"{label.lower()} {extra}".strip(),), props
        )


def _bringing_facts(hit: Hit) -> list[tuple[str, str]]:
    """(fact id, caption) of the facts that brought ``hit``, each with the term it gave."""
    out: list[tuple[str, str]] = []
    trace, terms = hit.trace, hit.terms
    if trace.get("fact_id"):
        out.append((str(trace["fact_id"]), f"fact {terms.get('fact', 0.0):+.2f}"))
    current = trace.get("current")
    if isinstance(current, dict) and current.get("winner"):
        out.append(
            (
                str(current["winner"]),
                f"{current.get('mode', 'current')} {terms.get('current', 0.0):+.2f}",
            )
        )
    chain = trace.get("chain")
    if isinstance(chain, dict) and chain.get("fact_id"):
        out.append(
            (str(chain["fact_id"]), f"chain hop {chain.get('hop')} {terms.get('chain', 0.0):+.2f}")
        )
    hop = trace.get("hop")
    if isinstance(hop, dict) and hop.get("fact_id"):
        out.append((str(hop["fact_id"]), f"hop {terms.get('hop', 0.0):+.2f}"))
    seen: dict[str, str] = {}
    for fact_id, caption in out:
        seen[fact_id] = f"{seen[fact_id]}, {caption}" if fact_id in seen else caption
    return list(seen.items())


def _connectors(hit: Hit) -> list[tuple[str, str]]:
    """(entity or event id, caption) that the hit's generators came through."""
    out: list[tuple[str, str]] = []
    for entity_id in hit.trace.get("via_entities") or []:
        out.append((str(entity_id), f"entity {hit.terms.get('entity', 0.0):+.2f}"))
    if hit.trace.get("event_id"):
        out.append((str(hit.trace["event_id"]), f"event {hit.terms.get('event', 0.0):+.2f}"))
    hop = hit.trace.get("hop")
    if isinstance(hop, dict) and hop.get("entity_id"):
        out.append((str(hop["entity_id"]), f"hop {hop.get('n')}"))
    return out


def build_picture(
    result: SearchResult,
    subgraph: nx.MultiDiGraph,
    *,
    k: int = 10,
    gold: Collection[str] = (),
    expand: bool = False,
    max_nodes: int | None = MAX_NODES,
    cypher: str = "",
) -> EvidencePicture:
    """The layered picture of ``result``'s top ``k`` (pure: no store access).

    Args:
        result: a search result; its hits past ``k`` (ask with ``k`` = `POOL_K`) give the rank
            of gold turns that were not shown.
        subgraph: `evidence_subgraph` of the top-``k`` hit ids and the gold ids.
        k: hits shown.
        gold: gold turn ids (full ids); each one outside the top ``k`` is drawn beside the hits.
        expand: add every citing fact and every link of the subgraph (and lift the budget
            unless ``max_nodes`` is given).
        max_nodes: node budget; None for no limit. Question, hits, missed gold and decisions
            are always drawn, so a picture may exceed a budget smaller than those.
        cypher: the Browser script to keep with the picture (`Memory.evidence_cypher`).

    Returns:
        an `EvidencePicture`.
    """
    top = result.hits[:k]
    gold_ids = tuple(dict.fromkeys(gold))
    missed = missed_gold(result.hits, k, gold_ids, max(result.candidates, len(result.hits)))
    b = _Builder(subgraph, max_nodes)
    order = {hit.turn_id: float(i) for i, hit in enumerate(top)}

    b.add(
        PictureNode(
            "question",
            "question",
            "question",
            "question",
            (result.query, *_plan_lines(result.plan)),
            {"question": result.query, "plan": result.plan, "candidates": result.candidates},
        ),
        force=True,
    )
    for rank, hit in enumerate(top, 1):
        is_gold = hit.turn_id in gold_ids
        head = f"#{rank} {_local(hit.turn_id)} · {hit.speaker} · {hit.observed_at.date()}"
        props = {
            "id": hit.turn_id,
            "rank": rank,
            "text": hit.text,
            "speaker": hit.speaker,
            "observed_at": hit.observed_at.isoformat(),
            "score": hit.score,
            "terms": dict(hit.terms),
            "generators": hit.trace.get("generators", []),
            "gold": is_gold,
        }
        title = ("GOLD " if is_gold else "") + head
        body: tuple[str, ...] = (hit.text, f"score {hit.score:.2f}: {format_terms(hit.terms)}")
        when = hit.trace.get("event_time")
        if isinstance(when, dict) and when.get("start"):
            # the date the turn's words resolve to, which temporal questions are scored on
            body += (f"event time {str(when['start'])[:10]} ({when.get('phrase', '')})",)
        b.add(
            PictureNode(
                hit.turn_id, "hits", "gold_hit" if is_gold else "hit", title, body, props, rank
            ),
            force=True,
        )
        b.edge("question", hit.turn_id, "RANKED", f"#{rank} {hit.score:.2f}")
    for i, miss in enumerate(missed):
        head, text = _turn_lines(b.props(miss.turn_id) or {"id": miss.turn_id})
        props = {**b.props(miss.turn_id), "id": miss.turn_id, "gold": True, "reason": miss.reason}
        if miss.rank is not None:
            props |= {"rank": miss.rank, "terms": dict(result.hits[miss.rank - 1].terms)}
        order[miss.turn_id] = k + 1.0 + i
        b.add(
            PictureNode(
                miss.turn_id,
                "hits",
                "missed",
                f"GOLD missed · {head}",
                (text, miss.reason),
                props,
                k + 1.0 + i,
            ),
            force=True,
        )
        b.edge(
            "question", miss.turn_id, "MISSED", f"rank {miss.rank}" if miss.rank else "not in pool"
        )

    # decisions: always drawn, with the fact each chose
    for i, decision in enumerate(result.current):
        node_id = f"decision:{decision['key']}"
        older = decision.get("superseded") or []
        others = (
            f"over {len(older)} other value{'s' * (len(older) != 1)}" if older else "no other value"
        )
        lines = (str(decision.get("text") or ""), f"{decision.get('reason')}; {others}")
        turns = [t for t in decision.get("turns") or [] if t in order]
        where = min((order[t] for t in turns), default=float(i))
        b.add(
            PictureNode(
                node_id,
                "decision",
                "decision",
                f"{decision.get('mode')} value: {key_label(str(decision['key']))}",
                lines,
                dict(decision),
                where,
            ),
            force=True,
        )
        winner = str(decision["winner"])
        b.add(b.fact(winner), force=True)
        b.edge(node_id, winner, "CHOSE", str(decision.get("mode") or ""))
        for turn in turns:
            b.edge(winner, turn, "CITES", "")
    if not result.answerable:
        reason = str(result.answerability.get("reason") or "nothing in memory supports it")
        unsupported = ", ".join(result.unsupported)
        why = (reason, f"unsupported: {unsupported}") if unsupported else (reason,)
        b.add(
            PictureNode(
                "decision:abstain",
                "decision",
                "abstain",
                "abstain",
                why,
                dict(result.answerability),
                -1.0,
            ),
            force=True,
        )

    # the facts that brought each hit, best hit first
    for hit in top:
        for fact_id, caption in _bringing_facts(hit):
            if b.add(b.fact(fact_id)):
                b.edge(fact_id, hit.turn_id, "CITES", caption)
    # what connected them: the generators' entities and events, then supersession
    for hit in top:
        for node_id, caption in _connectors(hit):
            if b.add(b.link(node_id)):
                b.edge(hit.turn_id, node_id, "VIA", caption)
    for decision in result.current:
        for older in decision.get("superseded") or []:
            if b.add(b.link(str(older))):
                b.edge(str(decision["winner"]), str(older), "SUPERSEDES", "")
    sub_edges = list(subgraph.edges(data="type"))
    shown_facts = [n.id for n in b.nodes.values() if n.layer == "facts"]
    for u, v, rel in sub_edges:
        if rel == "SUPERSEDES" and (u in shown_facts or v in shown_facts):
            other = v if u in shown_facts else u
            if other in b.nodes or b.add(b.link(other)):
                b.edge(u, v, "SUPERSEDES", "")
    # the shown facts' entities and events, the most shared first; expand: every citing fact
    if expand:
        for u, v, rel in sub_edges:
            if rel == "CITES" and v in order and b.add(b.fact(u)):
                b.edge(u, v, "CITES", "")
    facts = {n.id for n in b.nodes.values() if n.kind == "fact"}
    shared: dict[str, int] = {}
    for u, v, rel in sub_edges:
        if rel in ("ABOUT", "MEMBER_OF") and u in facts:
            shared[v] = shared.get(v, 0) + 1
    for node_id in sorted(shared, key=lambda n: (-shared[n], n)):
        b.add(b.link(node_id))
    # the entities a turn merely mentions (both speakers in nearly every turn) only on request
    for u, v, rel in sub_edges:
        if u in b.nodes and v in b.nodes and rel in ("ABOUT", "MEMBER_OF"):
            b.edge(u, v, rel, "")
    if expand:
        for _, v, rel in sub_edges:
            if rel in ("ABOUT", "MEMBER_OF", "MENTIONS", "SUPERSEDES"):
                b.add(b.link(v))
        for u, v, rel in sub_edges:
            if u in b.nodes and v in b.nodes and rel != "NEXT":
                b.edge(u, v, rel, "")

    nodes = _ordered(list(b.nodes.values()), b.edges, order)
    edges = [e for e in b.edges if e.source in b.nodes and e.target in b.nodes]
    left_out = {
        n for n in subgraph.nodes if n not in b.nodes and subgraph.nodes[n].get("label") != "Turn"
    }
    return EvidencePicture(
        question=result.query,
        conversation_id=result.conversation_id,
        k=k,
        nodes=nodes,
        edges=edges,
        missed=missed,
        gold=gold_ids,
        omitted=len(left_out | b.wanted),
        cypher=cypher,
    )


def _ordered(
    nodes: list[PictureNode], edges: list[PictureEdge], order: dict[str, float]
) -> list[PictureNode]:
    """Give facts, links and decisions the position of the best hit they reach, so each column
    reads in the hits' rank order (fewer crossing edges)."""
    from dataclasses import replace

    pos = dict(order)
    layer_of = {n.id: n.layer for n in nodes}
    out: dict[str, PictureNode] = {n.id: n for n in nodes}
    for layer in ("facts", "links", "decision"):
        for i, n in enumerate(nodes):
            if n.layer != layer:
                continue
            near = [
                pos[other]
                for e in edges
                for other in (e.source, e.target)
                if n.id in (e.source, e.target)
                and other != n.id
                and other in pos
                and layer_of.get(other) != layer
            ]
            best = min(near) if near else float(len(pos))
            if layer == "decision" and n.kind == "abstain":
                best = -1.0
            pos[n.id] = best
            out[n.id] = replace(n, order=best + 1e-4 * i)  # ties keep the order of addition
    return list(out.values())


def evidence_picture(
    memory: Memory,
    question: str,
    conversation_id: str,
    *,
    k: int = 10,
    gold: Iterable[str] = (),
    expand: bool = False,
    max_nodes: int | None = MAX_NODES,
    config: EngineConfig | None = None,
    as_of: datetime | None = None,
) -> tuple[EvidencePicture, SearchResult]:
    """Search, read the hits' evidence subgraph and build the picture (the usual entry point).

    One `Memory.search` with ``k`` = `POOL_K` (the whole scored pool, so a missed gold turn's
    rank is known; the top ``k`` are the same hits a search with ``k`` returns), then
    `evidence_subgraph` of the top ``k`` and the gold turns.

    Args:
        memory: a connected memory.
        question: the question.
        conversation_id: the conversation to search.
        k: hits shown.
        gold: gold turn ids, full (``conv-26:D1:3``) or local to the conversation (``D1:3``).
        expand / max_nodes: see `build_picture`.
        config / as_of: passed to `Memory.search`.

    Returns:
        (the picture, the search result cut to ``k`` hits, as ``kgmem search`` returns it).

    Raises:
        ConversationNotFound, MalformedInput, StoreError: as `Memory.search`.
    """
    full = memory.search(question, conversation_id, POOL_K, config=config, as_of=as_of)
    shown = full.model_copy(update={"hits": full.hits[:k], "k": k})
    prefix = f"{conversation_id}:"
    gold_ids = [g if g.startswith(prefix) else prefix + g for g in gold]
    # the turns a decision's chosen value cites, so that fact's text is in the subgraph too
    chosen = [str(t) for d in full.current for t in d.get("turns") or []]
    subgraph = evidence_subgraph(
        memory, conversation_id, [h.turn_id for h in shown.hits] + gold_ids + chosen
    )
    picture = build_picture(
        full,
        subgraph,
        k=k,
        gold=gold_ids,
        expand=expand,
        max_nodes=None if expand and max_nodes == MAX_NODES else max_nodes,
        cypher=memory.evidence_cypher(shown),
    )
    return picture, shown
