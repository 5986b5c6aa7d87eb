"""No tenant's BM25 or vector seeds are cut by other tenants (every index is shared), and the scale
benchmark's copies are faithful.

60 tenants of 20 turns (each turn with one fact citing it) all contain the words of the query:
1,200 matching turns and 1,200 matching facts, more than any limit in the read path (the old
global fulltext top-1000, the dense pools). The trap is built so that a global top-N followed
by a tenant filter would lose the target tenant entirely: its turns are long (low BM25: length
normalisation) and its embeddings far from the query, while the 59 others are short and close.
A control query without the tenant scope shows that trap (none of the target's nodes in the
global fulltext top-1,000 or vector top-40); `read/linked_read` must still return exactly the
single-tenant expectation: every matching turn and fact of the tenant when the pool is at least
its size, the tenant's own best when smaller, and the exact scan's top-k for dense seeds.

Written through the batched write statements with cheap random embeddings (no model loads).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import neo4j
import numpy as np
import pytest

from kgmem import Memory
from kgmem.bench.scale import copy_piece, read_template
from kgmem.errors import ConversationNotFound
from kgmem.ingest.writing.writer import BulkWriter
from kgmem.models import (
    EntityRecord,
    EventRecord,
    FactRecord,
    SessionRecord,
    TimeInterval,
    TurnRecord,
)
from kgmem.retrieve import generators as gen
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.plan import plan
from kgmem.store.schema import apply_schema

# slow: 60 synthetic tenants ingested once for the module (about a minute)
pytestmark = pytest.mark.slow

TENANTS = 60
TURNS = 20
QUESTION = "lighthouse keeper harbour"
WHEN = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
FILLER = (
    "we talked for a long while about the weather the trains the market prices the football "
    "the neighbours the garden the new bakery and a film nobody liked very much at all"
)


@dataclass
class Loaded:
    cids: list[str]
    target: str
    query: np.ndarray
    turns: dict[str, set[str]]
    facts: dict[str, set[str]]


def _dimension(memory: Memory) -> int:
    """The vector index dimension already in the store (no model load), else the embedder's."""
    for row in memory.store.read("read/list_vector_indexes"):
        if row["name"] == "turn_embedding" and row["dimensions"] is not None:
            dim = int(row["dimensions"])
            apply_schema(memory.store, dim)
            return dim
    memory.apply_schema()
    return memory.embedder.dimension


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def loaded(memory: Memory) -> Iterator[Loaded]:
    dim = _dimension(memory)
    rng = np.random.default_rng(15)
    query = _unit(rng.normal(size=dim))
    run = uuid.uuid4().hex[:8]
    cids = [f"it-scale-{run}-{n:02d}" for n in range(TENANTS)]
    target = cids[0]
    sessions, turns, facts = [], [], []
    turn_vectors, fact_vectors = [], []
    for n, cid in enumerate(cids):
        sessions.append(SessionRecord(conversation_id=cid, session=1, started_at=WHEN))
        # target: long texts, far from the query; the others: short texts, close to it
        spread = 0.12 if cid == target else 0.01
        for i in range(TURNS):
            text = f"{QUESTION} {FILLER} number {i}" if cid == target else f"{QUESTION} {n} {i}"
            turns.append(
                TurnRecord(
                    id=f"{cid}:D1:{i}",
                    conversation_id=cid,
                    session=1,
                    index=i,
                    dia_id=f"D1:{i}",
                    speaker="Ana" if i % 2 == 0 else "Ben",
                    text=text,
                    observed_at=WHEN + timedelta(minutes=i),
                )
            )
            facts.append(
                FactRecord(
                    id=f"{cid}:x:{i}",
                    conversation_id=cid,
                    subject="Ana",
                    relation="said",
                    object=str(i),
                    text=f"Ana said {text}",
                    source="extracted",
                    cites=(f"{cid}:D1:{i}",),
                    session=1,
                )
            )
            turn_vectors.append(_unit(query + rng.normal(0, spread, dim)))
            fact_vectors.append(_unit(query + rng.normal(0, spread, dim)))
    writer = BulkWriter(memory.store, batch_size=500)
    writer.sessions(sessions)
    writer.turns(turns, np.stack(turn_vectors))
    writer.facts(facts, np.stack(fact_vectors))
    memory.store.write("write/await_indexes")
    yield Loaded(
        cids=cids,
        target=target,
        query=query,
        turns={c: {t.id for t in turns if t.conversation_id == c} for c in cids},
        facts={c: {f.id for f in facts if f.conversation_id == c} for c in cids},
    )
    for cid in cids:
        with contextlib.suppress(ConversationNotFound):
            memory.forget(cid)


