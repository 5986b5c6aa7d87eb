"""Evidence audit: why did these turns come back, and are they the right ones?

Three views of one `SearchResult`, used by ``kgmem explain --cypher``, the evidence-audit
notebook and anyone checking a retrieval by hand:

- `evidence_cypher`: a ready-to-paste Neo4j Browser script (a ``:param`` line + the statement
  of ``cypher/browser/evidence_subgraph.cypher``) that draws the hits' evidence subgraph;
- `evidence_subgraph` / `draw_evidence`: the same subgraph as a `networkx.MultiDiGraph`, drawn
  with matplotlib (nodes coloured by label, edges by type, gold turns ringed);
- `grade`: the EXACT / SUPPORTED grades of docs/design.md §4 for one question.

Only `evidence_subgraph` and `grade` touch the store (through named statements); matplotlib is
imported lazily by `draw_evidence` and `plot_terms`, so importing this module needs neither a
server nor a display.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx

from kgmem.retrieve.evidence import cypher_string, evidence_cypher

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from kgmem.api import Memory
    from kgmem.models import QuestionRecord
    from kgmem.retrieve.retriever import SearchResult

__all__ = [
    "EDGE_COLOURS",
    "NODE_COLOURS",
    "cypher_string",
    "draw_evidence",
    "evidence_cypher",
    "evidence_subgraph",
    "grade",
    "plot_terms",
]

#: node fill colour per label (matplotlib named colours)
NODE_COLOURS: dict[str, str] = {
    "Turn": "tab:blue",
    "Fact": "tab:orange",
    "Entity": "tab:green",
    "Event": "tab:purple",
    "Session": "tab:gray",
}
#: edge colour per relationship type
EDGE_COLOURS: dict[str, str] = {
    "NEXT": "black",
    "CITES": "tab:orange",
    "ABOUT": "tab:green",
    "MENTIONS": "tab:olive",
    "MEMBER_OF": "tab:purple",
    "SUPERSEDES": "tab:red",
}


def _node_attrs(node: dict[str, Any]) -> dict[str, Any]:
    label = str(node.get("label") or "Node")
    if label == "Turn":
        caption = f"{node.get('dia_id') or node['id']} {node.get('speaker') or ''}".strip()
    elif label == "Fact":
        caption = str(node.get("relation") or "fact")
    else:
        caption = str(node.get("name") or node["id"])
        caption = caption if len(caption) <= 32 else caption[:31] + "…"
    attrs = {key: value for key, value in node.items() if value is not None and key != "id"}
    attrs["label"] = label
    attrs["caption"] = caption
    return attrs


def evidence_subgraph(
    memory: Memory, conversation_id: str, turn_ids: Iterable[str]
) -> nx.MultiDiGraph:
    """The evidence subgraph of ``turn_ids`` as a directed multigraph.

    Holds the turns, their ``NEXT`` neighbours, the facts that cite them with those facts'
    entities (``ABOUT``), events (``MEMBER_OF``) and ``SUPERSEDES`` links, and the entities
    the turns mention, from ``cypher/read/evidence_subgraph.cypher``.

    Args:
        memory: a connected memory.
        conversation_id: the conversation the turns belong to (others are never read).
        turn_ids: full turn ids (``<conversation_id>:<local id>``); unknown ids are ignored.

    Returns:
        nodes keyed by node id with attributes ``label`` (Turn/Fact/Entity/Event), ``caption``
        (short text for drawing), ``hit`` (True for the asked turns) and the stored properties
        (``text``, ``speaker``, ``observed_at`` UTC, ``event_time``, ...; never embeddings);
        edges keyed by relationship type with attribute ``type``.
    """
    asked = list(dict.fromkeys(turn_ids))
    graph = nx.MultiDiGraph()
    rows = memory.store.read(
        "read/evidence_subgraph", conversation_id=conversation_id, turn_ids=asked
    )
    for row in rows:
        for node in (row["source"], row["target"]):
            graph.add_node(node["id"], **_node_attrs(node))
        rel = str(row["rel"])
        graph.add_edge(row["source"]["id"], row["target"]["id"], key=rel, type=rel)
    for node_id in asked:
        if node_id in graph:
            graph.nodes[node_id]["hit"] = True
    for _, attrs in graph.nodes(data=True):
        attrs.setdefault("hit", False)
    return graph


def draw_evidence(
    graph: nx.MultiDiGraph,
    *,
    gold: Collection[str] = (),
    hits: Collection[str] | None = None,
    ax: Axes | None = None,
    seed: int = 7,
) -> Axes:
    """Draw an evidence subgraph: nodes coloured by label, edges by type, gold turns ringed red.

    Args:
        graph: from `evidence_subgraph`.
        gold: gold evidence turn ids (ringed in red; a gold turn that is not in the graph is
            listed in the title as missed).
        hits: the retrieved turn ids, drawn large (default: the nodes marked ``hit``).
        ax: matplotlib axes to draw on (a new figure when None).
        seed: layout seed (spring layout), so a re-run draws the same picture.

    Returns:
        the axes drawn on.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    if ax is None:
        _, ax = plt.subplots(figsize=(12, 9))
    pos = nx.spring_layout(nx.Graph(graph), seed=seed, k=0.9 / max(1, len(graph)) ** 0.5)
    labels = nx.get_node_attributes(graph, "label")
    nodes = list(graph.nodes)
    large = set(hits) if hits is not None else {n for n in nodes if graph.nodes[n].get("hit")}
    sizes = [520 if n in large else 260 for n in nodes]
    colours = [NODE_COLOURS.get(labels.get(n, ""), "lightgray") for n in nodes]
    gold_set = set(gold)
    rings = ["red" if n in gold_set else "white" for n in nodes]
    widths = [3.0 if n in gold_set else 0.8 for n in nodes]
    nx.draw_networkx_nodes(
        graph,
        pos,
        nodelist=nodes,
        node_size=sizes,
        node_color=colours,
        edgecolors=rings,
        linewidths=widths,
        ax=ax,
    )
    for rel, colour in EDGE_COLOURS.items():
        edges = [(u, v) for u, v, t in graph.edges(data="type") if t == rel]
        if edges:
            nx.draw_networkx_edges(
                graph,
                pos,
                edgelist=edges,
                edge_color=colour,
                ax=ax,
                arrows=True,
                arrowsize=10,
                width=1.4,
                node_size=400,
            )
    captions = {n: graph.nodes[n].get("caption", n) for n in nodes if labels.get(n) != "Fact"}
    nx.draw_networkx_labels(graph, pos, labels=captions, font_size=7, ax=ax)
    handles = [
        Line2D([0], [0], marker="o", color="w", markerfacecolor=c, markersize=9, label=label)
        for label, c in NODE_COLOURS.items()
        if label in set(labels.values())
    ]
    handles += [
        Line2D([0], [0], color=c, lw=2, label=rel)
        for rel, c in EDGE_COLOURS.items()
        if any(t == rel for *_, t in graph.edges(data="type"))
    ]
    handles.append(
        Line2D(
            [0],
            [0],
            marker="o",
            color="w",
            markerfacecolor="white",
            markeredgecolor="red",
            markeredgewidth=2.5,
            markersize=10,
            label="gold turn",
        )
    )
    ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=True)
    missed = sorted(gold_set - set(graph.nodes))
    ax.set_title(
        f"evidence subgraph: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges"
        + (f"; gold not in graph: {', '.join(missed)}" if missed else ""),
        fontsize=9,
    )
    ax.set_axis_off()
    return ax


