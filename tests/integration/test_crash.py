"""Crash safety: ``kill -9`` an ingest mid-write, run it again, get the graph of a clean run.

A generated conversation of 1,500 turns is ingested by ``kgmem ingest chat FILE`` in a child
process with ``KGMEM_WRITE_BATCH_SIZE=10`` (150 write transactions, each a batch of turns with
their ``NEXT`` edges). The child is killed twice: once while the first run's batches land, once
while the re-run's land. At each kill the stored turns are whole batches (a multiple of 10) and
every stored turn is already linked (``NEXT`` = turns - 1: a batch's edges commit with it).
The third run finishes, and the graph then equals a clean run's, property for property. The
matrix of named kill points (inside transactions, facts, appends, forgets) is
tests/integration/test_crash_matrix.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import neo4j
import pytest

from kgmem.config import Settings
from tests.strategies import record_figure, snapshot

TURNS = 1500
BATCH = 10
TOPICS = (
    "hiking in Sintra",
    "the new job",
    "Pixel the puppy",
    "a sunset painting",
    "moving to Porto",
    "the charity race",
    "counseling classes",
    "a camping trip",
    "running shoes",
    "Clara's birthday",
)


def _write_conversation(path: Path, cid: str) -> None:
    sessions = []
    for s in range(TURNS // 100):
        turns = [
            {
                "id": f"t{s * 100 + n}",
                "speaker": ("Ana", "Bo")[n % 2],
                "text": f"Turn {s * 100 + n}: words about {TOPICS[(s * 7 + n) % 10]}, day {n}.",
            }
            for n in range(100)
        ]
        sessions.append(
            {
                "started_at": f"2024-{1 + s % 12:02d}-{1 + s:02d}T10:00:00+00:00",
                "session": s + 1,
                "turns": turns,
            }
        )
    path.write_text(json.dumps({"conversation_id": cid, "sessions": sessions}), encoding="utf-8")


def _ingest(settings: Settings, path: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "KGMEM_NEO4J_URI": settings.neo4j_uri,
        "KGMEM_DATA_DIR": str(settings.data_dir),
        "KGMEM_WRITE_BATCH_SIZE": str(BATCH),
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    code = "import sys; from kgmem.cli import main; sys.exit(main())"
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            code,
            "ingest",
            "chat",
            str(path),
            "--facts",
            "none",
            "-q",
            "--json",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _counts(driver: neo4j.Driver, cid: str) -> tuple[int, int]:
    with driver.session() as session:
        row = session.run(
            "CALL { MATCH (t:Turn {conversation_id: $cid}) RETURN count(t) AS turns } "
            "CALL { MATCH (:Turn {conversation_id: $cid})-[r:NEXT]->() RETURN count(r) AS next } "
            "RETURN turns, next",
            cid=cid,
        ).single()
    assert row is not None
    return int(row["turns"]), int(row["next"])


def _kill_when(
    driver: neo4j.Driver, proc: subprocess.Popen[bytes], cid: str, stage: int, at_least: int
) -> tuple[int, int]:
    """SIGKILL ``proc`` once ``at_least`` rows of ``stage`` (0 turns, 1 next) have landed."""
    total = (TURNS, TURNS - 1)[stage]
    deadline = time.monotonic() + 480
    while time.monotonic() < deadline:
        counts = _counts(driver, cid)
        if at_least <= counts[stage] < total:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
            return _counts(driver, cid)  # after the child is gone: what a crash leaves
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(
                f"ingest ended before the kill (status {proc.returncode}): {err.decode()[-2000:]}"
            )
        time.sleep(0.01)
    proc.kill()
    proc.communicate(timeout=30)
    pytest.fail("ingest did not reach the kill point in time")


def _finish(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    out, err = proc.communicate(timeout=480)
    assert proc.returncode == 0, err.decode()[-2000:]
    [report] = json.loads(out)
    return dict(report)


@pytest.mark.slow
def test_kill_9_mid_ingest_then_rerun_equals_clean_run(
    settings: Settings, driver: neo4j.Driver, tmp_path: Path
) -> None:
    cid = f"crash-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "long_chat.json"
    _write_conversation(path, cid)
    try:
        clean_report = _finish(_ingest(settings, path))
        assert clean_report["turns_written"] == TURNS
        clean = snapshot(driver, cid)
        assert clean.counts["Turn"] == TURNS and clean.counts["-NEXT->"] == TURNS - 1
        with driver.session() as session:
            session.run("MATCH (n {conversation_id: $cid}) DETACH DELETE n", cid=cid).consume()
        assert _counts(driver, cid) == (0, 0)

        # crash 1: while the batches land (late, so that the rerun embeds fewer turns)
        turns, nxt = _kill_when(driver, _ingest(settings, path), cid, stage=0, at_least=TURNS // 2)
        assert turns % BATCH == 0 and 0 < turns < TURNS, turns
        assert nxt == turns - 1
        # crash 2: the rerun embeds and writes only the missing turns; killed once it has
        # written some of them
        turns2, nxt2 = _kill_when(
            driver, _ingest(settings, path), cid, stage=0, at_least=turns + 3 * BATCH
        )
        assert turns2 % BATCH == 0 and turns < turns2 < TURNS, turns2
        assert nxt2 == turns2 - 1
        # third run completes
        _finish(_ingest(settings, path))
        resumed = snapshot(driver, cid)
        assert resumed.counts == clean.counts
        assert resumed.checksum == clean.checksum, sorted(set(resumed.nodes) ^ set(clean.nodes))[:5]
        # re-embedded in other batch shapes: equal up to float noise
        assert resumed.max_embedding_drift(clean) < 1e-4
        record_figure("crashes_survived", 2)
        record_figure("crash_turns_at_kill", turns)
        record_figure("crash_next_at_kill", nxt2)
    finally:
        with driver.session() as session:
            session.run("MATCH (n {conversation_id: $cid}) DETACH DELETE n", cid=cid).consume()
