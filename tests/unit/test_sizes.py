"""Every source file of kgmem/ and scripts/ stays within the size limits of the style guide:
no file over 600 lines, no function over 80 lines. No file is exempt: the package holds no
generated Python (the generated pages are Markdown under docs/)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("kgmem", "scripts") for p in (ROOT / d).rglob("*.py"))
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_file_within_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_FILE_LINES, f"{_name(path)}: {lines} lines (limit {MAX_FILE_LINES})"


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_functions_within_limit(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"{_name(path)}: {', '.join(long)} over {MAX_FUNCTION_LINES} lines"
