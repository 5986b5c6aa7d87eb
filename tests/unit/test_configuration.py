"""docs/configuration.md is generated from `Settings` and must not go stale: every field is on
it with a description, and every ``KGMEM_*`` variable the code, tests, notebooks or CI read is
either a setting or listed among the other variables."""

import re
from pathlib import Path

from kgmem.config import Settings
from kgmem.devtools.configuration import OTHER_VARIABLES, render, rows, variable

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "configuration.md"


def test_configuration_page_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "run: python -m kgmem.devtools.configuration > docs/configuration.md"
    )


def test_every_setting_is_described() -> None:
    described = {var for var, _, _, text in rows() if text.strip()}
    assert described == {variable(name) for name in Settings.model_fields}


def test_every_variable_in_use_is_documented() -> None:
    documented = {variable(name) for name in Settings.model_fields}
    documented |= {var for var, _, _ in OTHER_VARIABLES}
    sources = [
        *(ROOT / "kgmem").rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "notebooks").glob("*.ipynb"),
        ROOT / ".ci" / "run",
        ROOT / "Makefile",
    ]
    used = {
        name
        for path in sources
        for name in re.findall(r"\bKGMEM_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(encoding="utf-8"))
    }
    assert used - documented == set()