def _seeds(
    memory: Memory, loaded: Loaded, cid: str, *, turns: int = 0, facts: int = 0, bm25: int = 0
) -> gen.LinkedPools:
    generators = {
        name
        for name, k in (("dense_turns", turns), ("dense_facts", facts), ("fulltext", bm25))
        if k
    }
    budgets = {"dense_turns": turns, "dense_facts": facts, "fulltext": bm25}
    cfg = EngineConfig(generators=frozenset(generators), pools=budgets)
    qplan = plan(QUESTION).model_copy(update={"budgets": budgets})
    params = {"conversation_id": cid, "embedding": loaded.query.tolist()}
    scope = gen.conversation_scope(memory.store, cid, None)
    return gen.linked_read(memory.store, params, qplan, cfg, scope=scope)


def test_the_trap_is_real(driver: neo4j.Driver, loaded: Loaded) -> None:
    """Without the tenant scope, the target tenant falls out of every global cut."""
    with driver.session() as session:
        hits = session.run(
            "CALL db.index.fulltext.queryNodes('turn_text', $q, {limit: 1000}) YIELD node "
            "WHERE node.conversation_id STARTS WITH $run RETURN node.conversation_id AS c",
            q=f"text:({QUESTION})",
            run=loaded.target[:-2],
        ).value()
        nearest = session.run(
            "CYPHER 25 MATCH (t:Turn) SEARCH t IN (VECTOR INDEX turn_embedding FOR $q LIMIT 40) "
            "RETURN t.conversation_id AS c",
            q=loaded.query.tolist(),
        ).value()
    matching = sum(len(ids) for ids in loaded.turns.values())
    assert matching > 1000
    assert len(hits) == 1000 and loaded.target not in hits
    assert loaded.target not in nearest


@pytest.mark.parametrize("which", [0, 1, TENANTS - 1])
def test_every_matching_turn_and_fact_is_eligible(
    memory: Memory, loaded: Loaded, which: int
) -> None:
    """A pool at least the tenant's size returns all of its matching nodes and nothing else."""
    cid = loaded.cids[which]
    pools = _seeds(memory, loaded, cid, turns=40, facts=40, bm25=40)
    bm25 = pools.seeds["fulltext"]
    assert {c.turn_id for c in bm25 if c.fact_id is None} == loaded.turns[cid]
    assert {c.fact_id for c in bm25 if c.fact_id is not None} == loaded.facts[cid]
    assert {c.turn_id for c in pools.seeds["dense_turns"]} == loaded.turns[cid]
    assert {c.fact_id for c in pools.seeds["dense_facts"]} == loaded.facts[cid]


@pytest.mark.parametrize("which", [0, 1, TENANTS - 1])
def test_small_pools_hold_the_tenants_own_best(memory: Memory, loaded: Loaded, which: int) -> None:
    """With the shipped pool sizes (smaller than the tenant), every seed is the tenant's and the
    dense seeds are the exact scan's top-k."""
    cid = loaded.cids[which]
    pools = _seeds(memory, loaded, cid, turns=10, facts=10, bm25=10)
    bm25 = pools.seeds["fulltext"]
    turns = {c.turn_id for c in bm25 if c.fact_id is None}
    facts = {c.fact_id for c in bm25 if c.fact_id is not None}
    assert len(turns) == 10 and turns <= loaded.turns[cid]
    assert len(facts) == 10 and facts <= loaded.facts[cid]
    params = {"conversation_id": cid, "embedding": loaded.query.tolist()}
    exact = {c.turn_id for c in gen.dense_turns(memory.store, params, 10)}
    assert {c.turn_id for c in pools.seeds["dense_turns"]} == exact


@pytest.mark.parametrize("which", [0, TENANTS - 1])
def test_speaker_seeds_are_the_named_speakers_own_best(
    memory: Memory, loaded: Loaded, which: int
) -> None:
    """The speaker generator filters by tenant AND speaker inside the vector index: its seeds
    are the exact top-k among the named speaker's turns of this tenant, nobody else's."""
    cid = loaded.cids[which]
    cfg = EngineConfig(generators=frozenset({"speaker"}), pools={"speaker": 5})
    qplan = plan(QUESTION).model_copy(update={"budgets": {"speaker": 5}, "speakers": ("Ben",)})
    params = {"conversation_id": cid, "embedding": loaded.query.tolist()}
    scope = gen.conversation_scope(memory.store, cid, None)
    seeds = gen.linked_read(memory.store, params, qplan, cfg, scope=scope).seeds["speaker"]
    assert len(seeds) == 5 and {c.speaker for c in seeds} == {"Ben"}
    exact = [c.turn_id for c in gen.dense_turns(memory.store, params, TURNS) if c.speaker == "Ben"][
        :5
    ]
    assert {c.turn_id for c in seeds} == set(exact)
    off = qplan.model_copy(update={"speakers": ()})
    assert "speaker" not in gen.linked_read(memory.store, params, off, cfg, scope=scope).seeds


