"""What a search reads: its scope (one conversation, or all conversations of an owner) and its
optional filters (speakers, sessions, observed time, source kinds).

Both reach Neo4j inside the vector index's ``SEARCH ... WHERE`` (``cypher/read/linked_read``).
Neo4j 2026.08 accepts only conjunctions of equality, ``IN`` and range predicates on the index's
``WITH`` properties there (no ``OR``, no ``$x IS NULL OR ...``; docs/design.md section 6), so
every filter is always present: an unset filter is its widest value (every speaker and session
of the scope, every source kind, open time bounds), which `Bounds.of` computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kgmem.errors import MalformedInput
from kgmem.models import SOURCE_KINDS, SourceKind
from kgmem.turns import check_unicode

__all__ = [
    "EARLIEST",
    "LATEST",
    "MAX_OWNER_CHARS",
    "Bounds",
    "Scope",
    "SearchFilters",
    "check_owner",
    "owner_scope_key",
]

#: the open bounds of observed time (Neo4j and Python both hold these datetimes)
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)

#: the longest owner id accepted, in characters (an id, not a text)
MAX_OWNER_CHARS = 256


def check_owner(owner: object) -> str:
    """``owner`` if it is a usable owner id: a non-empty string of at most `MAX_OWNER_CHARS`
    characters that is valid Unicode (the empty string means "no owner" in the store).

    Raises:
        MalformedInput: anything else.
    """
    if not isinstance(owner, str) or not owner.strip() or len(owner) > MAX_OWNER_CHARS:
        raise MalformedInput(
            f"an owner is a non-empty string of at most {MAX_OWNER_CHARS} characters; got "
            f"{owner!r:.80}"
        )
    check_unicode([owner], file="owner", cid=None)
    return owner


def owner_scope_key(owner: str) -> str:
    """The cache key of an owner's context: ``owner:<id>`` (a conversation id has no ``:``, so
    it never equals one)."""
    return f"owner:{owner}"


@dataclass(frozen=True)
class Scope:
    """The conversations a search ranks together.

    Attributes:
        conversation_id: one conversation, or None for all of ``owner``'s.
        owner: the owner whose conversations are searched (with ``conversation_id``: the owner
            that conversation must have).
    """

    conversation_id: str | None = None
    owner: str | None = None

    def __post_init__(self) -> None:
        if self.conversation_id is None and self.owner is None:
            raise MalformedInput("a search needs a conversation id or an owner")
        if self.owner is not None:
            check_owner(self.owner)

    @property
    def key(self) -> str:
        """The context cache key: the conversation id, or `owner_scope_key`."""
        if self.conversation_id is not None:
            return self.conversation_id
        assert self.owner is not None
        return owner_scope_key(self.owner)

    @property
    def by_owner(self) -> bool:
        """True for an owner-wide search."""
        return self.conversation_id is None


@dataclass(frozen=True)
class SearchFilters:
    """Optional restrictions of a search; None = no restriction. A turn must pass all of them.

    Attributes:
        speakers: only turns said by one of these speakers (exact names as stored).
        sessions: only turns of these session numbers (in an owner search, of that number in
            any of the owner's conversations).
        between: ``(start, end)``, only turns observed in ``[start, end]`` (both inclusive,
            timezone-aware; naive = UTC; either may be None for an open bound).
        sources: only turns of these source kinds (`kgmem.models.SourceKind`: ``chat``,
            ``document``, ``facts``).
        conversations: in an owner search, only these of the owner's conversations (the
            LangGraph store's namespace prefixes); ids the owner does not have match nothing.
    """

    speakers: tuple[str, ...] | None = None
    sessions: tuple[int, ...] | None = None
    between: tuple[datetime | None, datetime | None] | None = None
    sources: tuple[SourceKind, ...] | None = None
    conversations: tuple[str, ...] | None = None

    @classmethod
    def of(
        cls,
        *,
        speakers: Sequence[str] | str | None = None,
        sessions: Sequence[int] | int | None = None,
        between: Sequence[datetime | None] | None = None,
        sources: Sequence[str] | str | None = None,
        conversations: Sequence[str] | None = None,
    ) -> SearchFilters:
        """Checked filters from caller input (a single value counts as a one-element list).

        Raises:
            MalformedInput: an empty list, a speaker that is not a string, a session that is
                not an integer >= 1, ``between`` that is not two datetimes-or-None with start
                <= end, an unknown source kind, or an empty ``conversations``.
        """
        spk: tuple[str, ...] | None = None
        if speakers is not None:
            spk = (speakers,) if isinstance(speakers, str) else tuple(speakers)
            if not spk or not all(isinstance(s, str) and s for s in spk):
                raise MalformedInput(f"speakers must be non-empty names; got {speakers!r:.80}")
        ses: tuple[int, ...] | None = None
        if sessions is not None:
            ses = (sessions,) if isinstance(sessions, int) else tuple(sessions)
            if not ses or not all(
                isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in ses
            ):
                raise MalformedInput(f"sessions must be integers >= 1; got {sessions!r:.80}")
        window: tuple[datetime | None, datetime | None] | None = None
        if between is not None:
            if isinstance(between, str | bytes) or len(between) != 2:
                raise MalformedInput("between is (start, end): two datetimes or None")
            start, end = (_aware(x, "between") for x in between)
            if start is not None and end is not None and start > end:
                raise MalformedInput(f"between: start {start} is after end {end}")
            window = (start, end)
        kinds: tuple[SourceKind, ...] | None = None
        if sources is not None:
            raw = (sources,) if isinstance(sources, str) else tuple(sources)
            bad = [s for s in raw if s not in SOURCE_KINDS]
            if not raw or bad:
                raise MalformedInput(
                    f"sources must be among {', '.join(SOURCE_KINDS)}; got {sources!r:.80}"
                )
            kinds = tuple(k for k in SOURCE_KINDS if k in raw)
        threads: tuple[str, ...] | None = None
        if conversations is not None:
            threads = tuple(conversations)
            if not threads or not all(isinstance(c, str) and c for c in threads):
                raise MalformedInput("conversations must be a non-empty list of conversation ids")
        return cls(spk, ses, window, kinds, threads)

    @property
    def active(self) -> bool:
        """True when any filter restricts the search."""
        return any(
            x is not None
            for x in (self.speakers, self.sessions, self.between, self.sources, self.conversations)
        )

    def as_dict(self) -> dict[str, Any]:
        """The set filters as JSON-ready values (for `kgmem.retrieve.retriever.SearchResult`)."""
        out: dict[str, Any] = {}
        if self.speakers is not None:
            out["speakers"] = list(self.speakers)
        if self.sessions is not None:
            out["sessions"] = list(self.sessions)
        if self.between is not None:
            out["between"] = [x.isoformat() if x is not None else None for x in self.between]
        if self.sources is not None:
            out["sources"] = list(self.sources)
        if self.conversations is not None:
            out["conversations"] = list(self.conversations)
        return out


@dataclass(frozen=True)
class Bounds:
    """The always-present filter values `linked_read` passes to Neo4j (module docstring).

    Attributes:
        speakers / sessions / kinds: the allowed values (a filter's, else every value).
        start / end: the observed-time range, inclusive (``end`` also bounds ``as_of``).
        narrow: a filter or a moment of asking sets some bound. When False the bounds admit
            every turn of the scope, and the vector searches filter by conversation alone
            (``$q.bounded``): the widest values are no restriction, but every one of them is
            a clause the index evaluates, and a long conversation's session list made that
            filter the largest cost of its read.
    """

    speakers: tuple[str, ...]
    sessions: tuple[int, ...]
    kinds: tuple[str, ...]
    start: datetime
    end: datetime
    narrow: bool = True

    @classmethod
    def of(
        cls,
        filters: SearchFilters,
        *,
        speakers: Sequence[str],
        sessions: Sequence[int],
        as_of: datetime | None,
    ) -> Bounds:
        """The bounds of ``filters`` in a scope with these ``speakers`` and ``sessions``."""
        start, end = filters.between or (None, None)
        end = min(x for x in (end, as_of, LATEST) if x is not None)
        narrow = as_of is not None or any(
            x is not None
            for x in (filters.speakers, filters.sessions, filters.sources, filters.between)
        )
        return cls(
            speakers=filters.speakers if filters.speakers is not None else tuple(speakers),
            sessions=filters.sessions if filters.sessions is not None else tuple(sessions),
            kinds=filters.sources if filters.sources is not None else SOURCE_KINDS,
            start=start or EARLIEST,
            end=end,
            narrow=narrow,
        )

    def params(self) -> dict[str, Any]:
        """The statement parameters ``speakers``, ``sessions``, ``kinds``, ``from``, ``to``
        and ``bounded`` (`narrow`)."""
        return {
            "speakers": list(self.speakers),
            "sessions": list(self.sessions),
            "kinds": list(self.kinds),
            "from": self.start,
            "to": self.end,
            "bounded": self.narrow,
        }


def _aware(value: object, name: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise MalformedInput(f"{name}: {value!r:.60} is not a datetime")
    return value if value.utcoffset() is not None else value.replace(tzinfo=UTC)
