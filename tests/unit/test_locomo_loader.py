"""The LoCoMo loader (`kgmem.ingest.loaders.locomo`, Maharana et al., ACL 2024 layout): turns,
captions, annotation facts, questions and gold ids from a hand-made sample; typed errors for bad
files."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kgmem.errors import DateParseError, InputError, MalformedInput
from kgmem.ingest.loaders.locomo import load_locomo, parse_locomo_sample
from kgmem.turns import turn_text
from tests.strategies import DATA

BAD = DATA / "bad"


def _sample(
    turns: list[Any], sid: str = "s1", date: str = "1:56 pm on 8 May, 2023"
) -> dict[str, Any]:
    return {"sample_id": sid, "conversation": {"session_1_date_time": date, "session_1": turns}}


def test_fixture_sample() -> None:
    [conv] = load_locomo(DATA / "small_locomo.json")
    assert conv.conversation_id == "fixture-locomo"
    assert [t.id for t in conv.turns] == [
        "fixture-locomo:D1:1",
        "fixture-locomo:D1:2",
        "fixture-locomo:D1:3",
        "fixture-locomo:D2:1",
        "fixture-locomo:D2:2",
    ]
    assert conv.speakers == ("Caroline", "Melanie")
    assert conv.turns[2].text == (
        "I'm thinking of studying counseling. [shared image: a photo of a university campus]"
    )
    assert conv.sessions[0].started_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert conv.sessions[1].started_at == datetime(2023, 6, 27, 10, 37, tzinfo=UTC)
    assert len(conv.facts) == 5
    assert all(f.source == "annotation" and f.cites for f in conv.facts)
    assert {c for f in conv.facts for c in f.cites} <= {t.id for t in conv.turns}
    q2 = conv.questions[1]
    assert set(q2.evidence) == {"fixture-locomo:D2:2", "fixture-locomo:D1:3"}
    assert q2.category == 1


def test_filter_and_missing_conversation() -> None:
    assert load_locomo(DATA / "small_locomo.json", ["fixture-locomo"])[0].turns
    with pytest.raises(InputError, match="not in file"):
        load_locomo(DATA / "small_locomo.json", ["conv-99"])


@pytest.mark.parametrize(
    ("name", "error", "fragments"),
    [
        ("locomo_missing_dia.json", MalformedInput, ["'loc-bad'", "dia_id"]),
        ("locomo_bad_date.json", DateParseError, ["'loc-date'", "session 1"]),
        ("truncated.json", MalformedInput, ["truncated.json", "not valid JSON"]),
        ("wrong_types.json", MalformedInput, ["expected a JSON list"]),
    ],
)
def test_bad_files_name_where(name: str, error: type[InputError], fragments: list[str]) -> None:
    with pytest.raises(error) as info:
        load_locomo(BAD / name)
    assert str(BAD / name) in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize(
    "turns",
    [
        [{"speaker": "A", "dia_id": "D1:1", "text": 3}],
        [{"speaker": "A", "dia_id": "D1:1", "text": "  "}],
        [{"speaker": " ", "dia_id": "D1:1", "text": "x"}],
        [{"dia_id": "D1:1", "text": "x"}],
        [{"speaker": "A", "dia_id": 7, "text": "x"}],
        [
            {"speaker": "A", "dia_id": "D1:1", "text": "x"},
            {"speaker": "B", "dia_id": "D1:1", "text": "y"},
        ],
        ["not an object"],
        "not a list",
    ],
)
def test_bad_turns(turns: Any) -> None:
    with pytest.raises(MalformedInput):
        parse_locomo_sample(_sample(turns), file="mem.json")


def test_bad_samples(tmp_path: Path) -> None:
    for bad in (
        [1],
        [{"sample_id": 5}],
        [{"sample_id": "x"}],
        [{"sample_id": "x", "conversation": {}}],
    ):
        path = tmp_path / "b.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(InputError):
            load_locomo(path)
    with pytest.raises(MalformedInput, match="qa"):
        parse_locomo_sample(
            {**_sample([{"speaker": "A", "dia_id": "D1:1", "text": "x"}]), "qa": {}}
        )


def test_colon_in_sample_id_and_lone_surrogates() -> None:
    ok = [{"speaker": "A", "dia_id": "D1:1", "text": "x"}]
    with pytest.raises(MalformedInput, match="':'"):
        parse_locomo_sample(_sample(ok, sid="conv:26"))
    with pytest.raises(MalformedInput, match="not valid Unicode") as info:
        parse_locomo_sample(_sample([{"speaker": "A", "dia_id": "D1:1", "text": "x \udc00"}]))
    assert info.value.turn == "D1:1"


def test_caption_only_turn_and_turn_text() -> None:
    conv = parse_locomo_sample(
        _sample([{"speaker": "A", "dia_id": "D1:1", "text": "", "blip_caption": "a dog"}])
    )
    assert conv.turns[0].text == "[shared image: a dog]"
    assert turn_text("  hi ", "  ") == "hi"
