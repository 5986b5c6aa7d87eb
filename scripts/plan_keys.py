"""Distinct Neo4j plan-cache keys of read/linked_read over a LoCoMo file's questions: with the
varying values as separate parameters (as before they moved into the map $q) and as sent now.
Each key is one compiled plan per server start. Needs the conversations ingested; reads only
their planner context (no search). Prints JSON.

    python scripts/plan_keys.py ../shared/data/locomo/locomo-dev.json
"""

import json
import math
import sys

from kgmem import Memory, Settings
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.retrieve.generators import linked_read_parameters
from kgmem.retrieve.request_read import resolve_request
from kgmem.retrieve.retriever import Request
from kgmem.retrieve.scope import Scope, SearchFilters


def bucket(n):
    return n if n <= 1 else 10 ** math.ceil(math.log10(n))


def key(p):
    return tuple(
        (k, type(v).__name__, bucket(len(v)) if isinstance(v, (str, list)) else None)
        for k, v in sorted(p.items())
    )


recs = load_locomo(sys.argv[1])
before, after, n = {}, set(), 0
with Memory.from_settings(Settings()) as m:
    eng = m.engine()
    cfg = eng.config
    for r in recs:
        scope = Scope(conversation_id=r.conversation_id)
        ctx = eng._context(scope)
        for q in r.questions:
            _, reading = eng.reading(q.question, scope)
            params = {"conversation_id": r.conversation_id, "embedding": [0.0] * 384}
            req = Request(
                q.question,
                r.conversation_id,
                10,
                None,
                None,
                params,
                scope,
                SearchFilters(),
                reading,
            )
            read = resolve_request(req, ctx, eng.planner, cfg.generators)
            p = linked_read_parameters(
                read.params,
                read.plan,
                cfg,
                scope=read.scope,
                speakers=ctx.speakers,
                current_entity_ids=read.current_ids,
            )
            flat = {**{k: v for k, v in p.items() if k != "q"}, **p["q"]}
            before.setdefault(key(flat), 0)
            before[key(flat)] += 1
            after.add(key(p))
            n += 1
print(
    json.dumps(
        {
            "questions": n,
            "plan_keys_before": len(before),
            "plan_keys_after": len(after),
            "questions_per_key_before": sorted(before.values(), reverse=True),
        }
    )
)
