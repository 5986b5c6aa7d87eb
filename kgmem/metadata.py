"""Turn metadata: a caller's own flat key/value pairs on a turn (a project, a source, an
importance, a due date), stored with the turn, returned with its hits and filterable in a
search (docs/metadata.md).

Rules (`check_metadata`): a key matches `KEY_PATTERN` (a letter, then letters, digits or
``_``; at most 64 characters) and is not one of `RESERVED_KEYS` (the turn's own fields); a value
is a string, an integer (64-bit), a finite float, a boolean, or a date (`datetime.date`, or a
string of exactly the form ``YYYY-MM-DD``, so that JSON callers can send dates) or an aware
datetime (naive = UTC). Nested values, lists, nulls, NaN and infinities are refused. At most
`MAX_KEYS` keys and `MAX_BYTES` bytes (the pairs as compact JSON) per turn. Every violation is
`kgmem.errors.MalformedInput` naming the key.

Storage: one property per key, ``meta_<key>`` (`PREFIX`), written from a parameter map
(``SET t += row.meta``), so a key never reaches Cypher as text there. A key becomes a Cypher
identifier only in two statements, and only after `KEY_PATTERN` accepted it: the vector index's
filter properties (`index_properties`, keys declared in ``Settings.metadata_filter_keys``) and the
``SEARCH ... WHERE`` of an in-index filter (`index_search`). Values are always parameters.

Filters (`check_where`): ``{key: value}`` equality; ``{key: [v, ...]}`` or ``{key: {"in": [...]}}``
any of the values; ``{key: {"gt" | "gte" | "lt" | "lte": v}}`` ranges on numbers and dates
(bounds combine: ``{"gte": 3, "lt": 5}``); ``{key: {"eq": v}}`` equality. All keys must hold
(a conjunction), as every kgmem filter.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from kgmem.errors import MalformedInput

__all__ = [
    "KEY_PATTERN",
    "MAX_BYTES",
    "MAX_KEYS",
    "PREFIX",
    "RESERVED_KEYS",
    "Condition",
    "check_filter_keys",
    "check_metadata",
    "check_where",
    "from_properties",
    "matches",
    "merge_metadata",
    "stored",
    "to_json",
    "where_json",
]

#: a metadata key: a letter, then letters, digits or underscores, at most 64 characters in all
KEY_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
#: the most keys one turn carries
MAX_KEYS = 32
#: the most bytes one turn's metadata takes, as compact JSON (dates as ISO 8601 strings)
MAX_BYTES = 4096
#: the prefix of a key's stored property (``project`` is stored as ``meta_project``)
PREFIX = "meta_"
#: keys that name a turn's own fields (a filter on them would be ambiguous)
RESERVED_KEYS = frozenset(
    {
        "id",
        "turn_id",
        "conversation_id",
        "owner",
        "speaker",
        "text",
        "session",
        "index",
        "observed_at",
        "date",
        "role",
        "source",
        "source_kind",
        "document",
        "language",
        "embedding",
        "metadata",
        "score",
    }
)
#: the operators of a filter on one key
OPERATORS = ("eq", "in", "gt", "gte", "lt", "lte")
_RANGE = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: the most values an ``in`` filter lists
MAX_IN = 100
_INT64 = 2**63


def check_key(key: object, *, argument: str = "metadata") -> str:
    """``key`` if it is a usable metadata key (module docstring).

    Raises:
        MalformedInput: not a string matching `KEY_PATTERN`, or a reserved key.
    """
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
        raise MalformedInput(
            f"metadata key {key!r:.70} must be a letter followed by letters, digits or "
            "underscores (at most 64 characters)",
            argument=f"{argument}.{key}" if isinstance(key, str) else argument,
        )
    if key in RESERVED_KEYS:
        raise MalformedInput(
            f"metadata key {key!r} is reserved (a turn's own field); choose another name",
            argument=f"{argument}.{key}",
        )
    return key


def check_value(key: str, value: object, *, argument: str = "metadata") -> Any:
    """A metadata value as stored: str, int, float, bool, date or UTC datetime (module
    docstring; a ``YYYY-MM-DD`` string becomes a date).

    Raises:
        MalformedInput: a null, a nested value, a list, NaN or an infinity, an integer beyond
            64 bits, a string that is not valid Unicode; naming ``argument.key``.
    """
    where = f"{argument}.{key}"
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise MalformedInput(f"metadata {key!r}: integer beyond 64 bits", argument=where)
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise MalformedInput(f"metadata {key!r}: NaN or infinite number", argument=where)
        return value
    if isinstance(value, datetime):
        aware = value if value.utcoffset() is not None else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC)
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise MalformedInput(f"metadata {key!r} is not valid Unicode", argument=where) from None
        if _DAY.fullmatch(value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                raise MalformedInput(
                    f"metadata {key!r}: {value!r} looks like a date but is not one", argument=where
                ) from None
        return value
    kind = "null" if value is None else type(value).__name__
    raise MalformedInput(
        f"metadata {key!r}: a {kind} is not allowed; values are flat strings, numbers, "
        "booleans or dates",
        argument=where,
    )


def check_metadata(metadata: object, *, argument: str = "metadata") -> dict[str, Any]:
    """Checked metadata of one turn (module docstring), values as stored.

    Raises:
        MalformedInput: not a mapping, a bad key or value, more than `MAX_KEYS` keys or more
            than `MAX_BYTES` bytes; naming the key where there is one.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise MalformedInput("metadata is a mapping of keys to flat values", argument=argument)
    if len(metadata) > MAX_KEYS:
        raise MalformedInput(
            f"metadata has {len(metadata)} keys; at most {MAX_KEYS} per turn", argument=argument
        )
    out = {check_key(k, argument=argument): None for k in metadata}
    for key in out:
        out[key] = check_value(key, metadata[key], argument=argument)
    size = len(to_json(out).encode("utf-8"))
    if size > MAX_BYTES:
        raise MalformedInput(
            f"metadata takes {size} bytes as JSON; at most {MAX_BYTES} per turn", argument=argument
        )
    return out


