"""The ONNX query-embedding backend against the torch path it replaces (kgmem.embed_onnx):
the same vectors, one export per cache directory, and the typed failure / ``auto`` fallback."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from kgmem.embed import Embedder
from kgmem.errors import OnnxExportFailed

pytest.importorskip("onnxruntime", reason="the onnx backend's runtime (a project dependency)")

QUESTIONS = [
    "What did Caroline research?",
    "When did Melanie paint a sunrise?",
    "How many times has John been to the beach with his kids?",
    "Would Maria be considered religious?",
    "",
    "   ",
    "Wie heißt du? 😀 " * 40,
]


@pytest.fixture(scope="module")
def torch_embedder() -> Embedder:
    return Embedder()


@pytest.fixture(scope="module")
def onnx_embedder(tmp_path_factory: pytest.TempPathFactory, torch_embedder: Embedder) -> Embedder:
    embedder = Embedder(backend="onnx", cache_dir=tmp_path_factory.mktemp("onnx"))
    embedder._model = torch_embedder.model  # the same loaded weights, loaded once
    return embedder


def test_onnx_vectors_match_torch_to_cosine_0_9999(
    torch_embedder: Embedder, onnx_embedder: Embedder
) -> None:
    assert onnx_embedder.query_backend == "onnx"
    for question in QUESTIONS:
        expected = torch_embedder.encode_one(question)
        got = onnx_embedder.encode_one(question)
        assert got.shape == expected.shape == (384,)
        assert got.dtype == np.float32
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
        assert float(np.dot(got, expected)) >= 0.9999, question


def test_onnx_export_is_made_once_per_cache_dir_and_reused(
    torch_embedder: Embedder, onnx_embedder: Embedder
) -> None:
    assert onnx_embedder.cache_dir is not None
    _ = onnx_embedder.query_backend
    files = sorted(onnx_embedder.cache_dir.iterdir())
    assert [f.suffix for f in files] == [".onnx"]  # no partial file left behind
    before = files[0].stat().st_mtime_ns
    again = Embedder(backend="onnx", cache_dir=onnx_embedder.cache_dir)
    again._model = torch_embedder.model
    assert again.query_backend == "onnx"
    assert files[0].stat().st_mtime_ns == before


def test_onnx_backend_that_cannot_export_raises_and_auto_falls_back_to_torch(
    tmp_path: Path, torch_embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    strict = Embedder(backend="onnx", cache_dir=blocker / "onnx")
    strict._model = torch_embedder.model
    with pytest.raises(OnnxExportFailed, match="cache directory"):
        strict.encode_one("What did Caroline research?")
    auto = Embedder(backend="auto", cache_dir=blocker / "onnx")
    auto._model = torch_embedder.model
    with caplog.at_level(logging.WARNING, logger="kgmem.embed"):
        vector = auto.encode_one("What did Caroline research?")
    assert auto.query_backend == "torch"
    assert "stays on torch" in caplog.text
    np.testing.assert_array_equal(vector, torch_embedder.encode_one("What did Caroline research?"))
