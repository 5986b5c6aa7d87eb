"""The LoCoMo evidence-recall benchmark (Maharana et al., ACL 2024; protocol in docs/design.md §4).

For every question of categories 1-4 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop;
5 adversarial is counted, not scored) the engine retrieves turns and we compute ALL@k, ANY@k,
R@k, MRR, NDCG@k per category and overall, the EXACT and SUPPORTED grades, candidates examined,
and latency: the read path (plan → hits, excluding query embedding) and its Neo4j share, and the
query embedding separately. It ingests whatever is missing first and runs unchanged on any file
of the ``locomo10.json`` layout.

The JSON report (``--json PATH``) has this schema (version 1)::

    {"schema": "kgmem.bench.locomo/1", "git_commit": str|null, "file": str,
     "conversations": [str], "ks": [int], "k_main": int, "fact_sources": str,
     "gold": {"audit", "entries", "evidence_corrected", "answers_corrected",
              "answers_left_out", "unmatched"},          (with an audit file only)
     "other_conversations": int,      (stored on the server besides these; BM25 is index-wide)
     "counts": {"questions": int, "scored": int, "adversarial": int,
                "by_category": {"1": int, ...}, "unresolved_evidence": int,
                "no_evidence": int, "turns": int},
     "ingest": {"<conversation>": {"seconds": {...}, "turns_written": int, ...}},
     "embedding_ms": {"p50": float, "p95": float},
     "coverage": {"gold_turns_cited": {"annotation"|"extracted"|"any": {"all"|"1".."4": x}},
                  "facts_per_turn": {"annotation": x, "extracted": x}, "temporal_dated": x},
     "rows": [{"name": str, "config": {...},
               "metrics": {"all"|"1".."4": {"n", "all_at": {"5": x, ...}, "any_at", "recall_at",
                                            "ndcg_at", "mrr", "candidates", "pool_all",
                                            "latency_p50_ms", "latency_p95_ms",
                                            "ci": {"all_at"|"ndcg_at": {"5": [lo, hi], ...}}}},
               "grades": {"exact_at": {"10": x}, "supported_at": {"10": x}},
               "latency_ms": {"read_path": {"p50", "p95"}, "neo4j": {"p50", "p95"}},
               "answers": {"answer"|"extractive": {"all"|"1".."4": {"n", "f1", "f1_ci",
                                                                     "em", "em_ci"}}},
               "context_cost": [{"k", "tokens", "words", "all_at", "contains_answer"}],
               "corrected": {"metrics": {...}, "answers": {...}},  (with an audit file)
               "vs_shipped": {"shipped", "k", "row_only", "reference_only", "p",
                              "beyond_noise"},     (several rows: McNemar on ALL@k_main)
               "questions": [per-question row]}],  (`kgmem.bench.per_question`)
     "shipped": {row},                (several rows, none of them the shipped configuration:
                                       it, run as the paired tests' reference)
     "cv": {...},                     (with --cv only; see `loco_cv`)
     "answerability": {"shipped"|"in_sample": {"margin", "own_share", "tp", "fp", "fn",
                                               "precision", "recall", "f1", ...},
                       "loco": {"folds": {...}, "precision", "recall", ...}}}
                                      (``answerable = False`` against category 5, shipped config;
                                       see `kgmem.bench.answerability`; ``shipped`` adds
                                       ``precision_ci`` and ``recall_ci``)
     "reader": {...}}                 (with a reader only; `kgmem.bench.reading.read_answers`,
                                       plus the ``row`` and ``k`` it read)

Every figure of a row is computed from its per-question rows. Intervals are bootstrap 95 %
intervals over questions (`kgmem.bench.stats`: fixed seed, 1,000 resamples). Answer scores are
LoCoMo's token F1 and exact match (`kgmem.bench.answers`) of ``SearchResult.answer``'s value
(over the questions that have one) and of the extractive baseline (over every scored question):
floors without a reader, not a reader's score.
All metric values are means in [0, 1]; times are milliseconds unless named seconds.
``candidates`` is the mean pool size (distinct turns the scorer examined) and ``pool_all`` the
share of questions with every gold turn in that pool: the ceiling of ALL@k for that row's
generators, so a change shows whether it moved candidate generation or ranking. The
cosine row's pool is its top ``max(ks)``.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgmem.api import Memory
from kgmem.bench.answerability import question_answerability
from kgmem.bench.answers import answer_value, extractive_answer
from kgmem.bench.coverage import fact_coverage, question_counts
from kgmem.bench.fusion import FUSION_ROW, RRF_DEPTH, RRF_K, FusionRetriever
from kgmem.bench.gold import Corrections, load_corrections
from kgmem.bench.loco_cv import loco_cv
from kgmem.bench.metrics import QuestionScore, normalize_answer, percentile
from kgmem.bench.owner_split import split_threads, threaded_ids, unthread
from kgmem.bench.per_question import (
    answer_scores,
    answer_summary,
    context_curve,
    gold_ranks,
    grades,
    latency,
    paired_test,
    scores_of,
    summary_of,
)
from kgmem.bench.reading import read_answers
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.ingest.report import FactSources
from kgmem.models import ConversationRecord, Hit, QuestionRecord
from kgmem.reader import Reader, format_turns
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.question import read_question
from kgmem.retrieve.retriever import Retriever, SearchResult
from kgmem.retrieve.scope import Scope

__all__ = [
    "SCHEMA",
    "evidence_support",
    "git_commit",
    "run_locomo_bench",
]

SCHEMA = "kgmem.bench.locomo/1"
SCORED_CATEGORIES = (1, 2, 3, 4)
#: hits asked of the linked engine per question: more than any pool, so every candidate returns
POOL_DEPTH = 10_000
#: the name of the shipped configuration's reference row (``shipped`` in the report)
SHIPPED_ROW = "shipped"
Progress = Callable[[str, int, int], None]


def git_commit() -> str | None:
    """The checkout's HEAD commit, or None outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=False,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def evidence_support(memory: Memory, evidence: Sequence[str]) -> set[str]:
    """The gold turns plus every turn that shares a fact with one (one Fact CITES both): the
    turn part of the SUPPORTED grade (the other part is containing the gold answer)."""
    support = set(evidence)
    if support:
        rows = memory.store.read("bench/co_cited_turns", turn_ids=sorted(support))
        support.update(row["turn_id"] for row in rows)
    return support


