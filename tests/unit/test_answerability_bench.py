"""Answerability calibration (`kgmem.bench.answerability`): pure counting, no server."""

from __future__ import annotations

from kgmem.bench.answerability import Item, Rule, calibrate, score
from kgmem.retrieve.answerable import decide, holder_gap, speaker_person, unanswerable

FACTS_ONLY = Rule(1, 0.5, None, None)


def _item(
    conv: str,
    adversarial: bool,
    own: int,
    other: int,
    asked: int = 2,
    gap: float | None = None,
    held: float | None = None,
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
            "holder_gap": held,
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


def test_speaker_gap_decides_alone_and_the_holder_gap_conditions_the_fact_rule() -> None:
    assert decide(False, None) is False and decide(True, None) is True  # no gap: facts decide
    assert decide(False, 0.5, alone=0.35) is True  # others' turns match far better
    assert decide(False, 0.5, 9.0, alone=None) is False  # neither gap flags on its own
    assert decide(True, -0.5, -0.2, with_facts=0.0) is False  # the person's own facts match best
    assert decide(True, -0.5, 0.1, with_facts=0.0) is True  # someone else holds it better
    assert decide(True, None, None, with_facts=0.0) is True  # no one else's fact: facts decide
    # no key term anywhere in memory: nothing is there to hold, the fact rule stands
    assert decide(True, None, -0.5, in_memory=False, with_facts=0.0) is True
    assert decide(True, 0.0, -9.0, with_facts=None) is True
    gap_only = _item("a", True, 2, 2, gap=0.4)
    assert not gap_only.flagged(FACTS_ONLY) and gap_only.flagged(Rule(1, 0.5, 0.35, 0.0))
    vetoed = _item("a", True, 0, 2, held=-0.1)
    assert vetoed.flagged(FACTS_ONLY) and not vetoed.flagged(Rule(1, 0.5, None, 0.0))


def _row(
    cosine: float, subject: str | None = None, speaker: str | None = None
) -> dict[str, object]:
    return {"conversation_id": "c", "subject": subject, "speaker": speaker, "cosine": cosine}


def test_holder_gap_compares_the_best_facts_of_the_named_and_of_anyone_else() -> None:
    ana, bo = speaker_person("c", "Ana"), speaker_person("c", "Bo")
    rows = [_row(0.8, bo), _row(0.6, ana), _row(0.5, None, "Ana"), _row(0.4)]
    assert holder_gap(rows, {ana}, speaker_person) == 0.2  # Bo's fact is closer by 0.2
    assert holder_gap(rows, {bo}, speaker_person) == -0.2  # Ana's is not closer than Bo's
    # a fact with no person subject is held by the speaker of the turn it cites
    assert holder_gap([_row(0.7, None, "Bo"), _row(0.3, ana)], {ana}, speaker_person) == 0.4
    # a fact the named person said is theirs, whatever its subject ("my twins start school")
    twins = "c:e:person:twins"
    assert holder_gap([_row(0.9, twins, "Ana"), _row(0.5, bo)], {ana}, speaker_person) == -0.4
    # a side holding nothing near the question counts the lowest cosine read
    assert holder_gap([_row(0.9, bo), _row(0.1)], {ana}, speaker_person) == 0.8
    assert holder_gap([_row(0.9, ana), _row(0.2)], {ana}, speaker_person) == -0.7
    assert holder_gap([_row(0.9)], {ana}, speaker_person) is None  # no holder at all
    assert holder_gap([], {ana}, speaker_person) is None


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
