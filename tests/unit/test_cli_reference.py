"""docs/cli.md is generated from --help and must not go stale."""

from pathlib import Path

from kgmem.cli.reference import render

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "run: python -m kgmem.cli.reference > docs/cli.md"
    )
