"""Pure logic of one person across an owner's threads (kgmem.ingest.writing.threads)."""

from __future__ import annotations

from datetime import UTC, datetime

from kgmem.ingest.extraction.extract import Extraction
from kgmem.ingest.writing.threads import (
    conversation_of,
    drop_document_persons,
    owner_links,
    owner_turns,
    rescope,
)
from kgmem.models import EntityRecord, FactRecord, TurnRecord
from kgmem.store.tenant import entity_scope


def _fact(fid: str, cid: str, subject: str, obj: str, serial: int, day: int) -> FactRecord:
    return FactRecord(
        id=fid,
        conversation_id=cid,
        subject=subject,
        relation="live_in",
        object=obj,
        text=f"I live in {obj.rsplit(':', 1)[-1]}.",
        source="extracted",
        serial=serial,
        valid_from=datetime(2024, 1, day, tzinfo=UTC),
        key=f"{subject}|residence",
    )


def _turn(cid: str, index: int, day: int) -> TurnRecord:
    return TurnRecord(
        id=f"{cid}:t{index}",
        conversation_id=cid,
        session=1,
        index=index,
        dia_id=f"t{index}",
        speaker="user",
        text="x",
        observed_at=datetime(2024, 1, day, tzinfo=UTC),
        role="user",
    )


def test_entity_scope_is_the_owner_or_the_conversation() -> None:
    assert entity_scope("thread-3", "alice") == "owner:alice"
    assert entity_scope("conv-26", None) == "conv-26"
    assert conversation_of("thread-3:t7") == "thread-3"


def test_rescope_moves_entity_ids_into_the_owner_scope_and_keeps_fact_ids() -> None:
    user, lisbon = "t3:e:person:user", "t3:e:place:lisbon"
    extraction = Extraction(
        facts=[
            FactRecord(
                id="t3:x:t0:0",
                conversation_id="t3",
                subject=user,
                relation="live_in",
                object=lisbon,
                text="user lives in Lisbon",
                source="extracted",
                about=((user, "subject"), (lisbon, "object")),
                key=f"{user}|residence",
            )
        ],
        entities=[
            EntityRecord(id=user, conversation_id="t3", name="user", type="person"),
            EntityRecord(id=lisbon, conversation_id="t3", name="Lisbon", type="place"),
        ],
        mentions=[("t3:t0", lisbon)],
    )
    moved = rescope(extraction, "t3", "alice")
    (fact,) = moved.facts
    assert fact.id == "t3:x:t0:0" and fact.conversation_id == "t3"
    assert fact.subject == "owner:alice:e:person:user"
    assert fact.object == "owner:alice:e:place:lisbon"
    assert fact.key == "owner:alice:e:person:user|residence"
    assert [e for e, _ in fact.about] == [fact.subject, fact.object]
    assert {(e.id, e.owner, e.conversation_id) for e in moved.entities} == {
        ("owner:alice:e:person:user", "alice", "t3"),
        ("owner:alice:e:place:lisbon", "alice", "t3"),
    }
    assert moved.mentions == [("t3:t0", "owner:alice:e:place:lisbon")]
    assert rescope(extraction, "t3", None) is extraction  # no owner: exactly as before


def test_owner_links_order_threads_by_observed_time_not_serial() -> None:
    user = "owner:alice:e:person:user"
    # thread b's fact has the lower serial but was observed later: it is the newer value
    berlin = _fact("a:x:t9:0", "a", user, "owner:alice:e:place:berlin", serial=9000, day=1)
    lisbon = _fact("b:x:t0:0", "b", user, "owner:alice:e:place:lisbon", serial=0, day=20)
    links = owner_links([lisbon, berlin], "alice")
    assert [(link[0], link[1]) for link in links] == [(lisbon.id, berlin.id)]


def test_owner_turns_interleave_threads_and_remember_own_positions() -> None:
    own = [_turn("b", 0, 10), _turn("b", 1, 12)]
    others = [_turn("a", 0, 1), _turn("a", 1, 11)]
    merged, local = owner_turns(own, others)
    assert [t.id for t in merged] == ["a:t0", "b:t0", "a:t1", "b:t1"]
    assert [t.index for t in merged] == [0, 1, 2, 3]
    assert local == {"b:t0": 0, "b:t1": 1}


def test_a_document_name_is_no_person() -> None:
    doc = "d:e:person:handbook-md"
    extraction = Extraction(
        facts=[
            FactRecord(
                id="d:x:c0:0",
                conversation_id="d",
                subject=doc,
                relation="recommend",
                object="early booking",
                text="handbook.md recommends early booking",
                source="extracted",
                about=((doc, "subject"),),
            )
        ],
        entities=[EntityRecord(id=doc, conversation_id="d", name="handbook.md", type="person")],
        mentions=[("d:c0", doc)],
    )
    out = drop_document_persons(extraction, ["handbook.md"])
    assert out.entities == [] and out.mentions == []
    assert out.facts[0].subject == "handbook.md" and out.facts[0].about == ()
