"""Faults with clear, typed messages, and the running server's local security.

Complements tests/integration/test_server.py (which checks a private server it starts: 0600
password file, auth, loopback binding, no password in its logs or ``status --json``). Here the
server under test is the one every other integration test uses (ambient or fixture-started),
and the client side: what kgmem says when Neo4j is down, refuses the password, holds a vector
index of another dimension, or a model is missing.
"""

from __future__ import annotations

import os
import socket
import stat
import time
from pathlib import Path
from urllib.parse import urlparse

import neo4j
import pytest
from click.testing import CliRunner
from neo4j.exceptions import AuthError, ClientError

from kgmem.cli.admin import conversations as conversations_cli
from kgmem.cli.neo4j import neo4j as neo4j_cli
from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import AuthenticationFailed, ModelUnavailable, Neo4jUnavailable, SchemaMismatch
from kgmem.store import Store
from kgmem.store.schema import check_vector_dimensions
from tests.strategies import record_figure


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # released: nothing listens there now


def test_no_server_raises_neo4j_unavailable_fast_with_how_to_start() -> None:
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    t0 = time.monotonic()
    with Store(uri, "neo4j", "irrelevant") as store, pytest.raises(Neo4jUnavailable) as info:
        store.verify()
    assert time.monotonic() - t0 < 10.0  # no 30 s retry loop before saying so
    message = str(info.value)
    assert uri in message and "kgmem neo4j start" in message and "KGMEM_NEO4J_URI" in message
    record_figure("faults_typed", 1)


def test_wrong_password_raises_authentication_failed_without_the_password(
    settings: Settings,
) -> None:
    wrong = "kgmem-wrong-pw-" + os.urandom(6).hex()
    with (
        Store(settings.neo4j_uri, settings.neo4j_user, wrong) as store,
        pytest.raises(AuthenticationFailed) as info,
    ):
        store.verify()  # one failed attempt: below Neo4j's lock-out threshold (3)
    message = str(info.value)
    assert wrong not in message
    real = settings.resolved_password()
    assert real is not None and real not in message
    assert settings.neo4j_uri in message and repr(settings.neo4j_user) in message
    record_figure("faults_typed", 1)


def test_vector_index_of_another_dimension_is_a_schema_mismatch(settings: Settings) -> None:
    with Store.from_settings(settings) as store:
        check_vector_dimensions(store, 384)  # the real index: no complaint
        with pytest.raises(SchemaMismatch) as info:
            check_vector_dimensions(store, 999)
    assert info.value.expected_dim == 999 and info.value.found_dim == 384
    assert (
        "999" in str(info.value)
        and "384" in str(info.value)
        and info.value.index in str(info.value)
    )
    record_figure("faults_typed", 1)


def test_missing_model_raises_model_unavailable_with_install_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    # huggingface_hub reads HF_HUB_OFFLINE once, at import; earlier tests imported it already,
    # and without this the lookup waits for network timeouts (~60 s) instead of failing at once
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    embedder = Embedder("kgmem-tests/no-such-model-" + os.urandom(4).hex())
    with pytest.raises(ModelUnavailable) as info:
        embedder.encode(["hello"])
    assert "pip install" in str(info.value) and embedder.name in str(info.value)
    from kgmem.ingest.extraction.extract import SpacyExtractor

    with pytest.raises(ModelUnavailable, match="pip install"):
        SpacyExtractor("no_such_spacy_pipeline").extract("c", [], [])
    record_figure("faults_typed", 2)


# --- the running server's local security ---------------------------------------------------

_LISTEN = "0A"


def _listeners(port: int) -> set[str]:
    """Local addresses of every TCP socket in LISTEN state on ``port`` (from /proc/net)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            hex_addr, hex_port = cols[1].split(":")
            if cols[3] != _LISTEN or int(hex_port, 16) != port:
                continue
            raw = bytes.fromhex(hex_addr)
            addr = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            if len(addr) == 16 and addr[:12] == bytes(10) + b"\xff\xff":
                addr = addr[12:]
            found.add(
                ".".join(str(b) for b in addr)
                if len(addr) == 4
                else socket.inet_ntop(socket.AF_INET6, addr)
            )
    return found


def test_running_server_listens_on_loopback_only(settings: Settings) -> None:
    bolt = urlparse(settings.neo4j_uri).port or 7687
    ports = [bolt] + ([settings.neo4j_http_port] if _listeners(settings.neo4j_http_port) else [])
    for port in ports:
        addresses = _listeners(port)
        assert addresses, f"nothing listens on {port}"
        assert addresses <= {"127.0.0.1", "::1"}, (port, addresses)


def test_running_server_refuses_unauthenticated_clients(settings: Settings) -> None:
    with (
        neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=None) as drv,
        pytest.raises((AuthError, ClientError)),
    ):
        drv.verify_connectivity()


def test_password_file_private_and_password_never_printed(settings: Settings) -> None:
    password = settings.resolved_password()
    assert password
    if settings.neo4j_password is None:  # the local server's generated password file is in use
        assert stat.S_IMODE(settings.password_file.stat().st_mode) == 0o600
    runner = CliRunner()
    outputs = [
        runner.invoke(neo4j_cli, ["status"], obj=settings).output,
        runner.invoke(neo4j_cli, ["status", "--json"], obj=settings).output,
        runner.invoke(conversations_cli, [], obj=settings).output,
    ]
    for output in outputs:
        assert password not in output
    logs = settings.neo4j_home / "logs"
    checked = 0
    if logs.is_dir():
        for path in logs.rglob("*.log"):
            assert password not in path.read_text(encoding="utf-8", errors="replace"), path
            checked += 1
    assert checked or not logs.is_dir()
