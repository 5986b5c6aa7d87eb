"""Turn metadata rules (`kgmem.metadata`): what is accepted, what is refused and named, how a
filter reads, and that keys reach Cypher text only after the strict pattern."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from kgmem.errors import MalformedInput
from kgmem.metadata import (
    MAX_BYTES,
    MAX_KEYS,
    check_filter_keys,
    check_metadata,
    check_where,
    from_properties,
    index_clause,
    matches,
    merge_metadata,
    search_clause,
    stored,
    to_json,
    where_json,
)


def test_flat_values_are_kept_and_dates_parsed() -> None:
    got = check_metadata(
        {
            "project": "billing",
            "importance": 3,
            "weight": 0.5,
            "done": False,
            "due": "2024-05-01",
            "day": date(2024, 1, 2),
            "at": datetime(2024, 1, 2, 3, 4, tzinfo=timezone(timedelta(hours=2))),
            "naive": datetime(2024, 1, 2, 3, 4),
        }
    )
    assert got["due"] == date(2024, 5, 1)
    assert got["at"] == datetime(2024, 1, 2, 1, 4, tzinfo=UTC)
    assert got["naive"].tzinfo is UTC
    assert got["done"] is False and got["importance"] == 3
    assert stored(got)["meta_project"] == "billing"
    assert check_metadata(None) == {}


@pytest.mark.parametrize(
    ("metadata", "named"),
    [
        ({"tags": ["a", "b"]}, "metadata.tags"),
        ({"nested": {"a": 1}}, "metadata.nested"),
        ({"empty": None}, "metadata.empty"),
        ({"ratio": math.nan}, "metadata.ratio"),
        ({"ratio": math.inf}, "metadata.ratio"),
        ({"big": 2**64}, "metadata.big"),
        ({"speaker": "Ana"}, "metadata.speaker"),
        ({"text": "x"}, "metadata.text"),
        ({"1st": "x"}, "metadata.1st"),
        ({"a b": "x"}, "metadata.a b"),
        ({"a`) DETACH DELETE t //": "x"}, "metadata.a`) DETACH DELETE t //"),
        ({"due": "2024-13-45"}, "metadata.due"),
        ({"bad": "\ud800"}, "metadata.bad"),
    ],
)
def test_refused_values_name_the_key(metadata: dict[str, object], named: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        check_metadata(metadata)
    assert caught.value.argument == named


def test_size_limits() -> None:
    check_metadata({f"k{i}": i for i in range(MAX_KEYS)})
    with pytest.raises(MalformedInput, match="keys"):
        check_metadata({f"k{i}": i for i in range(MAX_KEYS + 1)})
    with pytest.raises(MalformedInput, match="bytes"):
        check_metadata({"note": "x" * MAX_BYTES})
    with pytest.raises(MalformedInput):
        check_metadata(["project", "x"])


def test_a_turns_own_keys_win() -> None:
    merged = merge_metadata({"project": "a", "importance": 1}, {"project": "b"})
    assert merged == {"project": "b", "importance": 1}
    assert merge_metadata(None, None) == {}
    with pytest.raises(MalformedInput):
        merge_metadata({"project": "a"}, "b")


def test_where_forms_and_matching() -> None:
    conditions = check_where(
        {
            "project": "billing",
            "team": ["a", "b"],
            "importance": {"gte": 2, "lt": 5},
            "due": {"lte": "2024-06-01"},
        }
    )
    assert where_json(conditions) == {
        "due": {"lte": "2024-06-01"},
        "importance": {"gte": 2, "lt": 5},
        "project": {"eq": "billing"},
        "team": {"in": ["a", "b"]},
    }
    turn = {"project": "billing", "team": "b", "importance": 4, "due": date(2024, 5, 1)}
    assert matches(conditions, turn)
    assert not matches(conditions, turn | {"importance": 5})
    assert not matches(conditions, turn | {"due": date(2024, 7, 1)})
    assert not matches(conditions, {k: v for k, v in turn.items() if k != "team"})
    # types do not mix: a string "4" is not the number 4, True is not 1
    assert not matches(check_where({"importance": 4}), {"importance": "4"})
    assert not matches(check_where({"flag": 1}), {"flag": True})
    assert matches(check_where({"importance": 4.0}), {"importance": 4})


@pytest.mark.parametrize(
    ("where", "named"),
    [
        ({}, "where"),
        ("project", "where"),
        ({"project": {"like": "b%"}}, "where.project"),
        ({"project": {"gt": "b"}}, "where.project"),
        ({"flag": {"lt": True}}, "where.flag"),
        ({"team": {"in": []}}, "where.team"),
        ({"team": {"in": "a"}}, "where.team"),
        ({"team": [{"a": 1}]}, "where.team"),
        ({"speaker": "Ana"}, "where.speaker"),
        ({"x": None}, "where.x"),
        ({"x": {}}, "where.x"),
    ],
)
def test_bad_filters_name_the_key(where: object, named: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        check_where(where)
    assert caught.value.argument == named


def test_keys_reach_cypher_only_checked_and_values_as_parameters() -> None:
    clause, params = search_clause(check_where({"project": "x'; MATCH (n) DETACH DELETE n"}))
    assert clause == " AND t.`meta_project` = $w0"
    assert params == {"w0": "x'; MATCH (n) DETACH DELETE n"}
    clause, params = search_clause(check_where({"n": {"gte": 1, "lt": 3}, "t": [1, 2]}))
    assert clause == " AND t.`meta_n` >= $w0 AND t.`meta_n` < $w1 AND t.`meta_t` IN $w2"
    assert params == {"w0": 1, "w1": 3, "w2": [1, 2]}
    assert index_clause(("a", "b")) == ", t.`meta_a`, t.`meta_b`"
    assert check_filter_keys([" project", "importance", "project"]) == ("importance", "project")
    with pytest.raises(MalformedInput):
        check_filter_keys(["bad key"])


def test_stored_pairs_read_back() -> None:
    assert from_properties([["meta_b", 1], ["meta_a", "x"], ["speaker", "Ana"]]) == {
        "a": "x",
        "b": 1,
    }
    assert to_json({"d": date(2024, 5, 1), "a": 1}) == '{"a":1,"d":"2024-05-01"}'
