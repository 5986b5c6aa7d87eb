"""The whole evidence subgraph of some turns, as networkx and as a force-directed drawing.

`evidence_subgraph` reads ``cypher/read/evidence_subgraph.cypher``, the code twin of the
Browser statement `kgmem.retrieve.evidence.evidence_cypher` prints (same nodes and edges).
`kgmem.audit.picture` builds its focused picture from it; `draw_evidence` draws all of it
(every node, spring layout), which is only legible for a few hits: use `draw_picture` for a
question's audit. matplotlib is imported lazily.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

    from kgmem.api import Memory

__all__ = ["EDGE_COLOURS", "NODE_COLOURS", "draw_evidence", "evidence_subgraph"]

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


def _draw_nodes_and_edges(
    graph: nx.MultiDiGraph,
    pos: dict[Any, Any],
    labels: dict[Any, Any],
    large: set[str],
    gold_set: set[str],
    ax: Axes,
) -> None:
    """Nodes coloured by label (hits large, gold ringed red), edges by type, and the captions
    of every node but the facts."""
    nodes = list(graph.nodes)
    sizes = [520 if n in large else 260 for n in nodes]
    colours = [NODE_COLOURS.get(labels.get(n, ""), "lightgray") for n in nodes]
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


def _legend_handles(graph: nx.MultiDiGraph, labels: dict[Any, Any]) -> list[Line2D]:
    """One legend entry per label and relationship type present, and one for the gold ring."""
    from matplotlib.lines import Line2D

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
    return handles


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

    if ax is None:
        _, ax = plt.subplots(figsize=(12, 9))
    pos = nx.spring_layout(nx.Graph(graph), seed=seed, k=0.9 / max(1, len(graph)) ** 0.5)
    labels = nx.get_node_attributes(graph, "label")
    nodes = list(graph.nodes)
    large = set(hits) if hits is not None else {n for n in nodes if graph.nodes[n].get("hit")}
    gold_set = set(gold)
    _draw_nodes_and_edges(graph, pos, labels, large, gold_set, ax)
    ax.legend(handles=_legend_handles(graph, labels), loc="upper left", fontsize=8, frameon=True)
    missed = sorted(gold_set - set(graph.nodes))
    ax.set_title(
        f"evidence subgraph: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges"
        + (f"; gold not in graph: {', '.join(missed)}" if missed else ""),
        fontsize=9,
    )
    ax.set_axis_off()
    return ax
