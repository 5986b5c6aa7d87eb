"""The local Neo4j launcher: Neo4j 2026 Community from Maven Central, no Docker.

The jars are resolved once by Maven (``docker/local/pom.xml``) into the per-user cache
(``platformdirs.user_cache_dir("kgmem")/neo4j-<version>/lib``); the server's data, logs, config
and generated password live under a *home* folder (by default ``Settings().neo4j_home``, i.e.
``~/.local/share/kgmem/neo4j`` on Linux)::

    <home>/conf/neo4j.conf    rendered from docker/local/neo4j.conf.template on every start
    <home>/data/              databases and transaction logs (what `ServerStatus.store_bytes` sums)
    <home>/logs/console.log   the JVM's stdout/stderr; neo4j.log and debug.log beside it
    <home>/neo4j.pid          PID of the running server (its own session / process group)
    <home>/password           the generated password, mode 0600 (unless KGMEM_NEO4J_PASSWORD is set)

The server listens on 127.0.0.1 only (Bolt and HTTP; HTTPS off), auth is always on, and the
initial password is written with Neo4j's own ``dbms set-initial-password`` command *before* the
first start, so the store never exists with ``neo4j/neo4j``. The password is never printed,
logged or passed on a command line (it reaches the admin tool through a 0600 argument file).

The Java runtime is found by `kgmem.store.java`, the server process is watched by
`kgmem.store.server_process`, and the pinned versions are in `kgmem.store.versions`.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import shutil
import signal
import string
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import neo4j
import platformdirs
from neo4j.exceptions import AuthError, DriverError, Neo4jError, TransientError
from tenacity import Retrying, retry_if_exception_type, stop_after_delay, wait_fixed

from kgmem.config import Settings
from kgmem.errors import ConfigError, ServerError

# Java discovery, process control and the version pins live in modules of their own; the names
# this module always offered are re-exported so that imports from it keep working
from kgmem.store.java import JavaRuntime, find_java, java_major  # noqa: F401
from kgmem.store.server_process import (
    ENTRY_POINT,
    LEGACY_ENTRY_POINT,  # noqa: F401
    alive,
    clean_env,
    require_free,
    tree_bytes,
    wait_gone,
)
from kgmem.store.versions import BROWSER_VERSION, JAVA_MIN, NEO4J_VERSION  # noqa: F401

__all__ = [
    "LocalNeo4j",
    "ServerStatus",
    "default_lib_dir",
]

log = logging.getLogger(__name__)

ADMIN_TOOL = "org.neo4j.cli.AdminTool"
USER = "neo4j"
_MARKER = ".kgmem-complete"
_SIZE = re.compile(r"^[1-9][0-9]*[kmgKMG]?$")

# JVM flags of the stock neo4j.conf (server.jvm.additional) and of the release's parent POM
# (`jdk.custom.options`) that matter when the entry point is started directly, without the
# neo4j launcher script: the --add-opens let the off-heap page cache and Netty reach into
# java.nio / sun.nio.ch / java.util.concurrent; the vector module backs the vector indexes;
# native access is for the page cache's native I/O.
JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)
# Lucene's SIMD vector scoring (vector indexes); added when the runtime has the module (a
# jlink-ed runtime without it still works, with scalar scoring).
VECTOR_MODULE = "jdk.incubator.vector"
# Added on Java 25+ only (the parent POM's `jdk25.vm.options`): Unsafe memory access is still
# used by Netty and the page cache; without this flag Java 25 prints a warning per use.
JVM_FLAGS_25 = ("--sun-misc-unsafe-memory-access=allow",)


def default_lib_dir() -> Path:
    """Where the server jars are cached: ``<user cache>/kgmem/neo4j-<version>/lib``."""
    cache = Path(platformdirs.user_cache_dir("kgmem", appauthor=False))
    return cache / f"neo4j-{NEO4J_VERSION}" / "lib"


def resource_dir() -> Path:
    """The folder with ``pom.xml`` and ``neo4j.conf.template``.

    ``kgmem/_docker_local`` in a wheel (pyproject force-include), else ``docker/local`` of the
    source tree.

    Raises:
        ServerError: neither exists.
    """
    package = Path(__file__).resolve().parents[1]
    for folder in (package / "_docker_local", package.parent / "docker" / "local"):
        if (folder / "pom.xml").is_file():
            return folder
    raise ServerError(f"docker/local/pom.xml is missing (looked beside {package})")


@dataclass(frozen=True)
class ServerStatus:
    """What `LocalNeo4j.status` reports.

    Attributes:
        running: the server process (matched by PID file and command line) is alive.
        pid: its PID, or None when not running.
        bolt_uri: e.g. ``bolt://127.0.0.1:7687``.
        browser_url: e.g. ``http://127.0.0.1:7474/browser/``.
        home: the server home folder.
        store_bytes: total apparent size of ``<home>/data`` in bytes (0 before the first start).
    """

    running: bool
    pid: int | None
    bolt_uri: str
    browser_url: str
    home: Path
    store_bytes: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (``home`` as a string)."""
        return {**asdict(self), "home": str(self.home)}


