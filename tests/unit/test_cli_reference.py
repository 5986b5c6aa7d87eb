"""docs/cli.md is generated from --help and must not go stale.

The reference is rendered in a fresh interpreter: click caches each command's help option on
the command object, so a test that invoked a subcommand directly (without the main group's
``-h`` setting) would change what an in-process render prints.
"""

import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    fresh = subprocess.run(
        [sys.executable, "-m", "kgmem.cli.reference"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert DOC.read_text(encoding="utf-8") == fresh, (
        "run: python -m kgmem.cli.reference > docs/cli.md"
    )
