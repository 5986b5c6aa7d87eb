"""`TERMS` lists every term `kgmem.retrieve.score.score_candidates` can write into ``Hit.terms``:
its own six (``cosine``, ``fact``, ``stand_in``, ``adjacent``, ``time``, ``date``) and the
generator and resolver signals it adds from ``Candidate.bonus`` (``bm25``, ``entity``,
``event``, ``hop`` from `kgmem.retrieve.generators`; ``speaker`` and ``chain`` from
`kgmem.retrieve.engine`; ``current`` from `kgmem.retrieve.resolve`).
tests/unit/test_audit_terms.py reads those modules' ``terms[...]`` / ``.bonus[...]`` keys and
fails when one is missing here or from the chart's legend, so the chart cannot go stale when the
scorer gains a term.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgmem.audit.labels import shorten

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from kgmem.models import Hit
    from kgmem.retrieve.retriever import SearchResult

__all__ = ["TERMS", "TERM_COLOURS", "format_terms", "hit_label", "plot_terms", "term_names"]

#: every score term, in the order the chart stacks and the picture lists them
TERMS: tuple[str, ...] = (
    "cosine",
    "fact",
    "stand_in",
    "bm25",
    "speaker",
    "current",
    "chain",
    "entity",
    "event",
    "hop",
    "adjacent",
    "exchange",
    "time",
    "date",
)

#: one fixed colour per term (matplotlib tab20 hex values), the same in every chart
TERM_COLOURS: dict[str, str] = dict(
    zip(
        TERMS,
        (
            "#1f77b4",
            "#ff7f0e",
            "#ffbb78",
            "#2ca02c",
            "#d62728",
            "#9467bd",
            "#8c564b",
            "#e377c2",
            "#7f7f7f",
            "#bcbd22",
            "#17becf",
            "#aec7e8",
            "#98df8a",
            "#ff9896",
        ),
        strict=True,
    )
)


def term_names(extra: Iterable[str] = ()) -> list[str]:
    """`TERMS` followed by any other name in ``extra`` (a term this module does not know yet
    still gets drawn and listed, after the known ones)."""
    names = list(TERMS)
    names += [name for name in dict.fromkeys(extra) if name not in TERMS]
    return names


def format_terms(terms: dict[str, float], *, limit: int = 4) -> str:
    """The ``limit`` largest non-zero terms as ``"cosine .41 + fact .52 + …"`` (signed, 2
    decimals, in `TERMS` order); ``"no terms"`` when all are zero."""
    nonzero = [(name, terms[name]) for name in term_names(terms) if terms.get(name)]
    kept = sorted(nonzero, key=lambda item: -abs(item[1]))[:limit]
    order = {name: i for i, (name, _) in enumerate(nonzero)}
    kept.sort(key=lambda item: order[item[0]])
    parts = [f"{name} {value:+.2f}" for name, value in kept]
    if len(nonzero) > limit:
        parts.append(f"{len(nonzero) - limit} more")
    return " ".join(parts) if parts else "no terms"


def hit_label(hit: Hit, width: int = 48) -> str:
    """``"D2:14 Caroline: I went to a support group…"``: the turn's local id, speaker and the
    start of its text, at most ``width`` characters."""
    local = hit.turn_id.split(":", 1)[-1]
    return shorten(f"{local} {hit.speaker}: {' '.join(hit.text.split())}", width)


def plot_terms(result: SearchResult, *, ax: Axes | None = None, k: int | None = None) -> Axes:
    """A stacked horizontal bar per hit: the scorer terms that sum to its score.

    Every term of `TERMS` is in the legend (a term that is zero for all hits is listed with
    "(0)"), so a reader sees what the scorer could have added and did not. Bars are labelled
    with the turn id, speaker and the start of the text (`hit_label`).

    Args:
        result: a search result (each hit's ``terms``; cosine terms lie in [-1, 1]).
        ax: axes to draw on (a new figure when None).
        k: draw only the first ``k`` hits (default: all of ``result.hits``).

    Returns:
        the axes drawn on (best hit at the top).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    hits = result.hits[:k] if k is not None else result.hits
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 0.42 * max(4, len(hits)) + 1.6))
    names = term_names(name for hit in hits for name in hit.terms)
    positions = list(range(len(hits)))[::-1]
    left_pos = [0.0] * len(hits)
    left_neg = [0.0] * len(hits)
    for name in names:
        values = [hit.terms.get(name, 0.0) for hit in hits]
        if not any(values):
            continue
        lefts = [lp if v >= 0 else ln for v, lp, ln in zip(values, left_pos, left_neg, strict=True)]
        ax.barh(positions, values, left=lefts, height=0.7, color=TERM_COLOURS.get(name, "black"))
        for i, v in enumerate(values):
            if v >= 0:
                left_pos[i] += v
            else:
                left_neg[i] += v
    labels = [f"#{rank} {hit_label(hit)}" for rank, hit in enumerate(hits, 1)]
    ax.set_yticks(positions, labels, fontsize=8)
    ax.set_xlabel("score (sum of terms)")
    ax.axvline(0, color="black", lw=0.6)
    used = {name for hit in hits for name, value in hit.terms.items() if value}
    handles = [
        Patch(
            facecolor=TERM_COLOURS.get(name, "black"),
            label=name if name in used else f"{name} (0)",
        )
        for name in names
    ]
    ax.legend(
        handles=handles,
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        title="score terms",
        title_fontsize=8,
    )
    ax.set_title(f"score terms of each hit: {result.query}", fontsize=9, loc="left")
    return ax
