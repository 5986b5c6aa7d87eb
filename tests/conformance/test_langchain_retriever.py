"""langchain-tests' standard `RetrieversIntegrationTests`, subclassed as that package intends:
the retriever is `KgmemRetriever` on the shipped sample conversation (``examples/
sample_chat.json``), searched with its own read path. Runs under ``make conformance`` only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from kgmem.adapters.langchain import KgmemRetriever
from kgmem.api import Memory
from kgmem.ingest.loaders.chat import parse_chat_conversation

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample_chat.json"
_CONVERSATION: list[tuple[Memory, str]] = []


@pytest.fixture(autouse=True)
def _sample(kgmem_memory: Memory) -> Iterator[None]:
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    kgmem_memory.add_conversation(parse_chat_conversation(raw), facts="extracted")
    _CONVERSATION[:] = [(kgmem_memory, raw["conversation_id"])]
    yield


class TestKgmemRetriever(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[KgmemRetriever]:
        return KgmemRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        memory, conversation_id = _CONVERSATION[0]
        return {"memory": memory, "conversation_id": conversation_id}

    @property
    def retriever_query_example(self) -> str:
        return "Where did Ana move to?"