def plot_terms(result: SearchResult, *, ax: Axes | None = None) -> Axes:
    """A stacked horizontal bar per hit: the scorer terms that sum to its score.

    Args:
        result: a search result (each hit's ``terms``; cosine terms in [-1, 1]).
        ax: axes to draw on (a new figure when None).

    Returns:
        the axes drawn on (best hit at the top).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 0.45 * max(4, len(result.hits)) + 1))
    names = list(dict.fromkeys(name for hit in result.hits for name in hit.terms))
    rows = [f"{hit.turn_id.split(':', 1)[-1]}" for hit in result.hits]
    positions = list(range(len(result.hits)))[::-1]
    left_pos = [0.0] * len(rows)
    left_neg = [0.0] * len(rows)
    for name in names:
        values = [hit.terms.get(name, 0.0) for hit in result.hits]
        lefts = [lp if v >= 0 else ln for v, lp, ln in zip(values, left_pos, left_neg, strict=True)]
        ax.barh(positions, values, left=lefts, label=name, height=0.7)
        for i, v in enumerate(values):
            if v >= 0:
                left_pos[i] += v
            else:
                left_neg[i] += v
    ax.set_yticks(positions, rows, fontsize=8)
    ax.set_xlabel("score (sum of terms)")
    ax.axvline(0, color="black", lw=0.6)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(f"score terms of each hit: {result.query}", fontsize=9)
    return ax


def grade(
    memory: Memory, question: QuestionRecord, result: SearchResult, k: int = 10
) -> dict[str, Any]:
    """The EXACT and SUPPORTED grades of one question's top-``k`` hits (docs/design.md §4).

    EXACT: a gold turn is in the top ``k``. SUPPORTED: a top-``k`` turn is gold, shares a fact
    with a gold turn (one ``Fact`` CITES both), or contains the normalised gold answer string
    (the rule of `kgmem.bench.locomo`, so that notebook and benchmark agree).

    Args:
        memory: a connected memory.
        question: a question with gold evidence ids (LoCoMo layout).
        result: the search result for ``question.question``.
        k: cut-off.

    Returns:
        ``{"question_id", "category", "question", "exact": bool, "supported": bool,
        "gold": [ids], "gold_ranks": {id: 1-based rank or None}}``.
    """
    from kgmem.bench.locomo import evidence_support
    from kgmem.bench.metrics import normalize_answer

    top = result.hits[:k]
    top_ids = [hit.turn_id for hit in top]
    gold = set(question.evidence)
    support = evidence_support(memory, question.evidence)
    answer = normalize_answer(question.answer)
    contains = bool(answer) and any(answer in normalize_answer(hit.text) for hit in top)
    return {
        "question_id": question.id,
        "category": question.category,
        "question": question.question,
        "exact": bool(gold & set(top_ids)),
        "supported": bool(support & set(top_ids)) or contains,
        "gold": list(question.evidence),
        "gold_ranks": {g: (top_ids.index(g) + 1 if g in top_ids else None) for g in gold},
    }
