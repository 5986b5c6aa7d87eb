"""The question text the linked engine embeds and the words its BM25 query ORs (the speaker's
name and stop words left out, so they do not drown what is asked)."""

from __future__ import annotations

from kgmem.retrieve.names import strip_names
from kgmem.retrieve.question import question_words


def test_strip_names_removes_the_named_speakers_and_possessives() -> None:
    assert strip_names("What are Ana's hobbies?", ["Ana"]) == "What are hobbies?"
    assert strip_names("Did ana and Ben Okafor meet?", ["Ana", "Ben Okafor"]) == "Did and meet?"
    assert strip_names("Anastasia's cat?", ["Ana"]) == "Anastasia's cat?"  # whole words only
    assert strip_names("Ana?", ["Ana"]) == "Ana?"  # nothing would be left: unchanged
    assert strip_names("What did Ana say?", []) == "What did Ana say?"


def test_question_words_drop_names_and_stop_words_on_request() -> None:
    q = "What does Melanie do to destress after the 5K run?"
    assert question_words(q) == [
        "what",
        "does",
        "melanie",
        "do",
        "to",
        "destress",
        "after",
        "the",
        "5k",
        "run",
    ]
    assert question_words(q, drop=["Melanie"], stop_words=True) == ["destress", "5k", "run"]
    assert question_words("Who is it?", stop_words=True) == []
    assert len(question_words(" ".join(f"w{i}" for i in range(50)), max_terms=7)) == 7
