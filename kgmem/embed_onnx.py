"""The query embedding on ONNX Runtime: the loaded sentence-transformers model exported once.

sentence-transformers' own ONNX backend needs ``optimum-onnx``, which cannot be installed next
to sentence-transformers 6 (its only release pins ``transformers<4.58``). So the model's
transformer is exported here with ``torch.onnx.export`` (the TorchScript exporter, opset 17,
dynamic batch and sequence axes; it needs the ``onnx`` package) from the weights already
loaded, offline, into a cache directory, and run on ``onnxruntime`` (both from PyPI). The
tokenizer is the model's own (``SentenceTransformer.tokenizer``, same truncation at
``max_seq_length``), followed by the model's mean pooling and L2 normalisation, so the
vectors are those of `kgmem.embed.Embedder` up to float rounding (measured on the LoCoMo dev
questions: cosine >= 0.9999999; docs/latency.md).

The cache file is named after a SHA-256 of the transformer's weights and the opset, written
to a temporary file and renamed into place (atomic), so processes that export at the same
time never read a partial file, and new weights never reuse an old export.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from kgmem.errors import OnnxExportFailed

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["OPSET", "OnnxQueryEncoder", "default_cache_dir", "weights_key"]

log = logging.getLogger(__name__)

OPSET = 17
"""ONNX opset of the export (supported by every onnxruntime release of the last years)."""

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_EXPORT_LOCK = threading.Lock()


def default_cache_dir() -> Path:
    """``<user cache dir>/kgmem/onnx`` (platformdirs), where exports are kept by default."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kgmem")) / "onnx"


def weights_key(model: SentenceTransformer) -> str:
    """A SHA-256 (first 20 hex digits) of the transformer's parameters and buffers, by name
    in sorted order: the cache key of its export."""
    digest = hashlib.sha256()
    transformer: Any = model[0]
    state = transformer.auto_model.state_dict()
    for name in sorted(state):
        tensor = state[name].detach().cpu().contiguous()
        digest.update(name.encode())
        digest.update(str(tuple(tensor.shape)).encode())
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()[:20]


def _check_pooling(model: SentenceTransformer) -> None:
    """The model must be a transformer followed by mean pooling (all-MiniLM-L6-v2 is)."""
    modules = list(model)
    if len(modules) < 2 or type(modules[0]).__name__ != "Transformer":
        raise OnnxExportFailed("the model is not a sentence-transformers Transformer + Pooling")
    pooling = modules[1]
    # sentence-transformers 6 names the mode; earlier releases carry one flag per mode
    mode = getattr(pooling, "pooling_mode", None)
    mean = mode == "mean" if mode is not None else getattr(pooling, "pooling_mode_mean_tokens", 0)
    if type(pooling).__name__ != "Pooling" or not mean:
        raise OnnxExportFailed("only mean pooling is exported (this model pools otherwise)")
    for extra in modules[2:]:
        if type(extra).__name__ != "Normalize":
            raise OnnxExportFailed(f"module {type(extra).__name__} after pooling is not exported")


def export_transformer(model: SentenceTransformer, target: Path) -> None:
    """Export the model's transformer (inputs ``input_ids``, ``attention_mask``,
    ``token_type_ids``; output the last hidden state) to ``target`` atomically.

    Raises:
        OnnxExportFailed: ``torch.onnx`` or the ``onnx`` package is missing, the cache
            directory cannot be written, or the export raised (its message included).
    """
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - sentence-transformers needs torch
        raise OnnxExportFailed("torch is not installed") from exc
    transformer: Any = model[0]
    bert = transformer.auto_model.eval()
    features = model.tokenizer(["a short question to trace the graph"], return_tensors="pt")
    names = [n for n in _INPUTS if n in features]

    class _Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: Any) -> Any:
            return self.inner(**dict(zip(names, args, strict=True))).last_hidden_state

    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".part")
        os.close(fd)
        with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _Hidden(bert),
                tuple(features[n] for n in names),
                tmp,
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={n: {0: "batch", 1: "seq"} for n in [*names, "last_hidden_state"]},
                opset_version=OPSET,
                dynamo=False,
            )
        os.replace(tmp, target)
    except Exception as exc:
        raise OnnxExportFailed(
            f"torch.onnx.export of the embedding model failed ({type(exc).__name__}: {exc}); "
            "the export needs the onnx package (pip install onnx) and a writable cache directory"
        ) from exc
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


class OnnxQueryEncoder:
    """One text at a time on ONNX Runtime, with the vectors of the torch path.

    Args:
        model: the loaded sentence-transformers model (its tokenizer and weights are used).
        cache_dir: where the export is kept (created if missing).
        threads: onnxruntime intra-op threads (1: one short question gains nothing from more,
            and a second thread makes the tail far worse on a busy machine; docs/latency.md).

    Raises:
        OnnxExportFailed: onnxruntime is missing, the model is not Transformer + mean pooling,
            or the export or the session could not be made.
    """

    def __init__(self, model: SentenceTransformer, cache_dir: Path, *, threads: int = 1) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise OnnxExportFailed(
                "onnxruntime is not installed: pip install onnx onnxruntime"
            ) from exc
        _check_pooling(model)
        self.tokenizer = model.tokenizer
        # sentence-transformers truncates at max_seq_length (256 for all-MiniLM-L6-v2)
        self.max_length = int(model.max_seq_length or self.tokenizer.model_max_length)
        self.path = cache_dir / f"{weights_key(model)}-opset{OPSET}.onnx"
        with _EXPORT_LOCK:
            if not self.path.is_file():
                t0 = time.perf_counter()
                export_transformer(model, self.path)
                log.info("exported %s in %.1f s", self.path, time.perf_counter() - t0)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(
                str(self.path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise OnnxExportFailed(
                f"onnxruntime cannot load {self.path} ({type(exc).__name__}: {exc}); "
                "delete the file to export it again"
            ) from exc
        self.inputs = [i.name for i in self.session.get_inputs()]

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts``: shape ``(len(texts), dimension)``, float32, rows L2-normalised
        (mean of the last hidden state over the attention mask, as sentence-transformers'
        Pooling does)."""
        features = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="np"
        )
        feed = {name: np.asarray(features[name], dtype=np.int64) for name in self.inputs}
        hidden = np.asarray(self.session.run(None, feed)[0], dtype=np.float32)
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return out
