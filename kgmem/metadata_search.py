"""A search filtered by turn metadata (`kgmem.api.Memory.search` with ``where=``).

Two ways, chosen per key, and the result's ``notes`` say which ran (docs/metadata.md):

- keys declared in ``Settings.metadata_filter_keys`` are filter properties of the turn vector
  index (`kgmem schema apply`): the index returns the turns nearest the query among those that
  pass (``read/metadata_search``, filtered inside the index, so a rare value is found however
  low the unfiltered ranking puts it);
- other keys filter the search's own ranking widened to ``Settings.metadata_pool`` hits: a
  matching turn ranked below that pool is missed.

The hits are the engine's ranked hits that pass the whole filter, in the engine's order, then
(when some keys are declared) the index's other matches by cosine to the query, up to ``k``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.metadata import (
    Condition,
    check_where,
    from_properties,
    matches,
    search_clause,
    where_json,
)
from kgmem.models import Hit
from kgmem.retrieve.retriever import SearchResult
from kgmem.retrieve.scope import SearchFilters
from kgmem.retrieve.sources import attach_metadata
from kgmem.store import Store


class Memory(Protocol):
    """What a filtered search uses of `kgmem.api.Memory`."""

    settings: Settings
    store: Store
    embedder: Embedder

    def search(self, *args: Any, **kwargs: Any) -> SearchResult: ...

    def owner_conversations(self, owner: str) -> list[str]: ...


__all__ = ["filtered_search", "keep_matching", "where_binding"]

_WHERE_SLOT = "/*where*/"


def where_binding(where: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A ``where`` filter in canonical JSON (what a cursor is bound to); None for none.

    Raises:
        MalformedInput: as `kgmem.metadata.check_where`.
    """
    return where_json(check_where(where)) if where is not None else None


def keep_matching(store: Store, hits: list[Hit], where: Mapping[str, Any] | None) -> list[Hit]:
    """``hits`` with their metadata, only those passing ``where`` (all without one)."""
    attach_metadata(store, hits)
    if where is None:
        return hits
    conditions = check_where(where)
    return [h for h in hits if matches(conditions, h.metadata)]


def filtered_search(
    memory: Memory,
    query: str,
    conversation_id: str | None,
    k: int,
    conditions: Sequence[Condition],
    filters: SearchFilters,
    search: Mapping[str, Any],
) -> SearchResult:
    """``k`` hits of the search that pass ``conditions`` (module docstring).

    Args:
        memory: the memory searched.
        query / conversation_id / k: as `kgmem.api.Memory.search`.
        conditions: the checked ``where`` filter (`kgmem.metadata.check_where`).
        filters: the search's other filters (checked), applied to the index's matches too.
        search: the other keyword arguments of `kgmem.api.Memory.search` (``owner``,
            ``as_of``, ``speakers``, ...), passed on to it unchanged.

    Returns:
        the `SearchResult` of the widened search with its hits filtered, ``k`` set back,
        ``filters["where"]`` and one note per way of filtering used.
    """
    settings = memory.settings
    declared = set(settings.metadata_filter_keys)
    inside = [c for c in conditions if c.key in declared]
    outside = sorted({c.key for c in conditions if c.key not in declared})
    pool = max(k, settings.metadata_pool)
    result = memory.search(query, conversation_id, pool, **search)
    hits = [h for h in result.hits if matches(conditions, h.metadata)]
    notes: list[str] = []
    if inside:
        extra = _index_matches(memory, query, conversation_id, k, inside, filters, search)
        have = {h.turn_id for h in hits}
        hits += [h for h in extra if h.turn_id not in have and matches(conditions, h.metadata)]
        keys = ", ".join(sorted({c.key for c in inside}))
        notes.append(f"metadata filter on {keys}: applied inside the vector index")
    if outside:
        notes.append(
            f"metadata filter on {', '.join(outside)}: applied to the best {result.candidates} "
            f"candidates (at most {pool} ranked); a matching turn ranked below them is missed. "
            "Declare the keys in KGMEM_METADATA_FILTER_KEYS and run kgmem schema apply "
            "--rebuild to filter inside the index"
        )
    if result.order == "time":  # the k best that pass, then oldest first, as unfiltered
        best = sorted(hits, key=lambda h: -h.score)[:k]
        hits = sorted(best, key=lambda h: h.observed_at)
    result.hits = hits[:k]
    result.k = k
    result.filters = result.filters | {"where": where_json(conditions)}
    result.notes = [*result.notes, *notes]
    return result


def _index_matches(
    memory: Memory,
    query: str,
    conversation_id: str | None,
    k: int,
    inside: Sequence[Condition],
    filters: SearchFilters,
    search: Mapping[str, Any],
) -> list[Hit]:
    """The turns nearest ``query`` that pass ``inside``, filtered inside the vector index,
    then by ``filters`` and the moment of asking; as hits scored by cosine."""
    owner = search.get("owner")
    if conversation_id is not None:
        cids = [conversation_id]
    else:
        cids = memory.owner_conversations(owner) if owner is not None else []
        if filters.conversations is not None:
            cids = [c for c in cids if c in set(filters.conversations)]
    if not cids:
        return []
    clause, params = search_clause(inside)
    statement = memory.store.queries.filled("read/metadata_search", _WHERE_SLOT, clause)
    limit = 4 * k if filters.active or search.get("as_of") is not None else k
    params |= {
        "embedding": [float(x) for x in memory.embedder.encode_one(query)],
        "conversation_ids": cids,
        "owner": owner,
        "limit": limit,
    }
    rows = memory.store.read(statement, **params)
    out = []
    for r in rows:
        when = (
            r["observed_at"].to_native()
            if hasattr(r["observed_at"], "to_native")
            else r["observed_at"]
        )
        when = when if when.utcoffset() is not None else when.replace(tzinfo=UTC)
        if not _passes(filters, search.get("as_of"), r, when):
            continue
        cosine = round(float(r["cosine"]), 4)
        out.append(
            Hit(
                turn_id=r["turn_id"],
                text=r["text"],
                speaker=r["speaker"],
                session=int(r["session"]),
                observed_at=when,
                score=cosine,
                conversation_id=r["conversation_id"],
                source=r["source"],
                terms={"cosine": cosine},
                trace={"generators": ["metadata_index"]},
                metadata=from_properties(r["pairs"]),
            )
        )
    return out


def _passes(
    filters: SearchFilters, as_of: datetime | None, row: Mapping[str, Any], when: datetime
) -> bool:
    """True when an index match passes the search's other filters and moment of asking."""
    if filters.speakers is not None and row["speaker"] not in filters.speakers:
        return False
    if filters.sessions is not None and int(row["session"]) not in filters.sessions:
        return False
    if filters.sources is not None and (row["source_kind"] or "chat") not in filters.sources:
        return False
    start, end = filters.between or (None, None)
    if as_of is not None:
        moment = as_of if as_of.utcoffset() is not None else as_of.replace(tzinfo=UTC)
        end = moment if end is None else min(end, moment)
    return (start is None or when >= start) and (end is None or when <= end)