def _supporting_turns(
    memory: Memory, question: QuestionRecord, normalized: dict[str, str], owner_split: int = 0
) -> set[str]:
    """Turns whose retrieval SUPPORTS the answer: gold turns, turns sharing a fact with a gold
    turn (one Fact CITES both), and turns whose text contains the normalised gold answer."""
    if owner_split > 1:  # the co-cited turns live in the threads: look them up there
        stored = evidence_support(memory, threaded_ids(memory, question.evidence))
        support = {unthread(t) for t in stored}
    else:
        support = evidence_support(memory, question.evidence)
    answer = normalize_answer(question.answer)
    if answer:
        prefix = f"{question.conversation_id}:"
        support.update(
            tid for tid, text in normalized.items() if tid.startswith(prefix) and answer in text
        )
    return support


def run_locomo_bench(
    memory: Memory,
    path: str | Path,
    *,
    conversations: Sequence[str] | None = None,
    ks: Sequence[int] = (5, 10, 20),
    rows: Sequence[tuple[str, EngineConfig]],
    facts: FactSources = "both",
    progress: Progress | None = None,
    cv: bool = False,
    owner_split: int = 0,
    audit: str | Path | None = None,
    reader: Reader | None = None,
) -> dict[str, Any]:
    """Run the benchmark; returns the JSON-ready report described in the module docstring.

    Args:
        memory: a connected memory.
        path: a LoCoMo-layout file.
        conversations: restrict to these sample ids.
        ks: cut-offs (each >= 1).
        rows: named engine configurations, one result row each (ablation order).
        facts: fact sources to ingest (``both`` lets every row choose).
        progress: callback ``(stage, done, total)``.
        cv: add ``cv``, the leave-one-conversation-out choice among ``rows`` (`loco_cv`).
        owner_split: if > 1, store each conversation's sessions as this many threads (in
            order, contiguous) of one owner named after the conversation, and answer every
            question with one owner search (`split_threads`); hits are mapped back to the
            conversation's turn ids before scoring. Answerability is not measured then.
        audit: an audit file of corrected gold (`kgmem.bench.gold`): every row adds
            ``corrected`` figures beside the raw ones.
        reader: answer each question from the top ``k_main`` hits of the shipped row (else
            the first) with this citation-locked reader (`kgmem.bench.reading`).

    Raises:
        InputError / MalformedInput: an unreadable LoCoMo or audit file.
        ReaderError: the reader's endpoint failed.
    """
    records = load_locomo(path, conversations)
    report = _report_head(path, records, ks, facts)
    corrections = load_corrections(audit, path, records) if audit is not None else None
    if corrections is not None:
        report["gold"] = {"audit": str(audit), **corrections.summary()}
    stored = records
    if owner_split > 1:
        stored = [t for r in records for t in split_threads(r, owner_split)]
        report["owner_split"] = owner_split
    _ingest(memory, stored, facts, progress, report)
    questions = [q for r in records for q in r.questions]
    scored = [q for q in questions if q.category in SCORED_CATEGORIES]
    report["counts"] = question_counts(records, questions, scored)
    vectors, report["embedding_ms"] = _embed_questions(memory, scored)
    report["coverage"] = fact_coverage(memory, records, scored) if owner_split <= 1 else {}
    run = _run_for(memory, records, scored, vectors, ks, progress, owner_split, corrections, reader)
    by_row = _run_rows(run, rows, report)
    if cv:
        report["cv"] = loco_cv(by_row, ks)
    if rows and owner_split <= 1:
        report["answerability"] = question_answerability(
            memory, run.shipped, questions, run.features, max(ks), SCORED_CATEGORIES
        )
    if reader is not None and run.kept:
        report["reader"] = read_answers(
            reader,
            [(q, run.kept[q.id]) for q in scored if q.id in run.kept],
            corrections=corrections,
            progress=progress,
        ) | {"row": run.reader_row, "k": run.k_main}
    return report


