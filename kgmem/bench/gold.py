"""Corrected LoCoMo gold: an audit file's corrected evidence and answers, applied to questions.

The audit file (``audit-errors-*.json``, dial481/locomo-audit ``errors.json`` layout) is a list
of ``{"question_id": "locomo_<i>_qa<n>", "question", "golden_answer", "category",
"error_type", "cited_evidence", "correct_evidence", "reasoning", "correct_answer"}``: ``i``
numbers the samples of the full LoCoMo file from 0 in file order, ``n`` the sample's ``qa``
items from 0 (kgmem's question id ``<sample_id>:qa<n>``).

`load_corrections` reads it against the benchmark file:

- **evidence**: every entry's ``correct_evidence`` (normalised like the released gold,
  `kgmem.ingest.loaders.locomo.normalize_evidence`) replaces the question's gold turns for the
  evidence metrics;
- **answer**: ``correct_answer`` replaces the gold answer for F1/EM only when it is a plain
  value; an entry whose ``error_type`` is ``AMBIGUOUS`` or ``HALLUCINATION``, or whose
  answer carries commentary (parentheses, a second sentence, a ``;``), leaves its question out
  of the corrected answer scores, and is counted (`Corrections.answer_left_out`).

An entry whose question text does not match the file's question at that position is not
applied and is counted as unmatched (a different file, or a different release).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgmem.errors import InputError, MalformedInput
from kgmem.ingest.loaders.locomo import normalize_evidence
from kgmem.models import ConversationRecord, QuestionRecord

__all__ = ["UNPLAIN_ERRORS", "Corrections", "is_plain_answer", "load_corrections"]

UNPLAIN_ERRORS = frozenset({"AMBIGUOUS", "HALLUCINATION"})
"""Audit error types whose corrected answer is a judgement, not a value to score against."""

_AUDIT_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")
_COMMENTARY = re.compile(r"[()\[\];]|\.\s+\S")


def is_plain_answer(error_type: str, answer: str) -> bool:
    """Whether an audited ``answer`` is a plain value (module docstring)."""
    text = answer.strip()
    return bool(text) and error_type not in UNPLAIN_ERRORS and not _COMMENTARY.search(text)


@dataclass
class Corrections:
    """Corrected gold per question id (``<sample_id>:qa<n>``).

    Attributes:
        evidence: question id -> corrected gold turn ids (full ids).
        answers: question id -> corrected plain answer.
        answer_left_out: question ids whose corrected answer is not a plain value (left out of
            corrected F1/EM).
        unmatched: audit ids that name no question of the file or a different question.
        entries: audit entries read.
    """

    evidence: dict[str, tuple[str, ...]] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)
    answer_left_out: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    entries: int = 0

    def apply(self, question: QuestionRecord) -> QuestionRecord:
        """``question`` with its corrected evidence and plain answer (unchanged if not audited)."""
        update: dict[str, Any] = {}
        if question.id in self.evidence:
            update["evidence"] = self.evidence[question.id]
        if question.id in self.answers:
            update["answer"] = self.answers[question.id]
        return question.model_copy(update=update) if update else question

    def summary(self) -> dict[str, Any]:
        """Counts for the report: entries, applied evidence and answers, left out, unmatched."""
        return {
            "entries": self.entries,
            "evidence_corrected": len(self.evidence),
            "answers_corrected": len(self.answers),
            "answers_left_out": len(self.answer_left_out),
            "unmatched": list(self.unmatched),
        }


def _same(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def load_corrections(
    audit: str | Path, locomo_file: str | Path, records: Sequence[ConversationRecord]
) -> Corrections:
    """The corrections of ``audit`` for the questions of ``records``.

    Args:
        audit: the audit file (module docstring).
        locomo_file: the LoCoMo file ``records`` were read from (its sample order numbers the
            audit ids).
        records: the conversations benchmarked (a subset of the file's samples is fine).

    Raises:
        InputError: a file is missing.
        MalformedInput: the audit file is not a list of entries with the fields above.
    """
    try:
        entries = json.loads(Path(audit).read_text(encoding="utf-8"))
        samples = json.loads(Path(locomo_file).read_text(encoding="utf-8-sig"))
    except FileNotFoundError as exc:
        raise InputError("file not found", file=str(exc.filename)) from exc
    except json.JSONDecodeError as exc:
        raise MalformedInput(f"not valid JSON: {exc}", file=str(audit)) from exc
    if not isinstance(entries, list):
        raise MalformedInput("expected a JSON list of audit entries", file=str(audit))
    order = [s.get("sample_id") for s in samples if isinstance(s, dict)]
    questions = {q.id: q for r in records for q in r.questions}
    turns = {r.conversation_id: {t.id.split(":", 1)[1] for t in r.turns} for r in records}
    out = Corrections(entries=len(entries))
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("question_id"), str):
            raise MalformedInput("audit entry without a question_id", file=str(audit))
        match = _AUDIT_ID.match(entry["question_id"])
        sample = int(match.group(1)) if match else -1
        if not match or sample >= len(order):
            out.unmatched.append(entry["question_id"])
            continue
        qid = f"{order[sample]}:qa{match.group(2)}"
        if order[sample] not in turns:  # a conversation not benchmarked this run
            continue
        question = questions.get(qid)
        if question is None or not _same(question.question, str(entry.get("question", ""))):
            out.unmatched.append(entry["question_id"])
            continue
        cid = question.conversation_id
        resolved, _ = normalize_evidence(entry.get("correct_evidence"), turns[cid])
        out.evidence[qid] = tuple(f"{cid}:{t}" for t in resolved)
        answer = str(entry.get("correct_answer", ""))
        if is_plain_answer(str(entry.get("error_type", "")), answer):
            out.answers[qid] = answer
        else:
            out.answer_left_out.append(qid)
    return out
