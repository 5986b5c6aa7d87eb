"""The facade's surface: every public `Memory` method has its awaited twin in `AsyncMemory`
with the same signature and docstring, and each collaborator stands alone."""

import inspect

import pytest

from kgmem.aio import AsyncMemory
from kgmem.api import Memory
from kgmem.memory.caches import ReadCaches
from kgmem.memory.facts import Facts
from kgmem.memory.forgetter import Forgetter
from kgmem.memory.ingestors import Ingestors
from kgmem.memory.owners import Owners
from kgmem.memory.schema import SchemaKeeper
from kgmem.memory.search import Searcher
from kgmem.memory.writer import Writer

#: public `Memory` members with no awaited twin, and why: ``engine`` hands out a sync
#: retriever; ``from_settings`` and ``close`` build and close the async shell itself
NOT_AWAITED = {"engine", "from_settings", "close"}


def _public_methods(cls: type) -> list[str]:
    return sorted(
        name
        for name, value in vars(cls).items()
        if not name.startswith("_") and callable(value) and not isinstance(value, classmethod)
    )


@pytest.mark.parametrize("name", [n for n in _public_methods(Memory) if n not in NOT_AWAITED])
def test_every_memory_method_has_an_awaited_twin(name):
    twin = getattr(AsyncMemory, name, None)
    assert twin is not None, f"AsyncMemory.{name} is missing"
    assert inspect.iscoroutinefunction(twin), f"AsyncMemory.{name} is not awaited"
    method = getattr(Memory, name)
    assert inspect.signature(twin) == inspect.signature(method)
    assert twin.__doc__ == method.__doc__ and method.__doc__


def test_async_memory_adds_nothing_memory_lacks_but_its_own_plumbing():
    extra = set(_public_methods(AsyncMemory)) - set(_public_methods(Memory))
    assert extra <= {"read"}


@pytest.mark.parametrize(
    "collaborator", [SchemaKeeper, Ingestors, Owners, Writer, Forgetter, Searcher, Facts]
)
def test_the_facade_shows_each_collaborators_own_docstring(collaborator):
    for name in _public_methods(collaborator):
        facade = getattr(Memory, name, None)
        if facade is not None and name not in {"ensure", "await_indexes", "claim", "ingestor"}:
            assert facade.__doc__ == getattr(collaborator, name).__doc__


def test_caches_drop_a_conversation_and_every_owner_context():
    caches = ReadCaches()
    caches.contexts.update({"c1": 1, "c2": 2, "owner:ann": 3})
    caches.chain_sources["c1"] = object()  # type: ignore[assignment]
    caches.invalidate("c1")
    assert caches.contexts == {"c2": 2} and caches.chain_sources == {}