def _run_for(
    memory: Memory,
    records: Sequence[ConversationRecord],
    scored: Sequence[QuestionRecord],
    vectors: Any,
    ks: Sequence[int],
    progress: Progress | None,
    owner_split: int,
    corrections: Corrections | None,
    reader: Reader | None,
) -> _Run:
    """The run that scores rows over ``scored`` (arguments as in `run_locomo_bench`)."""
    texts = {t.id: t.text for r in records for t in r.turns}
    normalized = {tid: normalize_answer(text) for tid, text in texts.items()}
    return _Run(
        memory=memory,
        scored=scored,
        vectors=vectors,
        ks=tuple(ks),
        support={
            q.id: _supporting_turns(memory, q, normalized, owner_split)
            for q in scored
            if q.evidence
        },
        # answerability is measured with the shipped configuration: a row that IS it lends its
        # features (question id -> SearchResult.answerability); otherwise they are searched anew
        shipped=memory.engine().config,
        progress=progress,
        owner_split=owner_split,
        k_main=main_k(ks),
        normalized=normalized,
        readings=_readings(records, scored),
        tokenizer=memory.embedder.model.tokenizer,
        corrections=corrections,
        keep_hits=reader is not None,
    )


def _report_head(
    path: str | Path, records: Sequence[ConversationRecord], ks: Sequence[int], facts: FactSources
) -> dict[str, Any]:
    """The report's first keys: what was run, on what (see the module docstring)."""
    return {
        "schema": SCHEMA,
        "git_commit": git_commit(),
        "file": str(path),
        "conversations": [r.conversation_id for r in records],
        "ks": list(ks),
        "k_main": main_k(ks),
        "fact_sources": facts,
        "ingest": {},
    }


