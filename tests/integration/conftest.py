"""Integration fixtures: a real Neo4j (the pinned 2026 release) for the whole session.

`settings` points at a server that answers ``RETURN 1``:

1. the ambient one, if `Settings()` (``KGMEM_NEO4J_URI`` / ``KGMEM_NEO4J_PASSWORD`` / the default
   data dir's password file) reaches it — e.g. the server `kgmem neo4j start` left running;
2. otherwise a `LocalNeo4j` started in a temporary home on free loopback ports (jars from the
   user cache, resolved by Maven on first use), stopped with SIGTERM at session end.

Tests isolate their data by ``conversation_id``, so sharing the ambient server is safe.
Every test under ``tests/integration`` gets the ``integration`` marker.
"""

from __future__ import annotations

import contextlib
import json
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest
from neo4j.exceptions import DriverError, Neo4jError

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.store.server import LocalNeo4j

HERE = Path(__file__).resolve().parent
SAMPLE_CHAT = HERE.parents[1] / "examples" / "sample_chat.json"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.integration)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answers(uri: str, user: str, password: str | None) -> bool:
    """True when a Neo4j at ``uri`` accepts the credentials and runs ``RETURN 1``."""
    if password is None:
        return False
    try:
        with (
            neo4j.GraphDatabase.driver(
                uri, auth=(user, password), connection_timeout=3.0, notifications_min_severity="OFF"
            ) as driver,
            driver.session() as session,
        ):
            session.run("RETURN 1").consume()
    except (DriverError, Neo4jError, OSError):
        return False
    return True


def local_server(data_dir: Path, *, heap: str = "512m", pagecache: str = "128m") -> LocalNeo4j:
    """A launcher for ``<data_dir>/neo4j`` on two free ports, with a generated password."""
    return LocalNeo4j(
        data_dir / "neo4j",
        bolt_port=free_port(),
        http_port=free_port(),
        heap=heap,
        pagecache=pagecache,
    )


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings of a running Neo4j (the ambient one, or a private one for this session)."""
    ambient = Settings()
    if answers(ambient.neo4j_uri, ambient.neo4j_user, ambient.resolved_password()):
        yield ambient
        return
    data_dir = tmp_path_factory.mktemp("kgmem-data")
    server = local_server(data_dir)
    server.start()
    try:
        yield Settings(
            data_dir=data_dir,
            neo4j_uri=server.bolt_uri,
            neo4j_password=None,
            neo4j_bolt_port=server.bolt_port,
            neo4j_http_port=server.http_port,
            neo4j_heap=server.heap,
            neo4j_pagecache=server.pagecache,
        )
    finally:
        server.stop()


@pytest.fixture(scope="session")
def driver(settings: Settings) -> Iterator[neo4j.Driver]:
    """A raw driver on the session's server, for tests that count nodes or edges directly."""
    password = settings.resolved_password()
    assert password is not None
    with neo4j.GraphDatabase.driver(
        settings.neo4j_uri, auth=(settings.neo4j_user, password), notifications_min_severity="OFF"
    ) as drv:
        yield drv


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    """A `Memory` on the session's Neo4j, one per test module."""
    with Memory.from_settings(settings) as mem:
        yield mem


@pytest.fixture(scope="module")
def conversation(memory: Memory, request: pytest.FixtureRequest) -> Iterator[str]:
    """examples/sample_chat.json under a unique conversation id (extracted facts), forgotten
    after the module."""
    raw = json.loads(SAMPLE_CHAT.read_text(encoding="utf-8"))
    module = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    raw["conversation_id"] = f"it-{module}-{uuid.uuid4().hex[:8]}"
    memory.add_conversation(parse_chat_conversation(raw), facts="extracted")
    yield raw["conversation_id"]
    memory.forget(raw["conversation_id"])


@pytest.fixture(scope="session")
def http_served(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One running ``kgmem serve`` (tests/integration/http_server.py) shared by the HTTP API's
    test modules; every conversation its tokens reach is forgotten at the end."""
    from kgmem.errors import ConversationNotFound
    from tests.integration.http_server import spawn

    gen = spawn(settings, tmp_path_factory.mktemp("serve"))
    served = next(gen)
    try:
        yield served
    finally:
        with contextlib.suppress(StopIteration):
            next(gen)
        with Memory.from_settings(settings) as memory:
            for owner in served.owners.values():
                with contextlib.suppress(ConversationNotFound):
                    memory.forget_owner(owner)
            for cid in (served.conversations["c"], served.conversations["c2"]):
                with contextlib.suppress(ConversationNotFound):
                    memory.forget(cid)
