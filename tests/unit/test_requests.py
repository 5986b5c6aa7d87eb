"""Memory requests (kgmem.ingest.requests.rules): the grammar, the matching and its limits.

Wrongly forgetting is data loss, so most of this file is sentences that must delete nothing.
Detection is pure (a spaCy parse); matching uses the real sentence embedder.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgmem.embed import Embedder
from kgmem.ingest.extraction.nlp import load_pipeline
from kgmem.ingest.requests.grammar import FORGOTTEN, detect, topic_request, values
from kgmem.ingest.requests.rules import RequestPolicy, plan_requests
from kgmem.models import TurnRecord
from kgmem.roles import role_of

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"  # beside the checkout
CID = "req"

# Sentences a user may say to an assistant that are NOT memory requests: idioms, tasks,
# reminders, reports of forgetting, questions about memory, requests about other things.
NOT_REQUESTS = [
    "Forget it, let's move on.",
    "Never mind.",
    "I forgot my keys at the office again.",
    "Don't forget to call mum on Sunday.",
    "Remind me to renew my passport in March.",
    "Delete the draft email first, then send the new one.",
    "I deleted Instagram last week and I feel better.",
    "I'll never forget the day we met.",
    "Can you remember what I said about the wedding venue?",
    "Do you remember my sister's name?",
    "Remember to take breaks when you study.",
    "Don't forget my birthday!",
    "Forget about the party, it got cancelled anyway.",
    "Let's forget about work for tonight.",
    "I have to delete some old photos to free up space.",
    "Please remove my name from the mailing list.",
    "Can you help me remove a red wine stain from the carpet?",
    "Erase the whiteboard before the meeting starts.",
    "He told me off the record that the merger is off.",
    "I keep forgetting my password for the bank app.",
    "Did you forget what I told you about the trip?",
    "Don't save this for later, eat it while it's warm.",
    "Don't keep it, just throw it away.",
    "I don't remember this song at all.",
    "She never saves any money.",
    "Remove the batteries before storing the torch.",
    "Wipe the table after dinner, please.",
    "How do I delete my Facebook account?",
    "Should I delete my old emails?",
    "I want to forget that awful exam.",
    "My grandmother is starting to forget things.",
    "Could you remember to remind me about the dentist?",
    "Don't forget that I'm allergic to peanuts.",
    "Store the cheese in the fridge.",
    "Note that the meeting moved to 3pm.",
    "Forgive me, I forgot to reply yesterday.",
    "Forget what I just said, I was confused.",
    "You can delete the calendar invite, the event is off.",
]


@pytest.fixture(scope="module")
def nlp():  # type: ignore[no-untyped-def]
    return load_pipeline()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.mark.parametrize("sentence", NOT_REQUESTS)
def test_sentence_is_not_a_request(nlp, sentence: str) -> None:  # type: ignore[no-untyped-def]
    assert detect(sentence, nlp) is None


REQUESTS = [
    ("Please delete my passport number from your memory.", "forget", "passport"),
    ("Can you forget everything I told you about the deposit fight?", "forget", "deposit"),
    ("Forget what I said about my ex.", "forget", "ex"),
    ("Please erase everything about my divorce.", "forget", "divorce"),
    ("Forget that my PIN is 4417.", "forget", "PIN"),
    ("Could you remove my home address?", "forget", "address"),
    ("I want you to forget my phone number.", "forget", "phone"),
    ("Delete what I told you about my salary, please.", "forget", "salary"),
    ("Off the record, don't save this: I'm pregnant.", "withhold", ""),
    ("Don't save this: I might quit next month.", "withhold", ""),
    ("Please do not store this in your memory.", "withhold", ""),
    ("Don't remember this.", "withhold", ""),
    ("This is off the record: my manager is leaving.", "withhold", ""),
]


@pytest.mark.parametrize(("sentence", "kind", "topic_word"), REQUESTS)
def test_request_kind_and_topic(nlp, sentence: str, kind: str, topic_word: str) -> None:  # type: ignore[no-untyped-def]
    parsed = detect(sentence, nlp)
    assert parsed is not None
    assert parsed.kind == kind
    assert topic_word.casefold() in parsed.topic.casefold()


def _turns(*rows: tuple[str, str]) -> list[TurnRecord]:
    at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    return [
        TurnRecord(
            id=f"{CID}:t{n}",
            conversation_id=CID,
            session=1,
            index=n,
            dia_id=f"t{n}",
            speaker=speaker,
            text=text,
            observed_at=at,
            role=role_of(speaker),
        )
        for n, (speaker, text) in enumerate(rows)
    ]


# (conversation, ids removed, ids withheld, status of the request)
PLANS = [
    (  # a secret and the assistant's verbatim copy of it go; the rest stays
        [
            ("user", "For the visa form: my passport number is C7H-448-219."),
            ("assistant", "Got it, C7H-448-219."),
            ("user", "The appointment is at the consulate on Friday."),
            ("user", "Please delete my passport number from your memory."),
        ],
        {"t0", "t1"},
        set(),
        "applied",
    ),
    (  # a topic told over two turns; the assistant's question and another topic stay
        [
            ("user", "My landlord is refusing to return the deposit for the old flat."),
            ("assistant", "That's frustrating. Do you have the inspection report?"),
            ("user", "Yes, and the photos prove the deposit should come back in full."),
            ("user", "On a happier note, I started pottery classes on Tuesdays."),
            (
                "user",
                "Can you forget everything I told you about the deposit fight with my landlord?",
            ),
        ],
        {"t0", "t2"},
        set(),
        "applied",
    ),
    (  # do not keep: only the turn that says so
        [
            ("user", "Off the record, don't save this: I have an interview at Brightwave."),
            ("assistant", "Understood, I won't keep it."),
            ("user", "Anyway, remind me to buy oat milk."),
        ],
        set(),
        {"t0"},
        "withheld",
    ),
    (  # the object matches nothing stored: nothing goes, reported as no_match
        [
            ("user", "I started pottery classes on Tuesdays."),
            ("assistant", "Lovely!"),
            ("user", "Please forget my passport number."),
        ],
        set(),
        set(),
        "no_match",
    ),
    (  # restated value: the earlier turn goes, the request is masked
        [
            ("user", "My PIN is 4417, in case I forget it."),
            ("assistant", "Noted."),
            ("user", "Forget that my PIN is 4417."),
        ],
        {"t0"},
        set(),
        "applied",
    ),
    (  # too broad: more turns than max_turns would go, nothing is removed
        [
            *[("user", f"Work was hectic today, meeting number {n} ran late.") for n in range(7)],
            ("assistant", "Sounds like a long week."),
            ("user", "Forget everything I told you about work."),
        ],
        set(),
        set(),
        "too_broad",
    ),
]


@pytest.mark.parametrize(("rows", "removed", "withheld", "status"), PLANS)
def test_plan_removes_exactly(nlp, embedder, rows, removed, withheld, status) -> None:  # type: ignore[no-untyped-def]
    turns = _turns(*rows)
    plan = plan_requests(turns, policy=RequestPolicy(), nlp=nlp, embed=embedder.encode)
    assert {i.removeprefix(f"{CID}:") for i in plan.removed} == removed
    assert {i.removeprefix(f"{CID}:") for i in plan.withheld} == withheld
    assert [o.status for o in plan.outcomes] == [status]


def test_restated_value_is_masked_in_the_request(nlp, embedder) -> None:  # type: ignore[no-untyped-def]
    turns = _turns(
        ("user", "My PIN is 4417."),
        ("assistant", "Noted."),
        ("user", "Forget that my PIN is 4417."),
    )
    plan = plan_requests(turns, policy=RequestPolicy(), nlp=nlp, embed=embedder.encode)
    assert plan.masked == {f"{CID}:t2": f"Forget that my PIN is {FORGOTTEN}."}
    assert plan.requests == {f"{CID}:t2"}


def test_only_the_users_turns_request_and_only_with_an_assistant(nlp, embedder) -> None:  # type: ignore[no-untyped-def]
    said = [("user", "My PIN is 4417."), ("assistant", "Please forget my PIN, it's 4417.")]
    plan = plan_requests(_turns(*said), policy=RequestPolicy(), nlp=nlp, embed=embedder.encode)
    assert not plan
    named = [("Ana", "My PIN is 4417."), ("Bo", "Ok."), ("Ana", "Please forget my PIN.")]
    plan = plan_requests(_turns(*named), policy=RequestPolicy(), nlp=nlp, embed=embedder.encode)
    assert not plan


def test_requests_off_detects_nothing(nlp, embedder) -> None:  # type: ignore[no-untyped-def]
    turns = _turns(("user", "My PIN is 4417."), ("assistant", "Ok."), ("user", "Forget my PIN."))
    off = RequestPolicy(enabled=False)
    assert not plan_requests(turns, policy=off, nlp=nlp, embed=embedder.encode)


def test_values_are_codes_and_addresses_not_years_or_times() -> None:
    text = "Call 0176-5512-993 or mail ana@example.org at 10:30 in 2024; flat 4, code AB12345."
    assert values(text) == ("ana@example.org", "0176-5512-993", "AB12345")


def test_forget_about_takes_a_description_or_a_whole_request(nlp) -> None:  # type: ignore[no-untyped-def]
    assert topic_request("my passport number", nlp).topic == "my passport number"
    assert "landlord" in topic_request("forget what I said about my landlord", nlp).topic


def _corpus_texts() -> list[str]:
    texts: list[str] = []
    locomo = DATA / "locomo" / "locomo-dev.json"
    if locomo.is_file():
        for sample in json.loads(locomo.read_text(encoding="utf-8")):
            conversation = sample["conversation"]
            for key, value in conversation.items():
                if key.startswith("session_") and isinstance(value, list):
                    texts.extend(turn["text"] for turn in value)
    cases = DATA / "cases" / "truth-and-safety.json"
    if cases.is_file():
        for case in json.loads(cases.read_text(encoding="utf-8"))["cases"]:
            for session in case.get("conversation", {}).get("sessions", []):
                texts.extend(turn["text"] for turn in session["turns"])
    return texts


def test_whole_corpora_hold_no_request(nlp) -> None:  # type: ignore[no-untyped-def]
    texts = _corpus_texts()
    if not texts:
        pytest.skip("LoCoMo dev split and truth-and-safety.json are not on this machine")
    found = [t for t in texts if detect(t, nlp) is not None]
    assert found == []
    assert len(texts) > 1000 or not (DATA / "locomo" / "locomo-dev.json").is_file()
