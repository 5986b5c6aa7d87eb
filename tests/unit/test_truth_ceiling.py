"""scripts/truth_ceiling.py: what it reads of a row, and the arguments it refuses."""

import importlib.util
from pathlib import Path

import pytest

from kgmem.truth.corpus import Row

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "truth_ceiling.py"
_SPEC = importlib.util.spec_from_file_location("truth_ceiling", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
truth_ceiling = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(truth_ceiling)


def test_a_pair_is_stored_then_new_or_question_then_speaker_and_fact() -> None:
    relation = Row(
        "w.jsonl",
        1,
        {
            "decision": "relation",
            "stored": {"speaker": "user", "text": "I live in Leeds."},
            "new": {"speaker": "user", "text": "We're in York now."},
        },
    )
    asked = Row(
        "w.jsonl",
        2,
        {
            "decision": "answerability",
            "question": {"speaker": "user", "text": "Where do I live?"},
            "fact": {"speaker": "assistant", "text": "York is lovely."},
        },
    )
    assert truth_ceiling._pair(relation) == ("I live in Leeds.", "We're in York now.")
    assert truth_ceiling._pair(asked) == ("Where do I live?", "assistant: York is lovely.")


@pytest.mark.parametrize(
    "argv",
    [
        ["cross", "request"],
        ["cross", "attribution"],
        ["curve", "nothing"],
        ["cross", "relation", "--fold", "5"],
    ],
)
def test_arguments_it_cannot_run_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        truth_ceiling.main(argv)
    assert raised.value.code == 2
