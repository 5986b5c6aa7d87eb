"""The truth corpus: schema, validation and the overlap guard against the behaviour cases.

One JSON object per line in ``corpus/truth/writers/<writer>.jsonl``. Every row has ``id``
(unique within its writer), ``writer``, ``decision``, ``label`` and ``domain``; the rest depends on
the decision (see ``corpus/truth/CARD.md``):

- ``relation``: ``stored`` and ``new`` turns (``{"speaker", "text"}``), optional ``between``
  (turns said in between); label in `RELATION_LABELS`.
- ``request``: ``turns`` (1-4, the last one the user's, the one classified); ``target`` (a span of
  one of the turns, or null for ``none``), ``replacement`` (a span of the last turn, for
  ``forget_replace`` only); label in `REQUEST_LABELS`.
- ``answerability``: ``question`` and ``fact`` turns, optional ``context`` turns; label in
  `ANSWER_LABELS`.
- ``attribution``: ``turns`` (1-4) and ``clause`` (a span of the last turn); label in
  `ATTRIBUTION_LABELS`.

This module depends on the standard library only, so a writer can run it with any Python 3.11:
``python3 kgmem/truth/corpus.py corpus/truth/writers/w1.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RELATION_LABELS = (
    "new_value",
    "additional_value",
    "restatement",
    "correction",
    "retraction",
    "conflict",
    "unrelated",
)
REQUEST_LABELS = ("forget", "dont_keep", "forget_replace", "instruction", "preference", "none")
ANSWER_LABELS = ("answers", "related", "unrelated")
ATTRIBUTION_LABELS = ("own", "suggestion", "third_party", "hypothetical")
LABELS: dict[str, tuple[str, ...]] = {
    "relation": RELATION_LABELS,
    "request": REQUEST_LABELS,
    "answerability": ANSWER_LABELS,
    "attribution": ATTRIBUTION_LABELS,
}
SHINGLE = 6
"""Words in a row that a corpus sentence may not share with a behaviour case's turn."""
MAX_TEXT = 2000
"""Characters of one turn in the corpus (contexts are short by design)."""


class CorpusError(ValueError):
    """A corpus row that breaks the schema; names the file and line."""


@dataclass(frozen=True)
class Row:
    """One validated corpus row, as read (``data`` is the JSON object)."""

    path: str
    line: int
    data: dict[str, Any]

    @property
    def decision(self) -> str:
        return str(self.data["decision"])

    @property
    def label(self) -> str:
        return str(self.data["label"])

    @property
    def writer(self) -> str:
        return str(self.data["writer"])


def words(text: str) -> list[str]:
    """Lower-cased words with punctuation stripped (the overlap guard's tokens)."""
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower().replace("\u2019", "'"))


def shingles(text: str, n: int = SHINGLE) -> set[tuple[str, ...]]:
    """Every run of ``n`` consecutive words of ``text``."""
    w = words(text)
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def texts_of(row: dict[str, Any]) -> list[str]:
    """Every text a row holds (turns, question, fact)."""
    out: list[str] = []
    for key in ("stored", "new", "question", "fact"):
        if isinstance(row.get(key), dict):
            out.append(str(row[key].get("text", "")))
    for key in ("turns", "between", "context"):
        for turn in row.get(key) or []:
            if isinstance(turn, dict):
                out.append(str(turn.get("text", "")))
    return out


