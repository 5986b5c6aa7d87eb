"""Corpus rows as feature matrices: the one place that maps a row's fields onto
`kgmem.truth.features`, shared by training (`kgmem.truth.train`) and the benchmark
(`kgmem.bench.truth`), so both see exactly what the product's decisions see.

Vectors come from the project's embedder, batched over all distinct texts, and are kept in a
cache file keyed by the SHA-1 of each text (re-embedding the corpus takes minutes on two cores).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kgmem.embed import Embedder
from kgmem.truth.corpus import LABELS, Row
from kgmem.truth.features import (
    answer_features,
    attribution_features,
    relation_features,
    request_features,
)

Matrix = npt.NDArray[np.float32]


def texts_needed(rows: list[Row]) -> list[str]:
    """Every text a row's features embed, distinct, sorted."""
    out: set[str] = set()
    for row in rows:
        data = row.data
        if row.decision == "relation":
            out |= {data["stored"]["text"], data["new"]["text"]}
        elif row.decision == "request":
            out |= {t["text"] for t in data["turns"][-2:]}
        elif row.decision == "answerability":
            out |= {data["question"]["text"], data["fact"]["text"]}
        else:
            out |= {data["clause"], data["turns"][-1]["text"]}
    return sorted(out)


def statement_rows(rows: list[Row]) -> list[Row]:
    """The user's plain statements in ``rows`` as request rows labelled ``none``: the stored and
    new turns of relation rows and the facts of answerability rows said by ``user``. The write
    path asks the request decision about every user turn, most of them such statements, while
    the corpus's request rows are all request-like; these rows let the acting threshold be
    chosen on what the product sees (`kgmem.truth.train.acting_threshold`)."""
    out: list[Row] = []
    for row in rows:
        data = row.data
        said: list[dict[str, str]] = []
        if row.decision == "relation":
            said = [data["stored"], data["new"]]
        elif row.decision == "answerability":
            said = [data["fact"]]
        for turn in said:
            if turn["speaker"] == "user":
                statement = {"decision": "request", "label": "none", "turns": [turn]}
                out.append(Row(row.path, row.line, statement))
    return out


class VectorCache:
    """Text -> MiniLM vector, embedded on demand and kept in an ``.npz`` file.

    Args:
        embedder: the project's embedder (`kgmem.embed.Embedder`).
        path: the cache file, or None for no file.
    """

    def __init__(self, embedder: Embedder, path: Path | None) -> None:
        self.embedder = embedder
        self.path = path
        self._vectors: dict[str, Matrix] = {}
        if path is not None and path.is_file():
            with np.load(path) as data:
                for key, vector in zip(data["keys"], data["vectors"], strict=True):
                    self._vectors[str(key)] = vector

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def vectors(self, texts: list[str]) -> dict[str, Matrix]:
        """Vectors of ``texts`` (embedding the ones not cached, in one batch; saves the file)."""
        missing = sorted({t for t in texts if self.key(t) not in self._vectors})
        if missing:
            for text, vector in zip(missing, self.embedder.encode(missing), strict=True):
                self._vectors[self.key(text)] = vector
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                keys = sorted(self._vectors)
                with self.path.open("wb") as handle:
                    np.savez(
                        handle,
                        keys=np.array(keys),
                        vectors=np.stack([self._vectors[k] for k in keys]),
                    )
        return {t: self._vectors[self.key(t)] for t in texts}


def features(
    decision: str, rows: list[Row], vectors: dict[str, Matrix]
) -> tuple[Matrix, list[str]]:
    """Feature matrix and labels of ``rows`` (all of ``decision``)."""
    if not rows:
        return np.zeros((0, 0), dtype=np.float32), []
    labels = [row.label for row in rows]

    def v(text: str) -> Matrix:
        return vectors[text]

    data = [row.data for row in rows]
    if decision == "relation":
        x = relation_features(
            np.stack([v(d["stored"]["text"]) for d in data]),
            np.stack([v(d["new"]["text"]) for d in data]),
            [d["new"]["text"] for d in data],
            [d["stored"]["text"] for d in data],
        )
    elif decision == "request":
        last = np.stack([v(d["turns"][-1]["text"]) for d in data])
        zero = np.zeros_like(last[0])
        prev = np.stack([v(d["turns"][-2]["text"]) if len(d["turns"]) > 1 else zero for d in data])
        x = request_features(last, prev, [d["turns"][-1]["text"] for d in data])
    elif decision == "answerability":
        x = answer_features(
            np.stack([v(d["question"]["text"]) for d in data]),
            np.stack([v(d["fact"]["text"]) for d in data]),
            [d["question"]["speaker"] for d in data],
            [d["fact"]["speaker"] for d in data],
            [d["question"]["text"] for d in data],
            [d["fact"]["text"] for d in data],
        )
    elif decision == "attribution":
        x = attribution_features(
            np.stack([v(d["clause"]) for d in data]),
            np.stack([v(d["turns"][-1]["text"]) for d in data]),
            [d["turns"][-1]["speaker"] for d in data],
            [len(d["turns"]) for d in data],
            [d["clause"] for d in data],
            [d["turns"][-1]["text"] for d in data],
        )
    else:
        raise ValueError(f"unknown decision {decision!r}; one of {sorted(LABELS)}")
    return x, labels
