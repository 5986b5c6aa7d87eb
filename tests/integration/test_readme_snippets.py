"""The framework snippets of docs/surfaces.md ("Framework adapters"), executed as written against
the real Neo4j: only the user / conversation id is replaced by a unique one (forgotten
afterwards), and the graphrag snippet's OpenAI model line by a scripted neo4j-graphrag LLM (no
LLM here). The README's adapter example must be that page's LangGraph snippet, word for word."""

from __future__ import annotations

import contextlib
import io
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from kgmem.api import Memory
from kgmem.config import Settings

pytest.importorskip("langgraph.store.base")
pytest.importorskip("langchain_core.retrievers")
pytest.importorskip("neo4j_graphrag.retrievers.base")

from neo4j_graphrag.llm import LLMInterfaceV2, LLMResponse

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "surfaces.md"
README = ROOT / "README.md"


def snippet(heading: str, doc: Path = DOC, level: str = "###") -> str:
    """The first python block under the Markdown heading ``heading`` of ``doc``."""
    section = doc.read_text(encoding="utf-8").split(f"\n{level} {heading}\n", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert match is not None, f"no python block under {heading!r} in {doc.name}"
    return match.group(1)


def test_readme_adapter_example_is_the_tested_snippet() -> None:
    assert snippet("Framework adapters", README, "###") == snippet("LangGraph")


def run(code: str, settings: Settings, monkeypatch: pytest.MonkeyPatch, **names: Any) -> str:
    password = settings.resolved_password()
    assert password is not None
    monkeypatch.setenv("KGMEM_NEO4J_URI", settings.neo4j_uri)  # the snippets read Settings()
    monkeypatch.setenv("KGMEM_NEO4J_PASSWORD", password)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "readme_snippet", **names})
    return out.getvalue()


def replace(code: str, old: str, new: str) -> str:
    assert old in code, f"the snippet no longer contains {old!r}"
    return code.replace(old, new)


def test_langgraph_snippet(
    settings: Settings, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = f"it{uuid.uuid4().hex[:8]}"
    code = replace(snippet("LangGraph"), 'USER = "ana"', f'USER = "{user}"')
    try:
        lines = run(code, settings, monkeypatch).splitlines()
    finally:
        memory.forget(f"memories.{user}")
    assert lines[0] == "I moved to Lisbon last week."
    assert lines[1].startswith(f"home memories.{user}:home~2 ") and "Lisbon" in lines[1]
    assert len(lines) <= 3 and all("Berlin" not in line for line in lines)


def test_langchain_snippet(
    settings: Settings, conversation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = replace(
        snippet("LangChain"), 'CONVERSATION = "sample-ana"', f'CONVERSATION = "{conversation}"'
    )
    lines = run(code, settings, monkeypatch).splitlines()
    assert len(lines) == 3 and all(line.startswith(f"{conversation}:") for line in lines)
    assert any("Lisbon" in line for line in lines) and "'cosine'" in lines[0]


class ScriptedLLM(LLMInterfaceV2):
    """Answers from a script (no LLM)."""

    def invoke(self, input: Any, *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        return LLMResponse(content="Ana lives in Lisbon.")

    async def ainvoke(
        self, input: Any, *, response_format: Any = None, **kwargs: Any
    ) -> LLMResponse:
        return self.invoke(input)


def test_graphrag_snippet(
    settings: Settings, conversation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = replace(
        snippet("neo4j-graphrag"), 'CONVERSATION = "sample-ana"', f'CONVERSATION = "{conversation}"'
    )
    code = replace(
        code, 'OpenAILLM(model_name="gpt-4o-mini")', 'ScriptedLLM(model_name="scripted")'
    )
    lines = run(code, settings, monkeypatch, ScriptedLLM=ScriptedLLM).splitlines()
    assert lines[0] == "Ana lives in Lisbon."
    turn_ids = eval(lines[1])  # a printed list of turn ids
    assert len(turn_ids) == 5 and f"{conversation}:S2:1" in turn_ids