class _NotReady(Exception):
    """Internal: Bolt did not answer ``RETURN 1`` yet."""


class LocalNeo4j:
    """Install, start, stop and inspect one local Neo4j server. The constructor has no effects.

    Args:
        home: server home (conf, data, logs, PID and password files).
        bolt_port: Bolt port on 127.0.0.1.
        http_port: HTTP port on 127.0.0.1 (Browser at ``/browser/``).
        heap: JVM heap, initial = max, as ``<int>[k|m|g]`` (e.g. ``1g``).
        pagecache: page cache size, same format.
        password: a fixed password (``KGMEM_NEO4J_PASSWORD``); None = generate one on first start.
        java_home: the JDK/JRE to use (``KGMEM_JAVA_HOME``); default: see `find_java`.
        start_timeout_s: seconds to wait for Bolt readiness before giving up.
        lib_dir: jar folder; default `default_lib_dir`.
    """

    def __init__(
        self,
        home: Path,
        *,
        bolt_port: int = 7687,
        http_port: int = 7474,
        heap: str = "1g",
        pagecache: str = "512m",
        password: str | None = None,
        java_home: Path | None = None,
        start_timeout_s: float = 180.0,
        lib_dir: Path | None = None,
    ) -> None:
        self.home = Path(home).expanduser().resolve()
        self.bolt_port = bolt_port
        self.http_port = http_port
        self.heap = heap
        self.pagecache = pagecache
        self.java_home = java_home
        self.start_timeout_s = start_timeout_s
        self.lib_dir = lib_dir or default_lib_dir()
        self._password = password

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalNeo4j:
        """A launcher for ``settings.neo4j_home`` with the configured ports, memory and password."""
        secret = settings.neo4j_password
        return cls(
            settings.neo4j_home,
            bolt_port=settings.neo4j_bolt_port,
            http_port=settings.neo4j_http_port,
            heap=settings.neo4j_heap,
            pagecache=settings.neo4j_pagecache,
            password=secret.get_secret_value() if secret is not None else None,
            start_timeout_s=settings.neo4j_start_timeout_s,
            java_home=settings.java_home,
        )

    # --- paths ---------------------------------------------------------------------------
    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"

    @property
    def pid_file(self) -> Path:
        return self.home / "neo4j.pid"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    @property
    def console_log(self) -> Path:
        return self.home / "logs" / "console.log"

    # --- public API ----------------------------------------------------------------------
    def password(self) -> str:
        """The password in force: the one given (env) or the generated one in ``<home>/password``.

        Raises:
            ServerError: none given and none generated yet (the server was never started).
        """
        if self._password is not None:
            return self._password
        if self.password_file.is_file():
            # only the line end is ours: a password may begin or end with spaces
            return self.password_file.read_text(encoding="utf-8").rstrip("\r\n")
        raise ServerError(f"no password yet: none set and {self.password_file} does not exist")

    def install(self) -> Path:
        """Resolve the server and Browser jars with Maven, once; returns the lib folder.

        Skipped when the folder holds the completion marker. Jars are copied into a sibling
        temporary folder first and renamed into place, so an interrupted run leaves no half lib.

        Raises:
            ServerError: ``mvn`` or ``java`` is missing, or Maven fails (with its output's tail).
        """
        if (self.lib_dir / _MARKER).is_file():
            return self.lib_dir
        mvn = shutil.which("mvn")
        if mvn is None:
            raise ServerError(
                "Maven (`mvn`) is not on PATH; install it (e.g. apt-get install maven)"
            )
        java = self._java()
        tmp = self.lib_dir.with_name(f"lib.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        env = dict(os.environ)
        if not env.get("JAVA_HOME") and shutil.which("java") is None:
            env["JAVA_HOME"] = str(Path(java).parents[1])  # Maven itself needs some Java
        cmd = [
            mvn,
            "-q",
            "-B",
            "-f",
            str(resource_dir() / "pom.xml"),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={tmp}",
        ]
        log.info("resolving Neo4j %s jars into %s", NEO4J_VERSION, self.lib_dir)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not any(tmp.glob(f"neo4j-server-{NEO4J_VERSION}.jar")):
            shutil.rmtree(tmp, ignore_errors=True)
            tail = (done.stdout + done.stderr)[-3000:]
            raise ServerError(f"Maven could not resolve Neo4j {NEO4J_VERSION}:\n{tail}")
        (tmp / _MARKER).write_text(f"neo4j {NEO4J_VERSION}\nbrowser {BROWSER_VERSION}\n")
        if (self.lib_dir / _MARKER).is_file():  # another process finished first
            shutil.rmtree(tmp, ignore_errors=True)
            return self.lib_dir
        shutil.rmtree(self.lib_dir, ignore_errors=True)  # an incomplete folder without marker
        tmp.rename(self.lib_dir)
        return self.lib_dir

    def status(self) -> ServerStatus:
        """Process state and store size; never touches the network."""
        pid = self._live_pid()
        size = tree_bytes(self.home / "data")
        return ServerStatus(pid is not None, pid, self.bolt_uri, self.browser_url, self.home, size)

    def start(self) -> ServerStatus:
        """Start the server in the background and wait until Bolt answers ``RETURN 1``.

        Harmless when already running (waits for readiness, returns the status). A PID file
        left by a dead process is removed.

        Raises:
            ConfigError: heap / page cache not of the form ``<int>[k|m|g]``.
            ServerError: Java/Maven missing, a port taken, the process died, the password is
                refused, or not ready within ``start_timeout_s`` (message ends with the log tail).
        """
        for name, value in (("heap", self.heap), ("pagecache", self.pagecache)):
            if not _SIZE.match(value):
                raise ConfigError(f"neo4j {name} {value!r} must look like 512m or 2g")
        if self._live_pid() is not None:
            self._wait_ready()
            return self.status()
        self.pid_file.unlink(missing_ok=True)
        for port in (self.bolt_port, self.http_port):
            require_free(port)
        lib = self.install()
        java = self._java()
        for sub in ("conf", "data", "logs", "run", "import", "plugins"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        self._render_conf(lib)
        if not (self.home / "data" / "databases" / "system").exists():
            self._set_initial_password(java, lib)
        t0 = time.monotonic()
        pid = self._spawn(java, lib)
        self.pid_file.write_text(f"{pid}\n", encoding="utf-8")
        try:
            self._wait_ready()
        except ServerError:
            self.stop(timeout_s=30)
            raise
        log.info("Neo4j ready at %s in %.1f s (pid %d)", self.bolt_uri, time.monotonic() - t0, pid)
        return self.status()

    def stop(self, timeout_s: float = 60) -> None:
        """SIGTERM the server and wait for a clean shutdown (checkpoint); no-op when stopped.

        After ``timeout_s`` seconds it is SIGKILLed with a logged warning (the next start then
        runs recovery). Removes the PID file.
        """
        pid = self._live_pid()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            if not wait_gone(pid, timeout_s):
                log.warning(
                    "Neo4j pid %d ignored SIGTERM for %.0f s; sending SIGKILL", pid, timeout_s
                )
                os.kill(pid, signal.SIGKILL)
                wait_gone(pid, 30)
        self.pid_file.unlink(missing_ok=True)

    # --- internals -----------------------------------------------------------------------
    def _java(self) -> str:
        return str(find_java(self.java_home).java)

    def _live_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None
        return pid if alive(pid, self.home) else None

    def _render_conf(self, lib: Path) -> None:
        for name, path in (("home", self.home), ("jar folder", lib)):
            if any(ch in str(path) for ch in "\r\n"):  # each would start a setting of its own
                raise ConfigError(f"the Neo4j {name} {str(path)!r} must not contain a line break")
        template = string.Template((resource_dir() / "neo4j.conf.template").read_text("utf-8"))
        conf = template.substitute(
            home=self.home,
            lib=lib,
            bolt_port=self.bolt_port,
            http_port=self.http_port,
            heap=self.heap,
            pagecache=self.pagecache,
        )
        (self.home / "conf" / "neo4j.conf").write_text(conf, encoding="utf-8")

    def _ensure_password(self) -> str:
        if self._password is not None or self.password_file.is_file():
            return self.password()
        secret = secrets.token_urlsafe(24)
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(secret + "\n")
        return secret

    def _set_initial_password(self, java: str, lib: Path) -> None:
        """Run ``neo4j-admin dbms set-initial-password`` (same jars) before the first start.

        The password goes through a picocli ``@argfile`` (mode 0600, deleted afterwards), so it
        never appears in a process listing. The file is written by `password_argfile`, so any
        password the server accepts gets through, including ones that begin with ``-`` or ``@``.
        """
        secret = self._ensure_password()
        if len(secret) < 8:
            raise ConfigError("the Neo4j password must have at least 8 characters")
        argfile = self.home / "run" / "initial-password.args"
        argfile.unlink(missing_ok=True)
        fd = os.open(argfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(password_argfile(secret))
        env = {**clean_env(), "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}
        try:
            done = subprocess.run(
                [
                    java,
                    "-cp",
                    f"{lib}/*",
                    ADMIN_TOOL,
                    "dbms",
                    "set-initial-password",
                    f"@{argfile}",
                ],
                env=env,
                cwd=self.home,
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            argfile.unlink(missing_ok=True)
        if done.returncode != 0:
            raise ServerError(f"setting the initial password failed:\n{done.stderr[-2000:]}")

    def _spawn(self, java: str, lib: Path) -> int:
        runtime = find_java(self.java_home)
        argv = [
            java,
            f"-Xms{self.heap}",
            f"-Xmx{self.heap}",
            *JVM_FLAGS,
            *(JVM_FLAGS_25 if runtime.major >= 25 else ()),
            *([f"--add-modules={VECTOR_MODULE}"] if runtime.has_module(VECTOR_MODULE) else []),
            f"-XX:ErrorFile={self.home / 'logs' / 'hs_err_pid%p.log'}",
            "-cp",
            f"{lib}/*",
            ENTRY_POINT,
            f"--home-dir={self.home}",
            f"--config-dir={self.home / 'conf'}",
        ]
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (
                os.POSIX_SPAWN_OPEN,
                1,
                str(self.console_log),
                os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                0o644,
            ),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        try:
            return os.posix_spawn(java, argv, clean_env(), file_actions=actions, setsid=True)
        except OSError as exc:
            raise ServerError(f"could not start {java}: {exc}") from exc

    def _wait_ready(self) -> None:
        def probe() -> None:
            pid = self._live_pid()
            if pid is None:
                raise ServerError(f"Neo4j exited during start-up.\n{self._log_tail()}")
            try:
                with (
                    neo4j.GraphDatabase.driver(
                        self.bolt_uri,
                        auth=(USER, self.password()),
                        connection_timeout=2.0,
                        notifications_min_severity="OFF",
                    ) as driver,
                    driver.session() as session,
                ):
                    session.run("RETURN 1").consume()  # auto-commit: no driver-side retries
            except AuthError as exc:
                raise ServerError(
                    f"Neo4j at {self.bolt_uri} refuses the password in force (from "
                    f"KGMEM_NEO4J_PASSWORD or {self.password_file}); its store under "
                    f"{self.home / 'data'} was initialised with another one"
                ) from exc
            except (DriverError, TransientError, OSError) as exc:  # not up yet
                raise _NotReady(str(exc)) from exc
            except Neo4jError as exc:
                raise ServerError(
                    f"Neo4j at {self.bolt_uri} answered with an error: {exc}"
                ) from exc

        retrying = Retrying(
            stop=stop_after_delay(self.start_timeout_s),
            wait=wait_fixed(0.5),
            retry=retry_if_exception_type(_NotReady),
            reraise=True,
        )
        try:
            retrying(probe)
        except _NotReady as exc:
            raise ServerError(
                f"Neo4j not ready at {self.bolt_uri} after {self.start_timeout_s:.0f} s "
                f"({exc}).\n{self._log_tail()}"
            ) from exc

    def _log_tail(self, lines: int = 30) -> str:
        parts = []
        for path in (self.console_log, self.home / "logs" / "neo4j.log"):
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
                parts.append(f"--- {path} ---\n" + "\n".join(text))
        return "\n".join(parts) or "(no log written)"


def password_argfile(secret: str) -> str:
    r"""The picocli argument file that passes ``secret`` as ``set-initial-password``'s positional.

    ``neo4j-admin`` parses its command line with picocli (4.7 in Neo4j 2026), which reads:

    - an argument beginning with ``-`` as an option (``Missing required parameter:
      '<password>'``), unless it follows the end-of-options marker ``--``;
    - an argument beginning with ``@`` as another argument file to expand, even after ``--``
      and even inside an argument file, unless the ``@`` is doubled (``@@x`` is the literal
      ``@x``);
    - a quoted token with ``StreamTokenizer`` escapes: ``\\``, ``\"`` and octal ``\ooo``.

    So the file holds ``--`` and then the password in double quotes, its backslashes, quotes
    and control characters escaped and a leading ``@`` doubled. Non-ASCII characters are
    written as they are: the file is UTF-8, the JVM's default charset since Java 18 (JEP 400).
    """
    escaped = []
    for char in secret:
        if char in '\\"':
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\{ord(char):03o}")
        else:
            escaped.append(char)
    body = "".join(escaped)
    if body.startswith("@"):
        body = "@" + body
    return f'--\n"{body}"\n'