def test_the_engine_sees_the_whole_tenant(memory: Memory, loaded: Loaded) -> None:
    result = memory.engine().search(QUESTION, loaded.target, 10, embedding=loaded.query)
    assert result.candidates == TURNS
    assert {h.turn_id for h in result.hits} <= loaded.turns[loaded.target]


@pytest.fixture(scope="module")
def small_conversation(memory: Memory, loaded: Loaded) -> Iterator[str]:
    """Two sessions, six turns, entities, mentions, keyed facts with a SUPERSEDES pair and an
    event: every kind of node and edge a benchmark copy must carry (random embeddings)."""
    dim = loaded.query.shape[0]
    rng = np.random.default_rng(7)
    cid = f"it-scale-src-{uuid.uuid4().hex[:8]}"
    ana, lisbon = f"{cid}:e:person:ana", f"{cid}:e:place:lisbon"
    texts = ["I live in Berlin.", "Nice!", "Moving soon.", "I moved to Lisbon!", "Wow.", "Yes."]
    turns = [
        TurnRecord(
            id=f"{cid}:D{1 + i // 3}:{i % 3}",
            conversation_id=cid,
            session=1 + i // 3,
            index=i,
            dia_id=f"D{1 + i // 3}:{i % 3}",
            speaker="Ana" if i % 2 == 0 else "Ben",
            text=text,
            observed_at=WHEN + timedelta(days=30 * (i // 3), minutes=i),
        )
        for i, text in enumerate(texts)
    ]
    when = TimeInterval(start=WHEN, end=WHEN + timedelta(days=1), granularity="day")
    facts = [
        FactRecord(
            id=f"{cid}:x:{n}",
            conversation_id=cid,
            subject=ana,
            relation="live_in",
            object=obj,
            text=text,
            source="extracted",
            cites=(turns[turn].id,),
            about=((ana, "subject"),) + (((lisbon, "object"),) if obj == lisbon else ()),
            key=f"{ana}|residence",
            serial=turn * 1000,
            valid_from=turns[turn].observed_at,
            event_time=when,
            session=turns[turn].session,
        )
        for n, (turn, obj, text) in enumerate(
            [(0, "Berlin", "Ana lives in Berlin"), (3, lisbon, "Ana moved to Lisbon")]
        )
    ]
    writer = BulkWriter(memory.store, batch_size=500)
    writer.sessions(
        [SessionRecord(conversation_id=cid, session=s, started_at=turns[3 * s - 3].observed_at)
         for s in (1, 2)]
    )  # fmt: skip
    writer.turns(turns, _unit(rng.normal(size=(len(turns), dim))))
    writer.timeline([t.id for t in turns])
    writer.entities(
        [
            EntityRecord(id=ana, conversation_id=cid, name="Ana", type="person"),
            EntityRecord(id=lisbon, conversation_id=cid, name="Lisbon", type="place"),
        ]
    )
    writer.facts(facts, _unit(rng.normal(size=(len(facts), dim))))
    writer.mentions([(turns[3].id, lisbon), (turns[0].id, ana)])
    writer.supersedes([(facts[1].id, facts[0].id)])
    writer.events(
        [EventRecord(id=f"{cid}:ev:0", conversation_id=cid, name="moving", time=when,
                     fact_ids=tuple(f.id for f in facts))]
    )  # fmt: skip
    yield cid
    memory.forget(cid)


def test_a_benchmark_copy_is_faithful(memory: Memory, small_conversation: str) -> None:
    """`kgmem bench scale` copies a stored conversation node for node and edge for edge, with
    perturbed unit embeddings."""
    template = read_template(memory.store, small_conversation)
    clone = f"it-scale-copy-{uuid.uuid4().hex[:8]}"
    piece = copy_piece(
        template,
        0,
        len(template.turns),
        conversation_id=clone,
        rng=np.random.default_rng(0),
        noise=0.02,
    )
    try:
        piece.write(BulkWriter(memory.store, batch_size=2))
        assert memory.counts(clone) == memory.counts(small_conversation)
        again = read_template(memory.store, clone)
        for name in ("mentions", "supersedes", "events", "sessions", "facts"):
            assert len(getattr(again, name)) == len(getattr(template, name)), name
        assert again.supersedes == [
            (a.replace(small_conversation, clone), b.replace(small_conversation, clone))
            for a, b in template.supersedes
        ]
        cosines = np.sum(again.turn_vectors * template.turn_vectors, axis=1)
        assert np.allclose(np.linalg.norm(again.turn_vectors, axis=1), 1.0, atol=1e-4)
        assert cosines.min() > 0.8 and cosines.max() < 0.9999
    finally:
        memory.forget(clone)
