"""Leave-one-conversation-out selection (kgmem.bench.loco_cv.loco_cv) on hand-made scores."""

from __future__ import annotations

from kgmem.bench.loco_cv import loco_cv
from kgmem.bench.metrics import QuestionScore


def _q(conv: str, n: int, hit: bool) -> QuestionScore:
    gold = (f"{conv}:D1:{n}",)
    ranked = gold if hit else (f"{conv}:D9:9",)
    return QuestionScore(question_id=f"{conv}:qa{n}", category=4, ranked=ranked, gold=gold)


def test_each_fold_chooses_on_the_other_conversations() -> None:
    # row "a" is perfect on c1 and c2 and useless on c3; row "b" is perfect on c3 only
    by_row = {
        "a": [_q("c1", 0, True), _q("c2", 0, True), _q("c3", 0, False), _q("c3", 1, False)],
        "b": [_q("c1", 0, False), _q("c2", 0, False), _q("c3", 0, True), _q("c3", 1, True)],
    }
    cv = loco_cv(by_row, (10,))
    assert cv["criterion"] == "recall@10"
    folds = {f["held_out"]: (f["chosen"], f["train"], f["test"]) for f in cv["folds"]}
    # holding out c1: a = 1/3 (c2 hit, two c3 misses), b = 2/3 -> b, which misses c1
    assert folds["c1"] == ("b", 2 / 3, 0.0)
    assert folds["c2"] == ("b", 2 / 3, 0.0)
    # holding out c3: a = 1.0 on c1 and c2 -> a, which misses both c3 questions
    assert folds["c3"] == ("a", 1.0, 0.0)
    assert cv["cv"]["all"]["recall_at"]["10"] == 0.0  # picking on the others never transfers
    # in sample, b (2 of 4) ties a (2 of 4): the earlier row wins
    assert cv["in_sample"]["chosen"] == "a"
    assert cv["in_sample"]["metrics"]["all"]["recall_at"]["10"] == 0.5


def test_one_conversation_cannot_be_cross_validated() -> None:
    assert "skipped" in loco_cv({"a": [_q("c1", 0, True)]}, (5, 10))
    assert "skipped" in loco_cv({}, (10,))
