"""Answerability evaluation: precision and recall of ``answerable = False`` on LoCoMo.

LoCoMo's category 5 (adversarial) questions have no answer in the conversation (Maharana et
al., ACL 2024); categories 1-4 have one. A positive is a question the read path marks
``answerable = False``; it is right on category 5 and wrong on 1-4. Each question contributes
the rule's features (`kgmem.retrieve.answerable.unanswerable`: ``best_own``, ``best_other``,
``asked``, ``in_memory``), so the constants can be re-chosen without searching again.

`calibrate` reports three things:

- ``shipped``: the shipped constants (`SWAP_MARGIN`, `MAX_OWN_SHARE`) on all conversations;
- ``in_sample``: the grid point chosen on all conversations, scored on them;
- ``loco``: for each conversation, the grid point chosen on the *other* conversations, scored on
  it; the folds' counts are pooled (leave-one-conversation-out, the project's tuning rule).

The choice rule: the highest recall among grid points whose precision is at least
`TARGET_PRECISION` (the issue-11 goal), ties to the higher precision; when no point reaches
it, the highest F1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgmem.retrieve.answerable import MAX_OWN_SHARE, SWAP_MARGIN, unanswerable

__all__ = ["GRID", "TARGET_PRECISION", "Item", "calibrate", "score"]

TARGET_PRECISION = 0.8
"""Issue 11: precision of ``answerable = False`` >= 0.8 (at recall >= 0.5)."""
GRID: tuple[tuple[int, float], ...] = tuple(
    (margin, share) for margin in (1, 2, 3) for share in (0.0, 0.25, 0.34, 0.5, 0.67, 1.0)
)
"""``(margin, own_share)`` points searched by `calibrate`."""


@dataclass(frozen=True)
class Item:
    """One question's answerability features.

    Attributes:
        conversation: the conversation id (the LOCO fold).
        adversarial: True for LoCoMo category 5.
        features: ``best_own``, ``best_other``, ``asked``, ``in_memory`` (an engine
            ``SearchResult.answerability`` dict; a missing key counts as answerable).
    """

    conversation: str
    adversarial: bool
    features: Mapping[str, Any]

    def flagged(self, margin: int, own_share: float) -> bool:
        """Whether the rule with these constants says ``answerable = False``."""
        f = self.features
        if "asked" not in f:
            return False
        return unanswerable(
            int(f["best_own"]),
            int(f["best_other"]),
            int(f["asked"]),
            bool(f["in_memory"]),
            margin=margin,
            own_share=own_share,
        )


def score(items: Iterable[Item], margin: int, own_share: float) -> dict[str, Any]:
    """Counts and precision/recall/F1 of ``answerable = False`` against category 5.

    Returns:
        ``{"tp", "fp", "fn", "adversarial", "flagged", "precision", "recall", "f1"}``;
        precision is 0.0 when nothing is flagged.
    """
    tp = fp = fn = 0
    for item in items:
        flagged = item.flagged(margin, own_share)
        tp += flagged and item.adversarial
        fp += flagged and not item.adversarial
        fn += (not flagged) and item.adversarial
    return _rates(tp, fp, fn)


def _rates(tp: int, fp: int, fn: int) -> dict[str, Any]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "adversarial": tp + fn,
        "flagged": tp + fp,
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
    }


def _choose(items: Sequence[Item], grid: Sequence[tuple[int, float]]) -> tuple[int, float]:
    scored = [(point, score(items, *point)) for point in grid]
    ok = [(p, s) for p, s in scored if s["precision"] >= TARGET_PRECISION and s["tp"]]
    if ok:
        return max(ok, key=lambda ps: (ps[1]["recall"], ps[1]["precision"]))[0]
    return max(scored, key=lambda ps: (ps[1]["f1"], ps[1]["precision"]))[0]


def calibrate(items: Sequence[Item], grid: Sequence[tuple[int, float]] = GRID) -> dict[str, Any]:
    """Shipped, in-sample and leave-one-conversation-out scores (module docstring).

    Returns:
        ``{"shipped": {"margin", "own_share", **score}, "in_sample": {...},
        "loco": {"folds": {conversation: {"margin", "own_share", **score}}, **pooled score}}``.
    """
    shipped = {"margin": SWAP_MARGIN, "own_share": MAX_OWN_SHARE}
    report: dict[str, Any] = {"shipped": {**shipped, **score(items, SWAP_MARGIN, MAX_OWN_SHARE)}}
    margin, share = _choose(items, grid)
    report["in_sample"] = {"margin": margin, "own_share": share, **score(items, margin, share)}
    folds: dict[str, Any] = {}
    tp = fp = fn = 0
    conversations = sorted({i.conversation for i in items})
    for held in conversations if len(conversations) > 1 else ():
        train = [i for i in items if i.conversation != held]
        test = [i for i in items if i.conversation == held]
        margin, share = _choose(train, grid)
        fold = score(test, margin, share)
        folds[held] = {"margin": margin, "own_share": share, **fold}
        tp, fp, fn = tp + fold["tp"], fp + fold["fp"], fn + fold["fn"]
    report["loco"] = {"folds": folds, **_rates(tp, fp, fn)}
    return report
