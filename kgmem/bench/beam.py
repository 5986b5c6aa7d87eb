"""The BEAM evidence benchmark (Tavakoli et al., "Beyond a Million Tokens", ICLR 2026).

``kgmem bench beam DIR`` reads BEAM's own layout (`kgmem.ingest.loaders.beam`): DIR is one chat
directory, or a directory of them (``100K/1``, ``100K/2``, ...; numeric names in numeric order).
Every chat is loaded first (a malformed file raises `MalformedInput` naming it, before anything
is written), then each is ingested afresh through `Memory.add_conversation` (an earlier copy
under the same id is forgotten first, so ingest is timed from scratch; ``reuse`` keeps a copy
that holds the same turns and times nothing), and every probing question is searched with
`Memory.search` (the shipped configuration) as an agent would ask it.

Definitions (every figure is a mean in [0, 1] unless named otherwise):

- ``any_at`` / ``all_at`` (k = ``ks``): some / every evidence turn among the top k, over the
  questions that carry evidence ids present in the chat (their number is ``n``); ``mrr``:
  1 / rank of the first evidence turn (0 if none in the top ``max(ks)``).
- ``knowledge_update.updated_first``: the best-ranked ``updated_info`` turn is in the top 20
  and above every ``original_info`` turn (an original turn outside the list counts as below);
  questions whose original and updated ids share a turn are left out (``n`` says how many
  remain).
- ``contradiction.both``: the ``first_statement`` and ``second_statement`` turns are all in the
  top 10; ``both_flagged``: that, and the pair is in ``SearchResult.conflicts``; only questions
  where the two statements are different turns.
- ``instructions`` (instruction and preference following): the share of evidence turns found in
  ``SearchResult.instructions``, and the mean number of instructions per search (over every
  question of the run).
- ``ordering`` (event ordering): ``read_as_ordering``, the share of these questions whose
  search came back in time order (``SearchResult.order == "time"``; null for the cosine row),
  and ``pairwise_in_order``: over the questions with two or more evidence turns in the top
  10, the share of those turns' pairs listed in the order they were said.
- ``abstention``: kgmem abstains when ``SearchResult.answerable`` is False. ``precision`` and
  ``recall`` of abstaining on BEAM's ``abstention`` questions; ``false_abstention``: the share
  of information extraction, multi-session, knowledge update, temporal and event ordering
  questions on which it abstains.
- ``ingest``: turns/s and bytes/s (UTF-8 of the stored text) of `Memory.add_conversation`, per
  chat and over all, and the seconds of each stage (``IngestReport.seconds``);
  ``embedding_seconds``: the part of those seconds spent inside the embedder
  (``IngestReport.embedding_seconds``: every word piece of every turn as passages, and the
  facts' and phrases' vectors), and ``over_embedding``: the ingest's seconds over it, how far
  the ingest is from an embedding-only pass over the same text in the same run. Beside it
  ``embedding_only``: the plain-cosine row's pass, the same turns embedded once, whole (their
  first 256 word pieces), by the same model, in batches.
- ``read_ms``: end-to-end search time per question (query embedding included) p50 / p95, the
  read path alone (``SearchResult.timings_ms["read_path"]``), ``mean``, and ``first``: the
  first question after each ingest (their mean, to set beside ``mean``), which is not in the
  percentiles or the mean.
- the ``cosine`` row: plain cosine over whole turns with the same MiniLM, as a user would
  build it (sentence-transformers ``encode``, normalised, which reads a turn's first 256 word
  pieces), over the same questions; same metrics except abstention, instructions and
  conflicts.

The JSON report has this schema::

    {"schema": "kgmem.bench.beam/1", "git_commit", "dir", "ks": [int],
     "chats": [{"chat", "conversation_id", "file", "turns", "bytes", "sessions", "undated",
                "questions", "missing_evidence": {question id: [beam ids]},
                "ingest": {"seconds", "turns_per_s", "bytes_per_s", "stages": {...},
                           "embedding_seconds"} | null}],
     "counts": {"chats", "turns", "bytes", "questions", "with_evidence",
                "missing_evidence_ids", "by_ability": {ability: {"questions", "with_evidence"}}},
     "other_conversations": int,
     "ingest": {"seconds", "turns_per_s", "bytes_per_s", "embedding_seconds",
                "over_embedding"} | null,
     "embedding_only": {"seconds", "turns_per_s", "bytes_per_s"},
     "rows": [{"name": "kgmem"|"cosine",
               "metrics": {"all"|ability: {"n", "any_at": {"5": x, ...}, "all_at", "mrr"}},
               "knowledge_update": {"n", "updated_first"},
               "contradiction": {"n", "both", "both_flagged"},
               "ordering": {"n", "read_as_ordering", "n_pairs", "pairwise_in_order"},
               "instructions": {"instruction_following"|"preference_following":
                                {"n", "recall"}, "per_search"} | null,
               "abstention": {"n_abstention", "n_other", "tp", "fp", "fn", "precision",
                              "recall", "false_abstention"} | null,
               "read_ms": {"p50", "p95", "read_path_p50", "read_path_p95", "mean",
                           "first"} | null,
               "questions": [{"id", "ability", "evidence_ranks": {turn id: rank | null}}]}]}
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgmem.api import Memory
from kgmem.bench.locomo import git_commit
from kgmem.bench.metrics import all_at_k, any_at_k, mrr, percentile
from kgmem.errors import MalformedInput
from kgmem.ingest.loaders.beam import BeamChat, BeamQuestion, load_beam_chat

__all__ = ["SCHEMA", "chat_dirs", "run_beam_bench", "score_rows"]

SCHEMA = "kgmem.bench.beam/1"
Progress = Callable[[str, int, int], None]
#: the abilities whose questions should be answered: abstaining on them is a false abstention
ANSWERABLE = (
    "information_extraction",
    "multi_session_reasoning",
    "knowledge_update",
    "temporal_reasoning",
    "event_ordering",
)
INSTRUCTION_ABILITIES = ("instruction_following", "preference_following")
UPDATED_WITHIN = 20
BOTH_WITHIN = 10


def chat_dirs(directory: str | Path, chats: Sequence[str] | None = None) -> list[Path]:
    """The chat directories under ``directory`` (itself, if it is one chat), numeric names in
    numeric order, restricted to ``chats`` (names) if given.

    Raises:
        MalformedInput: no chat directory there, or a named chat that is not there.
    """
    root = Path(directory)
    if (root / "probing_questions").is_dir():
        found = [root]
    else:
        found = (
            sorted(
                (p for p in root.iterdir() if p.is_dir() and (p / "probing_questions").is_dir()),
                key=lambda p: (0, int(p.name), "") if p.name.isdigit() else (1, 0, p.name),
            )
            if root.is_dir()
            else []
        )
    if chats:
        wanted = [str(c) for c in chats]
        names = {p.name for p in found}
        lost = [c for c in wanted if c not in names]
        if lost:
            raise MalformedInput(f"no chat directories named {lost}", file=str(root))
        found = [p for p in found if p.name in wanted]
    if not found:
        raise MalformedInput(
            "no BEAM chat directory (one holding probing_questions/) here", file=str(root)
        )
    return found


def _conversation_id(root: Path, chat: Path) -> str:
    """``beam-<size>-<chat>`` (``beam-100K-3``), or ``beam-<chat>`` for a lone chat."""
    parts = [chat.name] if chat == root else [root.name, chat.name]
    return "beam-" + "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", p) for p in parts)


def _rate(turns: int, size: int, seconds: float) -> dict[str, float]:
    return {
        "seconds": round(seconds, 3),
        "turns_per_s": round(turns / seconds, 3) if seconds > 0 else 0.0,
        "bytes_per_s": round(size / seconds, 1) if seconds > 0 else 0.0,
    }


def _ingest(memory: Memory, chat: BeamChat, reuse: bool) -> dict[str, Any] | None:
    """Ingest ``chat`` afresh and time it; None when ``reuse`` finds it stored already."""
    cid = chat.record.conversation_id
    stored = memory.counts(cid).get("turns", 0)
    if reuse and stored == len(chat.record.turns):
        return None
    if stored:
        memory.forget(cid)
    t0 = time.perf_counter()
    report = memory.add_conversation(chat.record)
    seconds = time.perf_counter() - t0
    return _rate(len(chat.record.turns), chat.bytes, seconds) | {
        "stages": report.seconds,
        "embedding_seconds": report.embedding_seconds,
    }


def _search(memory: Memory, chat: BeamChat, k: int) -> dict[str, dict[str, Any]]:
    """Every question of ``chat`` searched once: ranked turn ids and what the row needs."""
    out: dict[str, dict[str, Any]] = {}
    for q in chat.questions:
        t0 = time.perf_counter()
        found = memory.search(q.question, chat.record.conversation_id, k)
        wall = (time.perf_counter() - t0) * 1000
        conflicts = getattr(found, "conflicts", None)
        instructions = getattr(found, "instructions", None)
        out[q.id] = {
            "ranked": [h.turn_id for h in found.hits],
            "ms": wall,
            "read_path_ms": found.timings_ms.get("read_path", 0.0),
            "answerable": found.answerable,
            "order": found.order,
            "conflicts": None if conflicts is None else [_pair(c) for c in conflicts],
            "instructions": None
            if instructions is None
            else [_instruction_turn(i) for i in instructions],
        }
    return out


def _pair(conflict: Any) -> frozenset[str]:
    """The two turn ids of one reported conflict (an object or a dict with ``turn_ids``)."""
    ids = conflict.get("turn_ids") if isinstance(conflict, dict) else conflict.turn_ids
    return frozenset(str(i) for i in ids or ())


def _instruction_turn(item: Any) -> str:
    return str(item.get("turn_id") if isinstance(item, dict) else item.turn_id)


def _cosine(memory: Memory, chat: BeamChat, k: int) -> tuple[dict[str, dict[str, Any]], float]:
    """The plain-cosine row's rankings and the seconds the whole-turn embedding took."""
    model = memory.embedder.model
    turns = chat.record.turns
    t0 = time.perf_counter()
    vectors = np.asarray(
        model.encode(
            [t.text for t in turns],
            batch_size=memory.embedder.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ),
        dtype=np.float32,
    )
    seconds = time.perf_counter() - t0
    asked = np.asarray(
        model.encode(
            [q.question for q in chat.questions],
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ),
        dtype=np.float32,
    )
    ids = [t.id for t in turns]
    out: dict[str, dict[str, Any]] = {}
    for q, vector in zip(chat.questions, asked, strict=True):
        order = np.argsort(-(vectors @ vector), kind="stable")[:k]
        out[q.id] = {"ranked": [ids[i] for i in order]}
    return out, seconds


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _rank(ranked: Sequence[str], ids: Sequence[str]) -> int | None:
    """The best 1-based rank of any of ``ids`` in ``ranked``, None if none is there."""
    ranks = [ranked.index(i) + 1 for i in ids if i in ranked]
    return min(ranks) if ranks else None


