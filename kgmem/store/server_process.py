"""Process control of a local server: free ports, a clean environment, and whether a PID is
still our server (procfs command line) or gone (reaped, zombie, or reused).

Used by `kgmem.store.server.LocalNeo4j`; `tree_bytes` is re-exported there.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from kgmem.errors import ServerError

__all__ = [
    "ENTRY_POINT",
    "LEGACY_ENTRY_POINT",
    "alive",
    "clean_env",
    "gone",
    "require_free",
    "tree_bytes",
    "wait_gone",
]

ENTRY_POINT = "org.neo4j.server.Neo4jCommunity"
LEGACY_ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
"""The 5.26 entry point: a server started by kgmem 0.1 is still recognised (and stopped)."""
_SECRET_ENV = ("KGMEM_NEO4J_PASSWORD", "NEO4J_AUTH")


def clean_env() -> dict[str, str]:
    """The environment without secrets, for child JVMs."""
    return {k: v for k, v in os.environ.items() if k not in _SECRET_ENV}


def tree_bytes(folder: Path) -> int:
    """Apparent size of all files under ``folder`` in bytes (files vanishing meanwhile skipped)."""
    total = 0
    for path in folder.rglob("*") if folder.is_dir() else ():
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def require_free(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ServerError(f"port {port} on 127.0.0.1 is taken ({exc.strerror})") from exc


def alive(pid: int, home: Path) -> bool:
    """Is ``pid`` a live Neo4j of this home (not a reused PID)? Reaps our exited child."""
    if gone(pid):
        return False
    proc = Path(f"/proc/{pid}")
    if not proc.is_dir():  # no procfs (macOS): trust the signal
        return True
    try:
        cmdline = proc.joinpath("cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if cmdline == [b""]:  # still exec'ing, or exiting (the cmdline is briefly empty)
        return True
    # the entry point of this release, or of the 5.26 line that kgmem 0.1 ran (so `stop` can
    # still stop a server started before an upgrade)
    started_by_us = any(e.encode() in cmdline for e in (ENTRY_POINT, LEGACY_ENTRY_POINT))
    return started_by_us and f"--home-dir={home}".encode() in cmdline


def gone(pid: int) -> bool:
    """True once ``pid`` has exited; reaps it when it is our child (posix_spawn)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return True
        child = True
    except ChildProcessError:
        child = False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    if child:
        return False
    # Not our child: a zombie waiting for its parent counts as gone. A JVM whose main thread
    # exited first also shows state Z while its other threads still run, hence the task count.
    proc = Path(f"/proc/{pid}")
    try:
        state = proc.joinpath("stat").read_text().rsplit(")", 1)[1].split()[0]
        return state == "Z" and len(list(proc.joinpath("task").iterdir())) <= 1
    except OSError:
        return not proc.exists()


def wait_gone(pid: int, timeout_s: float) -> bool:
    """Poll every 0.2 s until ``pid`` has exited; False after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.2)
    return False
