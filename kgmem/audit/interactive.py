"""The interactive rendering of an `EvidencePicture` with neo4j-viz (Neo4j's notebook graph view).

Same nodes, edges and positions as the static PNG (`kgmem.audit.layout.layered_layout`, scaled
to pixels, the coordinate layout), so a person can drag, zoom and click a node to read all of
its properties (full text, every score term, the trace). `to_html` gives one self-contained
HTML page: neo4j-viz inlines its JavaScript and CSS and loads nothing at view time, which is
what ``kgmem explain --html`` writes. neo4j-viz is in the ``notebooks`` extra and imported when
a view is made.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgmem.audit.draw import EDGE_STYLE, KIND_STYLE
from kgmem.audit.labels import shorten
from kgmem.audit.layout import layered_layout
from kgmem.audit.model import EvidencePicture, PictureNode
from kgmem.errors import KgmemError

if TYPE_CHECKING:
    from neo4j_viz import Legend, VisualizationGraph

    from kgmem.audit.layout import Layout

__all__ = ["PIXELS_PER_INCH", "to_html", "to_visualization_graph", "write_html"]

#: layout inches to view pixels, across and down: chosen so a 30-node picture fills a
#: 1600 x 1000 window at the opening zoom while the smallest boxes' circles stay apart
PIXELS_PER_INCH = (110.0, 95.0)
#: the view's size the opening zoom is fitted to (pixels; a laptop browser window)
VIEW_SIZE = (1560.0, 860.0)


def _plain(value: Any) -> Any:
    """A property value neo4j-viz can show: scalars as they are, anything else as JSON text."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


#: fills that differ from the static picture's: a circle has no border to ring gold with, so a
#: gold hit is solid red and a missed gold turn light red
GOLD_FILLS: dict[str, str] = {"gold_hit": "#d62728", "missed": "#ff9896"}


def _colour(kind: str) -> str:
    return GOLD_FILLS.get(kind) or KIND_STYLE.get(kind, ("#ffffff",))[0]


#: characters per caption line and lines per caption of a fact or the question: the text a
#: person reads without hovering, wrapped and cut as the static picture's boxes are
CAPTION_CHARS = 30
CAPTION_LINES = {"question": 4, "fact": 3, "superseded": 3}


def _wrapped(text: str, lines: int) -> str:
    wrapped = textwrap.wrap(" ".join(text.split()), CAPTION_CHARS) or [""]
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 1], shorten(" ".join(wrapped[lines - 1 :]), CAPTION_CHARS)]
    return "\n".join(wrapped)


def _caption(node: PictureNode) -> str:
    """What a node shows without hovering: a hit's rank and local id, a missed gold turn's
    local id, the question's text, a fact's text (not its predicate), an entity's or event's
    name; long texts wrapped to `CAPTION_CHARS` and cut to `CAPTION_LINES` lines."""
    if node.kind in ("hit", "gold_hit"):
        return f"#{node.properties.get('rank')} {str(node.id).split(':', 1)[-1]}"
    if node.kind == "missed":
        return f"gold {str(node.id).split(':', 1)[-1]}"
    if node.kind in ("decision", "abstain"):
        return node.kind if node.kind == "abstain" else f"{node.properties.get('mode')} value"
    if node.kind == "question":
        return _wrapped(
            str(node.properties.get("question") or node.title), CAPTION_LINES["question"]
        )
    if node.kind in CAPTION_LINES:
        text = str(node.properties.get("text") or (node.lines[0] if node.lines else node.title))
        prefix = "older value: " if node.kind == "superseded" else ""
        return _wrapped(prefix + text, CAPTION_LINES[node.kind])
    return shorten(node.title, 22)


def _opening_zoom(picture: EvidencePicture) -> float:
    """The zoom that shows the whole picture (centred on the origin) in `VIEW_SIZE`."""
    layout = layered_layout(picture)
    width, height = layout.width * PIXELS_PER_INCH[0], layout.height * PIXELS_PER_INCH[1]
    return round(min(VIEW_SIZE[0] / width, VIEW_SIZE[1] / height, 1.5), 3)


