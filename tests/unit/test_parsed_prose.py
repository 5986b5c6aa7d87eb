"""What of a turn the fact extractor parses (kgmem.ingest.extraction.prose)."""

from kgmem.ingest.extraction.prose import parsed_prose


def test_plain_text_within_budget_is_parsed_as_written() -> None:
    text = "I moved to Lisbon in May.  It's lovely!\n\nMore soon."
    assert parsed_prose(text, 2000) == text
    assert parsed_prose(text, None) == text


def test_fenced_code_and_tables_are_not_parsed() -> None:
    text = (
        "Here is the fix:\n```python\nuser = User.query.get(id)\n```\n"
        "| col | type |\n|---|---|\n| id | int |\n"
        "I deploy on Fridays.\n~~~\nrm -rf build\n~~~\nDone."
    )
    out = parsed_prose(text, None)
    assert "User.query" not in out and "| id |" not in out and "rm -rf" not in out
    assert "Here is the fix:" in out and "I deploy on Fridays." in out and "Done." in out


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert parsed_prose("Intro.\n```\ncode without end", None).strip() == "Intro."


def test_inline_backticks_and_pipes_in_prose_stay() -> None:
    text = "I use `flask-login` and a | b pipes in prose."
    assert parsed_prose(text, None) == text


def test_budget_cuts_at_a_sentence_end() -> None:
    text = "First sentence here. Second one is longer than the rest of it. Third."
    assert parsed_prose(text, 30) == "First sentence here."
    assert parsed_prose("word " * 20, 12) == "word word"
    assert parsed_prose("x" * 50, 10) == "x" * 10
