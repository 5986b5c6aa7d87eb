"""Answerability calibration (`kgmem.bench.answerability`): pure counting, no server."""

from __future__ import annotations

from kgmem.bench.answerability import Item, Rule, calibrate, score
from kgmem.retrieve.answerable import decide, unanswerable

FACTS_ONLY = Rule(1, 0.5, None, None)


def _item(
    conv: str, adversarial: bool, own: int, other: int, asked: int = 2, gap: float | None = None
) -> Item:
    return Item(
        conv,
        adversarial,
        {
            "best_own": own,
            "best_other": other,
            "asked": asked,
            "in_memory": True,
            "speaker_gap": gap,
        },
    )


def test_rule_on_features() -> None:
    assert unanswerable(0, 1, 2, True)  # another person's fact covers more
    assert not unanswerable(1, 1, 2, True)
    assert unanswerable(2, 2, 2, False)  # no key term anywhere
    assert not unanswerable(0, 0, 0, False)  # nothing asked: answerable


def test_score_counts_precision_and_recall() -> None:
    items = [_item("a", True, 0, 2), _item("a", True, 2, 2), _item("a", False, 0, 1)]
    s = score(items, FACTS_ONLY)
    assert (s["tp"], s["fp"], s["fn"]) == (1, 1, 1)
    assert s["precision"] == 0.5 and s["recall"] == 0.5
    assert score([Item("a", True, {})], FACTS_ONLY)["flagged"] == 0  # no features: answerable


def test_speaker_gap_decides_alone_or_conditions_the_fact_rule() -> None:
    assert decide(False, None) is False and decide(True, None) is True  # no gap: facts decide
    assert decide(False, 0.5, alone=0.35) is True  # others' turns match far better
    assert decide(True, -0.5, with_facts=-0.3) is False  # the speaker's own turns match well
    assert decide(True, -0.1, alone=0.35, with_facts=-0.3) is True
    assert decide(False, 9.0, alone=None) is False and decide(True, -9.0, with_facts=None)
    gap_only = _item("a", True, 2, 2, gap=0.4)
    assert not gap_only.flagged(FACTS_ONLY) and gap_only.flagged(Rule(1, 0.5, 0.35, -0.3))


def test_calibrate_reports_shipped_in_sample_and_pooled_loco() -> None:
    items = [
        *(_item(c, True, 0, 2) for c in "abc"),
        *(_item(c, False, 0, 1) for c in "abc"),  # margin 1 flags these, margin 2 does not
        *(_item(c, False, 2, 2) for c in "abc"),
    ]
    report = calibrate(items, [FACTS_ONLY, Rule(2, 0.5, None, None)])
    assert report["shipped"]["margin"] == 1 and report["shipped"]["precision"] == 0.5
    assert report["in_sample"]["margin"] == 2 and report["in_sample"]["precision"] == 1.0
    loco = report["loco"]
    assert set(loco["folds"]) == {"a", "b", "c"}
    assert (loco["tp"], loco["fp"], loco["fn"]) == (3, 0, 0)
