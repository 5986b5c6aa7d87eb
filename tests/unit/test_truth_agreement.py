"""Second-annotator agreement: the files name real rows with valid labels; the figures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgmem.bench.truth import agreement, cohen_kappa, label_figures
from kgmem.truth.agreement import AGREEMENT_DIR, read_agreement, read_judgements
from kgmem.truth.corpus import LABELS, CorpusError, Row, read_corpus, read_splits
from kgmem.truth.weights import CORPUS_DIR


def _row(writer: str, id_: str, decision: str, label: str) -> Row:
    data = {"writer": writer, "id": id_, "decision": decision, "label": label}
    return Row("corpus.jsonl", 1, data)


ROWS = {
    ("w1", "w1-rel-1"): _row("w1", "w1-rel-1", "relation", "new_value"),
    ("w2", "w2-ans-1"): _row("w2", "w2-ans-1", "answerability", "related"),
}


def test_the_shipped_judgements_name_corpus_rows_with_their_decisions_labels() -> None:
    rows = [row for split in read_corpus(CORPUS_DIR).values() for row in split]
    judged = read_agreement(CORPUS_DIR, rows)
    assert {j.annotator for j in judged} >= {"a1"}
    assert all(j.label in LABELS[j.row.decision] for j in judged)
    # train and dev rows only: the frozen test split is never relabelled
    test_writers = set(read_splits(CORPUS_DIR)["test"])
    assert not {j.row.data["writer"] for j in judged} & test_writers


def test_a_folder_without_annotators_gives_no_judgements(tmp_path: Path) -> None:
    assert read_agreement(tmp_path, list(ROWS.values())) == []
    (tmp_path / AGREEMENT_DIR).mkdir()
    assert read_agreement(tmp_path, list(ROWS.values())) == []


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"writer": "w1", "id": "w1-rel-9", "label": "new_value"}', "no corpus row"),
        ('{"writer": "w1", "id": "w1-rel-1", "label": "answers"}', "not a relation label"),
        ('{"writer": "w1", "label": "new_value"}', "not a judgement"),
        ("not json", "not a judgement"),
    ],
)
def test_a_bad_judgement_is_named_by_file_and_line(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "a9.jsonl"
    good = '{"writer": "w2", "id": "w2-ans-1", "label": "answers"}'
    path.write_text(f"{good}\n\n{line}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=rf"a9\.jsonl:3: .*{says}"):
        read_judgements(path, ROWS)


def test_a_row_judged_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a9.jsonl"
    line = '{"writer": "w2", "id": "w2-ans-1", "label": "answers"}'
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="judged twice"):
        read_judgements(path, ROWS)


def test_cohen_kappa() -> None:
    same = np.array([0, 1, 2, 1])
    assert cohen_kappa(same, same, 3) == 1.0
    # observed 0.5; both say 0 half the time: chance 0.5 -> kappa 0
    assert cohen_kappa(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), 2) == 0.0
    # Cohen's own kind of example: 2x2 table [[20, 5], [10, 15]] -> po 0.7, pe 0.5, kappa 0.4
    gold = np.array([0] * 25 + [1] * 25)
    pred = np.array([0] * 20 + [1] * 5 + [0] * 10 + [1] * 15)
    assert cohen_kappa(gold, pred, 2) == pytest.approx(0.4)
    assert cohen_kappa(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), 2) == 1.0


def test_agreement_figures_per_decision(tmp_path: Path) -> None:
    path = tmp_path / "a9.jsonl"
    path.write_text(
        '{"writer": "w1", "id": "w1-rel-1", "label": "restatement"}\n'
        '{"writer": "w2", "id": "w2-ans-1", "label": "related"}\n',
        encoding="utf-8",
    )
    out = agreement(read_judgements(path, ROWS))
    assert out["answerability"]["accuracy"] == 1.0
    assert out["answerability"]["annotators"] == ["a9"]
    assert out["relation"]["accuracy"] == 0.0
    assert set(out) == {"relation", "answerability"}


def test_label_figures_shape() -> None:
    labels = ("a", "b")
    out = label_figures(labels, np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))
    assert out["n"] == 4 and out["accuracy"] == 0.75
    assert out["per_class"]["b"] == {"n": 2, "precision": 0.6667, "recall": 1.0}
    low, high = out["macro_f1_ci95"]
    assert 0.0 <= low <= out["macro_f1"] <= high <= 1.0
