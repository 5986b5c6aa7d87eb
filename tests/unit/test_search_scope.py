"""Search scope and filters (`kgmem.retrieve.scope`): checked input, widest values when unset."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.errors import MalformedInput
from kgmem.models import SOURCE_KINDS
from kgmem.retrieve.scope import (
    EARLIEST,
    LATEST,
    Bounds,
    Scope,
    SearchFilters,
    check_owner,
    owner_scope_key,
)
from kgmem.store.tenant import owner_token, scope_query, tenant_token

MAY = datetime(2024, 5, 1, tzinfo=UTC)
JUNE = datetime(2024, 6, 1, tzinfo=UTC)


def test_unset_filters_are_their_widest_values() -> None:
    bounds = Bounds.of(SearchFilters(), speakers=("Ana", "Bo"), sessions=(1, 2), as_of=None)
    assert bounds.params() == {
        "speakers": ["Ana", "Bo"],
        "sessions": [1, 2],
        "kinds": list(SOURCE_KINDS),
        "from": EARLIEST,
        "to": LATEST,
        "bounded": False,  # the vector searches filter by conversation alone
    }
    assert not SearchFilters().active


@pytest.mark.parametrize(
    ("filters", "as_of"),
    [
        (SearchFilters.of(speakers="Ana"), None),
        (SearchFilters.of(sessions=2), None),
        (SearchFilters.of(between=(MAY, None)), None),
        (SearchFilters.of(sources=["chat"]), None),
        (SearchFilters(), JUNE),  # the moment of asking hides later turns
    ],
)
def test_a_filter_or_a_moment_of_asking_makes_the_bounds_narrow(
    filters: SearchFilters, as_of: datetime | None
) -> None:
    bounds = Bounds.of(filters, speakers=("Ana", "Bo"), sessions=(1, 2), as_of=as_of)
    assert bounds.narrow and bounds.params()["bounded"] is True


def test_set_filters_replace_the_widest_values_and_as_of_bounds_the_end() -> None:
    filters = SearchFilters.of(
        speakers="Ana", sessions=3, between=(MAY, None), sources=["document", "chat"]
    )
    assert filters.active
    bounds = Bounds.of(filters, speakers=("Ana", "Bo"), sessions=(1, 2, 3), as_of=JUNE)
    assert bounds.speakers == ("Ana",) and bounds.sessions == (3,)
    assert bounds.kinds == ("chat", "document")  # in SOURCE_KINDS order
    assert (bounds.start, bounds.end) == (MAY, JUNE)
    earlier = Bounds.of(SearchFilters.of(between=(None, MAY)), speakers=(), sessions=(), as_of=JUNE)
    assert earlier.end == MAY
    naive = SearchFilters.of(between=(datetime(2024, 5, 1), None))
    assert naive.between == (MAY, None)
    assert filters.as_dict() == {
        "speakers": ["Ana"],
        "sessions": [3],
        "between": [MAY.isoformat(), None],
        "sources": ["chat", "document"],
    }


@pytest.mark.parametrize(
    "bad",
    [
        {"speakers": []},
        {"speakers": [""]},
        {"speakers": [3]},
        {"sessions": []},
        {"sessions": [0]},
        {"sessions": [True]},
        {"sessions": ["2"]},
        {"between": (JUNE, MAY)},
        {"between": (MAY,)},
        {"between": "2024-05-01"},
        {"between": ("2024-05-01", None)},
        {"sources": []},
        {"sources": ["email"]},
        {"conversations": []},
    ],
)
def test_bad_filters_raise_malformed_input(bad: dict[str, object]) -> None:
    with pytest.raises(MalformedInput):
        SearchFilters.of(**bad)  # type: ignore[arg-type]


def test_scope_needs_a_conversation_or_an_owner() -> None:
    assert Scope(conversation_id="c1").key == "c1"
    assert Scope(owner="alice").key == owner_scope_key("alice") == "owner:alice"
    assert Scope(owner="alice").by_owner and not Scope("c1", "alice").by_owner
    with pytest.raises(MalformedInput):
        Scope()
    for bad in ("", "   ", "x" * 300, 7):
        with pytest.raises(MalformedInput):
            check_owner(bad)


def test_owner_tokens_are_digits_and_differ_from_tenant_tokens() -> None:
    token = owner_token("alice")
    assert token.isdigit() and token != tenant_token("alice")
    assert owner_token("alice") == token and owner_token("bob") != token
    assert scope_query(token, ["cello"]) == f"+tk:{token}^0 +text:(cello)"
    assert scope_query(token, []) is None
