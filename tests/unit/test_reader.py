"""The reader's citation lock and prompt shape (pure logic, no server, no HTTP)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.config import Settings
from kgmem.errors import ReaderError
from kgmem.models import Hit
from kgmem.reader import ABSTENTION, Reader, build_messages, format_turns, lock_citations

IDS = ["c1:D1:3", "c1:D2:8", "c1:D5:1"]


def _hit(turn_id: str, text: str, day: int) -> Hit:
    return Hit(
        turn_id=turn_id,
        text=text,
        speaker="Ana",
        session=1,
        observed_at=datetime(2024, 3, day, 18, 5, tzinfo=UTC),
        score=0.5,
    )


def test_valid_id_citation_is_kept() -> None:
    answer, reason, cites, invalid = lock_citations("Ana moved to Lisbon [c1:D2:8].", IDS)
    assert (answer, reason, cites, invalid) == (
        "Ana moved to Lisbon [c1:D2:8].",
        None,
        ["c1:D2:8"],
        [],
    )


def test_numbers_map_to_the_numbered_turns_and_groups_split() -> None:
    _, reason, cites, _ = lock_citations("In May [3; c1:D1:3, 2] and again [1].", IDS)
    assert reason is None
    assert cites == ["c1:D5:1", "c1:D1:3", "c1:D2:8"]  # first-citation order, no duplicates


def test_answer_without_citation_abstains() -> None:
    answer, reason, cites, _ = lock_citations("Ana lives in Lisbon.", IDS)
    assert (answer, reason, cites) == (ABSTENTION, "no valid citation", [])


def test_citing_only_unknown_turns_abstains_and_reports_them() -> None:
    answer, reason, cites, invalid = lock_citations("Lisbon [c1:D9:9] [7] [source]", IDS)
    assert answer == ABSTENTION and reason == "no valid citation" and cites == []
    assert invalid == ["c1:D9:9", "7", "source"]


def test_invalid_citations_are_dropped_when_a_valid_one_remains() -> None:
    answer, reason, cites, invalid = lock_citations("Lisbon [c1:D2:8, c2:D1:1]", IDS)
    assert reason is None and cites == ["c1:D2:8"] and invalid == ["c2:D1:1"]
    assert answer.startswith("Lisbon")


@pytest.mark.parametrize("raw", ["not in memory", "Not in memory.", "NOT IN MEMORY [c1:D1:3]"])
def test_model_abstention_is_recognised(raw: str) -> None:
    answer, reason, cites, _ = lock_citations(raw, IDS)
    assert (answer, reason, cites) == (ABSTENTION, "model abstained", [])


def test_turns_are_numbered_with_ids_dates_and_speakers() -> None:
    hits = [_hit("c1:D1:3", "I ran a half\nmarathon.", 14), _hit("c1:D2:8", "Moved!", 20)]
    assert format_turns(hits).splitlines() == [
        "[1] c1:D1:3 (2024-03-14, Ana): I ran a half marathon.",
        "[2] c1:D2:8 (2024-03-20, Ana): Moved!",
    ]
    system, user = build_messages("  Where does\nAna live? ", hits)
    assert system["role"] == "system" and ABSTENTION in system["content"]
    assert user["content"].endswith("Question: Where does Ana live?")


def test_no_endpoint_configured_is_a_typed_error() -> None:
    with pytest.raises(ReaderError, match="KGMEM_READER_BASE_URL"):
        Reader.from_settings(Settings(reader_base_url=None, reader_model=None))


def test_no_hits_abstains_without_a_call() -> None:
    with Reader("http://127.0.0.1:9/v1", "m") as reader:  # port 9: nothing is ever sent
        out = reader.answer("Where?", [], "c1")
    assert out.abstained and out.reason == "no turns retrieved" and out.raw == ""
