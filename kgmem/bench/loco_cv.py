"""Leave-one-conversation-out cross-validation of the choice among benchmark rows (the
``cv`` section of `kgmem.bench.locomo`'s report)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgmem.bench.metrics import QuestionScore, summarize
from kgmem.bench.per_question import intervals

__all__ = ["loco_cv"]


def _conversation(question_id: str) -> str:
    return question_id.rsplit(":", 1)[0]


def _criterion(scores: Sequence[QuestionScore], k: int) -> float:
    """Mean R@k over the questions with gold evidence (the selection criterion of `loco_cv`)."""
    return summarize([s for s in scores if s.gold], (k,))["all"].recall_at[k]


def loco_cv(by_row: dict[str, list[QuestionScore]], ks: Sequence[int]) -> dict[str, Any]:
    """Leave-one-conversation-out cross-validation of the choice among ``by_row``'s rows.

    For each conversation in turn, the row with the best mean R@k (k = 10 if measured, else the
    largest k; ties go to the earlier row) on the *other* conversations is chosen and scored on
    the held-out one. The held-out questions of all folds together give the cross-validated
    figure; the in-sample figure is the best row chosen and scored on every conversation. Their
    gap is the optimism of picking a configuration on the data it is measured on.

    Args:
        by_row: ``{row name: per-question scores}``, every row over the same questions.
        ks: the measured cut-offs.

    Returns:
        ``{"criterion": "recall@10", "folds": [{"held_out", "chosen", "train", "test"}],
        "cv": {"all"|"1".."4": metrics}, "in_sample": {"chosen", "metrics"}}`` (metric dicts as
        in the rows' ``metrics``; the cross-validated ones with their intervals), or
        ``{"skipped": reason}`` with fewer than two conversations.
    """
    k = 10 if 10 in ks else max(ks)
    names = list(by_row)
    if not names:
        return {"skipped": "no rows"}
    conversations = sorted({_conversation(s.question_id) for s in by_row[names[0]]})
    if len(conversations) < 2:
        return {"skipped": "cross-validation needs at least two conversations"}
    folds: list[dict[str, Any]] = []
    held_out: list[QuestionScore] = []
    for conv in conversations:
        train = {
            n: _criterion([s for s in by_row[n] if _conversation(s.question_id) != conv], k)
            for n in names
        }
        chosen = max(names, key=lambda n: (train[n], -names.index(n)))
        test = [s for s in by_row[chosen] if _conversation(s.question_id) == conv]
        held_out.extend(test)
        fold = {"held_out": conv, "chosen": chosen, "train": train[chosen]}
        folds.append({**fold, "test": _criterion(test, k)})
    overall = {n: _criterion(by_row[n], k) for n in names}
    best = max(names, key=lambda n: (overall[n], -names.index(n)))
    return {
        "criterion": f"recall@{k}",
        "folds": folds,
        "cv": {
            key: v.to_dict() | {"ci": intervals(held_out, ks, key)}
            for key, v in summarize(held_out, ks).items()
        },
        "in_sample": {
            "chosen": best,
            "metrics": {key: v.to_dict() for key, v in summarize(by_row[best], ks).items()},
        },
    }