def _run_rows(
    run: _Run, rows: Sequence[tuple[str, EngineConfig]], report: dict[str, Any]
) -> dict[str, list[QuestionScore]]:
    """Every row's report into ``report["rows"]`` (and the shipped reference row with the
    paired tests); returns each row's per-question scores."""
    report["rows"] = []
    by_row: dict[str, list[QuestionScore]] = {}
    for name, config in rows:
        by_row[name], row = run.row(name, config)
        report["rows"].append(row)
    if run.shipped_name is None and len(rows) > 1:
        # no ablation row is the shipped configuration: run it once as the paired tests'
        # reference, outside the rows the cross-validation chooses among
        _, report["shipped"] = run.row(SHIPPED_ROW, run.shipped, reference=True)
    _paired_tests(report, run.shipped_name or SHIPPED_ROW, run.k_main)
    return by_row


def _readings(
    records: Sequence[ConversationRecord], scored: Sequence[QuestionRecord]
) -> dict[str, dict[str, Any]]:
    """Each question read once with its conversation's speakers (no entity lookup)."""
    speakers = {r.conversation_id: sorted({t.speaker for t in r.turns}) for r in records}
    return {
        q.id: read_question(q.question, speakers=speakers.get(q.conversation_id, ())).as_dict()
        for q in scored
    }


