"""Speaker roles: who in a conversation is the user, the assistant, the system or a tool.

Most memories an agent keeps are a user talking to it. A speaker's *role* says how the
conversation treats what that speaker said:

- ``user``: the person the memory is about; "I", "me", "my" and "the user" in a question mean
  this speaker, and only this speaker's turns can state the user's own facts.
- ``assistant``: the agent; what it says (suggestions, acknowledgements) is its own, never a
  fact about the user.
- ``system`` and ``tool``: instructions and tool output; never facts about the user.
- ``document``: a chunk of a document (`kgmem.api.Memory.add_document`). Its facts are
  extracted and cited like a named speaker's, it is never "the user", and it never makes a
  memory request. Only `add_document` sets it: it is not in `ROLES`, so no ``roles=`` mapping,
  chat file or ``KGMEM_REQUEST_ROLES`` can name it, and a speaker called "document" is an
  ordinary speaker.

A speaker's role comes from an explicit mapping (``roles={"Priya": "user"}`` on
`kgmem.api.Memory.add_turns` / ``add_conversation``, or the chat format's ``roles`` object)
and otherwise from its name when that name *is* a role name (case-insensitive: ``"user"``,
``"Assistant"``). Speakers of LoCoMo-style chats between named people have no role (``None``),
and nothing role-specific applies to them. The role is stored on each ``Turn`` as ``role``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from kgmem.errors import MalformedInput

__all__ = ["DOCUMENT", "ROLES", "Role", "SpeakerRole", "check_roles", "role_of"]

SpeakerRole = Literal["user", "assistant", "system", "tool"]
Role = Literal[SpeakerRole, "document"]
ROLES: tuple[str, ...] = get_args(SpeakerRole)
"""The four role names a caller gives speakers (the chat-completion roles of OpenAI-style
APIs)."""
DOCUMENT: Role = "document"
"""The role of a document's chunks (see the module docstring)."""


def check_roles(roles: Mapping[str, str] | None) -> dict[str, Role]:
    """Validate a speaker → role mapping; returns a plain dict (empty for ``None``).

    Raises:
        MalformedInput: a speaker name is empty or a role is not one of `ROLES`.
    """
    checked: dict[str, Role] = {}
    for speaker, role in (roles or {}).items():
        if not isinstance(speaker, str) or not speaker.strip():
            raise MalformedInput(f"roles: speaker name {speaker!r} must be a non-empty string")
        name = role.lower() if isinstance(role, str) else role
        if name not in ROLES:
            raise MalformedInput(
                f"roles: {speaker!r} has role {role!r}; allowed roles are {', '.join(ROLES)}"
            )
        checked[speaker] = name  # type: ignore[assignment]  # checked against ROLES above
    return checked


def role_of(speaker: str, roles: Mapping[str, Role] | None = None) -> Role | None:
    """The role of ``speaker``: the mapping's entry, else its name if that is a role, else None."""
    if roles and speaker in roles:
        return roles[speaker]
    name = speaker.strip().lower()
    return name if name in ROLES else None  # type: ignore[return-value]  # name is in ROLES
