"""Any password the server accepts starts the local server, and a failed first start recovers.

``neo4j-admin dbms set-initial-password`` parses its arguments with picocli: a password that
begins with ``-`` is read as an option, one that begins with ``@`` as an argument file to
expand. Each case starts a real server from an empty home (the admin tool, then the server, then
a driver login with the password in force), so the module is marked ``slow``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import neo4j
import pytest
from neo4j.exceptions import AuthError

from kgmem.errors import ServerError
from kgmem.store.server import LocalNeo4j
from tests.integration.conftest import free_port

pytestmark = pytest.mark.slow


def _launcher(home: Path, **kwargs: object) -> LocalNeo4j:
    return LocalNeo4j(
        home,
        bolt_port=free_port(),
        http_port=free_port(),
        heap="512m",
        pagecache="64m",
        **kwargs,  # type: ignore[arg-type]
    )


def _logs_in(uri: str, password: str) -> bool:
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password)) as drv:
        records, _, _ = drv.execute_query("RETURN 1 AS one")
        return bool(records[0]["one"] == 1)


def _refuses(uri: str, password: str) -> bool:
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password)) as drv:
        try:
            drv.verify_connectivity()
        except AuthError:
            return True
    return False


@pytest.mark.parametrize(
    "password",
    [
        pytest.param("-Abcdefgh12345", id="leading-dash"),
        pytest.param("--Abcdefgh12345", id="leading-double-dash"),
        pytest.param("@{existing_file}", id="leading-at-naming-a-file"),
        pytest.param(
            'say "cheese" \\ back\\slash crème-brûlée-日本\\', id="quotes-backslash-non-ascii"
        ),
    ],
)
def test_first_start_with_stored_password(password: str, tmp_path: Path) -> None:
    """The stored password (``<home>/password``) reaches the server intact, whatever it holds."""
    existing = tmp_path / "not-a-password.txt"
    existing.write_text("short\n", encoding="utf-8")  # expanded, it would be too short
    password = password.replace("{existing_file}", str(existing))
    srv = _launcher(tmp_path / "neo4j")
    srv.home.mkdir(parents=True)
    srv.password_file.write_text(password + "\n", encoding="utf-8")
    status = srv.start()
    try:
        assert srv.password() == password
        assert _logs_in(status.bolt_uri, password)
        assert _refuses(status.bolt_uri, password[1:])
        assert not (srv.home / "run" / "initial-password.args").exists()
    finally:
        srv.stop()


def test_cli_start_with_a_dash_password_from_the_environment(tmp_path: Path) -> None:
    """`KGMEM_NEO4J_PASSWORD='-Abcdefgh12345' kgmem neo4j start` on an empty data dir."""
    password = "-Abcdefgh12345"
    env = {
        **os.environ,
        "KGMEM_DATA_DIR": str(tmp_path),
        "KGMEM_NEO4J_PASSWORD": password,
        "KGMEM_NEO4J_BOLT_PORT": str(free_port()),
        "KGMEM_NEO4J_HTTP_PORT": str(free_port()),
        "KGMEM_NEO4J_HEAP": "512m",
        "KGMEM_NEO4J_PAGECACHE": "64m",
    }
    cli = [str(Path(sys.executable).with_name("kgmem")), "neo4j"]
    started = subprocess.run([*cli, "start"], env=env, capture_output=True, text=True)
    try:
        assert started.returncode == 0, started.stderr
        assert _logs_in(f"bolt://127.0.0.1:{env['KGMEM_NEO4J_BOLT_PORT']}", password)
        assert not (tmp_path / "neo4j" / "password").exists()  # given, so never written
    finally:
        subprocess.run([*cli, "stop"], env=env, capture_output=True, text=True, check=True)


def test_start_after_a_failed_first_start(tmp_path: Path) -> None:
    """A first start that gave up half-way (here: not ready in time) does not poison the home.

    The first attempt writes the initial password and spawns the server, then times out and
    stops it; the next start of the same home succeeds with the same stored password.
    """
    home = tmp_path / "neo4j"
    first = _launcher(home, start_timeout_s=0.5)
    with pytest.raises(ServerError, match="not ready"):
        first.start()
    assert first.status().running is False
    stored = first.password()
    second = _launcher(home)
    status = second.start()
    try:
        assert second.password() == stored
        assert _logs_in(status.bolt_uri, stored)
    finally:
        second.stop()
