"""``read/linked_read`` compiles to ONE plan: its parameters have the same Neo4j plan-cache key
(each parameter's type and, for a string or a list, its size bucket) for every question.

The bucket rule is Neo4j's (``SizeBucket.computeBucket`` of the 2026 server: sizes 0 and 1
exactly, otherwise the next power of ten); a map parameter has one type whatever it holds.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from kgmem.retrieve.config import GENERATORS, EngineConfig
from kgmem.retrieve.generators import ReadScope, linked_read_parameters
from kgmem.retrieve.names import EntityIndex
from kgmem.retrieve.plan import Planner
from kgmem.retrieve.scope import Bounds, SearchFilters
from kgmem.retrieve.warm import warm_statements
from kgmem.store.catalogue import catalogue

REF = datetime(2023, 10, 22, 15, 30, tzinfo=UTC)
INDEX = EntityIndex(
    [
        ("Alice", "c1:alice", "person"),
        ("Bob", "c1:bob", "person"),
        ("Lisbon", "c1:lisbon", "place"),
        ("Porto", "c1:porto", "place"),
        ("Tom", "c1:tom", "person"),
    ]
)
SPEAKERS = ("Alice", "Bob")
QUESTIONS = [
    "What is up?",
    "",
    "What did Alice say about the support group?",
    "What did Alice and Bob decide in May 2023?",
    "Where does Tom live now, in Lisbon or in Porto?",
    "Where did Tom live before he moved to Porto last weekend?",
    " ".join(["word"] * 60) + " Lisbon Porto Tom",
]


def _bucket(size: int) -> int:
    return size if size <= 1 else 10 ** math.ceil(math.log10(size))


def cache_key(params: dict[str, Any]) -> tuple[tuple[str, str, int | None], ...]:
    """What Neo4j's plan cache keys on, per parameter: its type and, for a string or list,
    its size bucket (the embedding's bucket is the same for every question)."""
    key = []
    for name, value in sorted(params.items()):
        sized = isinstance(value, str | list)
        key.append((name, type(value).__name__, _bucket(len(value)) if sized else None))
    return tuple(key)


def _parameters(question: str, cid: str, **kw: Any) -> dict[str, Any]:
    cfg = EngineConfig(generators=frozenset(GENERATORS))
    qplan = Planner(**cfg.pools).plan(question, entities=INDEX, reference=REF, speakers=SPEAKERS)
    ids = [e.id for e in qplan.entities]
    params = {"conversation_id": cid, "embedding": [0.0] * 384}
    scope = ReadScope(
        owner="",
        conversation_ids=(cid,),
        by_owner=False,
        bounds=Bounds.of(
            SearchFilters(), speakers=SPEAKERS, sessions=range(1, len(cid)), as_of=kw.get("as_of")
        ),
    )
    return linked_read_parameters(
        params, qplan, cfg, scope=scope, speakers=SPEAKERS, current_entity_ids=ids, **kw
    )


def test_every_question_has_the_same_cache_key() -> None:
    keys = {
        cache_key(_parameters(question, cid, as_of=as_of, depth=depth))
        for question in QUESTIONS
        for cid in ("c1", "a-much-longer-conversation-id-0123456789abcdef")
        for as_of in (None, REF)
        for depth in (None, 100)
    }
    assert len(keys) == 1


def test_the_questions_do_vary_what_the_map_holds() -> None:
    # the single key above is not the trivial one of identical inputs
    shapes = {
        cache_key(_parameters(question, "c1", as_of=as_of)["q"])
        for question in QUESTIONS
        for as_of in (None, REF)
    }
    assert len(shapes) >= 6


@pytest.mark.parametrize("name", ["read/linked_read"])
def test_the_statement_reads_only_those_parameters(name: str) -> None:
    text = catalogue()[name]
    body = "\n".join(line.split("//")[0] for line in text.splitlines())
    used = set(re.findall(r"\$(\w+)", body))
    assert used == set(_parameters("What is up?", "c1"))


def test_the_warm_up_has_the_cache_key_of_a_question() -> None:
    (warm,) = [p for n, p in warm_statements(384) if n == "read/linked_read"]
    assert cache_key(warm) == cache_key(_parameters("What did Alice say?", "c1"))