def _retrieval(
    questions: Sequence[BeamQuestion], found: dict[str, dict[str, Any]], ks: Sequence[int]
) -> dict[str, Any]:
    groups: dict[str, list[BeamQuestion]] = {"all": []}
    for q in questions:
        if q.evidence:
            groups["all"].append(q)
            groups.setdefault(q.ability, []).append(q)
    metrics: dict[str, Any] = {}
    for name, group in groups.items():
        metrics[name] = {
            "n": len(group),
            "any_at": {
                str(k): _mean([any_at_k(found[q.id]["ranked"], q.evidence, k) for q in group])
                for k in ks
            },
            "all_at": {
                str(k): _mean([all_at_k(found[q.id]["ranked"], q.evidence, k) for q in group])
                for k in ks
            },
            "mrr": _mean([mrr(found[q.id]["ranked"], q.evidence) for q in group]),
        }
    return metrics


def _updated_first(
    questions: Sequence[BeamQuestion], found: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    scores = []
    for q in questions:
        if q.ability != "knowledge_update":
            continue
        original = q.parts.get("original_info", ())
        updated = q.parts.get("updated_info", ())
        if not original or not updated or set(original) & set(updated):
            continue
        ranked = found[q.id]["ranked"]
        best = _rank(ranked, updated)
        first_original = _rank(ranked, original)
        ok = best is not None and best <= UPDATED_WITHIN
        ok = ok and (first_original is None or (best is not None and best < first_original))
        scores.append(float(ok))
    return {"n": len(scores), "updated_first": _mean(scores)}


def _contradiction(
    questions: Sequence[BeamQuestion], found: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    both, flagged = [], []
    for q in questions:
        if q.ability != "contradiction_resolution":
            continue
        first = q.parts.get("first_statement", ())
        second = q.parts.get("second_statement", ())
        if not first or not second or set(first) == set(second):
            continue
        top = set(found[q.id]["ranked"][:BOTH_WITHIN])
        ok = set(first) <= top and set(second) <= top
        both.append(float(ok))
        conflicts = found[q.id].get("conflicts")
        if conflicts is not None:
            paired = any(c & set(first) and c & set(second) for c in conflicts)
            flagged.append(float(ok and paired))
    return {
        "n": len(both),
        "both": _mean(both),
        "both_flagged": _mean(flagged) if flagged or not both else None,
    }


def _instructions(
    questions: Sequence[BeamQuestion], found: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    if any(v.get("instructions") is None for v in found.values()):
        return None
    out: dict[str, Any] = {}
    for ability in INSTRUCTION_ABILITIES:
        shares = [
            len(set(q.evidence) & set(found[q.id]["instructions"])) / len(q.evidence)
            for q in questions
            if q.ability == ability and q.evidence
        ]
        out[ability] = {"n": len(shares), "recall": _mean(shares)}
    out["per_search"] = _mean([float(len(v["instructions"])) for v in found.values()])
    return out


def _ordering(
    questions: Sequence[BeamQuestion],
    found: dict[str, dict[str, Any]],
    positions: dict[str, int],
) -> dict[str, Any]:
    """Event-ordering questions: the share read as ordering questions (hits in time order),
    and how well the evidence turns among the top `BOTH_WITHIN` are in the order they were
    said (pairwise: the share of their pairs in utterance order)."""
    read, pairwise = [], []
    for q in questions:
        if q.ability != "event_ordering" or not q.evidence:
            continue
        entry = found[q.id]
        if "order" in entry:
            read.append(float(entry["order"] == "time"))
        top = [t for t in entry["ranked"][:BOTH_WITHIN] if t in set(q.evidence)]
        pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1 :]]
        if pairs:
            good = sum(positions.get(a, 0) < positions.get(b, 0) for a, b in pairs)
            pairwise.append(good / len(pairs))
    return {
        "n": sum(1 for q in questions if q.ability == "event_ordering" and q.evidence),
        "read_as_ordering": _mean(read) if read else None,
        "n_pairs": len(pairwise),
        "pairwise_in_order": _mean(pairwise),
    }


def _abstention(
    questions: Sequence[BeamQuestion], found: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    if any("answerable" not in v for v in found.values()):
        return None
    positives = [q for q in questions if q.ability == "abstention"]
    others = [q for q in questions if q.ability in ANSWERABLE]
    tp = sum(1 for q in positives if not found[q.id]["answerable"])
    fp = sum(1 for q in others if not found[q.id]["answerable"])
    fn = len(positives) - tp
    return {
        "n_abstention": len(positives),
        "n_other": len(others),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "recall": round(tp / len(positives), 4) if positives else None,
        "false_abstention": round(fp / len(others), 4) if others else None,
    }


def _read_ms(found: dict[str, dict[str, Any]], first: Sequence[str]) -> dict[str, Any] | None:
    rest = [v for qid, v in found.items() if qid not in set(first) and "ms" in v]
    if not rest:
        return None
    wall = [v["ms"] for v in rest]
    path = [v["read_path_ms"] for v in rest]
    return {
        "p50": round(percentile(wall, 50), 1),
        "p95": round(percentile(wall, 95), 1),
        "read_path_p50": round(percentile(path, 50), 1),
        "read_path_p95": round(percentile(path, 95), 1),
        "mean": _mean(wall),
        "first": _mean([found[q]["ms"] for q in first if q in found]),
    }


def score_rows(
    name: str,
    questions: Sequence[BeamQuestion],
    found: dict[str, dict[str, Any]],
    ks: Sequence[int],
    first: Sequence[str] = (),
    positions: dict[str, int] | None = None,
) -> dict[str, Any]:
    """One report row from each question's search outcome (pure; see the module docstring).

    Args:
        name: the row's name.
        questions: every question of the run.
        found: question id -> ``{"ranked": [turn id, ...]}`` plus, for a kgmem row, ``ms``,
            ``read_path_ms``, ``answerable``, ``conflicts`` (list of turn-id sets, or None)
            and ``instructions`` (list of turn ids, or None).
        ks: the cut-offs.
        first: ids of the first question after each ingest (timed apart).
        positions: turn id -> its utterance position (for the ordering figures).
    """
    kgmem_row = any("answerable" in v for v in found.values())
    return {
        "name": name,
        "metrics": _retrieval(questions, found, ks),
        "knowledge_update": _updated_first(questions, found),
        "contradiction": _contradiction(questions, found),
        "ordering": _ordering(questions, found, positions or {}),
        "instructions": _instructions(questions, found) if kgmem_row else None,
        "abstention": _abstention(questions, found) if kgmem_row else None,
        "read_ms": _read_ms(found, first) if kgmem_row else None,
        "questions": _per_question(questions, found),
    }


def _per_question(
    questions: Sequence[BeamQuestion], found: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per question with evidence: its id, ability and each evidence turn's 1-based rank in
    the row's ranking (None when not ranked): what per-chat and leave-one-chat-out figures are
    computed from."""
    out = []
    for q in questions:
        if not q.evidence:
            continue
        ranked = found[q.id]["ranked"]
        out.append(
            {
                "id": q.id,
                "ability": q.ability,
                "evidence_ranks": {e: _rank(ranked, [e]) for e in q.evidence},
            }
        )
    return out


def run_beam_bench(
    memory: Memory,
    directory: str | Path,
    *,
    chats: Sequence[str] | None = None,
    ks: Sequence[int] = (5, 10, 20),
    reuse: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the benchmark over BEAM chats; returns the JSON-ready report of the module docstring.

    Args:
        memory: a connected memory.
        directory: one BEAM chat directory or a directory of them.
        chats: only these chat directory names (``"1"``, ``"4"``).
        ks: cut-offs (each >= 1; ``max(ks)`` hits are asked for, at least 20).
        reuse: keep a stored copy holding the same number of turns instead of ingesting afresh
            (no ingest figures then).
        progress: callback ``(stage, done, total)``.

    Raises:
        MalformedInput: a chat or question file that is missing or malformed (names it), before
            anything is written; or a turn `kgmem.turns.make_turn` refuses.
    """
    root = Path(directory)
    depth = max(max(ks), UPDATED_WITHIN)
    loaded = [load_beam_chat(d, _conversation_id(root, d)) for d in chat_dirs(root, chats)]
    mine = {c.record.conversation_id for c in loaded}
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "git_commit": git_commit(),
        "dir": str(root),
        "ks": list(ks),
        "other_conversations": sum(
            1 for c in memory.conversations() if c["conversation_id"] not in mine
        ),
        "chats": [],
    }
    questions: list[BeamQuestion] = []
    found: dict[str, dict[str, Any]] = {}
    plain: dict[str, dict[str, Any]] = {}
    first: list[str] = []
    ingest_s, embed_s, inside_s = 0.0, 0.0, 0.0
    all_ingested = True
    for chat in loaded:
        ingest = _ingest(memory, chat, reuse)
        all_ingested = all_ingested and ingest is not None
        ingest_s += ingest["seconds"] if ingest else 0.0
        inside_s += ingest["embedding_seconds"] if ingest else 0.0
        if progress:
            progress("ingest", 1, len(loaded))
        found.update(_search(memory, chat, depth))
        if chat.questions:
            first.append(chat.questions[0].id)
        rankings, seconds = _cosine(memory, chat, depth)
        plain.update(rankings)
        embed_s += seconds
        questions.extend(chat.questions)
        report["chats"].append(_chat_entry(root, chat, ingest))
        if progress:
            progress("questions", 1, len(loaded))
    turns = sum(len(c.record.turns) for c in loaded)
    size = sum(c.bytes for c in loaded)
    report["counts"] = _counts(loaded, questions, turns, size)
    report["ingest"] = (
        _rate(turns, size, ingest_s)
        | {
            "embedding_seconds": round(inside_s, 3),
            "over_embedding": round(ingest_s / inside_s, 3) if inside_s > 0 else None,
        }
        if all_ingested
        else None
    )
    report["embedding_only"] = _rate(turns, size, embed_s)
    positions = {t.id: t.index for c in loaded for t in c.record.turns}
    report["rows"] = [
        score_rows("kgmem", questions, found, ks, first, positions),
        score_rows("cosine", questions, plain, ks, positions=positions),
    ]
    return report


def _chat_entry(root: Path, chat: BeamChat, ingest: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "chat": chat.chat_path.parent.name,
        "conversation_id": chat.record.conversation_id,
        "file": str(chat.chat_path),
        "turns": len(chat.record.turns),
        "bytes": chat.bytes,
        "sessions": len(chat.record.sessions),
        "undated": chat.undated,
        "questions": len(chat.questions),
        "missing_evidence": {q.id: list(q.missing) for q in chat.questions if q.missing},
        "ingest": ingest,
    }


def _counts(
    loaded: Sequence[BeamChat], questions: Sequence[BeamQuestion], turns: int, size: int
) -> dict[str, Any]:
    by_ability: dict[str, dict[str, int]] = {}
    for q in questions:
        entry = by_ability.setdefault(q.ability, {"questions": 0, "with_evidence": 0})
        entry["questions"] += 1
        entry["with_evidence"] += int(bool(q.evidence))
    return {
        "chats": len(loaded),
        "turns": turns,
        "bytes": size,
        "questions": len(questions),
        "with_evidence": sum(1 for q in questions if q.evidence),
        "missing_evidence_ids": sum(len(q.missing) for q in questions),
        "by_ability": by_ability,
    }
