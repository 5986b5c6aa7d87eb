"""Building the evidence picture from a search result and the hits' evidence subgraph.

`build_picture` fills the five layers of `kgmem.audit.picture` in a fixed order, each step a
function of its own: the question, the hits and the missed gold, the decisions (always drawn),
then, within the node budget, the bringing facts, the connectors, supersession and the shared
links; ``expand`` adds the rest of the subgraph. Pure: no store access.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import networkx as nx

from kgmem.audit.model import (
    MAX_NODES,
    POOL_K,
    EvidencePicture,
    MissedGold,
    PictureEdge,
    PictureNode,
)
from kgmem.audit.terms import format_terms, term_names
from kgmem.config import DEFAULT_K

if TYPE_CHECKING:
    from kgmem.models import Hit
    from kgmem.retrieve.retriever import SearchResult

__all__ = ["build_picture", "key_label", "missed_gold"]


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


def _add_question(b: _Builder, result: SearchResult) -> None:
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


def _add_hits(b: _Builder, top: Sequence[Hit], gold_ids: Collection[str]) -> None:
    """The top-k hits in rank order, each linked from the question (always drawn)."""
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


def _add_missed(
    b: _Builder, result: SearchResult, missed: Sequence[MissedGold], k: int, order: dict[str, float]
) -> None:
    """Each missed gold turn below the hits, with why (always drawn); records its position."""
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


def _add_decisions(b: _Builder, result: SearchResult, order: dict[str, float]) -> None:
    """The current- or past-value decisions, with the fact each chose (always drawn)."""
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


def _add_abstention(b: _Builder, result: SearchResult) -> None:
    """The abstention node when memory does not support the question (always drawn)."""
    if result.answerable:
        return
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


def _add_evidence(b: _Builder, result: SearchResult, top: Sequence[Hit]) -> None:
    """Within the budget: the facts that brought each hit (best hit first), then what connected
    them (the generators' entities and events), then the decisions' older values."""
    for hit in top:
        for fact_id, caption in _bringing_facts(hit):
            if b.add(b.fact(fact_id)):
                b.edge(fact_id, hit.turn_id, "CITES", caption)
    for hit in top:
        for node_id, caption in _connectors(hit):
            if b.add(b.link(node_id)):
                b.edge(hit.turn_id, node_id, "VIA", caption)
    for decision in result.current:
        for older in decision.get("superseded") or []:
            if b.add(b.link(str(older))):
                b.edge(str(decision["winner"]), str(older), "SUPERSEDES", "")


def _add_subgraph_links(
    b: _Builder, sub_edges: Sequence[tuple[str, str, Any]], order: dict[str, float], expand: bool
) -> None:
    """From the subgraph: the shown facts' supersession, (expand: every citing fact), the shown
    facts' entities and events (the most shared first) and the links between shown nodes."""
    shown_facts = [n.id for n in b.nodes.values() if n.layer == "facts"]
    for u, v, rel in sub_edges:
        if rel == "SUPERSEDES" and (u in shown_facts or v in shown_facts):
            other = v if u in shown_facts else u
            if other in b.nodes or b.add(b.link(other)):
                b.edge(u, v, "SUPERSEDES", "")
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


def build_picture(
    result: SearchResult,
    subgraph: nx.MultiDiGraph,
    *,
    k: int = DEFAULT_K,
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
    # the forced layers first, so the budget only ever cuts the evidence behind them
    _add_question(b, result)
    _add_hits(b, top, gold_ids)
    _add_missed(b, result, missed, k, order)
    _add_decisions(b, result, order)
    _add_abstention(b, result)
    _add_evidence(b, result, top)
    _add_subgraph_links(b, list(subgraph.edges(data="type")), order, expand)

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