def merge_metadata(call: Mapping[str, Any] | None, turn: object) -> dict[str, Any]:
    """A turn's metadata: the call's, with the turn's own keys winning; checked.

    Raises:
        MalformedInput: as `check_metadata` (the turn's metadata is named ``turns[i].metadata``
            by the caller).
    """
    if turn is not None and not isinstance(turn, Mapping):
        raise MalformedInput("a turn's metadata is a mapping", argument="metadata")
    return check_metadata({**(call or {}), **(turn or {})})


def stored(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The properties one turn's metadata is stored as (``meta_<key>``), for a parameter map."""
    return {PREFIX + key: value for key, value in metadata.items()}


def from_properties(properties: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """Metadata from stored ``[property, value]`` pairs (driver values made native: a Neo4j
    date is a `datetime.date`, a datetime an aware `datetime.datetime`)."""
    out: dict[str, Any] = {}
    for name, value in properties:
        if isinstance(name, str) and name.startswith(PREFIX):
            out[name[len(PREFIX) :]] = value.to_native() if hasattr(value, "to_native") else value
    return dict(sorted(out.items()))


def _json_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def to_json(metadata: Mapping[str, Any]) -> str:
    """Compact JSON of metadata (dates and datetimes as ISO 8601), keys sorted."""
    return json.dumps(
        {k: _json_value(v) for k, v in metadata.items()},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


@dataclass(frozen=True)
class Condition:
    """One key's filter: ``op`` one of `OPERATORS` (``in`` holds a tuple)."""

    key: str
    op: str
    value: Any

    def holds(self, metadata: Mapping[str, Any]) -> bool:
        """True when the turn's metadata passes (a missing key never passes)."""
        if self.key not in metadata:
            return False
        have = metadata[self.key]
        if self.op == "in":
            return any(_equal(have, v) for v in self.value)
        if self.op == "eq":
            return _equal(have, self.value)
        if not _comparable(have, self.value):
            return False
        outcome: bool = {
            "gt": have > self.value,
            "gte": have >= self.value,
            "lt": have < self.value,
            "lte": have <= self.value,
        }[self.op]
        return outcome


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, datetime):
        return "datetime"
    if isinstance(value, date):
        return "date"
    return "str"


def _equal(a: Any, b: Any) -> bool:
    return _kind(a) == _kind(b) and a == b


def _comparable(a: Any, b: Any) -> bool:
    return _kind(a) == _kind(b) and _kind(a) in ("number", "date", "datetime")


def check_where(where: object, *, argument: str = "where") -> tuple[Condition, ...]:
    """The conditions of a metadata filter (module docstring), sorted by key then operator.

    Raises:
        MalformedInput: not a mapping, empty, a bad key or value, an unknown operator, an empty
            or too long ``in`` list, a range on a string or boolean; naming ``where.key``.
    """
    if not isinstance(where, Mapping) or not where:
        raise MalformedInput(
            "where is a non-empty mapping of metadata keys to filters", argument=argument
        )
    if len(where) > MAX_KEYS:
        raise MalformedInput(f"where names at most {MAX_KEYS} keys", argument=argument)
    out: list[Condition] = []
    for key, spec in where.items():
        check_key(key, argument=argument)
        named = f"{argument}.{key}"
        if isinstance(spec, list | tuple):
            spec = {"in": spec}
        if not isinstance(spec, Mapping):
            spec = {"eq": spec}
        if not spec or any(op not in OPERATORS for op in spec):
            raise MalformedInput(
                f"filter of {key!r}: operators are {', '.join(OPERATORS)}; got "
                f"{sorted(map(str, spec))!r:.80}",
                argument=named,
            )
        for op, raw in spec.items():
            out.append(Condition(key, op, _operand(key, op, raw, named)))
    return tuple(sorted(out, key=lambda c: (c.key, c.op)))


def _operand(key: str, op: str, raw: object, named: str) -> Any:
    if op == "in":
        if not isinstance(raw, list | tuple) or not raw or len(raw) > MAX_IN:
            raise MalformedInput(
                f"filter of {key!r}: 'in' takes a list of 1 to {MAX_IN} values", argument=named
            )
        return tuple(check_value(key, v, argument="where") for v in raw)
    value = check_value(key, raw, argument="where")
    if op in _RANGE and _kind(value) not in ("number", "date", "datetime"):
        raise MalformedInput(
            f"filter of {key!r}: {op} compares numbers and dates, not a {_kind(value)}",
            argument=named,
        )
    return value


def matches(conditions: Sequence[Condition], metadata: Mapping[str, Any] | None) -> bool:
    """True when ``metadata`` passes every condition."""
    return all(c.holds(metadata or {}) for c in conditions)


def where_json(conditions: Sequence[Condition]) -> dict[str, dict[str, Any]]:
    """The filter as JSON-ready ``{key: {op: value}}`` (for a result's ``filters``, a cursor)."""
    out: dict[str, dict[str, Any]] = {}
    for c in conditions:
        value = [_json_value(v) for v in c.value] if c.op == "in" else _json_value(c.value)
        out.setdefault(c.key, {})[c.op] = value
    return out


def check_filter_keys(keys: Iterable[str]) -> tuple[str, ...]:
    """Declared filter keys (``Settings.metadata_filter_keys``), checked, sorted, unique.

    Raises:
        MalformedInput: a key `check_key` refuses, or more than `MAX_KEYS` keys.
    """
    out = tuple(sorted({check_key(k.strip(), argument="metadata_filter_keys") for k in keys}))
    if len(out) > MAX_KEYS:
        raise MalformedInput(
            f"at most {MAX_KEYS} metadata filter keys", argument="metadata_filter_keys"
        )
    return out


def index_properties(keys: Sequence[str]) -> tuple[str, ...]:
    """The vector index filter properties of declared keys (``meta_<key>``), in order."""
    return tuple(PREFIX + check_key(k) for k in keys)


def index_clause(keys: Sequence[str], variable: str = "t") -> str:
    """``, t.meta_a, t.meta_b`` for a vector index's ``WITH [...]`` (keys checked by
    `KEY_PATTERN`: letters, digits and ``_`` only)."""
    return "".join(f", {variable}.`{prop}`" for prop in index_properties(keys))


def search_clause(
    conditions: Sequence[Condition], variable: str = "t"
) -> tuple[str, dict[str, Any]]:
    """The ``AND ...`` predicates of ``conditions`` for a ``SEARCH ... WHERE`` and their
    parameters (``$w0``, ``$w1``, ...): property names from checked keys, values parameters."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    for n, c in enumerate(conditions):
        prop = f"{variable}.`{PREFIX}{check_key(c.key)}`"
        name = f"w{n}"
        if c.op == "in":
            parts.append(f"{prop} IN ${name}")
            params[name] = list(c.value)
        elif c.op == "eq":
            parts.append(f"{prop} = ${name}")
            params[name] = c.value
        else:
            parts.append(f"{prop} {_RANGE[c.op]} ${name}")
            params[name] = c.value
    return "".join(f" AND {p}" for p in parts), params
