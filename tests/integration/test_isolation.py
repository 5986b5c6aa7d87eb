"""Tenant isolation: a search scoped to one conversation never returns or traces another's nodes.

Three conversations are loaded, two of them with *identical* text (the hardest case: every
cosine, fulltext score and entity name ties across tenants). Hypothesis draws queries, the
target conversation, the engine (cosine, linked with the shipped generators, linked with every
generator) and k; every hit's turn id, and every id anywhere in its trace or in the hop log,
must belong to the target. A second test shows that an id clash between two tenants is refused
instead of moving one tenant's turn into the other.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import neo4j
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem import Memory
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, MalformedInput, StoreError
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.ingest.loaders.locomo import parse_locomo_sample
from kgmem.models import ConversationRecord, SessionRecord, TurnRecord
from kgmem.retrieve.config import GENERATORS, EngineConfig
from tests.strategies import DATA, FUZZ_EXAMPLES, nasty_text, record_figure

WHEN = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)
QUESTIONS = (
    "Where does Ana live now?",
    "When did Caroline go to the LGBTQ support group?",
    "What is the name of Bo's puppy?",
    "What did Ana give Clara in June 2024?",
    "Who went hiking in Sintra yesterday?",
    "What did Melanie do last week with her kids?",
    "Pixel",
    "Clara",
)


class Tenants:
    """The loaded conversations and every node id each one holds."""

    def __init__(self, cids: list[str], ids: dict[str, set[str]]) -> None:
        self.cids = cids
        self.ids = ids
        self.searches = 0

    def foreign(self, cid: str) -> set[str]:
        return set().union(*(ids for other, ids in self.ids.items() if other != cid))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _strings(v)


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as mem:
        mem.apply_schema()
        yield mem


@pytest.fixture(scope="module")
def tenants(memory: Memory, driver: neo4j.Driver) -> Iterator[Tenants]:
    run = uuid.uuid4().hex[:6]
    chat = json.loads((DATA / "small_chat.json").read_text(encoding="utf-8"))
    [sample] = json.loads((DATA / "small_locomo.json").read_text(encoding="utf-8"))
    cids = [f"iso-{run}-a", f"iso-{run}-twin", f"iso-{run}-locomo"]
    for cid in cids[:2]:
        memory.add_conversation(
            parse_chat_conversation({**chat, "conversation_id": cid}), facts="extracted"
        )
    memory.add_conversation(parse_locomo_sample({**sample, "sample_id": cids[2]}), facts="both")
    ids: dict[str, set[str]] = {}
    with driver.session() as session:
        for cid in cids:
            ids[cid] = set(
                session.run("MATCH (n {conversation_id: $cid}) RETURN n.id", cid=cid).value()
            )
    assert all(ids.values())
    state = Tenants(cids, ids)
    yield state
    record_figure("isolation_searches", state.searches)
    for cid in cids:
        with contextlib.suppress(ConversationNotFound):
            memory.forget(cid)


_ENGINES = ("cosine", "linked", "linked-all")


@settings(max_examples=max(20, FUZZ_EXAMPLES // 2))
@given(
    query=st.one_of(st.sampled_from(QUESTIONS), nasty_text),
    which=st.integers(0, 2),
    engine=st.sampled_from(_ENGINES),
    k=st.integers(1, 15),
)
def test_search_never_crosses_tenants(
    memory: Memory, tenants: Tenants, query: str, which: int, engine: str, k: int
) -> None:
    cid = tenants.cids[which]
    generators = GENERATORS if engine == "linked-all" else None
    config = EngineConfig.from_settings(
        memory.settings, engine="cosine" if engine == "cosine" else "linked", generators=generators
    )
    result = memory.search(query, cid, k=k, config=config)
    own, foreign = tenants.ids[cid], tenants.foreign(cid)
    assert result.conversation_id == cid and len(result.hits) <= k
    for hit in result.hits:
        assert hit.turn_id in own, (hit.turn_id, cid)
        leaked = set(_strings(hit.trace)) & foreign
        assert not leaked, leaked
    assert not set(_strings(result.hops)) & foreign
    assert not set(_strings(result.plan)) & foreign
    tenants.searches += 1


def test_twin_tenants_get_their_own_copies(memory: Memory, tenants: Tenants) -> None:
    a, twin = tenants.cids[0], tenants.cids[1]
    for cid in (a, twin):
        hits = memory.search("Where does Ana live now?", cid, k=10).hits
        assert len(hits) == 10 and all(h.turn_id.startswith(cid + ":") for h in hits)
    assert len(tenants.ids[a]) == len(tenants.ids[twin])


def test_id_clash_between_tenants_is_refused(memory: Memory, driver: neo4j.Driver) -> None:
    """Turn ``y:1`` of conversation ``x`` and turn ``1`` of conversation ``x:y`` would both be
    ``x:y:1``. The loaders and `Memory.add_turns` refuse ``:`` in conversation ids; the writer
    refuses the clash for callers that build records themselves (here a conversation whose id
    has no ``:``, so only the writer's constraint can stop it), and the first tenant's turn
    stays where it was."""
    x = f"iso-clash-{uuid.uuid4().hex[:6]}"
    other = f"{x}-other"
    try:
        memory.add_turns(
            x,
            [{"id": "y:1", "speaker": "Ana", "text": "the first tenant's turn"}],
            observed_at=WHEN,
        )
        with pytest.raises(MalformedInput, match="must not contain ':'"):
            memory.add_turns(
                f"{x}:y", [{"id": "1", "speaker": "Eve", "text": "overwrite"}], observed_at=WHEN
            )
        clash = ConversationRecord(
            conversation_id=other,
            speakers=("Eve",),
            sessions=(SessionRecord(conversation_id=other, session=1, started_at=WHEN),),
            turns=(
                TurnRecord(
                    id=f"{x}:y:1",
                    conversation_id=other,
                    session=1,
                    index=0,
                    dia_id="1",
                    speaker="Eve",
                    text="overwrite",
                    observed_at=WHEN,
                ),
            ),
        )
        with pytest.raises(StoreError, match="ConstraintValidationFailed"):
            memory.add_conversation(clash, facts="none")
        with driver.session() as session:
            row = session.run(
                "MATCH (t:Turn {id: $id}) RETURN t.conversation_id AS cid, t.text AS text",
                id=f"{x}:y:1",
            ).single()
        assert row is not None and row["cid"] == x and row["text"] == "the first tenant's turn"
        with pytest.raises(MalformedInput, match="must not contain ':'"):
            parse_chat_conversation(
                {
                    "conversation_id": f"{x}:y",
                    "sessions": [
                        {"started_at": "2024-01-01", "turns": [{"speaker": "E", "text": "t"}]}
                    ],
                }
            )
    finally:
        for cid in (x, other):
            with contextlib.suppress(ConversationNotFound):
                memory.forget(cid)
