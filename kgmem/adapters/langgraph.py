"""kgmem as a LangGraph long-term store (``pip install 'kgmem[langgraph]'``).

`KgmemStore` implements ``langgraph.store.base.BaseStore``, so a graph compiled with
``store=KgmemStore(memory)`` reads and writes kgmem through LangGraph's own API
(``store.put / get / search / delete / list_namespaces``, their async twins, and
``runtime.store`` inside nodes).

Mapping (the source of each rule is the kgmem issue that specified this adapter):

- **namespace → conversation, first label → owner**: ``("ana", "memories")`` is conversation
  ``ana.memories`` of owner ``ana`` (`kgmem.api.Memory.add_turns` ``owner=``): name the user,
  agent or team first, as LangGraph's own examples do (``(user_id, "memories")``).
  Every operation, including the ops given straight to ``batch`` / ``abatch``, is checked by
  LangGraph's own namespace rules first (a label must be a non-empty string without ``.`` or
  NUL; ``put`` also refuses an empty namespace and the reserved root ``langgraph``, which
  LangGraph lets ``batch`` write, as its own stores do), so the join is
  reversible: no label can reach another namespace. A label holding ``:`` is refused too (a
  kgmem conversation id cannot hold one). All of these raise LangGraph's
  ``InvalidNamespaceError``, and a batch with one bad op runs none of its ops.
- **put → a turn** with the key as its local id (``memories.ana:home``), written through the
  full write path (embedding, facts, entities, dates). Turns are immutable: a later put of the
  same key with *new* content appends a new turn (``home~2``, ``home~3``, ...) that
  ``SUPERSEDES`` the previous one; the *same* content again changes nothing. The versions are
  read, allocated and linked inside the append's transaction under the conversation's lock,
  so concurrent puts of one key leave one chain with exactly one latest version.
- **get → the latest version** of the key (its ``created_at`` is the first version's time).
- **search(query=...) → ONE owner search** (`Memory.search` ``owner=`` the prefix's first
  label, restricted to the conversations under the prefix): one read, one ranking, isolation
  inside the index. An empty prefix has no owner: it runs one owner search per owner in the
  store and merges them by score (the only merged search left). Superseded versions are
  dropped, the rest carry kgmem's score, score terms, trace and turn id (`KgmemSearchItem`);
  the item of the turn `SearchResult.answer` cites also carries that ``answer``.
  Conversations written before owners existed have none: re-``put`` them (or claim them with
  ``Memory.add_turns(..., owner=...)``) to make them searchable by prefix. Without a query:
  the latest items, most recently updated first. ``filter`` compares value fields
  (``$eq $ne $gt $gte $lt $lte``), as LangGraph's own stores do.
- **delete → turn-level forgetting** (``Memory.forget_turns``) of every version of the key.
- **list_namespaces → the stored conversations**, split back into tuples.

The turn's text is taken from the value: the fields named by ``index=[...]`` if given, else
the first string field among `TEXT_FIELDS`, else every top-level field as ``key: value`` lines.
The speaker is ``value["speaker"]`` if it is a string, else the store's ``default_speaker``.
The whole value is kept (as JSON on the turn) and returned by ``get`` and ``search``. A value
with no text (``{}``, a blank ``text`` field) is stored all the same, as LangGraph's own stores
do, but has nothing to search: its turn's text is the value's JSON, the item is marked
unsearchable, and a query search never returns it (``get``, a search without a query and
``delete`` treat it like any other item).

Not supported (raise `NotSupported`): TTLs (``ttl=``), ``index=False`` (every kgmem turn is
embedded and searchable), and ``delete`` on a kgmem without ``Memory.forget_turns``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from kgmem.adapters import require
from kgmem.api import Memory
from kgmem.config import DEFAULT_K
from kgmem.errors import ConversationNotFound, MalformedInput, NotSupported
from kgmem.memory.items import ItemPut, same_item

require("langgraph.store.base", "langgraph")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

__all__ = [
    "TEXT_FIELDS",
    "KgmemSearchItem",
    "KgmemStore",
    "conversation_of",
    "namespace_of",
    "owner_of",
]

#: value fields tried, in order, for the turn's text when ``put`` gets no ``index`` fields
TEXT_FIELDS = ("text", "content", "memory", "data")
#: how many more hits than asked for a query search fetches, to make up for dropped versions
#: and filters
OVERFETCH = 3


def conversation_of(namespace: tuple[str, ...]) -> str:
    """``("memories", "ana")`` → ``"memories.ana"``. Raises `MalformedInput` on ``:``."""
    from kgmem.turns import check_conversation_id

    conversation_id = ".".join(namespace)
    check_conversation_id(conversation_id, file="<langgraph namespace>")
    return conversation_id


def owner_of(conversation_id: str) -> str:
    """The owner of a namespace's conversation: its first label (``"ana.memories"`` → ``"ana"``)."""
    return conversation_id.split(".", 1)[0]


