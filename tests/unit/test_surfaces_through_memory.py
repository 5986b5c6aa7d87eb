"""The surfaces (MCP tools, the LangGraph, LangChain and graphrag adapters) reach the graph
through named `Memory` operations only: no ``read``/``write`` call of a store or of the
memory, no statement of the catalogue named, so a rule added to a `Memory` operation reaches
every surface."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "kgmem"
SURFACES = sorted([*(ROOT / "mcp").glob("*.py"), *(ROOT / "adapters").glob("*.py")])
STATEMENT = re.compile(r"^(read|write|adapters|admin|schema)/[a-z_]+$")


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"read", "write"}
        ):
            found.append(f"line {node.lineno}: .{node.func.attr}(...)")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and STATEMENT.match(node.value)
        ):
            found.append(f"line {node.lineno}: names the statement {node.value!r}")
    return found


@pytest.mark.parametrize("path", SURFACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_surface_calls_memory_operations_only(path):
    assert _offences(path) == []


def test_the_check_sees_a_statement_read():
    source = 'rows = memory.store.read("read/conversation_turns", conversation_id=c)\n'
    tmp = Path(__file__).with_name("_surface_probe.txt")
    try:
        tmp.write_text(source, encoding="utf-8")
        assert len(_offences(tmp)) == 2
    finally:
        tmp.unlink()
