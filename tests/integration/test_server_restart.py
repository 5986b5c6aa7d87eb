"""A server restart in the middle of an ingest (a real outage must not lose or double a unit): the
private Neo4j is stopped (SIGTERM) and started again while the ingest's write units land. The
driver's managed transactions retry the interrupted unit; if the outage outlasts their retry
budget the ingest fails with a typed `StoreError`, and one re-run finishes it. Either way the
graph then equals a clean ingest's (no duplicate node or edge, nothing missing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import neo4j
import pytest

from kgmem import Memory
from kgmem.config import Settings
from kgmem.errors import StoreError
from kgmem.models import ConversationRecord, SessionRecord, TurnRecord
from kgmem.store.server import LocalNeo4j
from tests.integration.conftest import local_server
from tests.strategies import record_figure, snapshot

# slow: two private server starts and an outage (several minutes)
pytestmark = pytest.mark.slow

TURNS = 60
START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
PLACES = ("Lisbon", "Porto", "Berlin", "Sintra", "Bonn", "Cologne")


def conversation(cid: str) -> ConversationRecord:
    turns = [
        TurnRecord(
            id=f"{cid}:t{n}",
            conversation_id=cid,
            session=1 + n // 40,
            index=n,
            dia_id=f"t{n}",
            speaker=("Ana", "Bo")[n % 2],
            text=f"On day {n} I visited {PLACES[n % 6]} with my friend Clara, turn {n}.",
            observed_at=START + timedelta(days=n // 40),
        )
        for n in range(TURNS)
    ]
    sessions = tuple(
        SessionRecord(conversation_id=cid, session=s, started_at=START + timedelta(days=s - 1))
        for s in (1, 2, 3)
    )
    return ConversationRecord(
        conversation_id=cid, speakers=("Ana", "Bo"), sessions=sessions, turns=tuple(turns)
    )


@pytest.fixture(scope="module")
def private(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalNeo4j, Path]]:
    data_dir = tmp_path_factory.mktemp("restart")
    server = local_server(data_dir)
    server.start()
    try:
        yield server, data_dir
    finally:
        server.stop()


def test_restart_mid_ingest_then_at_most_one_rerun_equals_clean(
    private: tuple[LocalNeo4j, Path], settings: Settings
) -> None:
    server, data_dir = private
    own = settings.model_copy(
        update={
            "data_dir": data_dir,
            "neo4j_uri": server.bolt_uri,
            "neo4j_password": None,
            "neo4j_bolt_port": server.bolt_port,
            "neo4j_http_port": server.http_port,
            "write_batch_size": 2,
        }
    )
    password = own.resolved_password()
    assert password is not None
    with (
        Memory.from_settings(own) as memory,
        neo4j.GraphDatabase.driver(
            server.bolt_uri, auth=("neo4j", password), notifications_min_severity="OFF"
        ) as driver,
    ):
        memory.apply_schema()
        memory.add_conversation(conversation("clean"), facts="extracted")
        clean = snapshot(driver, "clean").canonical("clean")

        outcome: list[BaseException | None] = []

        def ingest() -> None:
            try:
                memory.add_conversation(conversation("restarted"), facts="extracted")
                outcome.append(None)
            except BaseException as exc:
                outcome.append(exc)

        worker = threading.Thread(target=ingest)
        worker.start()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and worker.is_alive():
            with driver.session() as session:
                stored = session.run(
                    "MATCH (t:Turn {conversation_id: 'restarted'}) RETURN count(t) AS n"
                ).single()
            if stored is not None and stored["n"] >= 2:  # the first unit landed
                break
            time.sleep(0.05)
        assert worker.is_alive(), "the ingest finished before the restart"
        with driver.session() as session:
            at_stop = session.run(
                "MATCH (t:Turn {conversation_id: 'restarted'}) RETURN count(t) AS n"
            ).single(strict=True)["n"]
        t0 = time.monotonic()
        server.stop()
        server.start()
        outage = time.monotonic() - t0
        worker.join(timeout=600)
        assert outcome, "the ingest never returned"
        failed = outcome[0]
        if failed is not None:  # the outage outlasted the driver's retries: a typed error
            assert isinstance(failed, StoreError), repr(failed)
            memory.add_conversation(conversation("restarted"), facts="extracted")
        assert snapshot(driver, "restarted").canonical("restarted") == clean
        assert at_stop < TURNS, "the ingest finished before the restart"
        record_figure("restart_turns_at_stop", at_stop)
        record_figure("restart_outage_s", round(outage, 1))
        record_figure("restart_reruns_needed", 0 if failed is None else 1)
