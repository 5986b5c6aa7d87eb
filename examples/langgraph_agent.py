"""A LangGraph chat agent that remembers across threads, with kgmem as its long-term store.

Each user message is remembered as a turn in the user's namespace ``("memories", user_id)``
(conversation ``memories.<user_id>`` in kgmem: embedded, with facts, entities and dates); before
answering, the agent searches that namespace with kgmem's linked read path and puts the hits,
with their turn ids and dates, in the system prompt. Threads are separate chats (LangGraph's
checkpointer); the store is shared, so a new thread knows what an old one was told.

Run it (Neo4j running, e.g. ``kgmem neo4j start``; ``pip install 'kgmem[langgraph]'``):

    python examples/langgraph_agent.py

It uses a scripted chat model from ``langchain_core``'s fakes so that it runs without an LLM;
pass any LangChain chat model to `build_graph` instead (e.g. ``init_chat_model(...)``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from kgmem import Memory, Settings
from kgmem.adapters.langgraph import KgmemStore


@dataclass
class Context:
    """Run-scoped context: whose memory this is."""

    user_id: str


class State(MessagesState):
    """The chat's messages plus the memories the last answer was given (turn ids, for audit)."""

    memories: list[str]


def build_graph(store: BaseStore, model: BaseChatModel) -> CompiledStateGraph[Any, Any, Any, Any]:
    """One node: recall from the store, answer with ``model``, remember the user's message."""

    def chat(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        assert runtime.store is not None
        namespace = ("memories", runtime.context.user_id)
        question = str(state["messages"][-1].content)
        recalled = runtime.store.search(namespace, query=question, limit=3)
        lines = [
            f"[{item.key}] ({item.updated_at.date()}) {item.value['text']}" for item in recalled
        ]
        system = SystemMessage(
            "You are a helpful assistant. What you remember about this user "
            "(cite the [keys] you use):\n" + ("\n".join(lines) or "(nothing yet)")
        )
        messages: list[BaseMessage] = [system, *state["messages"]]
        answer = model.invoke(messages)
        runtime.store.put(
            namespace,
            f"m-{uuid.uuid4().hex[:12]}",
            {"text": question, "speaker": runtime.context.user_id},
        )
        return {"messages": [answer], "memories": [item.key for item in recalled]}

    graph = StateGraph(State, context_schema=Context)
    graph.add_node("chat", chat)
    graph.add_edge(START, "chat")
    return graph.compile(checkpointer=InMemorySaver(), store=store)


def scripted_model() -> FakeMessagesListChatModel:
    """A chat model that answers from a script (no LLM): one reply per turn of `main`."""
    return FakeMessagesListChatModel(
        responses=[
            AIMessage("Congratulations on the move!"),
            AIMessage("You live in Lisbon: you told me you moved there."),
        ]
    )


def main(user_id: str = "ana") -> list[str]:
    """Two threads: tell the agent something in the first, ask about it in the second.

    Returns the second answer's recalled memory keys (the turn ids it was given).
    """
    with Memory.from_settings(Settings()) as memory:
        graph = build_graph(KgmemStore(memory), scripted_model())
        context = Context(user_id=user_id)
        graph.invoke(
            {"messages": [HumanMessage("I moved to Lisbon last week, I work at a bakery now.")]},
            {"configurable": {"thread_id": "thread-1"}},
            context=context,
        )
        out = graph.invoke(
            {"messages": [HumanMessage("Where do I live now?")]},
            {"configurable": {"thread_id": "thread-2"}},
            context=context,
        )
        print(out["messages"][-1].content)
        print("recalled:", out["memories"])
        recalled: list[str] = out["memories"]
        return recalled


if __name__ == "__main__":
    main()
