"""Speaker roles: explicit mapping first, then a speaker named by its role, else no role."""

import pytest

from kgmem.errors import MalformedInput
from kgmem.roles import ROLES, check_roles, role_of


def test_the_four_roles() -> None:
    assert ROLES == ("user", "assistant", "system", "tool")


@pytest.mark.parametrize(
    ("speaker", "roles", "expected"),
    [
        ("user", None, "user"),
        ("Assistant", None, "assistant"),
        (" TOOL ", None, "tool"),
        ("Caroline", None, None),
        ("Priya", {"Priya": "user"}, "user"),
        ("user", {"user": "assistant"}, "assistant"),
        ("Users", None, None),
    ],
)
def test_role_of(speaker: str, roles: dict[str, str] | None, expected: str | None) -> None:
    assert role_of(speaker, check_roles(roles)) == expected


def test_check_roles_lowercases_and_rejects_unknown_roles() -> None:
    assert check_roles({"Priya": "User"}) == {"Priya": "user"}
    assert check_roles(None) == {}
    with pytest.raises(MalformedInput, match="allowed roles are user, assistant"):
        check_roles({"Priya": "customer"})
    with pytest.raises(MalformedInput, match="non-empty"):
        check_roles({" ": "user"})
