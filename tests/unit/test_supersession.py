"""Supersession keys, chains and current values for single-valued relations."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.ingest.extraction.supersession import (
    SINGLE_VALUED,
    assign_keys,
    current,
    relation_family,
    supersession_chain,
    supersession_key,
)
from kgmem.models import FactRecord


def fact(
    fid: str,
    relation: str,
    obj: str,
    text: str,
    serial: int,
    *,
    subject: str = "Caroline",
    valid_from: datetime | None = None,
    key: str | None = None,
    conversation_id: str = "conv-1",
) -> FactRecord:
    return FactRecord(
        id=fid,
        conversation_id=conversation_id,
        subject=subject,
        relation=relation,
        object=obj,
        text=text,
        source="extracted",
        serial=serial,
        valid_from=valid_from,
        key=key,
    )


BERLIN = fact("f-berlin", "live_in", "Berlin", "I live in Berlin", 1)
LISBON = fact("f-lisbon", "move_to", "Lisbon", "I moved to Lisbon", 2)


def test_moving_supersedes_where_someone_lives() -> None:
    keyed = assign_keys([BERLIN, LISBON])
    assert [f.key for f in keyed] == ["caroline|residence", "caroline|residence"]
    assert supersession_chain(keyed) == [("f-lisbon", "f-berlin")]
    assert current(keyed, "caroline|residence") == keyed[1]
    assert current(keyed, "caroline|employer") is None


def test_additive_job_does_not_supersede_the_first() -> None:
    first = fact("f-acme", "work_at", "Acme", "I work at Acme", 1)
    second = fact("f-beta", "work_at", "Beta", "I also started a second job at Beta", 2)
    keyed = assign_keys([first, second])
    assert keyed[0].key == "caroline|employer"
    assert keyed[1].key is None
    assert supersession_chain(keyed) == []
    assert current(keyed, "caroline|employer") == keyed[0]


@pytest.mark.parametrize(
    "text",
    [
        "I got another job at Beta",
        "I work at Beta too.",
        "I work at Beta as well",
        "I used to work at Beta",
    ],
)
def test_additive_and_retrospective_markers_give_no_key(text: str) -> None:
    assert supersession_key(fact("f", "work_at", "Beta", text, 3)) is None


def test_no_longer_is_a_retraction_since_issue_11() -> None:
    """Deliberate change: "no longer" / "not anymore" end the old value (they had no key)."""
    assert supersession_key(fact("f", "work_at", "Beta", "I no longer work at Beta", 3)) == (
        "caroline|employer"
    )


def test_multi_valued_relations_never_supersede() -> None:
    likes = [
        fact(f"f{i}", "like", thing, f"I like {thing}", i)
        for i, thing in enumerate(("jazz", "tea", "art"))
    ]
    keyed = assign_keys(likes)
    assert len({f.key for f in keyed}) == 3  # one key per liked thing (tea: usual drink)
    assert supersession_chain(keyed) == []


def test_each_fact_supersedes_only_its_immediate_predecessor() -> None:
    porto = fact("f-porto", "relocate_to", "Porto", "I relocated to Porto", 3)
    assert supersession_chain(assign_keys([porto, BERLIN, LISBON])) == [
        ("f-lisbon", "f-berlin"),
        ("f-porto", "f-lisbon"),
    ]


def test_retrospective_fact_does_not_overwrite_newer_value() -> None:
    old = fact("f-old", "live_in", "Berlin", "I used to live in Berlin", 3)
    keyed = assign_keys([BERLIN, LISBON, old])
    assert current(keyed, "caroline|residence") == keyed[1]


def test_ties_break_on_valid_from_then_id_whatever_the_input_order() -> None:
    t1 = datetime(2023, 5, 8, tzinfo=UTC)
    t2 = datetime(2023, 5, 9, tzinfo=UTC)
    a = fact("a", "live_in", "X", "I live in X", 5, valid_from=t2)
    b = fact("b", "live_in", "Y", "I live in Y", 5, valid_from=t1)
    c = fact("c", "live_in", "Z", "I live in Z", 5, valid_from=t2)
    for order in ([a, b, c], [c, b, a], [b, c, a]):
        keyed = assign_keys(order)
        assert supersession_chain(keyed) == [("a", "b"), ("c", "a")]
        assert current(keyed, "caroline|residence") is not None
        assert current(keyed, "caroline|residence").id == "c"  # type: ignore[union-attr]


def test_serial_outranks_valid_from() -> None:
    early = datetime(2020, 1, 1, tzinfo=UTC)
    late = datetime(2024, 1, 1, tzinfo=UTC)
    newer = fact("n", "work_as", "nurse", "I work as a nurse", 9, valid_from=early)
    older = fact("o", "work_as", "banker", "I work as a banker", 2, valid_from=late)
    assert supersession_chain(assign_keys([newer, older])) == [("n", "o")]


def test_preset_keys_are_kept_and_used() -> None:
    stored = fact("s1", "", "", "stored fact", 1, subject="", key="caroline|residence")
    keyed = assign_keys([stored, LISBON])
    assert keyed[0].key == "caroline|residence"
    assert supersession_chain(keyed) == [("f-lisbon", "s1")]


def test_assign_keys_returns_copies() -> None:
    keyed = assign_keys([BERLIN])
    assert BERLIN.key is None and keyed[0].key == "caroline|residence"
    assert keyed[0] is not BERLIN


def test_conversations_do_not_chain() -> None:
    other = fact("f-x", "move_to", "Oslo", "I moved to Oslo", 9, conversation_id="conv-2")
    assert supersession_chain(assign_keys([BERLIN, other])) == []


@pytest.mark.parametrize(
    ("relation", "family"),
    [
        ("live_in", "residence"),
        ("Move To", "residence"),
        ("work-at", "employer"),
        ("work_as", "occupation"),
        ("be_married_to", "relationship_status"),
        ("date", "relationship_status"),
        ("favourite_book", "favorite_book"),
        ("favorite_color", "favorite_color"),
        ("like", None),
        ("visit", None),
        ("have_hobby", None),
        ("be", None),
        ("go_to", None),
    ],
)
def test_relation_family(relation: str, family: str | None) -> None:
    assert relation_family(relation) == family


def test_copula_with_a_status_word_is_relationship_status() -> None:
    assert (
        supersession_key(fact("f", "be", "single", "I am single", 1))
        == "caroline|relationship_status"
    )
    assert supersession_key(fact("f", "be", "teacher", "I am a teacher", 1)) is None


def test_single_valued_is_read_only() -> None:
    with pytest.raises(TypeError):
        SINGLE_VALUED["like"] = "taste"  # type: ignore[index]


def test_losing_a_job_supersedes_the_employer() -> None:
    job = fact("f-job", "work_at", "Door Dash", "Gina works at Door Dash", 1, subject="gina")
    lost = fact("f-lost", "lose", "conv-30:e:other:job", "Gina lost Gina's job", 2, subject="gina")
    keyed = assign_keys([job, lost])
    assert [f.key for f in keyed] == ["gina|employer", "gina|employer"]
    assert supersession_chain(keyed) == [("f-lost", "f-job")]
    assert supersession_key(fact("f", "lose", "the game", "Gina lost the game", 3)) is None


# Supersession precision: a restatement is not a change (kinds from a dev-split audit).


def _xf(fid: str, serial: int, relation: str, obj: str, text: str) -> FactRecord:
    return FactRecord(
        id=fid,
        conversation_id="c",
        subject="c:e:person:gina",
        relation=relation,
        object=obj,
        text=text,
        source="extracted",
        cites=(f"c:D1:{serial}",),
        serial=serial,
    )


def test_same_event_told_twice_supersedes_nothing() -> None:
    from kgmem.ingest.extraction.supersession import supersession_chain

    a = _xf("a", 1, "lose", "c:e:concept:job", "Gina lost Gina's job at Door Dash")
    b = _xf("b", 2, "lose", "c:e:concept:job", "Gina lost Gina's job")
    assert supersession_chain([a, b]) == []


def test_continuation_cue_confirms_and_the_next_change_ends_the_whole_run() -> None:
    from kgmem.ingest.extraction.supersession import supersession_chain

    a = _xf("a", 1, "work_on", "c:e:concept:dance-studio", "Jon is working on the dance studio")
    b = _xf("b", 2, "work_on", "c:e:concept:biz", "Jon is still working on Jon's biz")
    c = _xf("c", 3, "work_on", "c:e:concept:bakery", "Jon is working on a bakery now")
    assert supersession_chain([a, b, c]) == [("c", "a"), ("c", "b")]


def test_change_verb_naming_the_same_thing_is_still_a_change() -> None:
    from kgmem.ingest.extraction.supersession import supersession_chain

    a = _xf("a", 1, "lose", "c:e:concept:job", "Gina lost Gina's job")
    b = _xf("b", 2, "quit", "c:e:concept:job", "Gina quit Gina's job")
    assert supersession_chain([a, b]) == [("b", "a")]


def test_numbered_statements_always_chain() -> None:
    from kgmem.ingest.extraction.supersession import supersession_chain

    a = _xf("a", 1, "work_at", "Acme", "Gina works at Acme").model_copy(update={"source": "manual"})
    b = _xf("b", 2, "work_at", "Acme", "Gina works at Acme").model_copy(update={"source": "manual"})
    lexicon = {"key": "c:e:person:gina|work_location"}  # a relation-lexicon statement's key
    c = _xf("c", 3, "work_location", "c:e:place:paris", "Gina works in Paris")
    d = _xf("d", 4, "work_location", "c:e:place:paris", "Gina works in Paris")
    assert supersession_chain([c.model_copy(update=lexicon), d.model_copy(update=lexicon)]) == [
        ("d", "c")
    ]
    assert supersession_chain([a, b]) == [("b", "a")]


def test_the_same_value_twice_on_one_key_is_no_change() -> None:
    """A clause fact and a value-form fact of one turn giving one value ("Leuven" twice), then
    a real change: the change supersedes both, and neither supersedes the other."""
    key = "Caroline|residence"
    clause = fact("f-1", "move_to", "Leuven", "I moved to Leuven", 1, key=key)
    clause = clause.model_copy(update={"value": "Leuven", "attribute": "residence"})
    form = fact("f-2", "residence", "leuven", "I moved to Leuven", 2, key=key)
    form = form.model_copy(update={"value": " leuven ", "attribute": "residence"})
    ghent = fact("f-3", "move_to", "Ghent", "We moved to Ghent", 3, key=key)
    ghent = ghent.model_copy(update={"value": "Ghent", "attribute": "residence"})
    assert sorted(supersession_chain([clause, form, ghent])) == [("f-3", "f-1"), ("f-3", "f-2")]
    retracted = form.model_copy(update={"id": "f-4", "serial": 4, "modality": "negated"})
    assert ("f-4", "f-3") in supersession_chain([clause, ghent, retracted])
