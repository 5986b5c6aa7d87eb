"""The data model of the evidence picture: nodes, edges, missed gold and the picture itself.

`kgmem.audit.build` fills it, `kgmem.audit.draw` and `kgmem.audit.interactive` draw it; the
layers and the node budget are described in `kgmem.audit.picture`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx

__all__ = [
    "LAYERS",
    "MAX_NODES",
    "POOL_K",
    "EvidencePicture",
    "MissedGold",
    "PictureEdge",
    "PictureNode",
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