def _by_owner(memory: Memory, conversations: Sequence[str]) -> dict[str, list[str]]:
    """``conversations`` grouped by their owner (the first namespace label), keeping only those
    stored under that owner (the others, written before owners, hold no owner to search by)."""
    out: dict[str, list[str]] = {}
    for cid in conversations:
        out.setdefault(owner_of(cid), []).append(cid)
    kept: dict[str, list[str]] = {}
    for owner, threads in out.items():
        owned = set(memory.owner_conversations(owner))
        if mine := [c for c in threads if c in owned]:
            kept[owner] = mine
    return kept


def namespace_of(conversation_id: str) -> tuple[str, ...]:
    """``"memories.ana"`` → ``("memories", "ana")`` (the inverse of `conversation_of`)."""
    return tuple(conversation_id.split("."))


class KgmemSearchItem(SearchItem):
    """A LangGraph ``SearchItem`` with kgmem's evidence attached.

    Attributes:
        turn_id: the turn behind the item's latest version (cite it).
        terms: the score's terms (``{"cosine": ..., "fact": ..., "bm25": ...}``); empty without
            a query.
        trace: which generators brought the turn in, the matched fact, event times, ...
        answer: on the item of the turn that `SearchResult.answer` cites, that answer (the
            fact: subject, attribute, value, value type, validity, why it won;
            docs/attributes.md); None on every other item and without a query.
    """

    __slots__ = ("answer", "terms", "trace", "turn_id")

    def __init__(
        self,
        *,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime,
        updated_at: datetime,
        score: float | None,
        turn_id: str,
        terms: dict[str, float] | None = None,
        trace: dict[str, Any] | None = None,
        answer: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(namespace, key, value, created_at, updated_at, score)
        self.turn_id = turn_id
        self.terms = terms or {}
        self.trace = trace or {}
        self.answer = answer

    def dict(self) -> dict[str, Any]:
        out: dict[str, Any] = super().dict()
        out |= {
            "turn_id": self.turn_id,
            "terms": self.terms,
            "trace": self.trace,
            "answer": self.answer,
        }
        return out


class KgmemStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by a kgmem `Memory` (the caller opens and closes it).

    Args:
        memory: an open `Memory`.
        default_speaker: the speaker of values without a ``speaker`` string field.
        k: hits a query search asks the read path for when ``limit`` is smaller.

    Raises (from the store methods and ``batch``): LangGraph's ``InvalidNamespaceError`` (a
    label LangGraph refuses, or one holding ``:``), `MalformedInput` (an empty key, a value that
    is not a JSON object, a text over `kgmem.turns.MAX_TURN_CHARS`), `NotSupported` (see the
    module docstring), `StoreError` (Neo4j failed).
    """

    supports_ttl = False
    __slots__ = ("default_speaker", "k", "memory")

    def __init__(
        self, memory: Memory, *, default_speaker: str = "user", k: int = DEFAULT_K
    ) -> None:
        if not default_speaker.strip():
            raise MalformedInput("default_speaker must not be empty", argument="default_speaker")
        self.memory = memory
        self.default_speaker = default_speaker
        self.k = k

    # --- BaseStore ------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations in order (each is its own kgmem call).

        Every op is checked first (namespace rules, key, value; see the module docstring), so
        a batch holding one bad op raises before any op runs.

        Raises:
            InvalidNamespaceError: a namespace label LangGraph or kgmem refuses.
            MalformedInput / NotSupported: a bad key or value, ``ttl``, ``index=False``.
        """
        ops = list(ops)
        puts = [self._check(op) for op in ops]
        results: list[Result] = []
        for op, put in zip(ops, puts, strict=True):
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                if put is None:
                    self._delete(conversation_of(op.namespace), str(op.key))
                else:
                    self._put(put)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:  # pragma: no cover - LangGraph defines no other op
                raise NotSupported(f"unknown LangGraph store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` in a worker thread, so the event loop never waits on Neo4j or the model."""
        return await asyncio.to_thread(self.batch, list(ops))

    # --- checks ---------------------------------------------------------------------------------
    def _check(self, op: Op) -> ItemPut | None:
        """Validate one op as the single-op methods do; a `PutOp` with a value comes back as
        the `ItemPut` to run (None for every other op, and for a delete)."""
        validate_op_namespace(op)  # LangGraph's label rules, which `batch` skips otherwise
        paths: list[tuple[str, ...]] = []
        if isinstance(op, GetOp | PutOp):
            paths = [tuple(op.namespace)]
        elif isinstance(op, SearchOp):
            paths = [tuple(op.namespace_prefix)]
        elif isinstance(op, ListNamespacesOp):
            paths = [tuple(c.path) for c in op.match_conditions or ()]
        for path in paths:
            if any(":" in label for label in path):
                raise InvalidNamespaceError(
                    f"Invalid namespace {path}: kgmem namespace labels cannot contain ':' "
                    "(a kgmem conversation id cannot hold one)."
                )
        if not isinstance(op, PutOp):
            return None
        if not op.namespace:  # kgmem has no conversation without an id
            raise InvalidNamespaceError("Namespace cannot be empty.")
        conversation_id = conversation_of(tuple(op.namespace))
        key = str(op.key)
        if not key.strip():
            raise MalformedInput("a store key must not be empty", conversation_id=conversation_id)
        if op.value is None:
            return None
        if getattr(op, "ttl", None) is not None:
            raise NotSupported("kgmem's LangGraph store keeps no TTLs; put without ttl")
        if not isinstance(op.value, Mapping):
            raise MalformedInput(
                "a store value must be a JSON object (a mapping)",
                conversation_id=conversation_id,
                turn=key,
            )
        if op.index is False:
            raise NotSupported(
                "kgmem embeds and indexes every turn; index=False is not supported "
                "(keep unsearchable data outside the memory store)"
            )
        value = dict(op.value)
        try:
            value_json = json.dumps(value, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise MalformedInput(
                f"a store value must be JSON-serialisable ({exc})",
                conversation_id=conversation_id,
                turn=key,
            ) from exc
        text = turn_text(value, op.index)
        searchable = bool(text.strip())
        speaker = value.get("speaker")
        speaker = speaker.strip() if isinstance(speaker, str) and speaker.strip() else None
        return ItemPut(
            conversation_id=conversation_id,
            key=key,
            text=text if searchable else value_json,
            speaker=speaker or self.default_speaker,
            value_json=value_json,
            searchable=searchable,
        )

    # --- operations -----------------------------------------------------------------------------
    def _versions(self, conversation_id: str, key: str) -> list[dict[str, Any]]:
        return self.memory.items.versions(conversation_id, key)

    def _get(self, op: GetOp) -> Item | None:
        conversation_id = conversation_of(op.namespace)
        versions = self._versions(conversation_id, str(op.key))
        if not versions:
            return None
        latest = versions[-1]
        return Item(
            value=_value(latest),
            key=str(op.key),
            namespace=tuple(op.namespace),
            created_at=versions[0]["observed_at"],
            updated_at=latest["observed_at"],
        )

    def _put(self, put: ItemPut) -> None:
        """Append the item's next version; the versions are read, the local id chosen and the
        new turn linked to the one it supersedes inside the append's locked transaction
        (`ItemPut.prepare` / `ItemPut.finish`), so concurrent puts of one key queue."""
        versions = self._versions(put.conversation_id, put.key)
        if versions and same_item(versions[-1], put.text, put.speaker, put.value_json):
            # unchanged: no embedding, no locked transaction (a concurrent put of other content
            # is then simply the later one, as it would be had it queued behind this one)
            return
        # a store write never deletes: memory requests are not looked for in stored items
        self.memory.items.put(put, owner=owner_of(put.conversation_id))

    def _delete(self, conversation_id: str, key: str) -> None:
        forget_turns = getattr(self.memory, "forget_turns", None)
        if forget_turns is None:
            raise NotSupported(
                "deleting one store item needs turn-level forgetting (Memory.forget_turns), "
                "which this build of kgmem does not have; Memory.forget(conversation_id) "
                "forgets a whole namespace"
            )
        versions = self._versions(conversation_id, key)
        if versions:  # deleting a missing key is a no-op, as in LangGraph's own stores
            forget_turns(conversation_id, [row["turn_id"] for row in versions])

    def _conversations(self, prefix: tuple[str, ...]) -> list[str]:
        wanted = ".".join(prefix)
        ids = [row["conversation_id"] for row in self.memory.conversations()]
        if not prefix:
            return ids
        return [c for c in ids if c == wanted or c.startswith(wanted + ".")]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise MalformedInput("limit and offset must not be negative")
        if op.namespace_prefix:
            conversation_of(op.namespace_prefix)  # refuses ':' like every other operation
        conversations = self._conversations(tuple(op.namespace_prefix))
        wanted = op.offset + op.limit
        if wanted == 0 or not conversations:
            return []
        items: list[KgmemSearchItem] = []
        if op.query is None:
            rows = self.memory.items.latest(
                conversations, limit=wanted if not op.filter else max(wanted * OVERFETCH, 1000)
            )
            for row in rows:
                item = KgmemSearchItem(
                    namespace=namespace_of(row["conversation_id"]),
                    key=row["key"],
                    value=_value(row),
                    created_at=row["created_at"],
                    updated_at=row["updated_at"],
                    score=None,
                    turn_id=row["turn_id"],
                )
                if _matches(item.value, op.filter):
                    items.append(item)
            return list(items[op.offset : wanted])
        k = max(self.k, wanted * OVERFETCH)
        for owner, threads in _by_owner(self.memory, conversations).items():
            under = None if len(op.namespace_prefix) == 1 else threads
            try:
                result = self.memory.search(op.query, owner=owner, k=k, conversations=under)
            except ConversationNotFound:
                continue
            answer = result.answer
            by_turn: dict[str, Any] = {}
            for conversation_id in sorted({h.conversation_id for h in result.hits}):
                ids = [h.turn_id for h in result.hits if h.conversation_id == conversation_id]
                rows = self.memory.items.of_turns(conversation_id, ids)
                by_turn.update({row["turn_id"]: row for row in rows})
            for hit in result.hits:
                meta = by_turn.get(hit.turn_id)
                if meta is None or meta["superseded"] or meta["searchable"] is False:
                    continue
                item = KgmemSearchItem(
                    namespace=namespace_of(hit.conversation_id),
                    key=meta["key"],
                    value=_value(meta),
                    created_at=meta["created_at"],
                    updated_at=meta["updated_at"],
                    score=hit.score,
                    turn_id=hit.turn_id,
                    terms=hit.terms,
                    trace=hit.trace,
                    answer=answer if answer and answer.get("turn_id") == hit.turn_id else None,
                )
                if _matches(item.value, op.filter):
                    items.append(item)
        items.sort(key=lambda it: -(it.score or 0.0))
        return list(items[op.offset : wanted])

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for row in self.memory.conversations():
            namespace = namespace_of(row["conversation_id"])
            if all(_namespace_matches(c, namespace) for c in op.match_conditions or ()):
                found.add(namespace[: op.max_depth] if op.max_depth else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]


# --- pure helpers (unit-tested without a server) ------------------------------------------------
def turn_text(value: Mapping[str, Any], index: Sequence[str] | bool | None = None) -> str:
    """The text a store value is remembered as (see the module docstring for the rule).

    Args:
        value: the stored JSON object.
        index: LangGraph's ``index`` fields (dotted paths, ``$`` for the whole value), or None.
    """
    if isinstance(index, Sequence) and not isinstance(index, str) and index:
        parts = []
        for path in index:
            found = value if path == "$" else _at(value, path)
            if found is not None:
                parts.append(found if isinstance(found, str) else json.dumps(found))
        return "\n".join(parts)
    for name in TEXT_FIELDS:
        text = value.get(name)
        if isinstance(text, str):  # a blank text field is refused, not replaced by the rest
            return text
    return "\n".join(
        f"{name}: {field if isinstance(field, str) else json.dumps(field, ensure_ascii=False)}"
        for name, field in value.items()
        if name != "speaker"
    )


def _at(value: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _value(row: Mapping[str, Any]) -> dict[str, Any]:
    """An item's value: the JSON the store kept, or (for turns written another way) the turn."""
    if row.get("value"):
        loaded: dict[str, Any] = json.loads(row["value"])
        return loaded
    return {"text": row["text"], "speaker": row["speaker"]}


def _matches(value: Mapping[str, Any], condition: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter semantics: every field must match; ``{"$op": x}`` compares; a dotted
    name (``user.access-level``) that is not a top-level field reaches into nested objects."""
    return all(
        _compare(value[name] if name in value else _at(value, name), want)
        for name, want in (condition or {}).items()
    )


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and float(a) > float(b),
    "$gte": lambda a, b: a is not None and float(a) >= float(b),
    "$lt": lambda a, b: a is not None and float(a) < float(b),
    "$lte": lambda a, b: a is not None and float(a) <= float(b),
}


def _compare(actual: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(str(name).startswith("$") for name in want):
            for name, operand in want.items():
                op = _OPS.get(name)
                if op is None:
                    raise MalformedInput(f"unsupported filter operator {name!r}")
                if not op(actual, operand):
                    return False
            return True
        return isinstance(actual, Mapping) and all(
            _compare(actual.get(name), sub) for name, sub in want.items()
        )
    return bool(actual == want)


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path, strict=False)
        if condition.match_type == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(want in ("*", have) for have, want in pairs)
