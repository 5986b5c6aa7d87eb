"""``make conformance``: the frameworks' own published test suites against kgmem's adapters.

For each suite the source distribution is fetched from PyPI at a pinned version (``pip download
--no-deps --no-binary :all:``), cached under ``.conformance/`` (gitignored, never committed),
and its test files are copied into a run folder there with ONE line appended to the test module:
an import that rebinds the name the suite builds its store from to the fixtures of
``tests/conformance/kgmem_conformance.py``. Nothing else in the files changes. The suites' own
test dependencies (pytest-asyncio, pytest-mock, syrupy, langchain-tests, the SQLite and Postgres
checkpointers the LangGraph tests import) are installed into ``.conformance/site`` with
``pip install --target``, so the project's venv is not touched. A private, empty Neo4j is
started for the run (BM25 and listings are store-wide, and the suites expect an empty store)
and stopped at the end.

Usage: ``python scripts/conformance.py [--suite NAME ...] [--repeat-injected N]``; prints
passed / failed / not applicable per suite and the reason of every not-applicable test, and
exits 1 if any test failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".conformance"
SITE = CACHE / "site"
PLUGIN_DIR = ROOT / "tests" / "conformance"

#: the suites' test-time dependencies, pinned in pyproject.toml's ``conformance`` extra and
#: installed with --no-deps into SITE (everything else they import is a kgmem dependency)
TEST_DEPS = tuple(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "conformance"
    ]
)


@dataclass
class Suite:
    """One published test file (or class) run against an adapter.

    Attributes:
        name: the key of the suite in the plugin's not-applicable table.
        title: what the table prints.
        sdist: ``(distribution, version)`` whose source distribution holds the tests, or None
            for a suite that lives in this repository.
        files: the sdist's files copied into the run folder (paths inside the sdist).
        patch: test file -> the one line appended to it.
        args: extra pytest arguments (e.g. ``-k``).
    """

    name: str
    title: str
    sdist: tuple[str, str] | None
    files: list[str] = field(default_factory=list)
    patch: dict[str, str] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


_REBIND = "from kgmem_conformance import {names}  # noqa: E402,F401,F811  (make conformance)"

SUITES = [
    Suite(
        "sqlite-store",
        "langgraph-checkpoint-sqlite 3.1.2 tests/test_store.py",
        ("langgraph-checkpoint-sqlite", "3.1.2"),
        ["tests/__init__.py", "tests/test_store.py"],
        {"tests/test_store.py": _REBIND.format(names="create_vector_store, store")},
    ),
    Suite(
        "sqlite-async-store",
        "langgraph-checkpoint-sqlite 3.1.2 tests/test_async_store.py",
        ("langgraph-checkpoint-sqlite", "3.1.2"),
        ["tests/__init__.py", "tests/test_store.py", "tests/test_async_store.py"],
        {
            "tests/test_async_store.py": _REBIND.format(
                names="acreate_vector_store as create_vector_store, store"
            )
        },
    ),
    Suite(
        "checkpoint-store",
        "langgraph-checkpoint 4.3.2 tests/test_store.py (InMemoryStore's own tests)",
        ("langgraph-checkpoint", "4.3.2"),
        ["tests/__init__.py", "tests/test_store.py", "tests/embed_test_utils.py"],
        {"tests/test_store.py": _REBIND.format(names="StandInStore as InMemoryStore")},
    ),
    Suite(
        "langgraph-graph",
        "langgraph 1.2.24 graph tests with a store (test_store_injected, sync + async)",
        ("langgraph", "1.2.24"),
        [
            "tests/__init__.py",
            "tests/conftest.py",
            "tests/conftest_checkpointer.py",
            "tests/conftest_store.py",
            "tests/any_int.py",
            "tests/any_str.py",
            "tests/agents.py",
            "tests/fake_chat.py",
            "tests/fake_tracer.py",
            "tests/memory_assert.py",
            "tests/messages.py",
            "tests/test_pregel.py",
            "tests/test_pregel_async.py",
        ],
        {
            "tests/test_pregel.py": _REBIND.format(names="sync_store"),
            "tests/test_pregel_async.py": _REBIND.format(names="async_store"),
        },
        ["-k", "test_store_injected"],
        {"NO_DOCKER": "true"},
    ),
    Suite(
        "langchain-retriever",
        "langchain-tests 1.1.9 RetrieversIntegrationTests (subclassed in tests/conformance)",
        None,
    ),
]


def run(cmd: list[str], **kwargs: object) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def ensure_site() -> None:
    stamp = SITE / ".pins"
    if stamp.exists() and stamp.read_text() == "\n".join(TEST_DEPS):
        return
    shutil.rmtree(SITE, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(SITE)]
    run([*pip, *TEST_DEPS])
    stamp.write_text("\n".join(TEST_DEPS))


def ensure_sdist(dist: str, version: str) -> Path:
    """The extracted source distribution (downloaded once into the cache)."""
    folder = CACHE / "sdist"
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{dist.replace('-', '_')}-{version}"
    found = [p for p in folder.glob("*.tar.gz") if p.name.lower().startswith(stem.lower())]
    if not found:
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(folder),
                f"{dist}=={version}",
            ]
        )
        found = [p for p in folder.glob("*.tar.gz") if p.name.lower().startswith(stem.lower())]
    archive = found[0]
    out = CACHE / "src"
    top = out / archive.name.removesuffix(".tar.gz")
    if not top.exists():
        with tarfile.open(archive) as tar:
            tar.extractall(out, filter="data")
    return top


def prepare(suite: Suite) -> Path:
    """The run folder: the suite's files copied unchanged, plus the one appended line."""
    dest = CACHE / "run" / suite.name
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    src = ensure_sdist(*suite.sdist) if suite.sdist else dest
    for name in suite.files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        text = (src / name).read_text(encoding="utf-8")
        if name in suite.patch:
            text = text.rstrip("\n") + "\n\n\n" + suite.patch[name] + "\n"
        target.write_text(text, encoding="utf-8")
    (dest / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    return dest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def run_suite(suite: Suite, env: dict[str, str]) -> dict[str, dict[str, str]]:
    where = prepare(suite)
    results = CACHE / f"results-{suite.name}.json"
    results.unlink(missing_ok=True)
    results.with_suffix(".jsonl").unlink(missing_ok=True)
    paths = [str(where)] if suite.sdist else []
    paths += [str(ROOT), str(PLUGIN_DIR), str(SITE)]
    suite_env = {
        **env,
        **suite.env,
        "PYTHONPATH": os.pathsep.join(paths),
        "KGMEM_CONFORMANCE": "1",
        "KGMEM_CONFORMANCE_SUITE": suite.name,
        "KGMEM_CONFORMANCE_RESULTS": str(results),
    }
    if suite.sdist:
        targets = [str(where / name) for name in suite.patch]
    else:
        targets = [str(PLUGIN_DIR / "test_langchain_retriever.py")]
    ini = ["-c", str(where / "pytest.ini"), "--rootdir", str(where)]
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        *ini,
        "-p",
        "kgmem_conformance",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        *suite.args,
        *targets,
    ]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, env=suite_env, cwd=where, check=False)
    if not results.exists():
        return {"<session>": {"outcome": "failed", "reason": "pytest wrote no results"}}
    loaded: dict[str, dict[str, str]] = json.loads(results.read_text())
    return loaded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", choices=[s.name for s in SUITES])
    parser.add_argument(
        "--repeat-injected",
        type=int,
        default=1,
        help="run LangGraph's test_store_injected tests this many times (20 in the documented run)",
    )
    parser.add_argument(
        "--graph-k",
        default="test_store_injected",
        help="pytest -k expression selecting LangGraph's graph tests (default: every "
        "checkpointer of test_store_injected and test_store_injected_async)",
    )
    args = parser.parse_args()
    for suite in SUITES:
        if suite.name == "langgraph-graph":
            suite.args = ["-k", args.graph_k]
    chosen = [s for s in SUITES if not args.suite or s.name in args.suite]
    ensure_site()

    from kgmem.store.server import LocalNeo4j

    data_dir = CACHE / f"neo4j-{os.getpid()}"  # private and empty, removed afterwards
    shutil.rmtree(data_dir, ignore_errors=True)
    server = LocalNeo4j(
        data_dir / "neo4j",
        bolt_port=free_port(),
        http_port=free_port(),
        heap="512m",
        pagecache="128m",
    )
    started = time.perf_counter()
    server.start()
    env = {
        **os.environ,
        "KGMEM_DATA_DIR": str(data_dir),
        "KGMEM_NEO4J_URI": server.bolt_uri,
        "KGMEM_NEO4J_BOLT_PORT": str(server.bolt_port),
        "KGMEM_NEO4J_HTTP_PORT": str(server.http_port),
    }
    env.pop("KGMEM_NEO4J_PASSWORD", None)
    table: list[tuple[str, dict[str, dict[str, str]]]] = []
    try:
        for suite in chosen:
            if suite.name == "langgraph-graph" and args.repeat_injected > 1:
                # one process (pytest-repeat): each repetition is its own test, fresh store
                suite.args += ["--count", str(args.repeat_injected), "--repeat-scope=session"]
                title = f"{suite.title} x{args.repeat_injected}"
            else:
                title = suite.title
            table.append((title, run_suite(suite, env)))
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    elapsed = time.perf_counter() - started

    failed_any = False
    print("\n== kgmem conformance ==")
    print(f"{'suite':<92} {'passed':>6} {'failed':>6} {'n.a.':>5} {'skip':>5}")
    for title, outcomes in table:
        counts = {k: 0 for k in ("passed", "failed", "n.a.", "skipped")}
        for entry in outcomes.values():
            counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
        failed_any |= counts["failed"] > 0
        print(
            f"{title:<92} {counts['passed']:>6} {counts['failed']:>6} {counts['n.a.']:>5} "
            f"{counts['skipped']:>5}"
        )
    for title, outcomes in table:
        rows = [(n, e) for n, e in sorted(outcomes.items()) if e["outcome"] != "passed"]
        if rows:
            print(f"\n{title}:")
        for nodeid, entry in rows:
            print(f"  {entry['outcome']:<7} {nodeid}: {entry['reason']}")
    print(f"\nconformance took {elapsed / 60:.1f} min")
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