def main_k(ks: Sequence[int]) -> int:
    """The cut-off the report's single-k figures use: 10 if measured, else the middle k."""
    ordered = sorted(ks)
    return 10 if 10 in ordered else ordered[len(ordered) // 2]


def _paired_tests(report: dict[str, Any], shipped_name: str, k: int) -> None:
    """Each row's ``vs_shipped``: McNemar on ALL@k against the shipped configuration's row."""
    rows = report["rows"]
    everything = [*rows, *([report["shipped"]] if "shipped" in report else [])]
    shipped = next((r for r in everything if r["name"] == shipped_name), None)
    if shipped is None or len(rows) < 2:
        return
    for row in rows:
        if row is not shipped:
            row["vs_shipped"] = {
                "shipped": shipped["name"],
                **paired_test(row["questions"], shipped["questions"], k),
            }


def _ingest(
    memory: Memory,
    records: Sequence[ConversationRecord],
    facts: FactSources,
    progress: Progress | None,
    report: dict[str, Any],
) -> None:
    """Ingest ``records`` into ``report["ingest"]``, after counting the other conversations."""
    # BM25 scores carry index-wide statistics (document frequencies, average field length), so
    # other conversations on the same server move boundary turns in and out of the top-k: the
    # report says how many there were (measured: 2 temporal and 1 single-hop question of the
    # dev split changed on a server that also held the test suite's conversations)
    mine = {r.conversation_id for r in records}
    report["other_conversations"] = sum(
        1 for c in memory.conversations() if c["conversation_id"] not in mine
    )
    for record in records:
        result = memory.add_conversation(record, facts=facts)
        report["ingest"][record.conversation_id] = result.as_dict()
        if progress:
            progress("ingest", 1, len(records))


def _embed_questions(
    memory: Memory, scored: Sequence[QuestionRecord]
) -> tuple[dict[str, Any], dict[str, float]]:
    """Every question embedded once, and the single-question embedding time (p50, p95 ms),
    measured one question at a time as an agent would embed it."""
    embed_ms: list[float] = []
    vectors = {}
    for q in scored:
        t0 = time.perf_counter()
        vectors[q.id] = memory.embedder.encode_one(q.question)
        embed_ms.append((time.perf_counter() - t0) * 1000)
    timing = {"p50": percentile(embed_ms, 50), "p95": percentile(embed_ms, 95)} if embed_ms else {}
    return vectors, timing


@dataclass
class _Run:
    """What every row of one benchmark run shares: the scored questions and their vectors,
    the support sets of the SUPPORTED grade, and what the rows collect for answerability."""

    memory: Memory
    scored: Sequence[QuestionRecord]
    vectors: dict[str, Any]
    ks: tuple[int, ...]
    support: dict[str, set[str]]
    shipped: EngineConfig
    progress: Progress | None
    owner_split: int = 0
    k_main: int = 10
    normalized: dict[str, str] = field(default_factory=dict)  # turn id -> normalised text
    # question id -> the question read once (`Question.as_dict`), the same for every row: the
    # extractive baseline's words and value type do not depend on the engine
    readings: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokenizer: Any = None  # the embedder's tokenizer: what the context costs
    corrections: Corrections | None = None
    shipped_name: str | None = None  # the first row with the shipped configuration
    keep_hits: bool = False  # keep one row's top k_main hits for a reader
    reader_row: str | None = None  # the row whose hits were kept
    reader_shipped: bool = False  # ... and whether it is the shipped configuration
    kept: dict[str, SearchResult] = field(default_factory=dict)
    costs: dict[str, tuple[int, int]] = field(default_factory=dict)  # turn id -> tokens, words
    features: dict[str, dict[str, Any]] = field(default_factory=dict)
    rewritten: dict[str, Any] = field(default_factory=dict)  # query text embedded -> vector

    def vector(self, engine: Retriever, q: QuestionRecord) -> Any:
        """The vector of what the engine itself would embed for ``q`` (embedded once)."""
        vector = self.vectors[q.id]
        scope = Scope(owner=q.conversation_id) if self.owner_split > 1 else q.conversation_id
        text = engine.query_text(q.question, scope)
        if text != q.question:
            if text not in self.rewritten:
                self.rewritten[text] = self.memory.embedder.encode_one(text)
            vector = self.rewritten[text]
        return vector

    def row(
        self, name: str, config: EngineConfig, *, reference: bool = False
    ) -> tuple[list[QuestionScore], dict[str, Any]]:
        """Every scored question searched with ``config``: the per-question scores and the
        report row (per-question rows, and the metrics, grades and latency computed from them).
        A ``reference`` row (the shipped configuration run only as the paired tests' reference)
        lends no answerability features."""
        memory, ks = self.memory, self.ks
        engine: Retriever = (
            FusionRetriever(memory.store, memory.embedder, config)
            if name == FUSION_ROW
            else memory.engine(config)
        )
        rows: list[dict[str, Any]] = []
        kmax = max(ks)
        # the linked engine returns its whole ranked pool when asked for enough hits, which
        # gives pool ALL; the cosine baseline's k is its pool, so it keeps max(ks)
        depth = kmax if config.engine == "cosine" else POOL_DEPTH
        # the reader answers from one row: the shipped configuration, else the first row
        shipped_row = config == self.shipped and name != FUSION_ROW
        keep = self.keep_hits and (
            self.reader_row is None or (shipped_row and not self.reader_shipped)
        )
        if keep:
            self.kept = {}
        for q in self.scored:
            if self.owner_split > 1:  # one owner search over the conversation's threads
                found = engine.search(
                    q.question,
                    None,
                    depth,
                    embedding=self.vector(engine, q),
                    owner=q.conversation_id,
                )
                whole = tuple(unthread(h.turn_id) for h in found.hits)
            else:
                found = engine.search(
                    q.question, q.conversation_id, depth, embedding=self.vector(engine, q)
                )
                whole = tuple(h.turn_id for h in found.hits)
            ranked = whole[:kmax]
            rows.append(self.question_row(q, found, ranked, frozenset(whole)))
            if shipped_row and not reference:
                self.features.setdefault(q.id, found.answerability)
            if keep:
                self.kept[q.id] = found.model_copy(update={"hits": found.hits[: self.k_main]})
            if self.progress:
                self.progress(name, 1, len(self.scored))
        if keep:
            self.reader_row, self.reader_shipped = name, shipped_row
        if shipped_row and self.shipped_name is None:
            self.shipped_name = name
        row = _row_report(name, config, ks, rows, corrected=self.corrections is not None)
        return scores_of(rows), row

    def question_row(
        self,
        q: QuestionRecord,
        found: SearchResult,
        ranked: tuple[str, ...],
        pool: frozenset[str],
    ) -> dict[str, Any]:
        """The per-question row (`kgmem.bench.per_question`) of ``q`` answered by ``found``."""
        hits = found.hits[: len(ranked)]
        value = answer_value(found.answer)
        extractive = extractive_answer(self.readings[q.id], hits[: self.k_main])
        support = self.support.get(q.id, set())
        row: dict[str, Any] = {
            "id": q.id,
            "category": q.category,
            "gold_ranks": gold_ranks(ranked, q.evidence),
            "hits": len(ranked),
            "in_pool": bool(q.evidence) and set(q.evidence) <= pool,
            "supported_rank": next(
                (n for n, t in enumerate(ranked, start=1) if t in support), None
            ),
            "candidates": found.candidates,
            "answerable": found.answerable,
            "answer": value,
            "extractive": extractive,
            "scores": self.answer_scores(q.answer, q.category, value, extractive),
            "context": self.context(q, ranked, hits),
            "latency_ms": {
                "read_path": found.timings_ms["read_path"],
                "neo4j": found.timings_ms["neo4j"],
            },
        }
        if self.corrections is not None and q.id in self.corrections.evidence:
            fixed = self.corrections.apply(q)
            row["corrected"] = {
                "gold_ranks": gold_ranks(ranked, fixed.evidence),
                "in_pool": bool(fixed.evidence) and set(fixed.evidence) <= pool,
            }
            if q.id in self.corrections.answers:
                row["corrected"]["scores"] = self.answer_scores(
                    fixed.answer, q.category, value, extractive
                )
        return row

    @staticmethod
    def answer_scores(
        gold: str, category: int, value: str | None, extractive: str
    ) -> dict[str, dict[str, float]]:
        """LoCoMo F1/EM of the answer value (if any) and of the extractive baseline."""
        scores = {"extractive": answer_scores(extractive, gold, category)}
        if value is not None:
            scores["answer"] = answer_scores(value, gold, category)
        return scores

    def context(
        self, q: QuestionRecord, ranked: Sequence[str], hits: Sequence[Hit]
    ) -> dict[str, dict[str, Any]]:
        """Per k: the tokens and words of the top k turns as a reader gets them
        (`kgmem.reader.format_turns` lines) and whether one holds the gold answer string."""
        costs = [self.turn_cost(tid, hit) for tid, hit in zip(ranked, hits, strict=True)]
        answer = normalize_answer(q.answer)
        holds = [bool(answer) and answer in self.normalized.get(tid, "") for tid in ranked]
        return {
            str(k): {
                "tokens": sum(c[0] for c in costs[:k]),
                "words": sum(c[1] for c in costs[:k]),
                "contains_answer": any(holds[:k]),
            }
            for k in self.ks
        }

    def turn_cost(self, turn_id: str, hit: Hit) -> tuple[int, int]:
        """(tokens, words) of one turn's line, counted once per turn."""
        if turn_id not in self.costs:
            line = format_turns([hit])
            tokens = len(self.tokenizer(line, add_special_tokens=False)["input_ids"])
            self.costs[turn_id] = (tokens, len(line.split()))
        return self.costs[turn_id]


def _row_report(
    name: str,
    config: EngineConfig,
    ks: Sequence[int],
    rows: Sequence[dict[str, Any]],
    *,
    corrected: bool = False,
) -> dict[str, Any]:
    """One row of the report, every figure computed from the per-question ``rows``:
    configuration, metrics per category (with intervals), grades, latency, answer-level
    floors, the context-cost curve, and the rows themselves."""
    report: dict[str, Any] = {
        "name": name,
        "config": _config_json(config)
        | ({"fusion": {"rrf_k": RRF_K, "depth": RRF_DEPTH}} if name == FUSION_ROW else {}),
        "metrics": summary_of(rows, ks),
        "grades": grades(rows, ks),
        "latency_ms": latency(rows),
        "answers": {a: answer_summary(rows, a) for a in ("answer", "extractive")},
        "context_cost": context_curve(rows, ks),
    }
    if corrected:
        report["corrected"] = {
            "metrics": summary_of(rows, ks, corrected=True),
            "answers": {
                a: answer_summary(rows, a, corrected=True) for a in ("answer", "extractive")
            },
        }
    report["questions"] = list(rows)
    return report


def _config_json(config: EngineConfig) -> dict[str, Any]:
    data = asdict(config)
    data["generators"] = sorted(config.generators)
    return data
