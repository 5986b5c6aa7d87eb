"""Corrected LoCoMo gold from an audit file (kgmem.bench.gold), on the small fixture file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgmem.bench.gold import is_plain_answer, load_corrections
from kgmem.errors import MalformedInput
from kgmem.ingest.loaders.locomo import load_locomo

DATA = Path(__file__).resolve().parents[1] / "data" / "small_locomo.json"


def _entry(n: int, question: str, error: str, evidence: list[str], answer: str) -> dict[str, Any]:
    return {
        "question_id": f"locomo_0_qa{n}",
        "question": question,
        "golden_answer": "",
        "category": 1,
        "error_type": error,
        "cited_evidence": [],
        "correct_evidence": evidence,
        "reasoning": "",
        "correct_answer": answer,
    }


def _audit(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("error", "answer", "plain"),
    [
        ("WRONG_CITATION", "bowls, cup, pots", True),
        ("TEMPORAL_ERROR", "five months", True),
        ("AMBIGUOUS", "two weeks", False),
        ("HALLUCINATION", "Counseling or mental health", False),
        ("WRONG_CITATION", "December 2022 (answer is correct, citation is wrong)", False),
        ("ATTRIBUTION_ERROR", "Strength. The rest is inferred.", False),
        ("INCOMPLETE", "Roughly 1-2 weeks; one date is vague", False),
        ("WRONG_CITATION", "  ", False),
    ],
)
def test_plain_answers(error: str, answer: str, plain: bool) -> None:
    assert is_plain_answer(error, answer) is plain


def test_corrections_apply_by_file_position_and_question_text(tmp_path: Path) -> None:
    records = load_locomo(DATA)
    [record] = records
    cid = record.conversation_id
    audit = _audit(
        tmp_path,
        [
            _entry(1, "What did Caroline apply to?", "WRONG_CITATION", ["D1:3"], "counseling"),
            _entry(
                0,
                "When did Caroline go to the LGBTQ support group?",
                "AMBIGUOUS",
                ["D1:1; D1:2"],
                "7 May 2023",
            ),
            _entry(5, "A question the file does not have at 5?", "WRONG_CITATION", [], "x"),
            _entry(0, "A different question at 0?", "WRONG_CITATION", [], "x"),
        ],
    )
    fixes = load_corrections(audit, DATA, records)
    assert fixes.evidence == {
        f"{cid}:qa1": (f"{cid}:D1:3",),
        f"{cid}:qa0": (f"{cid}:D1:1", f"{cid}:D1:2"),
    }
    assert fixes.answers == {f"{cid}:qa1": "counseling"}
    assert fixes.answer_left_out == [f"{cid}:qa0"]
    assert fixes.unmatched == ["locomo_0_qa5", "locomo_0_qa0"]
    assert fixes.summary() == {
        "entries": 4,
        "evidence_corrected": 2,
        "answers_corrected": 1,
        "answers_left_out": 1,
        "unmatched": ["locomo_0_qa5", "locomo_0_qa0"],
    }
    q1 = record.questions[1]
    fixed = fixes.apply(q1)
    assert (fixed.evidence, fixed.answer) == ((f"{cid}:D1:3",), "counseling")
    assert fixes.apply(fixed.model_copy(update={"id": "other"})).answer == "counseling"


def test_a_malformed_audit_file_is_a_typed_error(tmp_path: Path) -> None:
    records = load_locomo(DATA)
    with pytest.raises(MalformedInput):
        load_corrections(_audit(tmp_path, {"not": "a list"}), DATA, records)  # type: ignore[arg-type]
    with pytest.raises(MalformedInput):
        load_corrections(_audit(tmp_path, [{"question": "no id"}]), DATA, records)
