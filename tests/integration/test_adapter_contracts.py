"""What the frameworks' own test suites expect of the adapters (LangGraph's store tests,
langchain-tests' retriever tests, the MCP client), and what huge input gets, against the real
Neo4j."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from kgmem.api import MAX_QUERY_CHARS, Memory
from kgmem.errors import MalformedInput
from kgmem.store.schema import SEARCH_INDEXES
from kgmem.turns import MAX_TURN_CHARS

pytest.importorskip("langgraph.store.base")
pytest.importorskip("langchain_core.retrievers")

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from mcp import Client

from kgmem.adapters.langchain import KgmemRetriever
from kgmem.adapters.langgraph import KgmemStore
from kgmem.mcp import build_server


@pytest.fixture
def root() -> Iterator[str]:
    """A fresh root label; every conversation under it is forgotten afterwards."""
    label = f"it{uuid.uuid4().hex[:8]}"
    yield label


@pytest.fixture(autouse=True)
def _forget(memory: Memory, root: str) -> Iterator[None]:
    yield
    for row in memory.conversations():
        if row["conversation_id"].split(".")[0] == root:
            memory.forget(row["conversation_id"])


@pytest.fixture(scope="module")
def store(memory: Memory) -> KgmemStore:
    return KgmemStore(memory)


# --- LangGraph: batch validates like the single-op methods ---------------------------------------
BAD = [("foo.bar",), ("foo", ""), ("foo", 1), ("foo", "a:b"), ("foo", "nul\x00")]
KINDS = ["get", "put", "delete", "search", "list_prefix", "list_suffix"]


def _op(kind: str, namespace: tuple[Any, ...]) -> Any:
    return {
        "get": lambda: GetOp(namespace, "key"),
        "put": lambda: PutOp(namespace, "key", {"changed": True}),
        "delete": lambda: PutOp(namespace, "key", None),
        "search": lambda: SearchOp(namespace),
        "list_prefix": lambda: ListNamespacesOp((MatchCondition("prefix", namespace),)),
        "list_suffix": lambda: ListNamespacesOp((MatchCondition("suffix", namespace),)),
    }[kind]()


def test_batch_refuses_every_bad_label_before_running_any_op(store: KgmemStore, root: str) -> None:
    """``batch([PutOp(("foo.bar",), ...)])`` overwrote ("foo", "bar"), a PutOp with None deleted
    it, and ("foo", 1) raised TypeError. Every op kind, every bad label: LangGraph's own
    InvalidNamespaceError, the item untouched, and the valid op before it not run."""
    store.put((root, "bar"), "key", {"text": "the original value"})
    for label in BAD:
        namespace = (root, *label[1:]) if label[0] == "foo" else (f"{root}.bar",)
        for kind in KINDS:
            with pytest.raises(InvalidNamespaceError):
                store.batch([PutOp((root, "valid"), "key", {"text": "x"}), _op(kind, namespace)])
    item = store.get((root, "bar"), "key")
    assert item is not None and item.value == {"text": "the original value"}
    assert store.get((root, "valid"), "key") is None
    assert store.list_namespaces(prefix=(root,)) == [(root, "bar")]

    async def run_async() -> None:
        with pytest.raises(InvalidNamespaceError):
            await store.abatch([PutOp((f"{root}.bar",), "key", {"text": "overwrite"})])

    anyio.run(run_async)
    with pytest.raises(InvalidNamespaceError):  # BaseStore.put's own rule for the root
        store.put(("langgraph", root), "key", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):  # kgmem has no conversation without an id
        store.batch([PutOp((), "key", {"text": "x"})])


def test_batch_still_allows_empty_prefixes_and_wildcards(store: KgmemStore, root: str) -> None:
    store.put((root, "bar"), "key", {"text": "hello there"})
    found, listed = store.batch(
        [SearchOp((root,)), ListNamespacesOp((MatchCondition("prefix", (root, "*")),))]
    )
    assert [item.namespace for item in found] == [(root, "bar")]
    assert listed == [(root, "bar")]


# --- LangGraph: concurrent puts of one key --------------------------------------------------------
def test_concurrent_puts_of_one_key_leave_one_live_version(
    memory: Memory, store: KgmemStore, root: str
) -> None:
    """Two writers both superseded the same older version (no lock across read / append /
    link), so search returned the key twice. 8 threads, 2 puts each, one key."""
    ns = (root, "race")
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        try:
            barrier.wait()
            for round_ in range(2):
                store.put(ns, "counter", {"text": f"writer {n} round {round_} says hello"})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    versions = memory.store.read(
        "adapters/store_versions", conversation_id=f"{root}.race", key="counter"
    )
    assert len(versions) == 16  # no write lost
    assert [v["superseded"] for v in versions] == [True] * 15 + [False]
    listed = store.search(ns)
    assert [h.key for h in listed] == ["counter"]
    latest = store.get(ns, "counter")
    assert latest is not None and latest.value["text"] == listed[0].value["text"]
    hits = store.search(ns, query="who says hello", limit=10)
    assert [h.key for h in hits] == ["counter"]


# --- LangGraph: a value with no text --------------------------------------------------------------
def test_a_value_with_no_text_is_stored_but_never_searched(store: KgmemStore, root: str) -> None:
    ns = (root, "empty")
    store.put(ns, "blank", {})
    store.put(ns, "spaces", {"text": "   ", "n": 1})
    store.put(ns, "real", {"text": "I keep bees on the roof."})
    blank = store.get(ns, "blank")
    assert blank is not None and blank.value == {}
    spaces = store.get(ns, "spaces")
    assert spaces is not None and spaces.value == {"text": "   ", "n": 1}
    assert {h.key for h in store.search(ns)} == {"blank", "spaces", "real"}
    assert [h.key for h in store.search(ns, query="bees on the roof", limit=10)] == ["real"]
    assert [h.key for h in store.search(ns, query="text n 1 {}", limit=10)] == ["real"]
    store.put(ns, "blank", {})  # the same empty value again changes nothing
    store.put(ns, "blank", {"text": "now it has text about honey"})
    hits = store.search(ns, query="honey", limit=10)
    assert hits[0].key == "blank" and hits[0].value == {"text": "now it has text about honey"}
    store.delete(ns, "spaces")
    assert store.get(ns, "spaces") is None


# --- LangChain: per-call k --------------------------------------------------------------------
def test_retriever_honours_per_call_k(memory: Memory, conversation: str) -> None:
    retriever = KgmemRetriever(memory=memory, conversation_id=conversation, k=4)
    assert len(retriever.invoke("Where did Ana move to?")) == 4
    assert len(retriever.invoke("Where did Ana move to?", k=1)) == 1
    assert len(anyio.run(lambda: retriever.ainvoke("Where did Ana move to?", k=2))) == 2
    with pytest.raises(MalformedInput, match="k must be"):
        retriever.invoke("Where did Ana move to?", k=0)


# --- huge input -------------------------------------------------------------------------------
def test_huge_turns_and_queries_are_malformed_input_naming_the_limit(
    memory: Memory, store: KgmemStore, conversation: str, root: str
) -> None:
    megabyte = "word " * 200_000
    with pytest.raises(MalformedInput, match="MAX_TURN_CHARS"):
        memory.add_turns(f"{root}.huge", [{"speaker": "Ana", "text": megabyte}])
    with pytest.raises(MalformedInput, match="MAX_TURN_CHARS"):
        store.put((root, "huge"), "k", {"text": megabyte})
    assert not [r for r in memory.conversations() if r["conversation_id"].startswith(root)]
    with pytest.raises(MalformedInput, match="MAX_QUERY_CHARS"):
        memory.search("a" * 1_000_000, conversation)
    # under the limit, one long "word" no longer becomes thousands of Lucene clauses
    result = memory.search("z" * MAX_QUERY_CHARS, conversation, k=3)
    assert len(result.hits) == 3
    assert len(memory.search("x" * 254 + " " + "y" * 9000, conversation, k=2).hits) == 2


def test_mcp_answers_huge_input_with_a_tool_error(memory: Memory, root: str) -> None:
    server = build_server(memory, f"{root}.mcp", k=3)

    async def main() -> list[Any]:
        async with Client(server) as client:
            told = await client.call_tool("remember", {"text": "x" * (MAX_TURN_CHARS + 1)})
            asked = await client.call_tool("search_memory", {"query": "y" * 1_000_000})
            return [told, asked]

    told, asked = anyio.run(main)
    assert told.is_error and "MAX_TURN_CHARS" in str(told.content[0].text)
    assert asked.is_error and "MAX_QUERY_CHARS" in str(asked.content[0].text)
    # an anticipated ToolError keeps kgmem's text; a crash would read only "Error executing
    # tool remember" (the SDK hides an unexpected exception's message)
    assert str(told.content[0].text) != "Error executing tool remember"


# --- search indexes -------------------------------------------------------------------------------
def test_a_fresh_memory_checks_the_search_indexes_once(settings: Any, conversation: str) -> None:
    """A search could run before the vector and fulltext indexes were ONLINE (nothing waited
    for them on the read path); the first search of a Memory now waits for them."""
    with Memory.from_settings(settings) as fresh:
        rows = fresh.store.read("read/search_index_states", names=sorted(SEARCH_INDEXES))
        assert [r["name"] for r in rows] == sorted(SEARCH_INDEXES)  # what the wait reads
        assert {r["state"] for r in rows} == {"ONLINE"}
        assert not fresh.schema.indexes_online
        fresh.search("Where did Ana move to?", conversation, k=2)
        assert fresh.schema.indexes_online  # checked once; later searches skip the round trip
