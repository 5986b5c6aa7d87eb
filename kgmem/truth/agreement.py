"""Second-annotator labels of corpus rows: how closely two careful readers agree on a decision.

One JSON object per line in ``corpus/truth/agreement/<annotator>.jsonl``: ``writer`` and ``id``
name a corpus row (`kgmem.truth.corpus`), ``label`` is the annotator's class for that row's
decision. Each annotator labelled a stratified sample of train and dev rows (the same number
per label) given only the rows without their labels and the decisions' label tables of
``BRIEF.md``; nothing else (``CARD.md``, "Agreement"). Agreement says whether the writers'
labels are consistent enough for a model to be held to them, and how high a reader can score.

Standard library only, like `kgmem.truth.corpus`. The files are not part of the corpus hash
(`kgmem.truth.weights.corpus_hash`): no model is fitted to them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kgmem.truth.corpus import LABELS, CorpusError, Row

AGREEMENT_DIR = "agreement"
"""Folder of the annotators' files inside the corpus folder."""


@dataclass(frozen=True)
class Judgement:
    """One annotator's label of one corpus row.

    Attributes:
        annotator: the file's stem (``a1``).
        row: the corpus row (its ``label`` is the writer's).
        label: the annotator's label, one of ``LABELS[row.decision]``.
    """

    annotator: str
    row: Row
    label: str


def read_judgements(path: Path, rows: dict[tuple[str, str], Row]) -> list[Judgement]:
    """One annotator's file, validated against the corpus rows it names.

    Args:
        path: ``<annotator>.jsonl``.
        rows: every corpus row by ``(writer, id)``.

    Raises:
        CorpusError: the first bad line, named by file and line: not JSON, a missing field,
            a row the corpus does not hold, a row judged twice, or a label its decision lacks.
    """
    out: list[Judgement] = []
    seen: set[tuple[str, str]] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            key, label = (str(data["writer"]), str(data["id"])), str(data["label"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise CorpusError(f"{path}:{number}: not a judgement ({exc})") from None
        row = rows.get(key)
        if row is None:
            raise CorpusError(f"{path}:{number}: no corpus row {key[1]!r} of writer {key[0]!r}")
        if key in seen:
            raise CorpusError(f"{path}:{number}: row {key[1]!r} is judged twice")
        if label not in LABELS[row.decision]:
            raise CorpusError(f"{path}:{number}: {label!r} is not a {row.decision} label")
        seen.add(key)
        out.append(Judgement(path.stem, row, label))
    return out


def read_agreement(corpus_dir: Path, rows: list[Row]) -> list[Judgement]:
    """Every annotator's judgements under ``corpus_dir/agreement`` (none when it is absent),
    files in name order.

    Raises:
        CorpusError: as `read_judgements`.
    """
    folder = corpus_dir / AGREEMENT_DIR
    by_key = {(r.writer, str(r.data["id"])): r for r in rows}
    return [j for path in sorted(folder.glob("*.jsonl")) for j in read_judgements(path, by_key)]
