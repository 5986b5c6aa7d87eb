"""The local Neo4j launcher against a real server of its own (one start, one stop).

The tests of this module share one `LocalNeo4j` in a temporary home and run in file order:
started once (over a stale PID file), inspected, then stopped by the last test.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import neo4j
import pytest
from click.testing import CliRunner
from neo4j.exceptions import AuthError

from kgmem.cli.neo4j import NOT_RUNNING
from kgmem.cli.neo4j import neo4j as neo4j_cli
from kgmem.config import Settings
from kgmem.errors import ConfigError, ServerError
from kgmem.store.server import LocalNeo4j, ServerStatus
from kgmem.store.versions import NEO4J_VERSION

Started = tuple[LocalNeo4j, ServerStatus, float]

_TCP_LISTEN = "0A"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _launcher(data_dir: Path) -> LocalNeo4j:
    """A small server (512 MiB heap, 128 MiB page cache) in ``data_dir/neo4j`` on free ports."""
    return LocalNeo4j(
        data_dir / "neo4j",
        bolt_port=_free_port(),
        http_port=_free_port(),
        heap="512m",
        pagecache="128m",
    )


def _dead_pid() -> int:
    """The PID of a process that has already exited (and been reaped)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


def _listening_addresses(pid: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket ``pid`` listens on, from /proc (Linux only)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] != _TCP_LISTEN or cols[9] not in inodes:
                continue
            hex_addr, hex_port = cols[1].split(":")
            raw = bytes.fromhex(hex_addr)
            # /proc stores addresses as native-endian 32-bit words
            words = [raw[i : i + 4][::-1] for i in range(0, len(raw), 4)]
            addr = b"".join(words)
            if len(addr) == 4:
                text = ".".join(str(b) for b in addr)
            elif addr[:12] == bytes(10) + b"\xff\xff":
                text = ".".join(str(b) for b in addr[12:])  # IPv4-mapped IPv6
            else:
                text = addr.hex()
            found.add((text, int(hex_port, 16)))
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Started]:
    """One private server, started over a stale PID file; yields (launcher, status, start s)."""
    srv = _launcher(tmp_path_factory.mktemp("own-server"))
    srv.home.mkdir(parents=True)
    srv.pid_file.write_text(f"{_dead_pid()}\n")
    t0 = time.monotonic()
    status = srv.start()
    elapsed = time.monotonic() - t0
    try:
        yield srv, status, elapsed
    finally:
        srv.stop()


def test_start_over_stale_pid_file_reports_running(server: Started) -> None:
    srv, status, _ = server
    assert status.running and status.pid is not None
    assert status.bolt_uri == f"bolt://127.0.0.1:{srv.bolt_port}"
    assert status.browser_url == f"http://127.0.0.1:{srv.http_port}/browser/"
    assert status.home == srv.home
    assert status.store_bytes > 0
    assert int(srv.pid_file.read_text()) == status.pid


def test_start_twice_is_harmless(server: Started) -> None:
    srv, first, _ = server
    t0 = time.monotonic()
    again = srv.start()
    assert time.monotonic() - t0 < 5.0
    assert again.running and again.pid == first.pid


def test_generated_password_is_0600_and_auth_is_enforced(server: Started) -> None:
    srv, status, _ = server
    mode = stat.S_IMODE(srv.password_file.stat().st_mode)
    assert mode == 0o600
    password = srv.password()
    assert len(password) >= 24
    with neo4j.GraphDatabase.driver(status.bolt_uri, auth=("neo4j", password)) as drv:
        records, _, _ = drv.execute_query("RETURN 1 AS one")
        assert records[0]["one"] == 1
    for wrong in ("neo4j", password + "x"):
        with (
            neo4j.GraphDatabase.driver(status.bolt_uri, auth=("neo4j", wrong)) as drv,
            pytest.raises(AuthError),
        ):
            drv.verify_connectivity()


