"""Answerability evaluation: precision and recall of ``answerable = False`` on LoCoMo.

LoCoMo's category 5 (adversarial) questions have no answer in the conversation (Maharana et
al., ACL 2024); categories 1-4 have one. A positive is a question the read path marks
``answerable = False``; it is right on category 5 and wrong on 1-4. Each question contributes
the rules' features (`kgmem.retrieve.answerable.unanswerable`: ``best_own``, ``best_other``,
``asked``, ``in_memory``; `kgmem.retrieve.answerable.decide`: ``speaker_gap``, ``holder_gap``),
so the four constants (``margin``, ``own_share``, ``alone``, ``with_facts``) can be re-chosen
without searching again.

`calibrate` reports three things:

- ``shipped``: the shipped constants (`SWAP_MARGIN`, `MAX_OWN_SHARE`, `SPEAKER_GAP_ALONE`,
  `HOLDER_GAP_WITH_FACTS`) on all conversations;
- ``in_sample``: the grid point chosen on all conversations, scored on them;
- ``loco``: for each conversation, the grid point chosen on the *other* conversations, scored on
  it; the folds' counts are pooled (leave-one-conversation-out, the project's tuning rule).

``model`` does the same over `MODEL_GRID`: the rules as shipped, the trained decision's rescue
and abstain thresholds (`kgmem.retrieve.answerable_model`) chosen in and out of sample.

The choice rule: the highest recall among grid points whose precision on the conversations
they are chosen on is at least `CHOICE_PRECISION`, ties to the higher precision; when no point
reaches it, the highest F1. `CHOICE_PRECISION` lies above the goal, `TARGET_PRECISION`: a rule
chosen right at the goal lost 0.05 of precision on the held-out conversation of the dev split
(0.80 in sample, 0.75 held out); with a choice margin of 0.08 the held-out precision stays above
the goal (0.86 at recall 0.55; docs/attributes.md, "Answerability").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import product
from typing import Any

from kgmem.api import Memory
from kgmem.bench.stats import ratio_interval
from kgmem.models import QuestionRecord
from kgmem.retrieve.answerable import (
    HOLDER_GAP_WITH_FACTS,
    MAX_OWN_SHARE,
    SPEAKER_GAP_ALONE,
    SWAP_MARGIN,
    decide,
    unanswerable,
)
from kgmem.retrieve.answerable_model import ABSTAIN, RESCUE, combine
from kgmem.retrieve.config import EngineConfig

__all__ = [
    "CHOICE_PRECISION",
    "GRID",
    "MODEL_GRID",
    "SHIPPED",
    "TARGET_PRECISION",
    "Item",
    "Rule",
    "calibrate",
    "question_answerability",
    "score",
]

TARGET_PRECISION = 0.8
"""The goal for ``answerable = False`` on LoCoMo category 5: precision >= 0.8 (at recall >= 0.5)."""
CHOICE_PRECISION = 0.88
"""The precision a rule must reach where it is chosen (see the module docstring)."""


@dataclass(frozen=True)
class Rule:
    """The four constants of the answerability decision (`kgmem.retrieve.answerable`):
    the fact rule's ``margin`` and ``own_share``; the speaker gap's ``alone`` threshold and
    the holder gap's ``with_facts`` threshold (None: that part off / no condition); and the
    trained decision's ``rescue`` / ``abstain`` thresholds (`kgmem.retrieve.answerable_model`).
    """

    margin: int = SWAP_MARGIN
    own_share: float = MAX_OWN_SHARE
    alone: float | None = SPEAKER_GAP_ALONE
    with_facts: float | None = HOLDER_GAP_WITH_FACTS
    rescue: float | None = RESCUE
    abstain: float | None = ABSTAIN


SHIPPED = Rule()
GRID: tuple[Rule, ...] = tuple(
    Rule(margin, share, alone, with_facts)
    for margin, share, alone, with_facts in product(
        (1, 2, 3),
        (0.0, 0.25, 0.34, 0.5, 0.67, 1.0),
        (0.2, 0.25, 0.3, 0.35, 0.4, 0.5, None),
        (None, -0.15, -0.1, -0.05, 0.0, 0.05),
    )
)
"""Rules searched by `calibrate` (756 points)."""
MODEL_GRID: tuple[Rule, ...] = tuple(
    replace(SHIPPED, rescue=rescue, abstain=abstain)
    for rescue, abstain in product((None, 0.8, 0.9, 0.95, 0.98), (None, 0.02, 0.05, 0.1, 0.2, 0.3))
)
"""The trained decision's thresholds searched by `calibrate`'s ``model`` part, the rules'
constants as shipped (30 points)."""


@dataclass(frozen=True)
class Item:
    """One question's answerability features.

    Attributes:
        conversation: the conversation id (the LOCO fold).
        adversarial: True for LoCoMo category 5.
        features: ``best_own``, ``best_other``, ``asked``, ``in_memory``, ``speaker_gap``,
            ``holder_gap`` (an engine ``SearchResult.answerability`` dict; without ``asked``
            the fact rule says answerable, a missing gap plays no part).
    """

    conversation: str
    adversarial: bool
    features: Mapping[str, Any]

    def flagged(self, rule: Rule = SHIPPED) -> bool:
        """Whether ``rule`` says ``answerable = False``."""
        f = self.features
        facts = "asked" in f and unanswerable(
            int(f["best_own"]),
            int(f["best_other"]),
            int(f["asked"]),
            bool(f["in_memory"]),
            margin=rule.margin,
            own_share=rule.own_share,
        )
        gap, held = f.get("speaker_gap"), f.get("holder_gap")
        flagged = decide(
            facts,
            float(gap) if gap is not None else None,
            float(held) if held is not None else None,
            in_memory=bool(f.get("in_memory", True)),
            alone=rule.alone,
            with_facts=rule.with_facts,
        )
        trained = f.get("trained")
        return not combine(
            not flagged,
            float(trained) if trained is not None else None,
            rule.rescue,
            rule.abstain,
        )


def score(items: Iterable[Item], rule: Rule = SHIPPED) -> dict[str, Any]:
    """Counts and precision/recall/F1 of ``answerable = False`` against category 5.

    Returns:
        ``{"tp", "fp", "fn", "adversarial", "flagged", "precision", "recall", "f1"}``;
        precision is 0.0 when nothing is flagged.
    """
    tp = fp = fn = 0
    for item in items:
        flagged = item.flagged(rule)
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


def _choose(items: Sequence[Item], grid: Sequence[Rule]) -> Rule:
    scored = [(rule, score(items, rule)) for rule in grid]
    ok = [(r, s) for r, s in scored if s["precision"] >= CHOICE_PRECISION and s["tp"]]
    if ok:
        return max(ok, key=lambda rs: (rs[1]["recall"], rs[1]["precision"]))[0]
    return max(scored, key=lambda rs: (rs[1]["f1"], rs[1]["precision"]))[0]


def calibrate(items: Sequence[Item], grid: Sequence[Rule] = GRID) -> dict[str, Any]:
    """Shipped, in-sample and leave-one-conversation-out scores (module docstring).

    Returns:
        ``{"shipped": {"margin", "own_share", "alone", "with_facts", "rescue", "abstain",
        **score}, "in_sample": {...}, "loco": {"folds": {conversation: {<rule>, **score}},
        **pooled score}}``, and with `GRID` and items carrying the trained decision's score,
        ``"model": {"in_sample", "loco"}``: the same over `MODEL_GRID`.
    """
    report: dict[str, Any] = {"shipped": {**asdict(SHIPPED), **score(items, SHIPPED)}}
    best = _choose(items, grid)
    report["in_sample"] = {**asdict(best), **score(items, best)}
    folds: dict[str, Any] = {}
    tp = fp = fn = 0
    conversations = sorted({i.conversation for i in items})
    for held in conversations if len(conversations) > 1 else ():
        train = [i for i in items if i.conversation != held]
        test = [i for i in items if i.conversation == held]
        rule = _choose(train, grid)
        fold = score(test, rule)
        folds[held] = {**asdict(rule), **fold}
        tp, fp, fn = tp + fold["tp"], fp + fold["fp"], fn + fold["fn"]
    report["loco"] = {"folds": folds, **_rates(tp, fp, fn)}
    if grid is GRID and any(i.features.get("trained") is not None for i in items):
        model = calibrate(items, MODEL_GRID)
        report["model"] = {"in_sample": model["in_sample"], "loco": model["loco"]}
    return report


def question_answerability(
    memory: Memory,
    config: EngineConfig,
    questions: Sequence[QuestionRecord],
    features: dict[str, dict[str, Any]],
    k: int,
    scored_categories: Sequence[int] = (1, 2, 3, 4),
) -> dict[str, Any]:
    """LoCoMo's ``answerable = False`` against category 5 (`calibrate`), with the
    shipped configuration ``config``; adversarial questions, and the others when no ranked row
    was the shipped configuration, are searched here."""
    engine = memory.engine(config)
    items: list[Item] = []
    for q in questions:
        if q.category == 5 or (q.category in scored_categories and q.id not in features):
            found = engine.search(q.question, q.conversation_id, k)
            features[q.id] = found.answerability
        if q.id in features:
            items.append(Item(q.conversation_id, q.category == 5, features[q.id]))
    report = calibrate(items)
    flagged = [float(i.flagged()) for i in items]
    right = [float(i.flagged() and i.adversarial) for i in items]
    adversarial = [float(i.adversarial) for i in items]
    if items:  # precision and recall of the shipped rule, questions resampled
        report["shipped"]["precision_ci"] = ratio_interval(right, flagged)
        report["shipped"]["recall_ci"] = ratio_interval(right, adversarial)
    return report
