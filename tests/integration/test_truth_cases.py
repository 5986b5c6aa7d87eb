"""The truth-and-safety cases (tests/data/truth-and-safety.json, a copy of
../shared/data/cases/truth-and-safety.json) run exactly as the file's ``about`` says, against the
real Neo4j: every query (``first``, ``not_above``, ``abstain``, ``as_of``), ``current`` and
``facts`` expectation of cases 01-07 and 10 is a check here. Procedure cases 08/09 belong to
the reliability tests."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from kgmem.api import Memory
from kgmem.bench.cases import load_cases, run_cases
from kgmem.errors import MalformedInput

CASES_FILE = Path(__file__).parents[1] / "data" / "truth-and-safety.json"
DATA = load_cases(CASES_FILE)
OURS = [c for c in DATA["cases"] if "procedure" not in c]


@pytest.mark.parametrize("case", OURS, ids=[c["id"] for c in OURS])
def test_case_expectations_hold(memory: Memory, case: dict[str, Any]) -> None:
    report = run_cases(memory, {**DATA, "cases": [case]})
    (result,) = report["cases"]
    failures = [f for check in result["checks"] for f in check["failures"]]
    assert result["status"] == "passed", failures
    expected = len(case.get("queries", [])) + len(case.get("facts", [])) + ("current" in case)
    assert len(result["checks"]) == expected
    memory.forget(case["conversation"]["conversation_id"])


def test_procedure_cases_are_skipped(memory: Memory) -> None:
    procedures = [c for c in DATA["cases"] if "procedure" in c]
    report = run_cases(memory, {**DATA, "cases": procedures})
    assert [c["status"] for c in report["cases"]] == ["skipped"] * len(procedures)
    assert report["totals"]["skipped_cases"] == len(procedures)
    assert report["totals"]["checks"] == 0


def test_wrong_schema_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "cases/0", "cases": []}), encoding="utf-8")
    with pytest.raises(MalformedInput, match="cases/1"):
        load_cases(bad)


def test_readme_demo_current_value_comes_first(memory: Memory, conversation: str) -> None:
    """The README's first question: the current value's turn first, the superseded one below
    it, and the decision in the trace."""
    result = memory.search("Where does Ana live now?", conversation, k=2)
    first, second = result.hits
    assert first.turn_id.endswith(":S2:1") and "Lisbon" in first.text
    assert second.turn_id.endswith(":S1:1") and "Berlin" in second.text
    decision = first.trace["current"]
    assert decision["mode"] == "current" and decision["key"].endswith("|residence")
    assert second.trace.get("superseded") is True
    assert result.plan["state"] == "current"


def test_as_of_hides_later_turns_and_moves_current(memory: Memory, conversation: str) -> None:
    from datetime import datetime

    march = datetime(2024, 4, 1, tzinfo=UTC)
    result = memory.search("Where does Ana live now?", conversation, k=10, as_of=march)
    assert result.as_of == march
    assert all(h.observed_at <= march for h in result.hits)
    assert "Berlin" in result.hits[0].text
