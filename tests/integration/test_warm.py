"""The plan warm-up (`kgmem.retrieve.warm`): it runs every read-path statement it names, reads
nothing, and a server it cannot use only makes it log."""

from __future__ import annotations

import logging

import pytest

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.retrieve.warm import warm_read_path, warm_statements
from kgmem.store import Store


def test_warm_runs_every_read_path_statement(memory: Memory, conversation: str) -> None:
    done = warm_read_path(memory.store)
    assert set(done) == {name for name, _ in warm_statements(memory.embedder.dimension)}
    assert all(ms >= 0 for ms in done.values())


def test_the_linked_read_warm_up_reads_nothing(memory: Memory, conversation: str) -> None:
    ((name, params),) = [
        (n, p) for n, p in warm_statements(memory.embedder.dimension) if n == "read/linked_read"
    ]
    (row,) = memory.store.read(name, **params)
    assert row["seeds"] == [] and row["expanded"] == [] and row["citing"] == []
    assert row["keyed"] == [] and row["turns"] == [] and row["context_version"] is None


def test_a_server_the_warm_up_cannot_use_is_only_logged(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    # refused credentials fail at once (a refused connection would be retried for 30 s)
    store = Store(settings.neo4j_uri, "kgmem-no-such-user", "not-the-password")
    with store, caplog.at_level(logging.INFO, logger="kgmem.retrieve.warm"):
        assert warm_read_path(store) == {}
    assert "plan warm-up stopped after 0 statements" in caplog.text


def test_memory_warm_compiles_the_plans_and_loads_the_model(
    memory: Memory, conversation: str
) -> None:
    out = memory.warm()
    assert set(out["plans_ms"]) == {name for name, _ in warm_statements(384)}
    assert out["model_ms"] >= 0 and memory.embedder._model is not None
    assert out["planner_ms"] >= 0


def test_what_the_warm_up_after_an_ingest_read_stays_cached(
    memory: Memory, conversation: str
) -> None:
    # the ingest's own cache invalidation runs before its warm-up search, not after it, so the
    # first question reuses the context (and support) the warm-up read
    context = memory.caches.contexts.get(conversation)
    assert context is not None and context.speakers
    assert memory.search("What did you do last week?", conversation, k=1).hits
    assert memory.caches.contexts.get(conversation) is context
