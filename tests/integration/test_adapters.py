"""Framework adapters against the real Neo4j, each driven through its framework's own public API:
LangGraph's ``BaseStore`` methods and a compiled graph, LangChain's ``Runnable`` interface of a
retriever, and neo4j-graphrag's ``GraphRAG`` pipeline."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.errors import MalformedInput, NotSupported

pytest.importorskip("langgraph.store.base")
pytest.importorskip("langchain_core.retrievers")
pytest.importorskip("neo4j_graphrag.retrievers.base")

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableLambda
from langgraph.store.base import BaseStore, InvalidNamespaceError
from neo4j_graphrag.generation import GraphRAG
from neo4j_graphrag.llm import LLMInterfaceV2, LLMResponse

from kgmem.adapters.graphrag import KgmemGraphRetriever
from kgmem.adapters.langchain import KgmemRetriever
from kgmem.adapters.langgraph import KgmemSearchItem, KgmemStore

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def user(memory: Memory) -> Iterator[str]:
    """A fresh user id; its namespace ``("memories", user)`` is forgotten afterwards."""
    user_id = f"it{uuid.uuid4().hex[:8]}"
    yield user_id
    for row in memory.conversations():
        if row["conversation_id"].endswith(user_id):
            memory.forget(row["conversation_id"])


# --- LangGraph ----------------------------------------------------------------------------------
def test_store_put_get_supersede_and_same_content(memory: Memory, user: str) -> None:
    store: BaseStore = KgmemStore(memory)
    ns = ("memories", user)
    assert store.get(ns, "home") is None
    store.put(ns, "home", {"text": "I live in Berlin, right by the canal.", "speaker": "Ana"})
    first = store.get(ns, "home")
    assert first is not None and first.value["text"].startswith("I live in Berlin")
    assert first.namespace == ns and first.key == "home"

    store.put(ns, "home", {"speaker": "Ana", "text": "I live in Berlin, right by the canal."})
    assert memory.counts(f"memories.{user}")["turns"] == 1  # same content: nothing new

    store.put(ns, "home", {"text": "I moved to Lisbon last week.", "speaker": "Ana", "n": 2})
    latest = store.get(ns, "home")
    assert latest is not None
    assert latest.value == {"text": "I moved to Lisbon last week.", "speaker": "Ana", "n": 2}
    assert latest.created_at == first.created_at and latest.updated_at > first.updated_at
    # turns are immutable: the old version is kept, superseded by the new turn
    rows = memory.store.read(
        "adapters/store_versions", conversation_id=f"memories.{user}", key="home"
    )
    assert [r["turn_id"] for r in rows] == [f"memories.{user}:home", f"memories.{user}:home~2"]
    assert [r["superseded"] for r in rows] == [True, False]

    # the async twins go through abatch
    async def main() -> Any:
        await store.aput(ns, "job", {"content": "I bake pastéis de nata at a bakery."})
        return await store.aget(ns, "job")

    job = asyncio.run(main())
    assert job is not None and job.value == {"content": "I bake pastéis de nata at a bakery."}


def test_store_search_runs_the_read_path(memory: Memory, user: str) -> None:
    store = KgmemStore(memory)
    ns = ("memories", user)
    store.put(ns, "home", {"text": "I live in Berlin, right by the canal.", "kind": "place"})
    store.put(ns, "home", {"text": "I moved to Lisbon last week.", "kind": "place"})
    store.put(ns, "run", {"text": "I ran a half marathon in 1:52 on Sunday.", "kind": "sport"})
    store.put(("notes", user), "x", {"text": "Lisbon trams are yellow.", "kind": "place"})

    hits = store.search(ns, query="Where does the user live now?", limit=5)
    assert hits and all(isinstance(h, KgmemSearchItem) for h in hits)
    assert hits[0].key == "home" and "Lisbon" in hits[0].value["text"]
    assert [h.key for h in hits].count("home") == 1  # the superseded Berlin version is dropped
    top = hits[0]
    assert isinstance(top, KgmemSearchItem)
    assert top.turn_id == f"memories.{user}:home~2" and "cosine" in top.terms
    assert top.score == pytest.approx(sum(top.terms.values()), abs=1e-3)
    assert all(h.namespace == ns for h in hits)

    sport = store.search(ns, query="marathon", filter={"kind": "sport"})
    assert [h.key for h in sport] == ["run"]
    assert store.search(ns, query="marathon", filter={"kind": {"$ne": "sport"}, "x": 1}) == []

    # no query: latest versions, most recently updated first; offset and limit page them
    listed = store.search(ns)
    assert [h.key for h in listed] == ["run", "home"]
    assert listed[1].value["text"] == "I moved to Lisbon last week."
    assert [h.key for h in store.search(ns, limit=1, offset=1)] == ["home"]

    # a prefix spans conversations; list_namespaces maps conversations back to namespaces
    both = store.search((), query="Lisbon", limit=20)
    assert {h.namespace for h in both} >= {ns, ("notes", user)}
    assert store.list_namespaces(suffix=(user,)) == [("memories", user), ("notes", user)]
    assert ("memories",) in store.list_namespaces(prefix=("memories",), max_depth=1)


def test_store_search_items_carry_the_owner_search_answer(memory: Memory, user: str) -> None:
    store = KgmemStore(memory)
    ns = ("memories", user)
    store.put(ns, "walk", {"text": "I walked the dog along the river this morning."})
    store.put(ns, "phone", {"text": "New phone, new number: 0151 444 9876."})
    hits = store.search(ns, query="What is my phone number?", limit=5)
    result = memory.search(
        "What is my phone number?", owner="memories", k=10, conversations=[f"memories.{user}"]
    )
    answer = result.answer
    assert hits and all(isinstance(h, KgmemSearchItem) for h in hits)
    for h in hits:
        assert isinstance(h, KgmemSearchItem)
        cited = answer is not None and answer["turn_id"] == h.turn_id
        assert h.answer == (answer if cited else None)
        assert h.dict()["answer"] == h.answer


def test_store_refuses_bad_input_with_typed_errors(memory: Memory, user: str) -> None:
    store = KgmemStore(memory)
    with pytest.raises(InvalidNamespaceError):  # LangGraph's own check
        store.put(("a.b",), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):  # kgmem's: ':' would break tenant ids
        store.put(("users", "a:b"), "k", {"text": "x"})
    with pytest.raises(MalformedInput):
        store.put(("memories", user), " ", {"text": "hello"})
    with pytest.raises(MalformedInput):
        store.put(("memories", user), "k", {"text": object()})
    with pytest.raises(NotSupported):
        store.put(("memories", user), "k", {"text": "hello"}, index=False)
    with pytest.raises(NotImplementedError):  # LangGraph's own TTL check
        store.put(("memories", user), "k", {"text": "hello"}, ttl=5)
    assert store.list_namespaces(suffix=(user,)) == []  # nothing was written


def test_store_delete_uses_turn_level_forgetting(memory: Memory, user: str) -> None:
    store = KgmemStore(memory)
    ns = ("memories", user)
    store.put(ns, "home", {"text": "I live in Berlin."})
    store.put(ns, "home", {"text": "I moved to Lisbon."})
    store.put(ns, "pet", {"text": "I have a dog called Rex."})
    if not hasattr(memory, "forget_turns"):
        with pytest.raises(NotSupported, match="forget_turns"):
            store.delete(ns, "home")
        return
    store.delete(ns, "home")  # pragma: no cover - needs Memory.forget_turns
    assert store.get(ns, "home") is None
    assert [h.key for h in store.search(ns)] == ["pet"]
    store.delete(ns, "home")  # deleting a missing key is a no-op


class PromptRecorder(BaseCallbackHandler):
    """Records every message list a chat model is started with (LangChain callbacks)."""

    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.prompts.extend(messages)


def test_example_graph_remembers_across_threads(
    settings: Settings, memory: Memory, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/langgraph_agent.py: told in thread 1, recalled in thread 2 (scripted model)."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    sys.modules.pop("langgraph_agent", None)
    import langgraph_agent as example
    from langchain_core.messages import HumanMessage

    recorder = PromptRecorder()
    graph = example.build_graph(KgmemStore(memory), example.scripted_model())
    config: Any = {"callbacks": [recorder]}
    graph.invoke(
        {"messages": [HumanMessage("I moved to Lisbon last week, I work at a bakery now.")]},
        {**config, "configurable": {"thread_id": "t1"}},
        context=example.Context(user_id=user),
    )
    out = graph.invoke(
        {"messages": [HumanMessage("Where do I live now?")]},
        {**config, "configurable": {"thread_id": "t2"}},
        context=example.Context(user_id=user),
    )
    assert len(out["messages"]) == 2  # thread 2 does not see thread 1's messages...
    system = str(recorder.prompts[-1][0].content)
    assert "Lisbon" in system  # ...but the store gave the model what thread 1 was told
    assert out["memories"] and f"[{out['memories'][0]}]" in system

    # and the file runs as written (its main(), with Settings() from the environment)
    password = settings.resolved_password()
    assert password is not None
    monkeypatch.setenv("KGMEM_NEO4J_URI", settings.neo4j_uri)
    monkeypatch.setenv("KGMEM_NEO4J_PASSWORD", password)
    other = f"{user}b"
    try:
        assert len(example.main(other)) == 1
    finally:
        memory.forget(f"memories.{other}")


# --- LangChain ----------------------------------------------------------------------------------
def test_langchain_retriever_returns_documents_with_evidence(
    memory: Memory, conversation: str
) -> None:
    retriever = KgmemRetriever(memory=memory, conversation_id=conversation, k=3)
    docs = retriever.invoke("Where did Ana move to?")
    assert len(docs) == 3
    assert f"{conversation}:S2:1" in [d.id for d in docs]
    meta = docs[0].metadata
    assert set(meta) >= {"turn_id", "session", "observed_at", "score", "terms", "trace"}
    assert meta["turn_id"] == docs[0].id and meta["conversation_id"] == conversation
    assert meta["observed_at"].endswith("+00:00") and "cosine" in meta["terms"]
    assert "generators" in meta["trace"]
    # the rest of the Runnable interface: async, batch, composition in a chain
    assert [d.id for d in asyncio.run(retriever.ainvoke("Where did Ana move to?"))] == [
        d.id for d in docs
    ]
    assert [len(b) for b in retriever.batch(["half marathon", "Lisbon"])] == [3, 3]
    chain = retriever | RunnableLambda(
        lambda ds: "\n".join(f"[{d.id}] {d.page_content}" for d in ds)
    )
    assert "Lisbon" in chain.invoke("Where did Ana move to?")


# --- neo4j-graphrag -----------------------------------------------------------------------------
class ScriptedLLM(LLMInterfaceV2):
    """A neo4j-graphrag LLM that answers from a script and records its prompts (no LLM)."""

    def __init__(self, answer: str) -> None:
        super().__init__(model_name="scripted")
        self.answer = answer
        self.prompts: list[Any] = []

    def invoke(self, input: Any, *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        self.prompts.append(input)
        return LLMResponse(content=self.answer)

    async def ainvoke(
        self, input: Any, *, response_format: Any = None, **kwargs: Any
    ) -> LLMResponse:
        return self.invoke(input)


def test_graphrag_pipeline_uses_kgmem_retriever(memory: Memory, conversation: str) -> None:
    retriever = KgmemGraphRetriever(memory, conversation)
    llm = ScriptedLLM("Ana moved to Lisbon.")
    rag = GraphRAG(retriever=retriever, llm=llm)
    out = rag.search("Where did Ana move to?", retriever_config={"top_k": 3}, return_context=True)
    assert out.answer == "Ana moved to Lisbon."
    assert out.retriever_result is not None
    items = out.retriever_result.items
    assert len(items) == 3
    assert any(i.metadata and i.metadata["turn_id"] == f"{conversation}:S2:1" for i in items)
    assert items[0].content.startswith(f"[{items[0].metadata['turn_id']}] (2024-")
    assert out.retriever_result.metadata["__retriever"] == "KgmemGraphRetriever"
    prompt = " ".join(str(m["content"]) for m in llm.prompts[-1])
    assert f"{conversation}:S2:1" in prompt and "Lisbon" in prompt
    with pytest.raises(NotSupported):
        retriever.search(query_text="x", query_vector=[0.0] * 384)
