"""Where each node of an `EvidencePicture` goes: fixed columns, stacked boxes, wrapped labels.

Both renderers place nodes with `layered_layout`, so the static PNG and the interactive view
show the same arrangement. Positions are in inches (the static figure's own unit; the
interactive view scales them to pixels). A column is one layer; boxes in it are stacked top to
bottom in `PictureNode.order` with a fixed gap, each as tall as its wrapped lines, so no two
boxes overlap and no label leaves its box (widths in characters are set for 7 pt DejaVu Sans,
matplotlib's default font, with a margin).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from kgmem.audit.labels import shorten
from kgmem.audit.model import LAYERS, EvidencePicture, PictureNode

__all__ = ["COLUMN_WIDTH", "FONT_SIZE", "Box", "Layout", "layered_layout", "wrap_node"]

#: box width per layer, inches
COLUMN_WIDTH: dict[str, float] = {
    "question": 2.5,
    "hits": 3.3,
    "facts": 2.9,
    "links": 2.0,
    "decision": 2.4,
}
#: label font size, points
FONT_SIZE = 7.0
#: characters per inch of 7 pt DejaVu Sans (average glyph about 0.55 em), with a margin
CHARS_PER_INCH = 15.5
LINE_HEIGHT = FONT_SIZE * 1.3 / 72  # inches
PAD = 0.07  # inches inside a box
GAP_Y = 0.13  # inches between boxes
GAP_X = 0.85  # inches between columns
HEADER = 0.45  # inches above the columns for their titles
MARGIN = 0.25
#: most body lines per layer (the rest is cut with "…"; the interactive view keeps all text)
MAX_LINES: dict[str, int] = {"question": 4, "hits": 3, "facts": 3, "links": 2, "decision": 3}


@dataclass(frozen=True)
class Box:
    """A node's box: centre ``x``, ``y`` (inches, y up), size, and its wrapped label."""

    x: float
    y: float
    width: float
    height: float
    title: tuple[str, ...]
    body: tuple[str, ...]


@dataclass(frozen=True)
class Layout:
    """Boxes by node id, the figure size (inches) and each column's centre x."""

    boxes: dict[str, Box]
    width: float
    height: float
    columns: dict[str, float]


