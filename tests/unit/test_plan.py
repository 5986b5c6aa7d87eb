"""Unit tests for kgmem.retrieve.plan: a table of LoCoMo-style questions -> operators and parts.

Names and events are invented; the phrasings follow LoCoMo's four answerable categories
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.models import EntityRecord
from kgmem.retrieve.config import GENERATORS
from kgmem.retrieve.names import EntityIndex, named_speakers
from kgmem.retrieve.plan import Planner, QueryPlan, plan

REF = datetime(2023, 10, 22, 15, 30, tzinfo=UTC)  # a Sunday
INDEX = EntityIndex(
    [
        ("Alice", "c1:alice", "person"),
        ("Ally", "c1:alice", "person"),
        ("Bob", "c1:bob", "person"),
        ("Priya", "c1:priya", "person"),
        ("Lisbon", "c1:lisbon", "place"),
        ("New York City", "c1:nyc", "place"),
        ("York", "c1:york", "place"),
    ]
)

S, E, T, C, M, A, I = (  # operator initials keep the table readable  # noqa: E741
    "semantic", "entity", "temporal", "current_value", "multi_hop", "aggregate", "inference"
)  # fmt: skip

# question -> (operators, asked, extra expected fields)
CASES: list[tuple[str, set[str], str, dict[str, Any]]] = [
    # --- single-hop -------------------------------------------------------------------------
    ("What did Alice research?", {S, E}, "thing", {"entities": ["c1:alice"]}),
    ("Why did Bob decide to open a bakery?", {S, E}, "reason", {}),
    ("How did Alice's son handle the accident?", {S, E}, "manner", {}),
    ("Who did Bob go to the climbing gym with?", {S, E}, "person", {}),
    ("Where did Priya get the idea for her garden?", {S, E}, "place", {}),
    ("What kind of art does Ally make?", {S, E}, "thing", {"entities": ["c1:alice"]}),
    (
        "What setback did Bob face in October 2023?",
        {S, E, T},
        "thing",
        {"named_year": 2023, "named_month": 10, "range": ("2023-10-01", "2023-11-01", "month")},
    ),
    (
        "What did Priya bring to the shelter on 3 June, 2023?",
        {S, E, T},
        "thing",
        {"named_month": 6, "range": ("2023-06-03", "2023-06-04", "day")},
    ),
    # --- temporal ---------------------------------------------------------------------------
    ("When did Alice sign up for a pottery class?", {S, E, T}, "time", {"relation": None}),
    ("When Bob has lost his job as a chef?", {S, E, T}, "time", {}),
    ("How long has Alice been practicing the violin?", {S, E, T}, "duration", {}),
    ("How long ago was Bob's 30th birthday?", {S, E, T}, "time", {}),
    (
        "Who did Priya have lunch with on May 3, 2023?",
        {S, E, T},
        "person",
        {"named_year": 2023, "named_month": 5, "range": ("2023-05-03", "2023-05-04", "day")},
    ),
    (
        "What did Bob do in 2022?",
        {S, E, T},
        "thing",
        {"named_year": 2022, "named_month": None, "range": ("2022-01-01", "2023-01-01", "year")},
    ),
    (
        "Where did Alice travel last year?",
        {S, E, T},
        "place",
        {"named_year": 2022, "range": ("2022-01-01", "2023-01-01", "year")},
    ),
    (
        "What did Priya do last summer?",
        {S, E, T},
        "thing",
        {"season": "summer", "range": ("2023-06-01", "2023-09-01", "season")},
    ),
    (
        "When did Alice go camping in June?",
        {S, E, T},
        "time",
        {"named_month": 6, "named_year": None, "range": None},
    ),
    ("What does Bob usually do on Sundays?", {S, E, T}, "thing", {"weekday": 6}),
    (
        "What did Bob adopt two weeks before August 11, 2023?",
        {S, E, T},
        "thing",
        {"relation": "before", "range": ("2023-07-24", "2023-08-12", "week")},
    ),
    (
        "When did Alice go on a hike after the road trip?",
        {S, E, T, M},
        "time",
        {"relation": "after", "anchor": "the road trip"},
    ),
    ("When was Bob's first day at the new job?", {S, E, T}, "time", {"order": "earliest"}),
    # --- current value ----------------------------------------------------------------------
    ("Is Bob still working at the hospital?", {S, E, C}, "yes_no", {}),
    ("What book is Alice currently reading?", {S, E, C}, "thing", {}),
    ("Where does Priya live now?", {S, E, C}, "place", {}),
    ("What was the most recent trip Bob took?", {S, E, C}, "thing", {"order": "latest"}),
    ("When was the last time Alice saw her parents?", {S, E, T, C}, "time", {"order": "latest"}),
    # --- multi-hop / aggregate --------------------------------------------------------------
    ("What books has Alice read?", {S, E, A}, "thing", {}),
    ("Which cities has Bob visited?", {S, E, A}, "place", {}),
    ("What types of pottery have Priya and her kids made?", {S, E, A}, "thing", {}),
    ("Where has Alice camped?", {S, E, A}, "place", {}),
    (
        "How many times has Bob gone to the beach in 2023?",
        {S, E, T, A},
        "count",
        {"named_year": 2023},
    ),
    ("How often does Priya go running?", {S, E, A}, "count", {}),
    (
        "What do Alice and Bob both have in common?",
        {S, E, M},
        "thing",
        {"entities": ["c1:alice", "c1:bob"]},
    ),
    ("Which city have both Priya and Alice visited?", {S, E, M, A}, "place", {}),
    ("What are Bob's pets' names?", {S, E, M, A}, "thing", {}),
    ("When is Alice's daughter's birthday?", {S, E, T, M}, "time", {}),
    (
        "Who supports Priya when she has a bad day?",
        {S, E, M},
        "person",
        {"relation": "during", "anchor": "she has a bad day"},
    ),
    (
        "What was the concert that Bob went to in Lisbon?",
        {S, E, M},
        "thing",
        {"entities": ["c1:bob", "c1:lisbon"]},
    ),
    # --- open-domain inference ---------------------------------------------------------------
    ("Would Alice pursue writing as a career option?", {S, E, I}, "yes_no", {}),
    ("What might Bob's degree be in?", {S, E, I}, "thing", {}),
    ("What fields would Priya be likely to pursue?", {S, E, I}, "thing", {}),
    ("Would Bob be more interested in a museum or a theme park?", {S, E, M, I}, "yes_no", {}),
    ("What personality traits might Alice say Bob has?", {S, E, M, I}, "thing", {}),
    # --- entity matching details ------------------------------------------------------------
    (
        "Has Alice ever been to New York City?",
        {S, E, M},
        "yes_no",
        {"entities": ["c1:alice", "c1:nyc"]},
    ),
    ("What did Bobby's cousin say?", {S}, "thing", {"entities": []}),  # no partial-word match
]


@pytest.mark.parametrize(("question", "operators", "asked", "extra"), CASES)
def test_plan_table(question: str, operators: set[str], asked: str, extra: dict[str, Any]) -> None:
    p = plan(question, entities=INDEX, reference=REF)
    assert set(p.operators) == operators, p.cues
    assert p.asked == asked
    for name, expected in extra.items():
        if name == "entities":
            assert [e.id for e in p.entities] == expected
        elif name == "range":
            if expected is None:
                assert p.time_range is None
            else:
                assert p.time_range is not None
                start, end, granularity = expected
                assert p.time_range.start == datetime.fromisoformat(start).replace(tzinfo=UTC)
                assert p.time_range.end == datetime.fromisoformat(end).replace(tzinfo=UTC)
                assert p.time_range.granularity == granularity
        else:
            assert getattr(p, name) == expected, name


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 25


def test_no_lookup_means_no_entities() -> None:
    p = plan("What books has Alice read?")
    assert p.entities == () and not p.has("entity")
    assert p.budgets["entity"] == 0


def test_relative_phrases_need_a_reference() -> None:
    p = plan("Where did Alice travel last year?", entities=INDEX)
    assert p.has("temporal") and p.time_range is None and p.named_year is None
    naive = plan("Where did Alice travel last year?", reference=datetime(2023, 10, 22))
    assert naive.named_year == 2022  # naive reference taken as UTC


def test_ambiguous_month_words() -> None:
    assert plan("May I ask what Bob cooked?").named_month is None
    assert plan("Did the parade march past Alice's house?").named_month is None
    assert plan("What did Bob do in May?").named_month == 5
    assert plan("What did Bob do on May 3, 2023?").named_month == 5


def test_plan_is_frozen_and_json_serialisable() -> None:
    p = plan("How many times has Bob gone to Lisbon in May 2023?", entities=INDEX, reference=REF)
    data = json.loads(p.model_dump_json())
    assert data["operators"] == ["semantic", "entity", "temporal", "multi_hop", "aggregate"]
    assert data["time_range"]["granularity"] == "month"
    assert QueryPlan.model_validate_json(p.model_dump_json()) == p
    with pytest.raises(ValueError):
        p.asked = "time"


def test_budgets_follow_operators() -> None:
    planner = Planner(dense_turns=40, dense_facts=20, events=8, entity=10, hop=5)
    base = planner.plan("What did Alice research?", entities=INDEX)
    assert set(base.budgets) == set(GENERATORS)
    assert base.budgets["dense_turns"] == 40 and base.budgets["events"] == 8
    assert base.budgets["hop"] == 0 and base.budgets["entity"] == 10
    temporal = planner.plan("When did Alice sign up for a pottery class?", entities=INDEX)
    assert temporal.budgets["events"] == 12  # temporal -> 1.5x event expansion
    current = planner.plan("Is Bob still working at the hospital?", entities=INDEX)
    assert current.budgets["dense_facts"] == 40  # supersession needs the competing facts
    hop = planner.plan("What do Alice and Bob both have in common?", entities=INDEX)
    assert hop.budgets["hop"] == 5 and hop.budgets["entity"] == 20
    assert planner.plan("What books did she read?").budgets["entity"] == 0


def test_entity_index_from_records_longest_match() -> None:
    index = EntityIndex.from_records(
        [
            EntityRecord(id="c:ny", conversation_id="c", name="New York", type="place"),
            EntityRecord(
                id="c:nyc",
                conversation_id="c",
                name="New York City",
                type="place",
                aliases=("NYC",),
            ),
        ]
    )
    assert index.match("I love new  york city and NYC, and New York.") == [
        ("new  york city", "c:nyc", "place"),
        ("NYC", "c:nyc", "place"),
        ("New York", "c:ny", "place"),
    ]
    assert EntityIndex([]).match("anything") == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_plan_never_raises(text: str, with_reference: bool) -> None:
    p = plan(text, entities=INDEX, reference=REF if with_reference else None)
    assert "semantic" in p.operators
    json.loads(p.model_dump_json())


CUE_WORDS = [
    "when",
    "after",
    "before",
    "last",
    "year",
    "May",
    "3",
    "2023",
    "1899",
    "99999",
    "weeks",
    "ago",
    "the",
    "week",
    "still",
    "both",
    "and",
    "Alice's",
    "Bob",
    "summer",
    "fall",
    "Sunday",
    "how",
    "many",
    "would",
    "?",
    ",",
    "February",
    "30",
    "31st",
    "between",
    "than",
    "more",
    "which",
    "has",
    "what",
    "900",
    "days",
    "months",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(CUE_WORDS),
        max_size=25,
    )
)
def test_plan_never_raises_on_cue_soup(words: list[str]) -> None:
    plan(" ".join(words), entities=INDEX, reference=REF)


CHAIN_QUESTIONS = [
    (
        "What is the country of citizenship of the spouse of Victoria Beckham?",
        ("spouse", "citizenship"),
        "Victoria Beckham",
    ),
    ("Who is the spouse of Thomas Kyd?", ("spouse",), "Thomas Kyd"),
    (
        "Which city is the capital of the country where Anne Kyd is a citizen?",
        ("citizenship", "capital"),
        "Anne Kyd",
    ),
    ("Where did Bob's wife die?", ("spouse", "place_of_death"), "Bob's"),  # resolved as Bob
]


@pytest.mark.parametrize(("question", "relations", "base"), CHAIN_QUESTIONS)
def test_chain_questions_get_the_chain_operator(
    question: str, relations: tuple[str, ...], base: str
) -> None:
    p = plan(question, entities=INDEX, reference=REF)
    assert p.has("chain"), p.cues
    assert p.chain == relations and p.chain_base == base
    assert any(c.startswith("chain:") for c in p.cues)  # --explain shows why
    assert json.loads(p.model_dump_json())["chain"] == list(relations)


NOT_CHAIN = [
    # ordinary LoCoMo-like questions: no relation of the lexicon, or not asking for its value
    "When did Caroline go to the support group?",
    "What does Melanie like to paint?",
    "What happened to Melanie's son on their road trip?",  # names a relation, asks an event
    "How did Caroline's children handle the accident?",  # asks a manner
    "When did Maria's grandmother pass away?",  # asks a time
    "How many children does Melanie have?",  # asks a count
    "How long have Mel and her husband been married?",  # asks a duration
    "Is Alice married?",  # yes/no
    "What kind of flooring is Jon looking for in his dance studio?",  # "king" inside "looking"
    "Which song motivates Caroline to be courageous?",  # "son" inside "song"
    "What is Melanie's reason for getting into running?",  # "son" inside "reason"
    "",
]


@pytest.mark.parametrize("question", NOT_CHAIN)
def test_ordinary_questions_do_not_get_the_chain_operator(question: str) -> None:
    p = plan(question, entities=INDEX, reference=REF)
    assert not p.has("chain"), p.cues
    assert p.chain == () and p.chain_base is None


def test_named_speakers_whole_words_possessive_and_case() -> None:
    speakers = ("Ana", "Ben Okafor", "Jo")
    assert named_speakers("What are Ana's hobbies?", speakers) == ("Ana",)
    assert named_speakers("did ana and ben okafor meet?", speakers) == ("Ana", "Ben Okafor")
    assert named_speakers("What did Anastasia say to Ben?", speakers) == ()  # not whole names
    assert named_speakers("Where is Joanna?", speakers) == ()
    assert named_speakers("anything", ()) == ()


def test_plan_budgets_the_speaker_generator_only_for_named_speakers() -> None:
    planner = Planner(speaker=30)
    named = planner.plan("What does Ana do to relax?", speakers=("Ana", "Ben"))
    assert named.speakers == ("Ana",) and named.budgets["speaker"] == 30
    assert "speaker:Ana" in named.cues
    anonymous = planner.plan("What does she do to relax?", speakers=("Ana", "Ben"))
    assert anonymous.speakers == () and anonymous.budgets["speaker"] == 0
