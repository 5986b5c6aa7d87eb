"""The static rendering of an `EvidencePicture`: a matplotlib figure for docs, CI and notebooks.

Columns and boxes come from `kgmem.audit.layout.layered_layout`; edges run from the right side
of the left box to the left side of the right one, under the boxes (opaque), so they never
cross a label. matplotlib is imported when a picture is drawn, not when this module is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from kgmem.audit.layout import (
    FONT_SIZE,
    HEADER,
    LINE_HEIGHT,
    MARGIN,
    PAD,
    Box,
    Layout,
    layered_layout,
)
from kgmem.audit.model import EvidencePicture

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LineStyle = Literal["-", "--", ":"]

__all__ = ["EDGE_STYLE", "KIND_STYLE", "LAYER_TITLES", "draw_picture", "save_picture"]

#: per node kind: (fill colour, border colour, border width, legend text)
KIND_STYLE: dict[str, tuple[str, str, float, str]] = {
    "question": ("#fff6d5", "#8a6d00", 1.0, "question and its plan"),
    "hit": ("#dbe9f6", "#1f77b4", 0.8, "hit (rank order)"),
    "gold_hit": ("#dbe9f6", "#d62728", 2.2, "hit that is gold"),
    "missed": ("#fde0dd", "#d62728", 2.2, "gold turn not in the top k"),
    "fact": ("#ffe8cc", "#ff7f0e", 0.8, "fact that brought a hit"),
    "superseded": ("#eeeeee", "#7f7f7f", 0.8, "older value (SUPERSEDES)"),
    "entity": ("#dff2dc", "#2ca02c", 0.8, "entity"),
    "event": ("#ece2f5", "#9467bd", 0.8, "event"),
    "decision": ("#f3e0f0", "#9b1f8a", 1.4, "current / past value decision"),
    "abstain": ("#f3e0f0", "#9b1f8a", 1.4, "abstention"),
}
#: per edge type: (colour, line style)
EDGE_STYLE: dict[str, tuple[str, LineStyle]] = {
    "RANKED": ("#1f77b4", "-"),
    "MISSED": ("#d62728", "--"),
    "CITES": ("#ff7f0e", "-"),
    "VIA": ("#2ca02c", ":"),
    "ABOUT": ("#2ca02c", "-"),
    "MEMBER_OF": ("#9467bd", "-"),
    "MENTIONS": ("#bcbd22", "-"),
    "SUPERSEDES": ("#7f7f7f", "-"),
    "CHOSE": ("#9b1f8a", "-"),
}
#: column titles
LAYER_TITLES: dict[str, str] = {
    "question": "question · plan cues",
    "hits": "top-{k} hits in rank order · missed gold",
    "facts": "facts that brought them (term)",
    "links": "entities · events · older values",
    "decision": "current-value decision",
}


def _anchor(box: Box, towards: Box) -> tuple[float, float]:
    if towards.x > box.x + 1e-6:
        return box.x + box.width / 2, box.y
    if towards.x < box.x - 1e-6:
        return box.x - box.width / 2, box.y
    return box.x + box.width / 2, box.y  # same column: leave from the right side


def _draw_headings(ax: Axes, picture: EvidencePicture, layout: Layout, title: str | None) -> None:
    """The column titles and the figure's heading (the question and what was left out)."""
    top = layout.height - MARGIN
    for layer, x in layout.columns.items():
        ax.text(
            x,
            top - HEADER / 2 + 0.1,
            LAYER_TITLES[layer].format(k=picture.k),
            ha="center",
            va="center",
            fontsize=FONT_SIZE + 1.5,
            fontweight="bold",
            color="#333333",
        )
    heading = title or (
        f"evidence for {picture.conversation_id}: {len(picture.nodes)} nodes"
        + (
            f"; {picture.omitted} more in the hits' evidence subgraph (draw them with "
            "expand=True or kgmem explain --expand)"
            if picture.omitted
            else ""
        )
    )
    ax.text(MARGIN, layout.height - 0.08, heading, ha="left", va="top", fontsize=FONT_SIZE + 1)


