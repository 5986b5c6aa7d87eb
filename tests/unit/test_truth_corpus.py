"""The truth corpus: rows valid, no sentence shared with a behaviour case, test split frozen."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgmem.truth.corpus import (
    LABELS,
    CorpusError,
    case_shingles,
    read_corpus,
    read_rows,
    read_splits,
    shingles,
)
from kgmem.truth.weights import CORPUS_DIR

ROOT = Path(__file__).resolve().parents[2]


def _cases_files() -> list[Path]:
    out = []
    for path in sorted((ROOT / "tests" / "data").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and str(doc.get("schema", "")).startswith("cases/"):
            out.append(path)
    return out


def test_the_guard_reads_all_three_cases_files() -> None:
    names = {p.name for p in _cases_files()}
    assert {"agent-chats.json", "truth-and-safety.json", "public-reports.json"} <= names


def test_no_corpus_sentence_shares_six_words_with_a_case() -> None:
    # read_corpus applies the guard built from every cases file; a shared run raises
    rows = read_corpus(CORPUS_DIR)
    assert sum(len(part) for part in rows.values()) >= 3000


def test_every_decision_and_class_is_covered() -> None:
    rows = read_corpus(CORPUS_DIR)
    everything = [r for part in rows.values() for r in part]
    for decision, labels in LABELS.items():
        mine = [r for r in everything if r.decision == decision]
        assert len(mine) >= 500
        for label in labels:
            assert sum(r.label == label for r in mine) >= 40, (decision, label)
    test = [r for r in rows["test"] if r.decision]
    for decision in LABELS:
        assert sum(r.decision == decision for r in test) >= 300


def test_splits_are_writer_disjoint_and_test_is_frozen() -> None:
    splits = read_splits(CORPUS_DIR)
    assert not set(splits["test"]) & (set(splits["train"]) | set(splits["dev"]))


def test_a_changed_test_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "truth"
    shutil.copytree(CORPUS_DIR, copy)
    test_writer = read_splits(CORPUS_DIR)["test"][0]
    path = copy / "writers" / f"{test_writer}.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=f"{test_writer}.jsonl"):
        read_splits(copy)


def test_a_bad_row_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "wx.jsonl"
    good = (CORPUS_DIR / "writers" / "w1.jsonl").read_text(encoding="utf-8").splitlines()[0]
    bad = json.loads(good)
    bad["label"] = "nonsense"
    path.write_text(good + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"wx.jsonl:2"):
        read_rows(path)


def test_a_copied_case_sentence_is_refused(tmp_path: Path) -> None:
    guard = case_shingles(_cases_files())
    doc = json.loads(_cases_files()[0].read_text(encoding="utf-8"))
    text = next(
        t["text"]
        for case in doc["cases"]
        for s in case.get("conversation", {}).get("sessions", [])
        for t in s["turns"]
        if shingles(t["text"])
    )
    row = json.loads(
        (CORPUS_DIR / "writers" / "w1.jsonl").read_text(encoding="utf-8").splitlines()[0]
    )
    row["new"]["text"] = text
    path = tmp_path / "wy.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"six words|6 words"):
        read_rows(path, guard)


def test_train_truth_names_the_bad_row(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kgmem.cli import main

    copy = tmp_path / "truth"
    shutil.copytree(CORPUS_DIR, copy)
    writer = read_splits(CORPUS_DIR)["train"][0]
    path = copy / "writers" / f"{writer}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    del row["label"]
    lines[2] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "weights"
    result = CliRunner().invoke(main, ["train", "truth", "--corpus", str(copy), "--out", str(out)])
    assert result.exit_code == 1
    assert f"{writer}.jsonl:3" in result.output
    assert not out.exists()  # nothing written
