"""`Embedder.encode` in batches cut from an order by word pieces, and the write path's shared
vectors (`kgmem.ingest.stages.context.IngestContext.encode`): every text's row in input order,
each text embedded once per write."""

from __future__ import annotations

from typing import Any

import numpy as np

from kgmem.embed import Embedder
from kgmem.ingest.stages.context import IngestContext

DIM = 4


def _vector(text: str) -> np.ndarray:
    """A fixed unit vector per text (what the fake model returns for it)."""
    rng = np.random.default_rng(sum(map(ord, text)) + len(text))
    v = rng.normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


class _Tokenizer:
    """One word piece per whitespace word, plus the two special tokens."""

    model_max_length = 512

    def __call__(
        self, texts: list[str], *, add_special_tokens: bool, truncation: bool, max_length: int
    ) -> dict[str, list[list[int]]]:
        assert add_special_tokens and truncation
        return {"input_ids": [[0] * min(len(t.split()) + 2, max_length) for t in texts]}


class _Model:
    """A stand-in for a SentenceTransformer: records each ``encode`` call's texts."""

    max_seq_length = 6

    def __init__(self) -> None:
        self.tokenizer = _Tokenizer()
        self.calls: list[list[str]] = []

    def get_embedding_dimension(self) -> int:
        return DIM

    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        self.calls.append(list(texts))
        return np.stack([_vector(t) for t in texts])


def _embedder(batch_size: int) -> tuple[Embedder, _Model]:
    embedder = Embedder(batch_size=batch_size)
    model = _Model()
    embedder._model = model  # type: ignore[assignment]
    return embedder, model


def test_rows_follow_the_input_order_across_sorted_batches() -> None:
    texts = [" ".join(["w"] * n) + f" t{i}" for i, n in enumerate([1, 9, 3, 0, 7, 2, 5, 4, 8])]
    embedder, model = _embedder(batch_size=3)
    out = embedder.encode(texts)
    assert out.shape == (len(texts), DIM)
    for text, row in zip(texts, out, strict=True):
        np.testing.assert_array_equal(row, _vector(text))
    assert [len(call) for call in model.calls] == [3, 3, 3]
    pieces = [min(len(t.split()) + 2, _Model.max_seq_length) for call in model.calls for t in call]
    assert pieces == sorted(pieces, reverse=True)  # longest first, capped at the window


def test_one_batch_is_one_call_as_given() -> None:
    texts = ["a b c", "a", "a b"]
    embedder, model = _embedder(batch_size=3)
    embedder.encode(texts)
    assert model.calls == [texts]


def test_a_write_embeds_each_text_once_until_forgotten() -> None:
    embedder, model = _embedder(batch_size=8)
    ctx = IngestContext(store=None, embedder=embedder)  # type: ignore[arg-type]
    first = ctx.encode(["turn one", "turn two", "turn one"])
    again = ctx.encode(["fact", "turn two"])
    np.testing.assert_array_equal(again[1], first[1])
    assert model.calls == [["turn one", "turn two"], ["fact"]]
    ctx.forget_vectors()
    ctx.encode(["fact"])
    assert model.calls[-1] == ["fact"]
