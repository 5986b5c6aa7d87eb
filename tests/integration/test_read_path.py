"""The read path and time-and-truth against a real Neo4j, on small hand-built conversations."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from kgmem import Memory, Settings
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.retrieve import generators as gen
from kgmem.retrieve.config import GENERATORS, EngineConfig
from kgmem.retrieve.plan import plan
from kgmem.retrieve.score import ScoreWeights, merge_candidates


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as m:
        yield m


@pytest.fixture
def cid(memory: Memory) -> Iterator[str]:
    name = f"rp-{uuid.uuid4().hex[:10]}"
    yield name
    with contextlib.suppress(Exception):
        memory.forget(name)


def chat(cid: str, *sessions: tuple[str, list[tuple[str, str]]]) -> dict[str, object]:
    return {
        "conversation_id": cid,
        "sessions": [
            {"started_at": when, "turns": [{"speaker": s, "text": t} for s, t in turns]}
            for when, turns in sessions
        ],
    }


def test_stateful_hop_reaches_evidence_sharing_no_words(memory: Memory, cid: str) -> None:
    """Hop 1 resolves the dog's entity; hop 2 is a structured query on that entity and finds a
    turn that shares no content word with the question."""
    memory.add_conversation(
        parse_chat_conversation(
            chat(
                cid,
                (
                    "2024-01-10T10:00:00Z",
                    [
                        ("Ana", "My sister Clara adopted a greyhound named Pixel."),
                        ("Ben", "That's lovely, I want a cat someday."),
                        ("Ana", "We also repainted the kitchen yellow."),
                    ],
                ),
                (
                    "2024-03-02T10:00:00Z",
                    [
                        ("Ben", "How was your week?"),
                        ("Ana", "Pixel took the championship ribbon in Lyon!"),
                        ("Ben", "The bakery downtown closed."),
                    ],
                ),
            )
        ),
        facts="extracted",
    )
    question = "What did the greyhound that Ana's sister adopted do?"
    tight = {name: 0 for name in GENERATORS} | {"dense_turns": 1, "dense_facts": 1, "hop": 8}
    with_hop = EngineConfig(
        generators=frozenset({"dense_turns", "dense_facts", "hop"}), pools=tight
    )
    without = with_hop.with_(generators=frozenset({"dense_turns", "dense_facts"}))
    target = f"{cid}:S2:2"

    assert target not in [h.turn_id for h in memory.search(question, cid, 5, config=without).hits]
    result = memory.search(question, cid, 5, config=with_hop)
    hit = next(h for h in result.hits if h.turn_id == target)
    assert "hop" in hit.trace["generators"]
    assert hit.trace["hop"]["entity_id"].endswith(":pixel")
    (hop,) = result.hops
    assert hop["hop"] == 2 and "Pixel" in hop["entities"] and hop["turns"] == [target]
    # the speaker is never a hop target (speakers link everything)
    assert "Ana" not in hop["entities"]


def test_expansion_caps_are_respected(memory: Memory, cid: str) -> None:
    turns = [
        ("Ana" if i % 2 else "Ben", f"Yesterday we talked about topic number {i} at the lake.")
        for i in range(30)
    ]
    memory.add_conversation(
        parse_chat_conversation(chat(cid, ("2024-05-08T12:00:00Z", turns))), facts="extracted"
    )
    query = "What did they talk about at the lake yesterday?"
    vector = memory.embedder.encode_one(query).tolist()
    params = {"conversation_id": cid, "embedding": vector}
    for cap in (1, 2, 3):
        pools = {name: 0 for name in GENERATORS} | {
            "dense_turns": 4,
            "dense_facts": 4,
            "events": cap,
        }
        cfg = EngineConfig(
            generators=frozenset({"dense_turns", "dense_facts", "events"}), pools=pools
        )
        qplan = plan(query).model_copy(update={"budgets": pools})
        scope = gen.conversation_scope(memory.store, params["conversation_id"], None)
        out = gen.linked_read(memory.store, params, qplan, cfg, scope=scope)
        seeds = merge_candidates(list(out.seeds.values()))
        extra = out.expanded
        assert {g for c in extra for g in c.generators} <= {"events"}
        # 30 turns of one dated happening and only 8 seeds: the events expansion has more turns
        # than any cap here, so it must fill the cap exactly (an empty expansion fails)
        assert len(extra) == cap, (cap, [c.turn_id for c in extra])
        assert not {c.turn_id for c in extra} & {c.turn_id for c in seeds}
        assert all(c.turn_id.startswith(cid + ":") for c in extra)


def test_supersession_berlin_to_lisbon_keeps_history(memory: Memory, cid: str) -> None:
    march = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    june = datetime(2024, 6, 1, 9, 0, tzinfo=UTC)
    memory.add_turns(cid, [{"speaker": "Ana", "text": "I live in Berlin.", "observed_at": march}])
    memory.add_turns(
        cid, [{"speaker": "Ana", "text": "I work at Kuchenhaus.", "observed_at": march}]
    )
    memory.add_turns(cid, [{"speaker": "Ana", "text": "I moved to Lisbon.", "observed_at": june}])
    memory.add_turns(
        cid,
        [
            {
                "speaker": "Ana",
                "text": "I also started a second job at Padaria Lisboa.",
                "observed_at": june,
            }
        ],
    )

    now = memory.current(cid, "Ana", "residence")
    assert now is not None and "Lisbon" in now["text"]
    history = memory.history(cid, "Ana", "live_in")
    assert [("Berlin" in h["text"], "Lisbon" in h["text"]) for h in history] == [
        (True, False),
        (False, True),
    ]
    old, new = history
    assert old["superseded_by"] == new["id"] and new["supersedes"] == [old["id"]]
    assert old["valid_to"] == june and new["valid_to"] is None
    # the second job adds information: it supersedes nothing
    employer = memory.history(cid, "Ana", "employer")
    assert len(employer) == 1 and "Kuchenhaus" in employer[0]["text"]
    assert memory.counts(cid)["turns"] == 4

    result = memory.search("Where does Ana live now?", cid, 3)
    assert result.hits[0].text == "I moved to Lisbon."
    decision = result.hits[0].trace["current"]
    assert decision["winner"] == new["id"] and decision["superseded"] == [old["id"]]
    # read/linked_read finds keyed facts from their subject entity: every keyed fact whose
    # subject is an entity is linked to it by ABOUT {role: 'subject'}
    linked, unlinked = memory.store.run_read(
        lambda tx: (
            tx.run(
                "MATCH (f:Fact {conversation_id: $c}) WHERE f.key IS NOT NULL "
                "AND EXISTS { MATCH (:Entity {id: f.subject}) } "
                "RETURN count(f) AS keyed, count(CASE WHEN NOT EXISTS { "
                "MATCH (f)-[:ABOUT {role: 'subject'}]->(:Entity {id: f.subject}) } "
                "THEN 1 END) AS bad",
                c=cid,
            )
            .single()
            .values()
        )
    )
    assert linked >= 3 and unlinked == 0


def test_add_turns_twice_with_same_id_stores_once(memory: Memory, cid: str) -> None:
    turn = {"id": "m1", "speaker": "Ana", "text": "Hello there, I adopted a cat."}
    memory.add_turns(cid, [turn])
    before = memory.counts(cid)
    memory.add_turns(cid, [turn])
    assert memory.counts(cid) == before


def test_hits_carry_resolved_event_time(memory: Memory, cid: str) -> None:
    memory.add_conversation(
        parse_chat_conversation(
            chat(cid, ("2023-05-08T13:56:00Z", [("Ana", "I went hiking yesterday with my kids.")]))
        ),
        facts="extracted",
    )
    (hit,) = memory.search("When did Ana go hiking?", cid, 1).hits
    assert hit.trace["event_time"]["start"].startswith("2023-05-07")
    assert hit.trace["event_time"]["granularity"] == "day"


def test_scorer_weights_zero_is_pure_cosine_order(memory: Memory, cid: str) -> None:
    memory.add_conversation(
        parse_chat_conversation(
            chat(
                cid,
                (
                    "2024-01-01T00:00:00Z",
                    [("A", "cats are great"), ("B", "dogs are loyal"), ("A", "I like tea")],
                ),
            )
        ),
        facts="none",
    )
    off = EngineConfig(
        generators=frozenset({"dense_turns"}), weights=ScoreWeights(fact=0, adjacent=0, time=0)
    )
    hits = memory.search("kittens", cid, 3, config=off).hits
    assert [h.score for h in hits] == sorted((h.terms["cosine"] for h in hits), reverse=True)