def wrap_node(node: PictureNode, width: float) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(title lines, body lines) of ``node`` wrapped to a box ``width`` inches wide: title at
    most 2 lines (bold glyphs are wider), body at most `MAX_LINES` of its layer."""
    chars = max(8, int((width - 2 * PAD) * CHARS_PER_INCH))
    title = textwrap.wrap(node.title, int(chars * 0.9)) or [""]
    if len(title) > 2:
        title = [title[0], shorten(" ".join(title[1:]), int(chars * 0.9))]
    body: list[str] = []
    for i, line in enumerate(node.lines):
        # the first line (a turn's or fact's text) gets the layer's budget, each later one
        # (score terms, a reason, a plan field) two lines, so none of them is cut away
        limit = MAX_LINES.get(node.layer, 3) if i == 0 else 2
        wrapped = textwrap.wrap(" ".join(line.split()), chars) or []
        if len(wrapped) > limit:
            wrapped = [*wrapped[: limit - 1], shorten(" ".join(wrapped[limit - 1 :]), chars)]
        body += wrapped
    return tuple(title), tuple(body)


def layered_layout(picture: EvidencePicture) -> Layout:
    """Place every node of ``picture``: one column per non-empty layer, left to right in
    `LAYERS` order. The tallest column sets the height. The hits column is stacked in rank
    order; every other box goes as near as it can to the mean height of the boxes it links to
    in columns already placed (so edges run nearly level), in `PictureNode.order`, pushed apart
    by `GAP_Y` so none overlap. The links column is placed last and keeps clear of the edges
    that pass through it (a decision's edge to its fact), so no edge seems to end at a box it
    only passes behind."""
    layers = [name for name in LAYERS if picture.layer(name)]
    stacks: dict[str, list[tuple[PictureNode, tuple[str, ...], tuple[str, ...], float]]] = {}
    for name in layers:
        width = COLUMN_WIDTH[name]
        stack = []
        for node in picture.layer(name):
            title, body = wrap_node(node, width)
            height = (len(title) + len(body)) * LINE_HEIGHT + 2 * PAD
            stack.append((node, title, body, height))
        stacks[name] = stack
    column_heights = {
        name: sum(h for *_, h in stack) + GAP_Y * (len(stack) - 1) for name, stack in stacks.items()
    }
    inner = max(column_heights.values(), default=1.0)
    height = inner + HEADER + 2 * MARGIN
    ceiling, floor = MARGIN + inner, MARGIN
    neighbours: dict[str, set[str]] = {n.id: set() for n in picture.nodes}
    for e in picture.edges:
        neighbours[e.source].add(e.target)
        neighbours[e.target].add(e.source)
    columns: dict[str, float] = {}
    x = MARGIN
    for name in layers:
        columns[name] = x + COLUMN_WIDTH[name] / 2
        x += COLUMN_WIDTH[name] + GAP_X
    boxes: dict[str, Box] = {}
    first = ("hits", "question", "facts", "decision")
    for name in sorted(layers, key=lambda n: first.index(n) if n in first else len(first)):
        stack = stacks[name]
        cx, width = columns[name], COLUMN_WIDTH[name]
        placed = [boxes[o].y for node, *_ in stack for o in neighbours[node.id] if o in boxes]
        if name == "hits" or not placed:
            top = ceiling - (inner - column_heights[name]) / 2
            tops = []
            for *_, h in stack:
                tops.append(top)
                top -= h + GAP_Y
        else:
            wanted = []
            for node, *_, h in stack:
                ys = [boxes[o].y for o in neighbours[node.id] if o in boxes]
                wanted.append((sum(ys) / len(ys) + h / 2) if ys else None)
            bands = _crossing(picture, boxes, cx - width / 2, cx + width / 2)
            tops = _spread(wanted, [h for *_, h in stack], ceiling, floor, bands)
        for (node, title, body, h), t in zip(stack, tops, strict=True):
            boxes[node.id] = Box(cx, t - h / 2, width, h, title, body)
    return Layout(boxes, x - GAP_X + MARGIN, height, columns)


def _crossing(
    picture: EvidencePicture, boxes: dict[str, Box], left: float, right: float
) -> list[tuple[float, float]]:
    """The height bands (low, high) that edges between placed boxes sweep while passing over
    the column between ``left`` and ``right`` (edges are straight, side to side)."""
    bands = []
    for e in picture.edges:
        a, b = boxes.get(e.source), boxes.get(e.target)
        if a is None or b is None:
            continue
        if a.x > b.x:
            a, b = b, a
        x0, x1 = a.x + a.width / 2, b.x - b.width / 2
        if not (x0 < left and right < x1):
            continue
        slope = (b.y - a.y) / (x1 - x0)
        ys = [a.y + slope * (left - x0), a.y + slope * (right - x0)]
        bands.append((min(ys) - GAP_Y / 2, max(ys) + GAP_Y / 2))
    return bands


def _spread(
    wanted: list[float | None],
    heights: list[float],
    ceiling: float,
    floor: float,
    bands: Sequence[tuple[float, float]] = (),
) -> list[float]:
    """Top edges for boxes stacked in the given order, each as near its wanted top as the
    boxes above allow (None: right under the previous one), below any band it would cover,
    and kept between floor and ceiling."""
    tops: list[float] = []
    limit = ceiling
    for want, h in zip(wanted, heights, strict=True):
        top = min(limit, want if want is not None else limit)
        moved = True
        while moved:  # bands are few; each move goes strictly down
            moved = False
            for low, high in bands:
                if top - h < high and low < top:
                    top, moved = low, True
        tops.append(top)
        limit = top - h - GAP_Y
    # pushed below the floor: move the stack up from the bottom, as little as needed
    bottom = floor
    for i in range(len(tops) - 1, -1, -1):
        if tops[i] - heights[i] < bottom:
            tops[i] = bottom + heights[i]
        bottom = tops[i] + GAP_Y
    return tops