def test_password_never_in_logs_conf_or_command_line(server: Started) -> None:
    srv, status, _ = server
    password = srv.password()
    files = [
        p for sub in ("logs", "conf", "run") for p in (srv.home / sub).rglob("*") if p.is_file()
    ]
    assert any(p.name == "console.log" for p in files)
    assert any(p.name == "neo4j.log" for p in files)
    for path in files:
        assert password not in path.read_text(encoding="utf-8", errors="replace"), path
    cmdline = Path(f"/proc/{status.pid}/cmdline").read_bytes().decode(errors="replace")
    environ = Path(f"/proc/{status.pid}/environ").read_bytes().decode(errors="replace")
    assert password not in cmdline and password not in environ


def test_listens_on_loopback_only(server: Started) -> None:
    srv, status, _ = server
    assert status.pid is not None
    listening = _listening_addresses(status.pid)
    assert ("127.0.0.1", srv.bolt_port) in listening
    assert ("127.0.0.1", srv.http_port) in listening
    assert {addr for addr, _ in listening} == {"127.0.0.1"}, listening


def test_browser_is_served_and_discovers_bolt(server: Started) -> None:
    srv, status, _ = server
    page = httpx.get(status.browser_url, timeout=10.0)
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "<title>Neo4j Browser</title>" in page.text
    # The Browser reads the discovery document to prefill its Bolt connect URL.
    discovery = httpx.get(
        f"http://127.0.0.1:{srv.http_port}/", timeout=10.0, headers={"Accept": "application/json"}
    ).json()
    assert discovery["bolt_direct"] == status.bolt_uri
    assert discovery["neo4j_version"] == NEO4J_VERSION
    assert discovery["neo4j_edition"] == "community"


def test_cli_status_json(server: Started) -> None:
    srv, status, _ = server
    settings = Settings(
        data_dir=srv.home.parent,
        neo4j_bolt_port=srv.bolt_port,
        neo4j_http_port=srv.http_port,
        neo4j_password=None,
    )
    result = CliRunner().invoke(neo4j_cli, ["status", "--json"], obj=settings)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["running"] is True and shown["pid"] == status.pid
    assert shown["bolt_uri"] == status.bolt_uri
    assert srv.password() not in result.output


def test_pid_file_of_another_process_is_not_a_server(server: Started, tmp_path: Path) -> None:
    del server  # runs while the module's server is up; needs none of it
    other = _launcher(tmp_path)
    other.home.mkdir(parents=True)
    other.pid_file.write_text(f"{os.getpid()}\n")  # alive, but not Neo4j
    assert other.status().running is False
    other.pid_file.write_text(f"{_dead_pid()}\n")
    assert other.status().pid is None
    other.stop()  # no-op that clears the stale file
    assert not other.pid_file.exists()


def test_port_taken_fails_fast_without_spawning(tmp_path: Path) -> None:
    launcher = _launcher(tmp_path)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", launcher.http_port))
        busy.listen()
        with pytest.raises(ServerError, match=f"port {launcher.http_port} .* taken"):
            launcher.start()
    assert not launcher.pid_file.exists()


def test_heap_must_be_a_jvm_size(tmp_path: Path) -> None:
    launcher = LocalNeo4j(tmp_path / "neo4j", heap="1 GiB")
    with pytest.raises(ConfigError, match="heap"):
        launcher.start()
    assert not launcher.home.exists()


def test_stop_terminates_and_is_idempotent(server: Started) -> None:
    srv, status, _ = server
    t0 = time.monotonic()
    srv.stop()
    assert time.monotonic() - t0 < 60
    after = srv.status()
    assert after.running is False and after.pid is None
    assert not srv.pid_file.exists()
    assert not Path(f"/proc/{status.pid}").exists()
    log = (srv.home / "logs" / "neo4j.log").read_text()
    assert "Stopped." in log.splitlines()[-1]
    srv.stop()  # second stop is a no-op
    settings = Settings(
        data_dir=srv.home.parent,
        neo4j_bolt_port=srv.bolt_port,
        neo4j_http_port=srv.http_port,
        neo4j_password=None,
    )
    result = CliRunner().invoke(neo4j_cli, ["status", "--json"], obj=settings)
    assert result.exit_code == NOT_RUNNING == 3, result.output  # health checks can rely on it
    assert json.loads(result.output)["running"] is False
