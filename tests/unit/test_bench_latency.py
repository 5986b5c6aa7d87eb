"""The pure parts of `kgmem bench latency`: statistics, ratios, the interleaving and the
peer's message dicts (the side-by-side run itself is optional and never in CI)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.bench.latency import interleaved_order, peer_messages, ratios, summary
from kgmem.models import ConversationRecord, SessionRecord, TurnRecord


def test_summary_gives_linear_percentiles_and_mean_of_the_sample() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100 ms
    out = summary(values)
    assert out == {"n": 100, "p50": 50.5, "p95": 95.05, "p99": 99.01, "mean": 50.5}


def test_summary_of_an_empty_sample_is_an_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        summary([])


def test_ratios_divide_each_statistic_and_skip_a_zero_denominator() -> None:
    mine = {"p50": 10.0, "p95": 30.0, "p99": 90.0, "mean": 12.0}
    theirs = {"p50": 20.0, "p95": 30.0, "p99": 0.0, "mean": 16.0}
    assert ratios(mine, theirs) == {"p50": 0.5, "p95": 1.0, "mean": 0.75}


def test_interleaving_alternates_which_system_runs_first() -> None:
    order = interleaved_order(5)
    assert [i for i, _ in order] == [0, 1, 2, 3, 4]
    assert [first for _, first in order] == [True, False, True, False, True]


def test_peer_messages_keep_order_roles_and_turn_ids() -> None:
    at = datetime(2023, 5, 1, 9, 30, tzinfo=UTC)
    turns = tuple(
        TurnRecord(
            id=f"c:D1:{i + 1}",
            conversation_id="c",
            session=1,
            index=i,
            dia_id=f"D1:{i + 1}",
            speaker=speaker,
            text=f"turn {i}",
            observed_at=at,
        )
        for i, speaker in enumerate(["Ann", "Bo", "Ann"])
    )
    record = ConversationRecord(
        conversation_id="c",
        speakers=("Ann", "Bo"),
        sessions=(SessionRecord(conversation_id="c", session=1, started_at=at),),
        turns=turns,
    )
    messages = peer_messages(record)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [m["content"] for m in messages] == ["turn 0", "turn 1", "turn 2"]
    assert [m["metadata"]["turn_id"] for m in messages] == ["c:D1:1", "c:D1:2", "c:D1:3"]
    assert all(m["timestamp"] == "2023-05-01T09:30:00+00:00" for m in messages)
