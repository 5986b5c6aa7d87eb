"""LoCoMo answered by a reader the user has: the citation-locked reader over each question's top
hits, scored with LoCoMo's token F1 and exact match (`kgmem.bench.answers`).

Each question is answered as `kgmem.reader.ask` answers it (`kgmem.reader.answer_result`):
an abstention without a model call when the search found it unanswerable, else the model's
answer with its citations checked against the turns it was shown. The scored text is the answer
without its bracketed citations; an abstention is scored as the text ``not in memory``.

Never run in CI: it needs a model endpoint (any OpenAI-compatible ``/chat/completions``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kgmem.bench.answers import strip_citations
from kgmem.bench.metrics import percentile
from kgmem.bench.per_question import answer_scores, answer_summary
from kgmem.reader import Reader, ReaderAnswer, answer_result

if TYPE_CHECKING:
    from kgmem.bench.gold import Corrections
    from kgmem.models import QuestionRecord
    from kgmem.retrieve.retriever import SearchResult

__all__ = ["read_answers"]


def read_answers(
    reader: Reader,
    items: Sequence[tuple[QuestionRecord, SearchResult]],
    *,
    corrections: Corrections | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Answer every question from its search result's hits and score the answers.

    Args:
        reader: the reader (its endpoint and model).
        items: ``(question, search result cut to the hits the reader may see)`` pairs.
        corrections: audited gold (`kgmem.bench.gold`): adds ``corrected`` scores.
        progress: callback ``(stage, done, total)``.

    Returns:
        ``{"model", "scores": {"all"|"1".."4": {"n", "f1", "f1_ci", "em", "em_ci"}},
        "corrected": {...} (with ``corrections``), "answered": int, "abstained": int,
        "cited_gold": share of answered questions with gold evidence whose citations include
        a gold turn, "cited_gold_n": those questions, "tokens_in" / "tokens_out": totals
        reported by the endpoint, "latency_ms": {"p50", "p95"} of the model calls,
        "questions": [{"id", "category", "answer", "abstained", "reason", "citations",
        "cited_gold", "scores": {"reader": {"f1", "em"}}}]}``.

    Raises:
        ReaderError: the endpoint failed.
    """
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    tokens_in = tokens_out = 0
    for question, result in items:
        answer = answer_result(reader, result, question.conversation_id)
        rows.append(_question_row(question, answer, corrections))
        if answer.raw:
            latencies.append(answer.latency_ms)
        tokens_in += answer.tokens_in or 0
        tokens_out += answer.tokens_out or 0
        if progress:
            progress("reader", 1, len(items))
    cited = [r["cited_gold"] for r in rows if r["cited_gold"] is not None]
    report: dict[str, Any] = {
        "model": reader.model,
        "scores": answer_summary(rows, "reader"),
        "answered": sum(not r["abstained"] for r in rows),
        "abstained": sum(r["abstained"] for r in rows),
        "cited_gold": sum(cited) / len(cited) if cited else 0.0,
        "cited_gold_n": len(cited),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "latency_ms": (
            {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)}
            if latencies
            else {}
        ),
    }
    if corrections is not None:
        report["corrected"] = answer_summary(rows, "reader", corrected=True)
    report["questions"] = rows
    return report


def _question_row(
    question: QuestionRecord, answer: ReaderAnswer, corrections: Corrections | None
) -> dict[str, Any]:
    """One question's row of `read_answers`' ``questions``: the answer, its citations and
    scores (``corrected`` ones too where the audit corrected the question)."""
    text = strip_citations(answer.answer)
    row: dict[str, Any] = {
        "id": question.id,
        "category": question.category,
        "answer": answer.answer,
        "abstained": answer.abstained,
        "reason": answer.reason,
        "citations": answer.citations,
        "cited_gold": (
            bool(set(answer.citations) & set(question.evidence))
            if question.evidence and not answer.abstained
            else None
        ),
        "scores": {"reader": answer_scores(text, question.answer, question.category)},
    }
    if corrections is not None and question.id in corrections.evidence:
        fixed = corrections.apply(question)
        row["corrected"] = {}
        if question.id in corrections.answers:
            row["corrected"]["scores"] = {
                "reader": answer_scores(text, fixed.answer, question.category)
            }
    return row
