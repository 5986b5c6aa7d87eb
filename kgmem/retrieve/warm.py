"""Plan warm-up: the read path's statements compiled on the server before a question needs them.

Neo4j compiles a statement on its first run after a server start (and again for every new
combination of parameter types and string/list size buckets; `read/linked_read` has one by
construction, `kgmem.retrieve.generators.linked_read_parameters`). The big read statement
took 0.3-0.6 s to compile on a quiet 2-core machine: without a warm-up, the first question
after every restart pays it. `warm_read_path` runs each statement of the read path once with
the parameter shapes a question sends, for a conversation id that holds nothing and with every
budget 0, so nothing is read but the plan is compiled and cached (running it, unlike
``EXPLAIN``, also builds the executable plan: measured, the first real run after an
``EXPLAIN`` alone still took most of the cold time).

It is cheap (a handful of round trips; about 1-2 ms each when the plans are cached already),
bounded (one run per statement and shape) and never raises: a failure (no schema yet, the
server gone) is logged and ends the warm-up. `kgmem neo4j start` runs it after the server
answers, `Memory.add_conversation` (so `kgmem ingest`) after a bulk ingest, and `Memory.warm`
when a service asks. A plan compiled on an empty database is not enough: measured on a fresh
server, the plans warmed right after the schema were replanned once the first conversation
was written (the statistics changed), and the first question paid 2-5 s again.
`warm_planner` does the same for the process's own first-use costs (the date parser's
language data).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any

from kgmem.errors import KgmemError
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.generators import empty_scope, linked_read_parameters
from kgmem.retrieve.plan import plan
from kgmem.store import Store

__all__ = [
    "WARM_CONVERSATIONS",
    "WARM_QUESTION",
    "vector_dimension",
    "warm_planner",
    "warm_read_path",
    "warm_statements",
]

log = logging.getLogger(__name__)

#: conversation ids that hold nothing, one per string size bucket of the usual ids (up to 10
#: and up to 100 characters): the small statements take the id as a parameter of its own, so
#: their plans are keyed on its length bucket too
WARM_CONVERSATIONS = ("kgmem-warm", "kgmem-warm-up-conversation")


#: a question with relative dates, read once so that the date parser loads its language data
#: (about 0.1 s, once per process) before the first real question
WARM_QUESTION = "What did you do last week, two days before the trip?"


def warm_planner() -> float:
    """Read and plan `WARM_QUESTION` once (no server): the first relative date a process
    resolves makes ``dateparser`` load its English data, which would otherwise land on the
    first question that names a time. Returns the wall time in ms."""
    t0 = time.perf_counter()
    plan(WARM_QUESTION, reference=datetime(2000, 1, 1, tzinfo=UTC))
    return round((time.perf_counter() - t0) * 1000, 1)


def warm_statements(dimension: int) -> list[tuple[str, dict[str, Any]]]:
    """(statement, parameters) pairs in the shapes a question sends."""
    cfg = EngineConfig()
    out: list[tuple[str, dict[str, Any]]] = []
    embedding = [0.0] * dimension
    linked = linked_read_parameters(
        {"conversation_id": WARM_CONVERSATIONS[0], "embedding": embedding},
        plan(""),
        cfg,
        scope=empty_scope(WARM_CONVERSATIONS[0]),
    )
    linked.update({name: 0 for name in linked if name.startswith("k_")})  # read nothing
    out.append(("read/linked_read", linked))
    out.append(("read/search_index_states", {"names": ["turn_embedding", "turn_text"]}))
    for cid in WARM_CONVERSATIONS:
        out += [
            ("read/conversation_context", {"conversation_id": cid, "known_version": None}),
            ("read/person_support", {"conversation_ids": [cid], "as_of": None}),
            # the answer of a current-value question and the chain walk's reads
            ("read/fact_answers", {"conversation_id": cid, "fact_ids": [f"{cid}:x:0"]}),
            ("read/chain_entities", {"conversation_id": cid}),
            (
                "read/chain_facts",
                {"conversation_id": cid, "entity_ids": [f"{cid}:e:x"], "relations": ["x"]},
            ),
        ]
    return out


def vector_dimension(store: Store) -> int | None:
    """The dimension of the turn vector index (None without one, i.e. before the schema)."""
    rows = store.read("read/list_vector_indexes")
    dims = [r["dimensions"] for r in rows if r["name"] == "turn_embedding"]
    return int(dims[0]) if dims and dims[0] is not None else None


def warm_read_path(store: Store, dimension: int | None = None) -> dict[str, float]:
    """Run every read-path statement once (nothing read) so that the server compiles its plan.

    Args:
        store: the store whose server to warm.
        dimension: the embedding dimension (the vector parameter's size is part of the plan's
            key); None reads it from the turn vector index and warms nothing without one.

    Returns:
        statement name -> wall time in ms of its warm-up runs; empty when nothing could be
        warmed. Never raises on a server error: it is logged at INFO and ends the warm-up.
    """
    done: dict[str, float] = {}
    try:
        dim = dimension if dimension is not None else vector_dimension(store)
        if dim is None:
            log.info("plan warm-up skipped: no turn vector index yet (schema not applied)")
            return done
        for name, params in warm_statements(dim):
            t0 = time.perf_counter()
            store.read(name, **params)
            done[name] = round(done.get(name, 0.0) + (time.perf_counter() - t0) * 1000, 1)
    except KgmemError as exc:
        log.info("plan warm-up stopped after %d statements: %s", len(done), exc)
    return done
