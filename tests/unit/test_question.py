"""The question read once (`kgmem.retrieve.question`): the record, each consumer's token view,
and role resolution ("I", "my", "the user" mean the conversation's user)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from kgmem.retrieve.chain_parse import compile_question
from kgmem.retrieve.context import ConversationContext, speaker_roles
from kgmem.retrieve.names import EntityIndex
from kgmem.retrieve.plan import Planner
from kgmem.retrieve.question import (
    Question,
    answer_terms,
    asked_words,
    letter_words,
    question_words,
    read_question,
)

REF = datetime(2023, 10, 22, 15, 30, tzinfo=UTC)
INDEX = EntityIndex([("Ana", "c:ana", "person"), ("Lisbon", "c:lisbon", "place")])


def test_the_record_holds_the_reading() -> None:
    q = read_question(
        "Where did Ana\u2019s sister live in May 2023?",
        entities=INDEX,
        reference=REF,
        speakers=("Ana", "Ben"),
    )
    assert q.raw.endswith("in May 2023?") and "\u2019" not in q.text
    assert q.tokens == ("Where", "did", "Ana", "s", "sister", "live", "in", "May", "2023")
    assert q.speakers == ("Ana",) and q.asker is None
    assert [e.id for e in q.entities] == ["c:ana"]
    assert q.times.time_range is not None and q.times.time_range.granularity == "month"
    assert q.times.phrases == ["in May 2023"] and q.reference == REF
    assert q.state == "past" and q.asked == "place"
    assert q.has("temporal") and q.has("entity")
    # the attribute reading: "live" asks for a residence, a place; not named explicitly
    assert q.attribute == "residence" and q.value_type == "place"
    assert q.ask is not None and not q.ask.explicit
    json.dumps(q.as_dict())  # --explain's JSON


@pytest.mark.parametrize(
    "text",
    [
        "What did Ana's sister Clara adopt after the move to Lisbon?",
        "How many times has Ben said he was tired of the bakery's new bread?",
        "What is the capital of the country Ana comes from?",
        "Is Ben still living in Lisbon?",
        "",
    ],
)
def test_each_view_is_the_consumers_own_reading(text: str) -> None:
    q = read_question(text, entities=INDEX, speakers=("Ana", "Ben"))
    assert list(q.bm25_words) == question_words(text)
    assert list(q.bm25_content_words) == question_words(text, drop=q.speakers, stop_words=True)
    assert q.state_words == asked_words(text)
    persons = [e.surface for e in q.entities if e.type == "person"]
    assert list(q.answer_terms) == answer_terms(letter_words(text), persons)
    assert q.walk == compile_question(text)


def test_first_person_words_mean_the_user() -> None:
    speakers = ("user", "assistant")
    for text, said in [
        ("What is my dog called?", "my"),
        ("Where do I live now?", "i"),
        ("What did the assistant recommend to me?", "me"),
    ]:
        q = read_question(text, speakers=speakers, asker="user")
        assert "user" in q.speakers and q.asker == "user", text
        assert f"speaker:asker user ({said})" in q.cues, text
    # a speaker named "user" is named by "the user" already
    assert read_question("What does the user drink?", speakers=speakers).speakers == ("user",)


def test_asking_what_the_other_party_said_names_it_too() -> None:
    speakers = ("user", "assistant")
    q = read_question("How did you recommend structuring my week?", speakers=speakers, asker="user")
    assert q.speakers == ("user", "assistant")
    assert "speaker:addressee assistant (did you)" in q.cues
    assert read_question(
        "Which library have you suggested?", speakers=speakers, asker="user"
    ).speakers == ("assistant",)
    for request in ("What would you suggest for my app?", "Can you show me the order?"):
        assert read_question(request, speakers=speakers, asker="user").speakers == ("user",)
    # no asker (a chat between named people): nobody is "you"
    assert read_question("What did you say?", speakers=("Ana", "Ben")).speakers == ()


def test_the_user_means_a_mapped_user_speaker() -> None:
    q = read_question("What does the user drink?", speakers=("Priya", "Max"), asker="Priya")
    assert q.speakers == ("Priya",)
    assert read_question(
        "What does Max drink?", speakers=("Priya", "Max"), asker="Priya"
    ).speakers == ("Max",)  # no first person: only who it names
    assert read_question("Is Ida coming?", speakers=("Priya",), asker="Priya").speakers == ()


def test_without_a_user_nothing_changes() -> None:
    """LoCoMo-style chats between named people: "I" and "my" name nobody."""
    q = read_question(
        "What did I tell Melanie about my painting?", speakers=("Caroline", "Melanie")
    )
    assert q.speakers == ("Melanie",) and q.asker is None
    assert not any(c.startswith("speaker:asker") for c in q.cues)


def test_the_plan_of_a_user_question_budgets_the_users_turns() -> None:
    p = Planner().plan("What is my dog called?", speakers=("user", "assistant"), asker="user")
    assert p.speakers == ("user",) and p.budgets["speaker"] > 0
    assert isinstance(p.reading, Question) and p.reading.asker == "user"
    assert Planner().plan("What is my dog called?", speakers=("user", "assistant")).speakers == ()


def test_speaker_roles_stored_role_first_then_the_name() -> None:
    rows = [
        {"speaker": "Priya", "roles": ["user"]},
        {"speaker": "assistant", "roles": []},
        {"speaker": "Max", "roles": []},
    ]
    roles = speaker_roles(("Priya", "assistant", "Max"), rows)
    assert roles == {"Priya": "user", "assistant": "assistant"}
    assert speaker_roles(("user", "bot"), None) == {"user": "user"}  # before roles are stored
    context = ConversationContext(
        speakers=("Max", "Priya"), latest=None, entities=INDEX, roles=roles
    )
    assert context.user == "Priya"
    assert ConversationContext(speakers=("A", "B"), latest=None, entities=INDEX).user is None


def test_one_content_stop_list_is_spacys_plus_generic_words() -> None:
    from kgmem.retrieve.question import GENERIC_WORDS, stop_list, stop_words

    assert stop_words() == stop_list() | GENERIC_WORDS
    assert not GENERIC_WORDS & stop_list()  # only what spaCy's list lacks
    # spaCy's words ("through", "several") and generic ones ("kind", "favorite") are no key terms
    assert answer_terms(
        letter_words("What kind of favorite books did Ana read through several summers?"), ["Ana"]
    ) == [
        "books",
        "read",
        "summers",
    ]


@pytest.mark.parametrize(
    "text",
    ["Does the user have a pet?", "How many pets does the user have?"],
)
def test_a_yes_no_or_count_question_asks_its_attribute_without_refuting(text: str) -> None:
    """Its attribute may support it (a pet of the user), never make it unanswerable: such a
    question names no value it expects, so the ask is not explicit."""
    q = read_question(text)
    assert q.asked in ("yes_no", "count")
    assert q.ask is not None and q.ask.attribute == "pets" and not q.ask.explicit