def _node_fields(n: PictureNode, layout: Layout) -> dict[str, Any]:
    """The neo4j-viz node of one picture node: its box's position scaled to pixels, its colour,
    caption and every property (non-scalars as JSON text)."""
    box = layout.boxes[n.id]
    props = {key: _plain(value) for key, value in n.properties.items()}
    props |= {"layer": n.layer, "kind": n.kind, "label": " · ".join((n.title, *n.lines))}
    return {
        "id": n.id,
        "caption": _caption(n),
        "size": 24 if n.kind in ("hit", "gold_hit", "missed", "question") else 21,
        "caption_size": 2,
        "color": _colour(n.kind),
        # centred on the origin, where the view opens; its y grows downwards
        "x": (box.x - layout.width / 2) * PIXELS_PER_INCH[0],
        "y": (layout.height / 2 - box.y) * PIXELS_PER_INCH[1],
        "pinned": True,
        "properties": props,
    }


def _legend(picture: EvidencePicture) -> Legend:
    """The view's legend: the node kinds and edge types the picture uses, in order of use."""
    from neo4j_viz import DiscreteLegendSection, Legend, LegendEntry

    kinds = list(dict.fromkeys(n.kind for n in picture.nodes))
    return Legend(
        nodes=DiscreteLegendSection(
            title="node",
            entries=[
                LegendEntry(
                    label=KIND_STYLE[k][3],
                    color=_colour(k),
                )
                for k in kinds
                if k in KIND_STYLE
            ],
        ),
        relationships=DiscreteLegendSection(
            title="edge",
            entries=[
                LegendEntry(label=t, color=EDGE_STYLE[t][0])
                for t in dict.fromkeys(e.type for e in picture.edges)
                if t in EDGE_STYLE
            ],
        ),
    )


def to_visualization_graph(picture: EvidencePicture) -> VisualizationGraph:
    """``picture`` as a `neo4j_viz.VisualizationGraph`: one node per box at the box's position,
    coloured by kind, captioned with its title; one relationship per edge, captioned with its
    term or rank; every property of the picture node kept for click-through.

    Raises:
        KgmemError: neo4j-viz is not installed (``pip install 'kgmem[notebooks]'``).
    """
    try:
        from neo4j_viz import Node, Relationship, VisualizationGraph
    except ImportError as exc:  # pragma: no cover - the notebooks extra installs it
        raise KgmemError(
            "the interactive evidence view needs neo4j-viz: pip install 'kgmem[notebooks]'"
        ) from exc

    layout = layered_layout(picture)
    nodes = [Node.model_validate(_node_fields(n, layout)) for n in picture.nodes]
    rels = [
        Relationship.model_validate(
            {
                "id": f"{e.type}:{e.source}->{e.target}:{i}",
                "source": e.source,
                "target": e.target,
                "caption": e.caption or e.type,
                "color": EDGE_STYLE.get(e.type, ("#000000", "-"))[0],
                "properties": {"type": e.type, "caption": e.caption},
            }
        )
        for i, e in enumerate(picture.edges)
    ]
    graph = VisualizationGraph(nodes=nodes, relationships=rels)
    graph.legend = _legend(picture)
    return graph


def to_html(picture: EvidencePicture, *, height: str = "900px") -> str:
    """The interactive view as one self-contained HTML page (no network needed to view it)."""
    from neo4j_viz import Layout

    rendered = to_visualization_graph(picture).render(
        layout=Layout.COORDINATE,
        width="100%",
        height=height,
        theme="light",
        initial_zoom=_opening_zoom(picture),
    )
    return str(rendered.data)


def write_html(picture: EvidencePicture, path: str | Path, *, height: str = "900px") -> Path:
    """Write `to_html` to ``path`` (UTF-8) and return the path."""
    target = Path(path)
    target.write_text(to_html(picture, height=height), encoding="utf-8")
    return target
