"""The pure parts of the steered search (`kgmem.steer`) and of the HTTP API's access rules
(`kgmem.service.access`): name folding, dates, option ranges, cursor sealing, token files and
what a grant reaches."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgmem.bounds import parse_when
from kgmem.cursors import CursorCodec
from kgmem.errors import ConfigError, ConversationNotFound, InvalidCursor, MalformedInput
from kgmem.service.access import EVERYTHING, Gate, Grant, TokenTable, hash_token, new_token
from kgmem.steer import MAX_K, Options, fold_name


def test_fold_name_ignores_case_accents_and_spacing() -> None:
    assert fold_name("  Ána  María ") == fold_name("ana maria") == "ana maria"
    assert fold_name("ZOË") == fold_name("zoe")
    assert fold_name("Straße") == fold_name("STRASSE")
    assert fold_name("Ana") != fold_name("Anna")


def test_parse_when_dates_and_datetimes() -> None:
    assert parse_when("2024-05-08", "since", end=False) == datetime(2024, 5, 8, tzinfo=UTC)
    end = parse_when("2024-05-08", "until", end=True)
    assert end is not None and end.date().isoformat() == "2024-05-08" and end.hour == 23
    assert parse_when("2024-05-08T10:00:00Z", "since", end=False) == datetime(
        2024, 5, 8, 10, tzinfo=UTC
    )
    assert parse_when(None, "since", end=False) is None
    with pytest.raises(MalformedInput) as info:
        parse_when("last May", "since", end=False)
    assert info.value.argument == "since"


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        (Options(k=0), "k"),
        (Options(k=MAX_K + 1), "k"),
        (Options(k=True), "k"),
        (Options(exact=" "), "exact"),
        (Options(speaker="x" * 501), "speaker"),
        (Options(speaker="\ud83d"), "speaker"),
        (Options(session=0), "session"),
        (Options(max_tokens=0), "max_tokens"),
        (
            Options(since=datetime(2024, 2, 1, tzinfo=UTC), until=datetime(2024, 1, 1, tzinfo=UTC)),
            "since",
        ),
    ],
)
def test_options_out_of_range_name_the_option(options: Options, argument: str) -> None:
    with pytest.raises(MalformedInput) as info:
        options.check()
    assert info.value.argument == argument


def test_cursor_binding_ignores_page_size_and_case_of_speaker() -> None:
    a = Options(k=5, speaker="Ana", max_tokens=100).binding()
    assert a == Options(k=20, speaker="ÁNA").binding()
    assert a != Options(speaker="Bo").binding()


def test_cursor_codec_detects_forgery_and_other_secrets() -> None:
    codec = CursorCodec(b"one secret")
    cursor = codec.seal({"q": "abc", "seen": ["0a1b"]})
    assert codec.open(cursor) == {"q": "abc", "seen": ["0a1b"]}
    body, sig = cursor.split(".")
    for bad in (
        body + "." + sig[:-1] + ("A" if sig[-1] != "A" else "B"),
        "not-a-cursor",
        "a.b.c",
        "",
    ):
        with pytest.raises(InvalidCursor) as info:
            codec.open(bad)
        assert info.value.kind == "forged" and info.value.argument == "cursor"
    with pytest.raises(InvalidCursor):
        CursorCodec(b"another secret").open(cursor)


def test_token_table_stores_hashes_and_finds_grants(tmp_path: Path) -> None:
    token, entry = new_token(Grant(owner="alice"))
    assert token not in json.dumps(entry) and list(entry) == [hash_token(token)]
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps(entry | new_token(Grant(conversations=frozenset({"c1"})))[1]))
    table = TokenTable.load(path)
    assert len(table) == 2
    assert table.grant(token) == Grant(owner="alice")
    assert table.grant("guess") is None


@pytest.mark.parametrize(
    "content",
    [
        "{}",
        "not json",
        json.dumps({"tok-in-clear": {"owner": "a"}}),
        json.dumps({"a" * 64: {"owner": "a", "conversations": ["c"]}}),
        json.dumps({"a" * 64: {"conversations": "c1"}}),
        json.dumps({"a" * 64: {"conversations": ["a:b"]}}),
    ],
)
def test_bad_token_files_are_config_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(content)
    with pytest.raises(ConfigError):
        TokenTable.load(path)


def gate(grant: Grant, stored: dict[str, str | None]) -> Gate:
    """A gate over conversations ``stored`` (id → owner or None)."""
    return Gate(grant, lambda cid: (cid in stored, stored.get(cid)))


STORED: dict[str, str | None] = {"a1": "alice", "b1": "bob", "solo": None}


def test_owner_grant_reaches_its_owner_only() -> None:
    g = gate(Grant(owner="alice"), STORED)
    assert g.scope(None, None) == (None, "alice")
    assert g.scope("a1", None) == ("a1", "alice")
    for cid in ("b1", "solo", "missing"):
        with pytest.raises(ConversationNotFound):
            g.scope(cid, None)
    with pytest.raises(ConversationNotFound):
        g.scope(None, "bob")
    assert g.writable("a1", None) == "alice"
    assert g.writable("new", None) == "alice"  # a new conversation is claimed for alice
    for cid in ("b1", "solo"):
        with pytest.raises(ConversationNotFound):
            g.writable(cid, None)
    with pytest.raises(ConversationNotFound):
        g.writable("new", "bob")


def test_conversations_grant_reaches_its_set_only() -> None:
    g = gate(Grant(conversations=frozenset({"b1", "new"})), STORED)
    assert g.scope("b1", None) == ("b1", None)
    assert g.writable("new", None) is None
    with pytest.raises(ConversationNotFound):
        g.scope("a1", None)
    with pytest.raises(ConversationNotFound):
        g.scope("b1", "bob")
    with pytest.raises(MalformedInput):
        g.scope(None, None)


def test_bad_ids_are_malformed_before_any_access_decision() -> None:
    g = gate(EVERYTHING, STORED)
    with pytest.raises(MalformedInput) as info:
        g.scope("a:b", None)
    assert info.value.argument == "conversation_id"


def test_agent_session_third_call_from_the_question_text_only() -> None:
    from kgmem.bench.interface import third_call

    speakers = ["Caroline", "Melanie"]
    assert third_call('What is "Becoming Nicole" about?', speakers) == {"exact": "Becoming Nicole"}
    assert third_call("What did Caroline see in New York City?", speakers) == {
        "exact": "New York City"
    }
    assert third_call("What did Melanie paint recently?", speakers) == {"speaker": "Melanie"}
    assert third_call("When did she go there?", speakers) is None
