"""The speaker gap (`kgmem.retrieve.answerability.speaker_gap`): pure, no server."""

from __future__ import annotations

from datetime import UTC, datetime

from kgmem.models import Hit
from kgmem.retrieve.answerability import speaker_gap

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _hit(speaker: str, score: float, own_term: float = 0.0) -> Hit:
    terms = {"cosine": score - own_term, "speaker": own_term}
    return Hit(
        turn_id=f"c:{speaker}:{score}",
        text="t",
        speaker=speaker,
        session=1,
        observed_at=AT,
        score=score,
        terms=terms,
    )


def test_gap_is_the_best_other_person_minus_the_named_speakers_best_without_its_term() -> None:
    hits = [_hit("Ana", 1.0, own_term=0.3), _hit("Bo", 0.9), _hit("Bo", 0.2)]
    assert speaker_gap(hits, ["Ana"]) == 0.2  # 0.9 - (1.0 - 0.3)
    assert speaker_gap(hits, ["Ana", "Bo"]) is None  # two speakers named
    assert speaker_gap([_hit("Ana", 1.0)], ["Ana"]) is None  # no one else's turn


def test_an_assistant_is_no_other_person() -> None:
    hits = [_hit("user", 1.2, own_term=0.2), _hit("assistant", 0.4), _hit("Bo", 0.5)]
    roles = {"user": "user", "assistant": "assistant"}
    assert speaker_gap(hits, ["user"], roles) == -0.5  # Bo is a person; the assistant is not
    assert speaker_gap(hits[:2], ["user"], roles) is None  # only the assistant: no gap
    assert speaker_gap(hits[:2], ["user"]) == -0.6  # no roles known: every speaker counts
