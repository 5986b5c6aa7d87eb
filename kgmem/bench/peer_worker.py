"""A worker that runs the peer ``neo4j-agent-memory`` (0.8.x) for `kgmem bench latency`.

It runs under the peer's own Python (``--peer-python``), never imports kgmem, and speaks JSON
lines: one request per line on stdin, one reply per line on stdout (``{"ok": true, ...}`` or
``{"ok": false, "error": "..."}``). Requests:

- ``{"op": "init", "uri", "user", "password", "database", "model", "extraction",
  "spacy_model"}``: connect a
  ``MemoryClient`` with no LLM, the sentence-transformers embedder loaded from ``model`` (a
  local path: the packaged weights kgmem uses, so no hub is needed) and the given extractor
  (``spacy`` or ``none``; ``spacy_model`` a pipeline name or directory); replies with the
  package version.
- ``{"op": "ingest", "session", "messages": [{"role", "content", "timestamp", "metadata"}]}``:
  the session cleared, then ``short_term.add_messages_batch`` into it (entities extracted
  when the extractor is not ``none``); replies ``{"messages": n, "ms": float}``.
- ``{"op": "search", "query", "session", "k"}``: ``short_term.search_messages`` with threshold
  -1 (always ``k`` hits); replies ``{"ids": [metadata turn_id], "ms": float}``, where ``ms`` is
  timed inside the worker from the question string to the message list (embedding included).
- ``{"op": "close"}``: disconnect and exit.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import warnings
from typing import Any


async def _serve() -> None:
    warnings.simplefilter("ignore")
    from neo4j_agent_memory import MemoryClient, __version__
    from neo4j_agent_memory.config.settings import (
        EmbeddingConfig,
        EmbeddingProvider,
        ExtractionConfig,
        ExtractorType,
        MemorySettings,
        Neo4jConfig,
    )

    client: Any = None
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        try:
            if op == "init":
                extractor = ExtractorType(request.get("extraction", "spacy"))
                settings = MemorySettings(
                    neo4j=Neo4jConfig(
                        uri=request["uri"],
                        username=request["user"],
                        password=request["password"],
                        database=request.get("database", "neo4j"),
                    ),
                    embedding=EmbeddingConfig(
                        provider=EmbeddingProvider.SENTENCE_TRANSFORMERS,
                        model=request["model"],
                        dimensions=384,
                    ),
                    extraction=ExtractionConfig(
                        extractor_type=extractor,
                        enable_llm_fallback=False,
                        spacy_model=request.get("spacy_model") or "en_core_web_sm",
                    ),
                    llm=None,
                    backend="bolt",
                )
                client = MemoryClient(settings)
                await client.connect()
                reply: dict[str, Any] = {"version": __version__}
            elif op == "ingest":
                # a re-run replaces the session instead of appending a second copy
                await client.short_term.clear_session(request["session"])
                t0 = time.perf_counter()
                created = await client.short_term.add_messages_batch(
                    request["session"],
                    request["messages"],
                    extract_entities=request.get("extract", True),
                )
                reply = {"messages": len(created), "ms": (time.perf_counter() - t0) * 1000}
            elif op == "search":
                t0 = time.perf_counter()
                found = await client.short_term.search_messages(
                    request["query"],
                    session_id=request["session"],
                    limit=request["k"],
                    threshold=-1.0,
                )
                ms = (time.perf_counter() - t0) * 1000
                reply = {"ids": [m.metadata.get("turn_id") for m in found], "ms": ms}
            elif op == "close":
                if client is not None:
                    await client.close()
                print(json.dumps({"ok": True}), flush=True)
                return
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:
            print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
            continue
        print(json.dumps({"ok": True, **reply}), flush=True)


if __name__ == "__main__":
    asyncio.run(_serve())
