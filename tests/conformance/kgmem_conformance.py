"""The pytest plugin of ``make conformance`` (`scripts/conformance.py` loads it with ``-p``).

The frameworks' published test files run unchanged except for one appended line that rebinds
the name their store is built from (``store``, ``create_vector_store``, ``sync_store``,
``async_store`` or ``InMemoryStore``) to the fixtures here, which give each test a fresh,
empty `KgmemStore` on a private Neo4j that the runner started. Tests that check behaviour
kgmem does not have by design are not applicable: they are skipped with the reason in
`NOT_APPLICABLE` and counted apart. Outcomes go to ``$KGMEM_CONFORMANCE_RESULTS`` (JSON).
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest

from kgmem.adapters.langgraph import KgmemStore
from kgmem.api import Memory
from kgmem.config import Settings

INDEX_FALSE = (
    "put(..., index=False): kgmem embeds and indexes every turn, so it refuses index=False "
    "with NotSupported (documented)"
)
FAKE_SCORES = (
    "asserts exact similarity scores of the suite's fake CharacterEmbeddings (kgmem embeds "
    "with its own model and scores with its linked read path)"
)

#: suite -> (test-id pattern, reason). Patterns match the node id without its file part.
NOT_APPLICABLE: dict[str, list[tuple[str, str]]] = {
    "sqlite-store": [
        (
            "test_vector_store_initialization",
            "SqliteStore's index_config / embeddings "
            "attributes (kgmem embeds with its own model; there is no index config)",
        ),
        (
            "test_scores*",
            "exact cosine scores of the suite's fake CharacterEmbeddings "
            "(kgmem scores with its own model and linked read path)",
        ),
        ("test_nonnull_migrations", "SQLite schema migrations (SqliteStore internals)"),
        ("test_escape_glob_literal", "a SqliteStore helper function (no store involved)"),
        ("test_namespace_match_pattern", "a SqliteStore helper function (no store involved)"),
        ("test_list_namespaces_prefix_uses_indexable_condition", "SqliteStore's SQL text"),
        ("TestSqliteStore::*", "builds SqliteStore directly (no fixture to replace)"),
        (
            "test_sql_injection_vulnerability",
            "SqliteStore refuses filter keys that could "
            "inject SQL; kgmem filters values in Python, so no filter key reaches a query",
        ),
        ("test_vector_update_with_embedding*", INDEX_FALSE),
        ("test_embed_with_path_operation_config*", INDEX_FALSE),
        ("test_embed_with_path[[]*", FAKE_SCORES),
    ],
    "sqlite-async-store": [
        (
            "test_no_running_loop*",
            "AsyncSqliteStore's event-loop guard of its sync methods "
            "(KgmemStore's sync methods work on any thread)",
        ),
        (
            "test_vector_store_initialization",
            "AsyncSqliteStore's index_config / embeddings "
            "attributes (kgmem embeds with its own model; there is no index config)",
        ),
        ("test_scores*", "exact cosine scores of the suite's fake CharacterEmbeddings"),
        ("test_vector_update_with_embedding*", INDEX_FALSE),
        ("test_embed_with_path_operation_config*", INDEX_FALSE),
        ("test_embed_with_path", FAKE_SCORES),
    ],
    "checkpoint-store": [
        ("test_async_batch_store*", "AsyncBatchedBaseStore internals (mocked InMemoryStore)"),
        ("test_dedupe_ops*", "a LangGraph helper function (no store involved)"),
        ("test_get_text_at_path*", "a LangGraph helper function (no store involved)"),
        ("test_validate_op_namespace*", "a LangGraph helper function (no store involved)"),
        (
            "test_vector_store_initialization",
            "InMemoryStore's index_config / embeddings "
            "attributes (kgmem embeds with its own model; there is no index config)",
        ),
        ("test_vector_update_with_embedding", INDEX_FALSE),
        ("test_async_vector_update_with_embedding", INDEX_FALSE),
        ("test_embed_with_path", FAKE_SCORES),
    ],
    "langgraph-graph": [],
    "langchain-retriever": [],
}

_MEMORY: list[Memory] = []


def _suite(config: pytest.Config) -> str:
    return os.environ.get("KGMEM_CONFORMANCE_SUITE", "")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rules = NOT_APPLICABLE.get(_suite(config), [])
    for item in items:
        name = item.nodeid.split("::", 1)[-1]
        for pattern, reason in rules:
            if fnmatch.fnmatchcase(name, pattern):
                item.add_marker(pytest.mark.skip(reason=f"n.a.: {reason}"))
                break


_OUTCOMES: dict[str, dict[str, str]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _OUTCOMES.setdefault(report.nodeid, {"outcome": "passed", "reason": ""})
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        entry.update(outcome="n.a." if "n.a.:" in str(reason) else "skipped", reason=str(reason))
    elif report.failed:
        message = getattr(report.longrepr, "reprcrash", None)
        entry.update(outcome="failed", reason=str(getattr(message, "message", ""))[:300])
    path = os.environ.get("KGMEM_CONFORMANCE_RESULTS")
    if path and report.when == "teardown":  # as it goes, so a long run can be read midway
        with open(path.removesuffix(".json") + ".jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps({"test": report.nodeid, **entry}) + "\n")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:  # a module that does not even import is a failure, not an empty suite
        _OUTCOMES[report.nodeid or "<collection>"] = {
            "outcome": "failed",
            "reason": str(report.longrepr)[-300:],
        }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("KGMEM_CONFORMANCE_RESULTS")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(_OUTCOMES, out, indent=1, sort_keys=True)


# --- the replaced fixtures ------------------------------------------------------------------
@pytest.fixture(scope="session")
def kgmem_memory() -> Iterator[Memory]:
    """A `Memory` on the private server the runner started (``KGMEM_*`` settings)."""
    with Memory.from_settings(Settings()) as memory:
        memory.apply_schema()
        _MEMORY.append(memory)
        yield memory
        _MEMORY.clear()


@pytest.fixture(autouse=True)
def _empty_store(kgmem_memory: Memory) -> Iterator[None]:
    """Every test starts on an empty store, as the suites' own fixtures give it."""
    yield
    for row in kgmem_memory.conversations():
        kgmem_memory.forget(row["conversation_id"])


class StandInStore(KgmemStore):
    """Stands in for a store class the suite constructs itself (``InMemoryStore(index=...)``):
    a `KgmemStore` on the run's memory; index configuration is ignored (kgmem embeds every turn
    with its own model). A class, so a suite can spy on its methods (``mocker.spy``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(_MEMORY[0])


def make_store() -> KgmemStore:
    return KgmemStore(_MEMORY[0])


@pytest.fixture
def store(kgmem_memory: Memory) -> KgmemStore:
    return KgmemStore(kgmem_memory)


@pytest.fixture
def sync_store(kgmem_memory: Memory) -> KgmemStore:
    return KgmemStore(kgmem_memory)


@pytest.fixture
def async_store(kgmem_memory: Memory) -> KgmemStore:
    return KgmemStore(kgmem_memory)


@contextmanager
def create_vector_store(*args: Any, **kwargs: Any) -> Iterator[KgmemStore]:
    yield make_store()


@asynccontextmanager
async def acreate_vector_store(*args: Any, **kwargs: Any) -> AsyncIterator[KgmemStore]:
    yield make_store()
