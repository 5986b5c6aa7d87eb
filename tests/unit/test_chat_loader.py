"""The generic chat loader (`kgmem.ingest.loaders.chat`): what a good file becomes, and that every
bad file raises a typed `InputError` naming the file, conversation and turn."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kgmem.errors import DateParseError, InputError, MalformedInput
from kgmem.ingest.loaders.chat import load_chat, parse_chat_conversation
from tests.strategies import DATA, INJECTION_STRINGS

BAD = DATA / "bad"


def _doc(
    turns: list[dict[str, Any]], cid: str = "c1", started: str = "2024-01-01T10:00:00"
) -> dict[str, Any]:
    return {"conversation_id": cid, "sessions": [{"started_at": started, "turns": turns}]}


def test_fixture_file_loads_in_order_with_captions_and_zones() -> None:
    [conv] = load_chat(DATA / "small_chat.json")
    assert conv.conversation_id == "fixture-chat"
    assert [t.dia_id for t in conv.turns] == [f"t{n}" for n in range(1, 11)]
    assert [t.index for t in conv.turns] == list(range(10))
    assert conv.turns[0].id == "fixture-chat:t1"
    assert conv.speakers == ("Ana", "Bo")
    assert conv.turns[2].text.endswith("[shared image: a castle on a green hill]")
    first = conv.sessions[0].started_at
    assert first.utcoffset() == timedelta(hours=2)
    assert first.astimezone(UTC) == datetime(2024, 5, 8, 11, 56, tzinfo=UTC)
    assert all(t.observed_at == first for t in conv.turns[:5])


def test_jsonl_and_list_forms(tmp_path: Path) -> None:
    docs = [_doc([{"speaker": "A", "text": "hi"}], cid=f"c{n}") for n in range(3)]
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps(docs), encoding="utf-8")
    as_lines = tmp_path / "lines.jsonl"
    as_lines.write_text("\n".join(json.dumps(d) for d in docs) + "\n\n", encoding="utf-8")
    for path in (as_list, as_lines):
        assert [c.conversation_id for c in load_chat(path)] == ["c0", "c1", "c2"]
    # naive timestamps are UTC; default turn id is S<session>:<n>
    turn = load_chat(as_list)[0].turns[0]
    assert turn.id == "c0:S1:1" and turn.observed_at.tzinfo is not None


@pytest.mark.parametrize(
    ("name", "error", "fragments"),
    [
        ("truncated.json", MalformedInput, ["truncated.json", "line 1"]),
        ("wrong_types.json", MalformedInput, ["'wrong-types'", "'t1'", "text"]),
        ("missing_speaker.json", MalformedInput, ["'no-speaker'", "'t2'", "speaker"]),
        ("missing_date.json", DateParseError, ["'no-date'", "session 3", "started_at"]),
        ("bad_date.json", DateParseError, ["'bad-date'", "31 February"]),
        ("empty_text.json", MalformedInput, ["'empty-text'", "'t1'", "empty"]),
        ("bad_line.jsonl", MalformedInput, ["bad_line.jsonl", "line 2"]),
    ],
)
def test_bad_files_name_where(name: str, error: type[InputError], fragments: list[str]) -> None:
    with pytest.raises(error) as info:
        load_chat(BAD / name)
    message = str(info.value)
    assert str(BAD / name) in message
    for fragment in fragments:
        assert fragment in message, message


def test_missing_file_and_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_chat(tmp_path / "nope.json")
    latin = tmp_path / "latin1.json"
    latin.write_bytes(
        json.dumps(_doc([{"speaker": "A", "text": "x"}])).encode().replace(b"x", b"\xe9")
    )
    with pytest.raises(MalformedInput, match="UTF-8"):
        load_chat(latin)


@pytest.mark.parametrize(
    "obj",
    [
        [],
        "text",
        {"sessions": []},
        {"conversation_id": "  ", "sessions": [{}]},
        {"conversation_id": "c", "sessions": "no"},
        {"conversation_id": "c", "sessions": [1]},
        {"conversation_id": "c", "sessions": [{"started_at": 5, "turns": []}]},
        {
            "conversation_id": "c",
            "sessions": [{"started_at": "2024-01-01", "session": True, "turns": []}],
        },
        {"conversation_id": "c", "sessions": [{"started_at": "2024-01-01", "turns": {}}]},
        _doc(["not a turn"]),
        _doc([{"speaker": "A", "text": "x", "id": True}]),
        _doc([{"speaker": "A", "text": "x", "id": ""}]),
        _doc([{"speaker": ["A"], "text": "x"}]),
        _doc([{"speaker": "A", "text": "x", "image_caption": 7}]),
        _doc([{"speaker": "A", "text": "x", "id": "a"}, {"speaker": "B", "text": "y", "id": "a"}]),
    ],
)
def test_wrong_shapes_are_malformed(obj: Any) -> None:
    with pytest.raises(InputError):
        parse_chat_conversation(obj, file="mem.json")


def test_duplicate_conversations_and_sessions(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([_doc([{"speaker": "A", "text": "x"}])] * 2), encoding="utf-8")
    with pytest.raises(MalformedInput, match="duplicate conversation_id"):
        load_chat(path)
    doc = _doc([{"speaker": "A", "text": "x"}])
    doc["sessions"].append({"started_at": "2024-01-02", "session": 1, "turns": []})
    with pytest.raises(MalformedInput, match="duplicate"):
        parse_chat_conversation(doc)


def test_colon_in_conversation_id_is_rejected() -> None:
    # Turn ids are "<conversation_id>:<turn id>": with a ':' in the conversation id, turn "b:1"
    # of conversation "a" and turn "1" of conversation "a:b" would share an id (a tenant clash).
    with pytest.raises(MalformedInput, match="':'") as info:
        parse_chat_conversation(_doc([{"speaker": "A", "text": "x"}], cid="a:b"))
    assert info.value.conversation_id == "a:b"


def test_lone_surrogate_is_rejected_with_turn() -> None:
    with pytest.raises(MalformedInput, match="not valid Unicode") as info:
        parse_chat_conversation(_doc([{"id": "t9", "speaker": "A", "text": "half \ud83d emoji"}]))
    assert info.value.turn == "t9"


@pytest.mark.parametrize("text", INJECTION_STRINGS)
def test_hostile_text_is_kept_verbatim(text: str) -> None:
    conv = parse_chat_conversation(
        _doc([{"id": "t1", "speaker": f"S {text}", "text": f"x {text} y"}])
    )
    assert conv.turns[0].text == f"x {text} y"
    assert conv.turns[0].speaker == f"S {text}".strip()


def test_large_turn_is_kept_whole() -> None:
    text = ("é" + "a" * 99 + "\n") * 1000  # ~102 KB of UTF-8
    conv = parse_chat_conversation(_doc([{"speaker": "A", "text": "<" + text + ">"}]))
    assert conv.turns[0].text == "<" + text + ">"


def test_offset_kept_and_naive_is_utc() -> None:
    conv = parse_chat_conversation(
        _doc([{"speaker": "A", "text": "x"}], started="2024-03-01T08:00:00-05:00")
    )
    assert conv.sessions[0].started_at.utcoffset() == timedelta(hours=-5)
    naive = parse_chat_conversation(
        _doc([{"speaker": "A", "text": "x"}], started="2024-03-01T08:00:00")
    )
    assert naive.sessions[0].started_at.tzinfo == UTC


def _roles_chat(roles: Any) -> dict[str, Any]:
    turns = [
        {"speaker": "Priya", "text": "I moved to Ghent."},
        {"speaker": "Assistant", "text": "Nice!"},
        {"speaker": "Bo", "text": "Hi both."},
    ]
    chat: dict[str, Any] = {
        "conversation_id": "r",
        "sessions": [{"started_at": "2026-01-01T10:00:00+00:00", "turns": turns}],
    }
    if roles is not None:
        chat["roles"] = roles
    return chat


def test_roles_come_from_the_file_then_from_role_names() -> None:
    record = parse_chat_conversation(_roles_chat({"Priya": "user"}))
    assert [t.role for t in record.turns] == ["user", "assistant", None]
    assert [t.role for t in parse_chat_conversation(_roles_chat(None)).turns] == [
        None,
        "assistant",
        None,
    ]


@pytest.mark.parametrize("roles", [{"Priya": "boss"}, ["user"], {"": "user"}])
def test_bad_roles_are_malformed(roles: Any) -> None:
    with pytest.raises(MalformedInput, match="role"):
        parse_chat_conversation(_roles_chat(roles))