def _turn(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CorpusError(f"{where}: must be an object with speaker and text")
    speaker, text = value.get("speaker"), value.get("text")
    if not isinstance(speaker, str) or not speaker.strip():
        raise CorpusError(f"{where}.speaker: a non-empty string is required")
    if not isinstance(text, str) or not text.strip():
        raise CorpusError(f"{where}.text: a non-empty string is required")
    if len(text) > MAX_TEXT:
        raise CorpusError(f"{where}.text: longer than {MAX_TEXT} characters")
    return value


def _turns(value: Any, where: str, low: int, high: int) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not low <= len(value) <= high:
        raise CorpusError(f"{where}: a list of {low} to {high} turns is required")
    return [_turn(t, f"{where}[{i}]") for i, t in enumerate(value)]


def _span(value: Any, texts: list[str], where: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(f"{where}: a non-empty span is required")
    if not any(value in t for t in texts):
        raise CorpusError(f"{where}: {value!r} is not a substring of the turns it must come from")


def check_row(row: Any) -> None:
    """Raise `CorpusError` (without file or line) if ``row`` breaks the schema."""
    if not isinstance(row, dict):
        raise CorpusError("a row must be a JSON object")
    for key in ("id", "writer", "decision", "label", "domain"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise CorpusError(f"{key}: a non-empty string is required")
    decision, label = row["decision"], row["label"]
    if decision not in LABELS:
        raise CorpusError(f"decision: {decision!r} is not one of {sorted(LABELS)}")
    if label not in LABELS[decision]:
        raise CorpusError(f"label: {label!r} is not one of {list(LABELS[decision])}")
    if decision == "relation":
        _turn(row.get("stored"), "stored")
        _turn(row.get("new"), "new")
        if row.get("between") is not None:
            _turns(row["between"], "between", 0, 3)
    elif decision == "request":
        turns = _turns(row.get("turns"), "turns", 1, 4)
        if turns[-1]["speaker"].strip().lower() != "user":
            raise CorpusError("turns: the last turn (the one classified) must be the user's")
        if label == "none":
            if row.get("target") not in (None, ""):
                raise CorpusError("target: must be null when the label is none")
        else:
            _span(row.get("target"), [t["text"] for t in turns], "target")
        if label == "forget_replace":
            _span(row.get("replacement"), [turns[-1]["text"]], "replacement")
        elif row.get("replacement") not in (None, ""):
            raise CorpusError("replacement: only a forget_replace row has one")
    elif decision == "answerability":
        _turn(row.get("question"), "question")
        _turn(row.get("fact"), "fact")
        if row.get("context") is not None:
            _turns(row["context"], "context", 0, 3)
    else:
        turns = _turns(row.get("turns"), "turns", 1, 4)
        _span(row.get("clause"), [turns[-1]["text"]], "clause")


def case_shingles(paths: list[Path]) -> set[tuple[str, ...]]:
    """Six-word runs of every turn of the behaviour cases files (schema ``cases/1``)."""
    out: set[tuple[str, ...]] = set()
    for path in paths:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for case in doc.get("cases", []):
            for session in case.get("conversation", {}).get("sessions", []):
                for turn in session.get("turns", []):
                    out |= shingles(str(turn.get("text", "")))
    return out


def read_rows(path: Path, guard: set[tuple[str, ...]] | None = None) -> list[Row]:
    """Read and validate one writer's file.

    Raises:
        CorpusError: the first bad row, named by file and line (duplicate ids, a schema break,
            or a sentence sharing `SHINGLE` words in a row with a behaviour case's turn).
    """
    rows: list[Row] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            check_row(data)
        except (json.JSONDecodeError, CorpusError) as exc:
            raise CorpusError(f"{path}:{number}: {exc}") from None
        if data["id"] in seen:
            raise CorpusError(f"{path}:{number}: id {data['id']!r} is used twice")
        seen.add(data["id"])
        if guard:
            for text in texts_of(data):
                if shingles(text) & guard:
                    raise CorpusError(
                        f"{path}:{number}: a sentence shares {SHINGLE} words in a row with a "
                        "behaviour case; write it in other words"
                    )
        rows.append(Row(str(path), number, data))
    return rows


def summary(rows: list[Row]) -> dict[str, dict[str, int]]:
    """Counts by decision and label."""
    counts: dict[str, Counter[str]] = {d: Counter() for d in LABELS}
    for row in rows:
        counts[row.decision][row.label] += 1
    return {d: {label: counts[d][label] for label in LABELS[d]} for d in LABELS}


def read_splits(corpus_dir: Path) -> dict[str, list[str]]:
    """``splits.json`` of ``corpus_dir``: split name -> writers, with the frozen test files
    checked against their recorded SHA-256.

    Raises:
        CorpusError: the file is unreadable, a writer is in two splits, or a test file's hash
            differs (names the file).
    """
    path = corpus_dir / "splits.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        splits = {name: list(doc[name]) for name in ("train", "dev", "test")}
        frozen = dict(doc["test_sha256"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CorpusError(f"{path}: unreadable ({exc})") from None
    writers = [w for names in splits.values() for w in names]
    if len(writers) != len(set(writers)):
        raise CorpusError(f"{path}: a writer is in two splits")
    for writer in splits["test"]:
        test_file = corpus_dir / "writers" / f"{writer}.jsonl"
        digest = hashlib.sha256(test_file.read_bytes()).hexdigest()
        if digest != frozen.get(writer):
            raise CorpusError(f"{test_file}: SHA-256 differs from the frozen test split's")
    return splits


def read_corpus(corpus_dir: Path) -> dict[str, list[Row]]:
    """Every row of the corpus, validated (with the overlap guard), by split.

    Raises:
        CorpusError: as `read_rows` (the first bad row, by file and line) and `read_splits`.
    """
    splits = read_splits(corpus_dir)
    guard = _default_guard()
    return {
        name: [
            row
            for writer in writers
            for row in read_rows(corpus_dir / "writers" / f"{writer}.jsonl", guard)
        ]
        for name, writers in splits.items()
    }


def _default_guard() -> set[tuple[str, ...]]:
    root = Path(__file__).resolve().parents[2]
    paths = sorted((root / "tests" / "data").glob("*.json"))
    return case_shingles([p for p in paths if _is_cases(p)])


def _is_cases(path: Path) -> bool:
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("schema", "")).startswith(
            "cases/"
        )
    except (json.JSONDecodeError, AttributeError):
        return False


def main(argv: list[str]) -> int:
    guard = _default_guard()
    total: list[Row] = []
    for name in argv:
        try:
            total += read_rows(Path(name), guard)
        except CorpusError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(json.dumps({"rows": len(total), "by_decision": summary(total)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
