"""Facts as attribute values (kgmem.ingest.extraction.attributes, kgmem.ingest.extraction.values),
the attribute a question asks for (kgmem.retrieve.asked) and answerability by it
(attribute_verdict). Sentences here are written for these tests; none comes from a cases file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kgmem.ingest.extraction.attributes import assign_attributes, attribute_key, read_fact
from kgmem.ingest.extraction.supersession import assign_keys, supersession_chain
from kgmem.ingest.extraction.value_statements import ValueExtractor
from kgmem.ingest.extraction.values import find_values, value_type
from kgmem.models import FactRecord, TurnRecord
from kgmem.retrieve.answerable import Support, attribute_verdict, stems
from kgmem.retrieve.asked import asked_attribute

CID = "t"
ME = f"{CID}:e:person:ana"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("ana.silva@mail.example.com", "email"),
        ("+44 20 7946 0958", "phone"),
        ("030 901820 44", "phone"),
        ("https://ana.example.net/cv", "url"),
        ("£1,250", "money"),
        ("3,400 dollars", "money"),
        ("the 22nd", "date"),
        ("March 3rd", "date"),
        ("2027-05-09", "date"),
        ("at 6:45 am", "time"),
        ("XK-5520-19", "number"),
        ("17", "number"),
        ("a quiet street", "other"),
    ],
)
def test_value_types_by_pattern(text: str, kind: str) -> None:
    assert value_type(text) == kind


def test_entity_type_types_a_value_no_pattern_matches() -> None:
    assert value_type("Northwind", entity_id=f"{CID}:e:organization:northwind") == "organization"
    assert value_type("Porto", entity_id=f"{CID}:e:place:porto") == "place"
    assert value_type("grip", entity_id=f"{CID}:e:concept:grip") == "other"


def test_find_values_prefers_the_specific_pattern() -> None:
    kinds = [v[0] for v in find_values("Mail ana@x.org or ring +1 555 010 9999 before 5pm")]
    assert kinds[:2] == ["email", "phone"]


def _fact(
    relation: str,
    obj: str,
    text: str,
    *,
    subject: str = ME,
    about: tuple[tuple[str, str], ...] = ((ME, "subject"),),
    serial: int = 0,
    day: int = 0,
    **extra: object,
) -> FactRecord:
    return FactRecord(
        id=f"{CID}:x:{serial}",
        conversation_id=CID,
        subject=subject,
        relation=relation,
        object=obj,
        text=text,
        source="extracted",
        cites=(f"{CID}:{serial}",),
        about=about,
        valid_from=T0 + timedelta(days=day),
        serial=serial,
        **extra,  # type: ignore[arg-type]
    )


def test_listed_predicate_with_a_typed_value() -> None:
    org = f"{CID}:e:organization:northwind"
    found = read_fact(_fact("work_for", org, "Ana works for Northwind"))
    assert found is not None
    assert (found.attribute, found.value, found.value_type, found.multiplicity) == (
        "employer",
        "Northwind",
        "organization",
        "single",
    )


def test_a_value_of_a_type_the_attribute_refuses_is_no_value_of_it() -> None:
    found = read_fact(_fact("work_for", "peace", "Ana works for peace"))
    assert found is not None and found.attribute != "employer" and found.multiplicity is None


def test_possessive_subject_names_the_attribute_and_its_holder() -> None:
    fact = _fact("be", "+44 20 7946 0958", "Ana's cell is +44 20 7946 0958", subject="Ana's cell")
    found = read_fact(fact)
    assert found is not None
    assert (found.attribute, found.value_type, found.holder) == ("phone", "phone", ME)


def test_copula_with_an_organisation_gives_the_employer() -> None:
    fact = _fact("be", "paramedic at Ridge County ambulance office", "Ana is a paramedic at …")
    found = read_fact(fact)
    assert found is not None and found.attribute == "employer"
    assert found.value == "Ridge County ambulance office"


def test_unlisted_predicate_gets_a_derived_attribute_that_keys_nothing() -> None:
    fact = _fact("water", f"{CID}:e:concept:tomato-plants", "Ana waters the tomato plants")
    found = read_fact(fact)
    assert found is not None and found.attribute == "water_plants" and not found.listed
    (keyed,) = assign_keys(assign_attributes([fact]))
    assert keyed.key is None


def test_similar_predicate_counts_as_the_listed_one() -> None:
    org = f"{CID}:e:organization:northwind"
    fact = _fact("toil_at", org, "Ana toils at Northwind")
    assert read_fact(fact).attribute != "employer"  # type: ignore[union-attr]
    found = read_fact(fact, lambda phrase: ["work at"] if phrase == "toil at" else [])
    assert found is not None and found.attribute == "employer"


def test_per_thing_attribute_keys_by_thing_and_a_later_value_supersedes() -> None:
    first = _fact(
        "be_on",
        "the 3rd",
        "Ana's dentist appointment is on the 3rd",
        subject="Ana's dentist appointment",
        serial=1,
    )
    second = _fact(
        "be_on",
        "the 9th",
        "Ana's dentist appointment is on the 9th",
        subject="Ana's dentist appointment",
        serial=2,
        day=1,
    )
    keyed = assign_keys(assign_attributes([first, second]))
    assert {f.key for f in keyed} == {f"{ME}|scheduled_date|appointment"}
    assert supersession_chain(keyed) == [(second.id, first.id)]


def test_multi_valued_attribute_accumulates() -> None:
    dog = _fact("adopt", f"{CID}:e:concept:dog", "Ana adopted a dog", serial=1)
    cat = _fact("adopt", f"{CID}:e:concept:cat", "Ana adopted a cat", serial=2, day=1)
    keyed = assign_keys(assign_attributes([dog, cat]))
    assert [attribute_key(f) for f in keyed] == [f"{ME}|pets|dog", f"{ME}|pets|cat"]
    assert supersession_chain(keyed) == []


def _turn(i: int, text: str, role: str | None = "user") -> TurnRecord:
    return TurnRecord(
        id=f"{CID}:{i}",
        conversation_id=CID,
        session=1,
        index=i,
        dia_id=str(i),
        speaker="Ana" if role != "assistant" else "assistant",
        text=text,
        observed_at=T0 + timedelta(days=i),
        role=role,  # type: ignore[arg-type]
    )


def test_value_extractor_reads_values_by_form_and_skips_a_rejected_one() -> None:
    turns = [
        _turn(0, "Work stuff aside: my cell is 030 901820 44."),
        _turn(1, "Update: the dentist appointment is on the 9th, not the 3rd."),
        _turn(2, "Send the receipts to ana.silva@mail.example.com please."),
        _turn(3, "Her number is 030 111222 33.", role="assistant"),
    ]
    out = ValueExtractor().extract(CID, turns, ["Ana", "assistant"])
    got = [(f.cites[0], f.attribute, f.value, f.value_type) for f in out.facts]
    assert got == [
        (f"{CID}:0", "phone", "030 901820 44", "phone"),
        (f"{CID}:1", "scheduled_date", "the 9th", "date"),
        (f"{CID}:2", "email", "ana.silva@mail.example.com", "email"),
    ]


def test_value_extractor_reads_a_home_with_a_place_and_a_habitual_value() -> None:
    turns = [
        _turn(0, "Our little house in Porto has a garden."),
        _turn(1, "Oat latte every day before work."),
    ]
    out = ValueExtractor().extract(CID, turns, ["Ana"])
    assert [(f.attribute, f.value) for f in out.facts] == [
        ("residence", "Porto"),
        ("drink", "latte"),
    ]


def test_value_extractor_reads_no_code_block_or_table() -> None:
    turns = [
        _turn(
            0,
            "Here's my config:\n```python\n[user]\n    email: 'jane@example.com'\n"
            "url = 'https://api.example.org/v1'\n```\n| contact | ana@x.example.com |\n"
            "You can reach me at ana.silva@mail.example.com.",
        ),
    ]
    out = ValueExtractor().extract(CID, turns, ["Ana"])
    assert [(f.attribute, f.value) for f in out.facts] == [("email", "ana.silva@mail.example.com")]


@pytest.mark.parametrize(
    ("question", "attribute", "thing", "explicit"),
    [
        ("What is the name of Ana's parrot?", "name", "parrot", True),
        ("What is my son's name?", "name", "son", True),
        ("What breed is my cat?", "breed", "cat", True),
        ("What is Ana's cell number?", "phone", None, True),
        ("When is my dentist appointment?", "scheduled_date", "dentist-appointment", True),
        ("Which camera does Ana own?", "owned", "camera", True),
        ("What does Ana do for work?", "employer", None, False),
    ],
)
def test_asked_attribute(question: str, attribute: str, thing: str | None, explicit: bool) -> None:
    asked = asked_attribute(question)
    assert asked is not None
    assert (asked.attribute, asked.thing, asked.explicit) == (attribute, thing, explicit)


def _support(*facts: tuple[str, str | None, str | None]) -> Support:
    rows = [
        (ME, frozenset(stems(text.split())), attribute, thing) for text, attribute, thing in facts
    ]
    return Support(
        tuple((s, w) for s, w, _, _ in rows),
        frozenset().union(*(w for _, w, _, _ in rows)) if rows else frozenset(),
        tuple((s, a, t) for s, _, a, t in rows),
    )


def test_verdict_names_the_missing_attribute_of_a_known_thing() -> None:
    support = _support(("Ana adopted a parrot", "pets", None))
    verdict = attribute_verdict(
        asked_attribute("What is the name of Ana's parrot?"), [(ME, "Ana")], support
    )
    assert verdict is not None and not verdict.answerable
    assert verdict.reason == "no name of Ana's parrot is in memory"
    named = _support(
        ("Ana adopted a parrot", "pets", None), ("Ana's parrot is called Kiwi", "name", "parrot")
    )
    ok = attribute_verdict(
        asked_attribute("What is the name of Ana's parrot?"), [(ME, "Ana")], named
    )
    assert ok is not None and ok.answerable


def test_verdict_names_a_thing_nobody_mentioned() -> None:
    support = _support(("Ana has two sons", "child", None))
    verdict = attribute_verdict(
        asked_attribute("What is my daughter's name?"), [(ME, "Ana")], support
    )
    assert verdict is not None and not verdict.answerable
    assert verdict.reason == "no daughter of Ana is in memory"


def test_a_job_title_answers_a_work_question_without_its_words() -> None:
    support = _support(("Ana is a welder", "occupation", None))
    verdict = attribute_verdict(
        asked_attribute("What does Ana do for work?"), [(ME, "Ana")], support
    )
    assert verdict is not None and verdict.answerable


def test_an_explicitly_asked_typed_value_is_marked_as_the_answer() -> None:
    from kgmem.retrieve.question import read_question
    from kgmem.retrieve.resolve import mark_answers

    decisions = [{"key": f"{ME}|email"}, {"key": f"{ME}|residence"}]
    mark_answers(decisions, read_question("What is Ana's email address?"))
    assert [d.get("answer", False) for d in decisions] == [True, False]
    unmarked = [{"key": f"{ME}|residence"}]
    mark_answers(unmarked, read_question("Where does Ana live?"))
    assert "answer" not in unmarked[0]


def test_an_entity_inside_the_object_that_does_not_head_it_is_no_value() -> None:
    pia = f"{CID}:e:person:pia"
    fact = _fact(
        "enjoy",
        "Pia's garden parties",
        "Ana enjoys Pia's garden parties",
        about=((ME, "subject"), (pia, "object")),
    )
    found = read_fact(fact)
    assert found is None or found.attribute != "likes" or found.value != "Pia"


def test_a_possessive_subject_of_an_action_verb_names_no_attribute() -> None:
    fact = _fact(
        "inspire",
        f"{CID}:e:person:pia",
        "Ana's career inspires Pia",
        subject="Ana's career",
        about=((ME, "subject"),),
    )
    found = read_fact(fact)
    assert found is None or found.multiplicity is None


def test_a_quality_is_no_value_of_a_possessed_thing() -> None:
    fact = _fact(
        "be",
        "patient and generous",
        "Ana's project has been patient and generous",
        subject="Ana's project",
        about=((ME, "subject"),),
    )
    found = read_fact(fact)
    assert found is None or found.attribute != "assignment"


def test_a_value_that_only_names_the_attribute_is_no_value() -> None:
    found = read_fact(_fact("work_on", "a project", "Ana worked on a project for weeks"))
    assert found is None or found.multiplicity is None


def test_a_shared_predicate_needs_a_named_organisation() -> None:
    group = f"{CID}:e:concept:chess-group"
    found = read_fact(_fact("join", group, "Ana joined a chess group"))
    assert found is not None and found.attribute != "employer"
    named = f"{CID}:e:organization:fabrikam"
    found = read_fact(_fact("join", named, "Ana joined Fabrikam"))
    assert found is not None and found.attribute == "employer"


def test_a_gerund_phrase_is_not_an_organisation() -> None:
    found = read_fact(
        _fact("work_on", "restoring an old bakery", "Ana works on restoring an old bakery")
    )
    assert found is None or found.value_type != "organization"


def test_a_title_the_ner_typed_as_a_name_is_a_work_by_evidence_or_by_type() -> None:
    person = f"{CID}:e:person:dune"
    found = read_fact(_fact("pick_up", person, "Ana has picked up Dune, forty pages in"))
    assert found is not None and (found.attribute, found.value_type) == (
        "currently_reading",
        "work",
    )
    quoted = read_fact(_fact("love", person, 'Ana loves "Dune"'))
    assert quoted is not None and quoted.value_type == "work"
    org = f"{CID}:e:organization:emma"
    found = read_fact(_fact("be_through", org, "Ana is halfway through Emma"))
    assert found is not None and (found.attribute, found.value_type) == (
        "currently_reading",
        "work",
    )
    # a person picked up with no sign of a book stays a person, and no title
    found = read_fact(_fact("pick_up", person, "Ana picked up Dune from the station"))
    assert found is None or found.attribute != "currently_reading"


def test_an_unlisted_verb_with_a_distinctive_value_type_names_the_attribute() -> None:
    work = f"{CID}:e:work:the-dispossessed"
    found = read_fact(_fact("start", work, "Ana is starting The Dispossessed tonight"))
    assert found is not None and (found.attribute, found.multiplicity) == (
        "currently_reading",
        "single",
    )
    # a light verb says too little
    found = read_fact(_fact("have", work, "Ana has The Dispossessed"))
    assert found is None or found.attribute != "currently_reading"


def test_an_acronym_modifier_does_not_make_a_kind_of_group_a_name() -> None:
    group = f"{CID}:e:concept:lgbtq-choir"
    found = read_fact(_fact("join", group, "Ana just joined a new LGBTQ choir"))
    assert found is None or found.attribute != "employer"


def test_an_article_before_a_preposition_does_not_unname_the_organisation() -> None:
    found = read_fact(
        _fact("be", "nurse at St. Anne's hospital", "Ana is a nurse at St. Anne's hospital")
    )
    assert found is not None and (found.attribute, found.value) == (
        "employer",
        "St. Anne's hospital",
    )
