"""The pure parts of `kgmem bench latency`: statistics, ratios, the interleaving, the
throughput loop and the peer's message dicts (the side-by-side run itself is optional and
never in CI)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from kgmem.bench.latency import (
    interleaved_order,
    peer_messages,
    ratios,
    run_throughput,
    summary,
)
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


def test_throughput_runs_every_client_concurrently_round_robin_until_the_deadline() -> None:
    asked: list[tuple[int, str]] = []
    lock = threading.Lock()
    inside = {"now": 0, "most": 0}

    def client(n: int) -> Callable[[str], None]:
        def ask(q: str) -> None:
            with lock:
                asked.append((n, q))
                inside["now"] += 1
                inside["most"] = max(inside["most"], inside["now"])
            time.sleep(0.01)
            with lock:
                inside["now"] -= 1

        return ask

    out = run_throughput([client(0), client(1)], ["a", "b", "c"], 0.2)
    assert out["queries"] == len(asked) == out["n"] and out["queries"] >= 4
    assert out["qps"] > 0 and out["p50"] >= 10.0
    assert inside["most"] == 2  # both clients were asking at once
    first = [q for n, q in asked if n == 0][:3]
    second = [q for n, q in asked if n == 1][:3]
    assert first[:2] == ["a", "c"] and second[:2] == ["b", "a"]  # round-robin, offset by client


def test_throughput_reports_a_client_error_and_rejects_empty_input() -> None:
    def broken(q: str) -> None:
        raise RuntimeError("server gone")

    with pytest.raises(RuntimeError, match="server gone"):
        run_throughput([broken], ["a"], 0.1)
    with pytest.raises(ValueError):
        run_throughput([], ["a"], 1.0)
    with pytest.raises(ValueError):
        run_throughput([broken], [], 1.0)
