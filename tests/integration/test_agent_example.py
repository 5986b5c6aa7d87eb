"""The "Use from an agent" example of README.md, executed as written (docs that cannot
rot): the first ```python block under that heading runs against the real Neo4j, with only its
conversation id replaced by a unique one that is forgotten afterwards."""

from __future__ import annotations

import contextlib
import io
import re
import uuid
from pathlib import Path

import pytest

from kgmem.api import Memory
from kgmem.config import Settings

DOC = Path(__file__).resolve().parents[2] / "README.md"


def example_code() -> str:
    section = DOC.read_text(encoding="utf-8").split("## Use from an agent", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert match is not None, "no python block under 'Use from an agent'"
    return match.group(1)


def test_agent_example_runs_and_cites(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    code = example_code()
    assert 'CONVERSATION = "chat-42"' in code
    conversation = f"it-agent-{uuid.uuid4().hex[:8]}"
    code = code.replace('CONVERSATION = "chat-42"', f'CONVERSATION = "{conversation}"')
    password = settings.resolved_password()
    assert password is not None
    monkeypatch.setenv("KGMEM_NEO4J_URI", settings.neo4j_uri)  # the example reads Settings()
    monkeypatch.setenv("KGMEM_NEO4J_PASSWORD", password)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(DOC), "exec"), {"__name__": "agent_example"})
    finally:
        with Memory.from_settings(settings) as memory:
            memory.forget(conversation)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"[{conversation}:t0] (") and "Lisbon" in lines[0]
    assert len(lines) == 3 and "cosine" in lines[2]