def _draw_edges(ax: Axes, picture: EvidencePicture, boxes: dict[str, Box]) -> None:
    """Every edge as an arrow under the boxes (zorder 1), styled by its type."""
    from matplotlib.patches import FancyArrowPatch

    for edge in picture.edges:
        a, b = boxes[edge.source], boxes[edge.target]
        colour, style = EDGE_STYLE.get(edge.type, ("black", "-"))
        same = abs(a.x - b.x) < 1e-6
        ax.add_patch(
            FancyArrowPatch(
                _anchor(a, b),
                _anchor(b, a),
                arrowstyle="-|>",
                mutation_scale=7,
                color=colour,
                linestyle=style,
                linewidth=0.9,
                alpha=0.8,
                connectionstyle="arc3,rad=-0.6" if same else "arc3,rad=0.0",
                zorder=1,
            )
        )


def _draw_boxes(ax: Axes, picture: EvidencePicture, boxes: dict[str, Box]) -> None:
    """Every node as an opaque rounded box (zorder 2) with its bold title and body (zorder 3)."""
    from matplotlib.patches import FancyBboxPatch

    for node in picture.nodes:
        box = boxes[node.id]
        fill, border, width, _ = KIND_STYLE.get(node.kind, ("white", "black", 0.8, node.kind))
        ax.add_patch(
            FancyBboxPatch(
                (box.x - box.width / 2, box.y - box.height / 2),
                box.width,
                box.height,
                boxstyle="round,pad=0,rounding_size=0.05",
                facecolor=fill,
                edgecolor=border,
                linewidth=width,
                zorder=2,
            )
        )
        left = box.x - box.width / 2 + PAD
        y = box.y + box.height / 2 - PAD
        ax.text(
            left,
            y,
            "\n".join(box.title),
            ha="left",
            va="top",
            fontsize=FONT_SIZE,
            fontweight="bold",
            linespacing=1.3,
            zorder=3,
        )
        if box.body:
            ax.text(
                left,
                y - len(box.title) * LINE_HEIGHT,
                "\n".join(box.body),
                ha="left",
                va="top",
                fontsize=FONT_SIZE,
                linespacing=1.3,
                zorder=3,
            )


def _draw_legend(ax: Axes, picture: EvidencePicture, layout: Layout) -> None:
    """One legend row under the columns: the node kinds and edge types the picture uses."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    kinds = list(dict.fromkeys(n.kind for n in picture.nodes))
    handles: list[Patch | Line2D] = [
        Patch(
            facecolor=KIND_STYLE[k][0],
            edgecolor=KIND_STYLE[k][1],
            linewidth=KIND_STYLE[k][2],
            label=KIND_STYLE[k][3],
        )
        for k in kinds
        if k in KIND_STYLE
    ]
    types = list(dict.fromkeys(e.type for e in picture.edges))
    handles += [
        Line2D([0], [0], color=EDGE_STYLE[t][0], linestyle=EDGE_STYLE[t][1], lw=1.2, label=t)
        for t in types
        if t in EDGE_STYLE
    ]
    ax.legend(
        handles=handles,
        loc="lower left",
        bbox_to_anchor=(MARGIN / layout.width, 0.0),
        ncol=min(len(handles), 8),
        fontsize=FONT_SIZE,
        frameon=False,
        handlelength=1.8,
    )


def draw_picture(picture: EvidencePicture, *, title: str | None = None) -> Figure:
    """Draw ``picture`` on a new figure sized to fit it (about 14 x 6 inches for 30 nodes).

    Args:
        picture: from `kgmem.audit.picture.build_picture` / `evidence_picture`.
        title: the figure's title (default: the question and what was left out).

    Returns:
        the matplotlib figure (close it, or `save_picture`, when done).
    """
    import matplotlib.pyplot as plt

    layout = layered_layout(picture)
    legend_h = 0.55
    fig = plt.figure(figsize=(layout.width, layout.height + legend_h))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(-legend_h, layout.height)
    ax.set_axis_off()
    _draw_headings(ax, picture, layout, title)
    _draw_edges(ax, picture, layout.boxes)
    _draw_boxes(ax, picture, layout.boxes)
    _draw_legend(ax, picture, layout)
    return fig


def save_picture(picture: EvidencePicture, path: str | Path, *, dpi: int = 110) -> Path:
    """Draw ``picture`` and write it as PNG to ``path`` (the figure is closed afterwards)."""
    import matplotlib.pyplot as plt

    fig = draw_picture(picture)
    target = Path(path)
    try:
        fig.savefig(target, dpi=dpi, facecolor="white")
    finally:
        plt.close(fig)
    return target
