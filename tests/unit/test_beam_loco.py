"""scripts/beam_loco.py: the leave-one-chat-out choice among bench beam reports."""

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "beam_loco.py"
_spec = importlib.util.spec_from_file_location("beam_loco", _PATH)
assert _spec and _spec.loader
beam_loco = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(beam_loco)


def q(chat: str, n: int, *ranks: int | None) -> dict:
    return {
        "id": f"beam-{chat}:information_extraction:{n}",
        "ability": "information_extraction",
        "evidence_ranks": {f"t{i}": r for i, r in enumerate(ranks)},
    }


def test_each_chat_is_scored_with_the_choice_of_the_others() -> None:
    a = [q("1", 0, 1), q("2", 0, 30), q("2", 1, 30), q("3", 0, 30), q("3", 1, 30)]
    b = [q("1", 0, 30), q("2", 0, 2), q("2", 1, 5), q("3", 0, 3, 4), q("3", 1, 1)]
    out = beam_loco.loco({"a": a, "b": b}, 10)
    chosen = {f["held_out"]: f["chosen"] for f in out["folds"]}
    assert chosen == {"beam-1": "b", "beam-2": "b", "beam-3": "b"}  # chat 1 alone favours a
    assert out["leave_one_chat_out"] == {"n": 5, "all": 0.8, "any": 0.8}
    assert out["in_sample"]["chosen"] == "b"


def test_all_needs_every_evidence_turn() -> None:
    assert beam_loco._at(q("1", 0, 1, None), 10) == (0.0, 1.0)
    assert beam_loco._at(q("1", 0, 1, 9), 10) == (1.0, 1.0)
