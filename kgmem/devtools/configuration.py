"""Generate the configuration page (``docs/configuration.md``) from `kgmem.config.Settings`.

    python -m kgmem.devtools.configuration > docs/configuration.md

Every field of `Settings` becomes one row: its ``KGMEM_`` variable, type, default and
description (the docstring under the field, which pydantic reads as the description). The
variables that are not settings (read by one command, the tests or the notebooks) are listed
from `OTHER_VARIABLES`. tests/unit/test_configuration.py fails when the page is stale, when a
field has no description, or when a ``KGMEM_*`` variable used in the code is on neither list,
so the page cannot rot.
"""

from __future__ import annotations

import types
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from kgmem.config import Settings

__all__ = ["OTHER_VARIABLES", "default_text", "render", "rows", "type_text", "variable"]

#: (variable, default, what reads it and what it means): variables outside `Settings`
OTHER_VARIABLES: tuple[tuple[str, str, str], ...] = (
    (
        "KGMEM_MCP_CONVERSATION",
        "unset",
        "The one conversation `kgmem mcp` serves (or `--conversation`); never a tool argument.",
    ),
    (
        "KGMEM_MCP_OWNER",
        "unset",
        "The owner whose conversations `kgmem mcp` serves together (or `--owner`); never a "
        "tool argument.",
    ),
    (
        "KGMEM_LOCOMO_FILE",
        "`../shared/data/locomo/locomo-dev.json`",
        "The LoCoMo dev split the tests, CI and the notebooks read (beside the checkout).",
    ),
    (
        "KGMEM_CASES_DIR",
        "`../shared/data/cases`",
        "The folder of behaviour cases (`*.json`) whose sentences the attribute vocabulary test "
        "checks the vocabulary against.",
    ),
    (
        "KGMEM_MAB_FILE",
        "`../shared/data/mab/factconsolidation_6k.json`",
        "The MemoryAgentBench FactConsolidation file the tests read.",
    ),
    (
        "KGMEM_CASES_FILE",
        "`../shared/data/cases/truth-and-safety.json`",
        "The hand-written truth and safety cases of the write-safety tests.",
    ),
    (
        "KGMEM_FUZZ_EXAMPLES",
        "`200`",
        "Hypothesis examples per fuzz test (tests/strategies.py).",
    ),
    (
        "KGMEM_FIGURES_FILE",
        "unset",
        "When set, each reliability test appends what it checked to this JSON-lines file "
        "(the figures of docs/reliability.md).",
    ),
    (
        "KGMEM_NOTEBOOK_CONVERSATION",
        "the file's first",
        "The LoCoMo sample both notebooks use.",
    ),
    (
        "KGMEM_BENCH_JSON",
        "unset",
        "A `kgmem bench locomo --json` report for `notebooks/benchmark_report.ipynb` to plot; "
        "unset, the notebook runs a small ablation itself.",
    ),
    (
        "KGMEM_CONFORMANCE",
        "unset",
        "Set by `make conformance` (scripts/conformance.py) so that tests/conformance is "
        "collected; never set it by hand.",
    ),
    (
        "KGMEM_CONFORMANCE_SUITE",
        "unset",
        "Set by `make conformance`: the framework suite being run (selects its not-applicable "
        "list).",
    ),
    (
        "KGMEM_CONFORMANCE_RESULTS",
        "unset",
        "Set by `make conformance`: the JSON file each test's outcome is written to.",
    ),
    (
        "KGMEM_SCALE_JSON",
        "`docs/bench-scale.json`",
        "The `kgmem bench scale` report the benchmark notebook plots.",
    ),
)

PREFIX = "KGMEM_"


def variable(name: str) -> str:
    """The environment variable of field ``name`` (pydantic-settings matches it
    case-insensitively; the page spells it upper case)."""
    return f"{PREFIX}{name.upper()}"


def type_text(annotation: Any) -> str:
    """A field's annotation as a reader would write it: ``int``, ``str | None``, ``Path``."""
    if isinstance(annotation, types.UnionType):
        return " | ".join(type_text(arg) for arg in annotation.__args__)
    if annotation is type(None):
        return "None"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation)


def default_text(field: FieldInfo) -> str:
    """A field's default as it would be written in the environment (``true``, ``40``), or the
    factory that computes it, or ``unset``."""
    if field.default_factory is not None:
        return f"`{getattr(field.default_factory, '__name__', 'factory')}()`"
    value = field.default
    if value is None or value is PydanticUndefined:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def _description(field: FieldInfo) -> str:
    text = " ".join((field.description or "").split())
    factory = field.default_factory
    if factory is not None and factory.__doc__:
        text += f" Default: {' '.join(factory.__doc__.split())}"
    return _cell(text)


def _cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: pipes escaped, angle brackets as entities."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def rows() -> list[tuple[str, str, str, str]]:
    """(variable, type, default, description) of every `Settings` field, in declaration order."""
    return [
        (variable(name), type_text(field.annotation), default_text(field), _description(field))
        for name, field in Settings.model_fields.items()
    ]


def render() -> str:
    """The whole page, Markdown."""
    lines = [
        "# Configuration",
        "",
        "<!-- generated by `python -m kgmem.devtools.configuration > docs/configuration.md`;"
        " do not edit -->",
        "",
        "kgmem reads its settings from `KGMEM_*` environment variables (or a `.env` file in the"
        " working directory) when `Settings()` is built — by the CLI or by"
        " `Memory.from_settings(Settings())` — never at import. In Python, pass values directly:"
        " `Settings(pool_turns=60)`. The read-path defaults are the best configuration on the"
        " LoCoMo dev split ([benchmarks.md](benchmarks.md)).",
        "",
        f"## Settings ({len(Settings.model_fields)} fields of `kgmem.config.Settings`)",
        "",
        "| variable | type | default | description |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{var}` | `{_cell(typ)}` | {default} | {text} |" for var, typ, default, text in rows()
    ]
    lines += [
        "",
        "## Other variables",
        "",
        "Read by one command, the tests or the notebooks; not fields of `Settings`.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| `{var}` | {default} | {text} |" for var, default, text in OTHER_VARIABLES]
    lines += [
        "",
        "`KGMEM_JAVA_HOME` is the `java_home` setting; `kgmem neo4j start` also reads"
        " `JAVA_HOME`. The full command reference is [cli.md](cli.md).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(), end="")
