"""The query embedding on torch vs ONNX Runtime, on the questions of a LoCoMo-layout file.

Interleaved one question at a time (torch, then onnx; the order alternates), each timed from
the string to the vector (`kgmem.embed.Embedder.encode_one`): minimum and mean cosine between
the two vectors, p50/p95/p99/mean of each, their ratios, and the load average. With
``--batch N`` it also times embedding the file's first N turn texts in batches (the write
path's shape: ``Embedder.encode`` on torch vs `kgmem.embed_onnx.OnnxQueryEncoder.encode` in
batches of the same size), to decide whether the write path may use ONNX. Prints JSON.

    python scripts/embedding_backends.py ../shared/data/locomo/locomo-dev.json \
        [--limit N] [--batch 512] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from kgmem.bench.latency import ratios, summary
from kgmem.embed import Embedder
from kgmem.embed_onnx import OnnxQueryEncoder
from kgmem.ingest.loaders.locomo import load_locomo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="first N questions (0: all)")
    parser.add_argument("--batch", type=int, default=0, help="also time N turns in batches")
    parser.add_argument("--cache-dir", type=Path, default=None)
    args = parser.parse_args()

    records = load_locomo(args.file)
    questions = [q.question for r in records for q in r.questions]
    if args.limit:
        questions = questions[: args.limit]
    cache = args.cache_dir or Path(tempfile.mkdtemp(prefix="kgmem-onnx-"))
    torch_side = Embedder()
    t0 = time.perf_counter()
    onnx_side = Embedder(backend="onnx", cache_dir=cache)
    onnx_side._model = torch_side.model
    assert onnx_side.query_backend == "onnx"
    build_s = time.perf_counter() - t0
    torch_side.encode_one("warm up")
    onnx_side.encode_one("warm up")
    load_start = [round(x, 2) for x in os.getloadavg()]
    cosines: list[float] = []
    torch_ms: list[float] = []
    onnx_ms: list[float] = []
    for i, question in enumerate(questions):
        order = (torch_side, onnx_side) if i % 2 == 0 else (onnx_side, torch_side)
        vectors = {}
        for side in order:
            t0 = time.perf_counter()
            vectors[id(side)] = side.encode_one(question)
            ms = (time.perf_counter() - t0) * 1000
            (torch_ms if side is torch_side else onnx_ms).append(ms)
        cosines.append(float(np.dot(vectors[id(torch_side)], vectors[id(onnx_side)])))
    report: dict[str, object] = {
        "file": str(args.file),
        "questions": len(questions),
        "export_or_load_s": round(build_s, 1),
        "torch_threads": __import__("torch").get_num_threads(),
        "min_cosine": round(min(cosines), 7),
        "mean_cosine": round(statistics.mean(cosines), 7),
        "torch": summary(torch_ms),
        "onnx": summary(onnx_ms),
        "ratios_onnx_vs_torch": ratios(summary(onnx_ms), summary(torch_ms)),
        "load_average": {"start": load_start, "end": [round(x, 2) for x in os.getloadavg()]},
    }
    if args.batch:
        texts = [t.text for r in records for t in r.turns][: args.batch]
        size = torch_side.batch_size
        batch_encoder = OnnxQueryEncoder(torch_side.model, cache, threads=0)  # 0: all cores
        t0 = time.perf_counter()
        torch_side.encode(texts)
        torch_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        for start in range(0, len(texts), size):
            batch_encoder.encode(texts[start : start + size])
        onnx_s = time.perf_counter() - t0
        report["batch"] = {
            "texts": len(texts),
            "batch_size": size,
            "torch_texts_per_s": round(len(texts) / torch_s, 1),
            "onnx_texts_per_s": round(len(texts) / onnx_s, 1),
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
