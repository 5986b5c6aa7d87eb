"""Current truth, pure logic: modality, supersession families and cues, current/past resolution,
the planner's state and question-time rules, answerability (real spaCy, no server)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kgmem.ingest.extraction.extract import SpacyExtractor
from kgmem.ingest.extraction.supersession import (
    assign_keys,
    change_cue,
    classify,
    supersession_key,
    supersession_links,
)
from kgmem.models import FactRecord, Hit, TurnRecord
from kgmem.retrieve.answerable import Support, judge, stems
from kgmem.retrieve.names import EntityIndex
from kgmem.retrieve.plan import plan
from kgmem.retrieve.question import Question, answer_terms, letter_words, read_question
from kgmem.retrieve.resolve import order_hits, relevant_rows, resolve_state

AT = datetime(2025, 9, 15, 18, 0, tzinfo=UTC)  # a Monday


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


def _facts(extractor: SpacyExtractor, text: str, speaker: str = "Bram") -> list[FactRecord]:
    turn = TurnRecord(
        id="c:t1", conversation_id="c", session=1, index=0, dia_id="t1",
        speaker=speaker, text=text, observed_at=AT,
    )  # fmt: skip
    return assign_keys(extractor.extract("c", [turn], [speaker, "Other"]).facts)


@pytest.mark.parametrize(
    ("text", "modality"),
    [
        ("If I get the grant, I'd buy a cargo bike.", "hypothetical"),
        ("I could sell my car one day.", "hypothetical"),
        ("Maybe I will adopt a cat.", "hypothetical"),
        ("I'm going to look at apartments in Ghent next week.", "planned"),
        ("I will start a pottery course in October.", "planned"),
        ("I'm planning to move to Oslo.", "planned"),
        ("I bought a used road bike yesterday.", "asserted"),
        ("I don't drink coffee anymore.", "negated"),
        ("I never eat meat.", "negated"),
    ],
)
def test_modality_of_each_kind(extractor: SpacyExtractor, text: str, modality: str) -> None:
    facts = _facts(extractor, text)
    assert facts and facts[-1].modality == modality, [(f.text, f.modality) for f in facts]
    if modality not in ("asserted", "negated"):
        assert all(f.key is None for f in facts if f.modality == modality)


@pytest.mark.parametrize(
    ("text", "subject", "informant"),
    [
        ("My neighbour Pia told me she can't stand jazz.", "pia", "pia"),
        ("Pia said Max moved to Oslo.", "max", "pia"),
    ],
)
def test_reported_speech_is_about_its_subject(
    extractor: SpacyExtractor, text: str, subject: str, informant: str
) -> None:
    reported = [f for f in _facts(extractor, text, "Sol") if f.modality == "reported"]
    assert reported, _facts(extractor, text, "Sol")
    assert reported[0].subject == f"c:e:person:{subject}"
    assert reported[0].informant == f"c:e:person:{informant}"
    assert reported[0].reporter == "Sol" and reported[0].key is None


def test_entities_keep_surface_form_and_skip_filler(extractor: SpacyExtractor) -> None:
    turn = TurnRecord(
        id="c:t1", conversation_id="c", session=1, index=0, dia_id="t1", speaker="Omar",
        text="Spicy ramen and mango smoothies are my go-to lunch, it's a blast.", observed_at=AT,
    )  # fmt: skip
    names = {e.name for e in extractor.extract("c", [turn], ["Omar"]).entities}
    assert {"ramen", "mango smoothies"} <= names
    assert not names & {"raman", "smoothy", "blast", "be", "it"}


def fact(fid: str, relation: str, obj: str, text: str, serial: int, **kw: Any) -> FactRecord:
    return FactRecord(
        id=fid, conversation_id="c", subject=kw.pop("subject", "kai"), relation=relation,
        object=obj, text=text, source="extracted", serial=serial, **kw,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("relation", "obj", "text", "expected"),
    [
        ("rent", "c:e:concept:flat", "Kai has been renting a flat in Graz", ("residence", "")),
        ("relocate_to", "Linz", "Kai relocated to Linz", ("residence", "")),
        ("move_to", "search team", "Kai moved to the search team", ("assignment", "")),
        ("be_on", "search team", "Kai is on the search team now", ("assignment", "")),
        ("lead", "billing migration", "Kai is leading the billing migration", ("assignment", "")),
        ("take_off", "c:e:other:orchid", "Kai has been taken off Orchid", ("assignment", "")),
        ("obsess_with", "oat lattes", "Kai is obsessed with oat lattes", ("drink", "")),
        ("not_drink", "lattes", "Kai does not drink lattes anymore", ("drink", "")),
        ("go_off", "coffee", "Kai has gone off coffee", ("drink", "")),
        ("adopt", "a dog named Bruno", "Kai adopted a dog named Bruno", ("pets", "dog")),
        ("get", "cats", "Kai also got cats", ("pets", "cat")),
        ("buy", "c:e:concept:road-bike", "Kai bought a road bike", ("owned", "bike")),
        ("sell", "c:e:concept:bike", "Kai sold the bike", ("owned", "bike")),
        ("play", "jazz piano", "Kai plays jazz piano", ("hobbies", "piano")),
        ("visit", "Rome", "Kai visited Rome", None),
    ],
)
def test_families(relation: str, obj: str, text: str, expected: tuple[str, str] | None) -> None:
    assert classify(fact("f", relation, obj, text, 1)) == expected


def test_multi_valued_needs_the_same_object_and_single_valued_does_not() -> None:
    dog = fact("d", "adopt", "dog", "Kai adopted a dog", 1)
    cat = fact("c", "get", "cat", "Kai also got a cat", 2)
    gone = fact("g", "give_away", "dog", "Kai gave the dog away", 3)
    keys = {f.id: f.key for f in assign_keys([dog, cat, gone])}
    assert keys == {"d": "kai|pets|dog", "c": "kai|pets|cat", "g": "kai|pets|dog"}
    links = supersession_links(assign_keys([dog, cat, gone]))
    assert [(link[0], link[1], link[2]) for link in links] == [("g", "d", "gave the dog away")]


def test_retraction_gets_a_key_and_links_carry_cue_and_confidence() -> None:
    latte = fact("a", "drink", "oat lattes", "Kai drinks oat lattes every morning", 1)
    stop = fact("b", "not_drink", "lattes", "Kai does not drink lattes anymore", 2,
                modality="negated")  # fmt: skip
    linz = fact("l", "live_in", "Graz", "Kai lives in Graz", 1)
    moved = fact("m", "live_in", "Linz", "Kai lives in Linz", 2)
    links = supersession_links(assign_keys([latte, stop, linz, moved]))
    assert ("b", "a", "not drink lattes anymore", 0.9) in links
    assert ("m", "l", "later value", 0.7) in links
    assert change_cue("Kai no longer works there") == "no longer"


def test_plans_and_hypotheticals_never_get_keys() -> None:
    for modality in ("hypothetical", "planned", "question", "reported"):
        f = fact("p", "move_to", "Oslo", "Kai moves to Oslo", 1, modality=modality)
        assert supersession_key(f) is None


def test_used_to_is_still_retrospective() -> None:
    assert supersession_key(fact("u", "live_in", "Graz", "Kai used to live in Graz", 1)) is None


@pytest.mark.parametrize(
    ("question", "state"),
    [
        ("Where does Kai live?", "current"),
        ("What does Leni drink these days?", "current"),
        ("Does Leni still run on Sundays?", "current"),
        ("Who is Kai dating?", "current"),
        ("Where did Kai live before Linz?", "past"),
        ("What did Kai use to drink?", "past"),
        ("What was Tove working on in February 2026?", "past"),
        ("When did Kai go hiking?", "past"),
    ],
)
def test_plan_state(question: str, state: str) -> None:
    assert plan(question).state == state


def test_last_weekday_resolves_against_the_moment_asked() -> None:
    asked = datetime(2024, 3, 18, 9, tzinfo=UTC)  # a Monday
    rng = plan("What did Ines pay for last Thursday?", reference=asked).time_range
    assert rng is not None and rng.start == datetime(2024, 3, 14, tzinfo=UTC)
    assert rng.granularity == "day"


def _row(fid: str, key: str, serial: int, when: datetime, turn: str, **kw: Any) -> dict[str, Any]:
    return {
        "fact_id": fid, "key": key, "serial": serial, "valid_from": when,
        "text": kw.get("text", fid), "cites": [turn], "modality": kw.get("modality", "asserted"),
    }  # fmt: skip


def test_past_value_by_interval_anchor_and_previous() -> None:
    jan, may = datetime(2025, 1, 10, tzinfo=UTC), datetime(2025, 6, 2, tzinfo=UTC)
    rows = [_row("graz", "kai|residence", 1, jan, "a1", text="Kai rents a flat in Graz"),
            _row("linz", "kai|residence", 2, may, "b1", text="Kai relocated to Linz")]  # fmt: skip
    feb = plan("Where did Kai live in February 2025?").time_range
    (d,) = resolve_state(rows, {}, mode="past", window=feb)
    assert d["winner"] == "graz"
    (d,) = resolve_state(rows, {}, mode="past", anchor="Linz")
    assert d["winner"] == "graz" and "Linz" in d["reason"]
    (d,) = resolve_state(rows, {}, mode="current")
    assert d["winner"] == "linz" and d["other_turns"] == ["a1"]


def test_order_hits_puts_the_chosen_value_above_the_stale_one() -> None:
    hits = [
        Hit(turn_id=t, text=t, speaker="K", session=1, observed_at=AT, score=s)
        for t, s in (("a1", 1.2), ("x", 1.1), ("b1", 1.0))
    ]
    decision = {"key": "kai|residence", "winner_turns": ["b1"], "other_turns": ["a1"]}
    ordered = order_hits(hits, [decision])
    assert [h.turn_id for h in ordered] == ["b1", "a1", "x"]
    assert ordered[0].trace["reordered"]["above"] == "a1"


def test_relevant_rows_need_a_named_family() -> None:
    rows = [{"key": "leni|drink"}, {"key": "bram|owned|bike"}]
    assert relevant_rows(read_question("Does Leni still run on Sundays?"), rows) == []
    assert relevant_rows(read_question("What does Leni drink now?"), rows) == [rows[0]]
    assert relevant_rows(read_question("What bike does Bram own?"), rows) == [rows[1]]


def _support(*facts: tuple[str, str], turns: tuple[str, ...] = ()) -> Support:
    rows = [{"kind": "fact", "subject": s, "text": t} for s, t in facts]
    rows += [{"kind": "turn", "subject": None, "text": t} for t in turns]
    return Support.from_rows(rows)


def _read(question: str) -> Question:
    """``question`` read with Uma resolved as a person (her name is then no key term)."""
    return read_question(question, entities=EntityIndex([("Uma", "uma", "person")]))


def test_answerability_swap_and_nowhere() -> None:
    sup = _support(
        ("uma", "Uma's dog Rufus chewed through Uma's slippers"),
        ("ben", "Ben ran a charity race for mental health"),
        turns=("My dog Rufus chewed through my slippers again.",),
    )
    uma = [("uma", "Uma")]
    assert judge(_read("What is Uma's dog called?"), uma, sup).answerable
    parrot = judge(_read("What is Uma's parrot called?"), uma, sup)
    assert not parrot.answerable and parrot.unsupported == ("parrot",)
    swap = judge(_read("What did Uma realize after her charity race?"), uma, sup)
    assert not swap.answerable and "another person" in swap.reason
    assert judge(_read("Who ran a charity race?"), [], sup).answerable  # names no person


def test_support_coverage_equals_a_scan_of_every_fact() -> None:
    """The inverted index gives what comparing the question with every fact gives."""
    import random

    rng = random.Random(15)
    vocab = [f"w{n}" for n in range(30)]
    people = ["uma", "ben", "cy"]
    for _ in range(200):
        facts = tuple(
            (rng.choice(people), frozenset(rng.sample(vocab, rng.randint(0, 6))))
            for _ in range(rng.randint(0, 25))
        )
        sup = Support(facts, frozenset(vocab))
        asked = set(rng.sample(vocab, rng.randint(1, 5)))
        ids = set(rng.sample(people, rng.randint(1, 2)))
        own = [w for p, w in facts if p in ids]
        other = [w for p, w in facts if p not in ids]
        want = (
            max((len(asked & w) for w in own), default=0),
            max((len(asked & w) for w in other), default=0),
            frozenset(asked & frozenset().union(*own)) if own else frozenset(),
        )
        assert sup.coverage(asked, ids) == want


def test_answer_terms_drop_names_and_function_words() -> None:
    assert answer_terms(letter_words("What is Uma's parrot called?"), ["Uma"]) == ["parrot"]
    assert stems(["baking", "parrots"]) == ["bake", "parrot"]


def test_a_plan_is_memory_for_the_present_and_future_not_the_past() -> None:
    """A turn whose facts are only plans answers a question about now or later ("how many
    kids start kindergarten?"), never one about what was done ("what did she bake?")."""
    rows = [
        {"kind": "fact", "subject": "uma", "text": "She bought matching backpacks"},
        {"kind": "plan", "subject": None, "text": "My twins start kindergarten next week."},
        {"kind": "plan", "subject": None, "text": "I will bake something for the weekend."},
    ]
    sup = Support.from_rows(rows)
    assert "kindergarten" not in sup.everything and sup.planned
    uma = [("uma", "Uma")]
    now = read_question("How many kids does Uma have starting kindergarten?", speakers=["Uma"])
    assert now.state != "past" and judge(now, uma, sup).in_memory
    past = read_question("What did Uma bake for the party?", speakers=["Uma"])
    assert past.state == "past"
    verdict = judge(past, uma, sup)
    assert not verdict.in_memory and not verdict.answerable
