"""Apply the schema (``cypher/schema/*.cypher``): constraints, range, vector, fulltext indexes.

`apply_schema` is idempotent (every statement is ``IF NOT EXISTS``). Before creating anything
it checks the search indexes that already exist:

- a vector index of another dimension than the embedder's raises `SchemaMismatch` (two
  embedders never mix in one index);
- a search index of an older layout — a vector index without the filter properties this
  version searches with (``WITH [n.conversation_id, n.owner, ...]``, needed by Cypher 25
  ``SEARCH ... WHERE``: owner, session and source kind arrived with owners and filters) or with
  quantization, a fulltext index without the tenant token ``tk`` — raises `SchemaOutdated`,
  which says to run ``kgmem schema apply --rebuild`` (`rebuild_search_indexes`): drop those
  indexes, backfill tenant tokens, create them again. ``IF NOT EXISTS`` alone would keep the
  old index silently.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgmem.errors import IndexNotOnline, SchemaMismatch, SchemaOutdated, StoreError
from kgmem.metadata import check_filter_keys, index_clause, index_properties
from kgmem.store.driver import Store
from kgmem.store.tenant import key_holder, tenant_token

__all__ = [
    "DEFAULT_ANALYZER",
    "INDEX_WAIT_S",
    "SEARCH_INDEXES",
    "VECTOR_INDEXES",
    "apply_schema",
    "await_search_indexes",
    "check_search_indexes",
    "check_vector_dimensions",
    "rebuild_search_indexes",
    "restore_key_case",
    "wait_online",
]


@dataclass(frozen=True)
class SearchIndex:
    """The layout this version creates for one search index.

    Attributes:
        statement: the ``cypher/schema`` statement that creates it.
        properties: indexed properties, in order (vector: embedding, then filter properties).
        quantization: ``NONE`` for vector indexes (exact vectors), None for fulltext.
        analyzed: a fulltext index whose Lucene analyzer is the configured one
            (``Settings.fulltext_analyzer``, ``english`` by default).
    """

    statement: str
    properties: tuple[str, ...]
    quantization: str | None = None
    analyzed: bool = False


#: the Lucene analyzer of the text indexes unless ``Settings.fulltext_analyzer`` says otherwise
DEFAULT_ANALYZER = "english"

#: the search indexes kgmem creates (index name -> expected layout)
SEARCH_INDEXES = {
    "turn_embedding": SearchIndex(
        "schema/create_vector_turn_embedding",
        (
            "embedding",
            "conversation_id",
            "owner",
            "observed_at",
            "speaker",
            "session",
            "source_kind",
        ),
        "NONE",
    ),
    "passage_embedding": SearchIndex(
        "schema/create_vector_passage_embedding", ("embedding", "conversation_id"), "NONE"
    ),
    "fact_embedding": SearchIndex(
        "schema/create_vector_fact_embedding",
        ("embedding", "conversation_id", "owner", "source"),
        "NONE",
    ),
    "turn_text": SearchIndex("schema/create_fulltext_turn_text", ("text", "tk"), analyzed=True),
    "fact_text": SearchIndex("schema/create_fulltext_fact_text", ("text", "tk"), analyzed=True),
}
#: the vector indexes kgmem creates (index name -> statement that creates it)
VECTOR_INDEXES = {
    name: spec.statement for name, spec in SEARCH_INDEXES.items() if spec.quantization
}


#: how long a search waits for kgmem's search indexes to come ONLINE, in seconds (a fresh
#: schema, a rebuild, or a server that is still recovering them after a restart)
INDEX_WAIT_S = 60.0


def await_search_indexes(store: Store, timeout_s: float = INDEX_WAIT_S) -> None:
    """Wait (at most ``timeout_s``) until every existing kgmem search index is ONLINE.

    A vector or fulltext index that is still POPULATING answers with what it has indexed so
    far, so a search right after the schema is applied (or an index rebuilt, or while a
    restarted server recovers one) could miss turns silently. Indexes that do not exist are
    left to the search (the schema was never applied). One round trip when all are online.

    Raises:
        IndexNotOnline: an index FAILED, or is still not ONLINE after ``timeout_s``.
    """
    names = sorted(SEARCH_INDEXES)
    wait_online(lambda: store.read("read/search_index_states", names=names), timeout_s)


def wait_online(
    states: Callable[[], Sequence[Mapping[str, Any]]],
    timeout_s: float,
    *,
    poll_s: float = 0.5,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Poll ``states()`` (rows ``name, state, percent``) until no index is other than ONLINE.

    Raises:
        IndexNotOnline: a FAILED index (at once), or one still not ONLINE after ``timeout_s``.
    """
    start = clock()
    while True:
        pending = [row for row in states() if row["state"] != "ONLINE"]
        if not pending:
            return
        waited = clock() - start
        failed = [row for row in pending if row["state"] == "FAILED"]
        if failed or waited >= timeout_s:
            row = (failed or pending)[0]
            raise IndexNotOnline(str(row["name"]), str(row["state"]), row.get("percent"), waited)
        sleep(poll_s)


def check_vector_dimensions(store: Store, dimensions: int) -> None:
    """Raise `SchemaMismatch` if a kgmem vector index exists with another dimension."""
    for row in store.read("read/list_vector_indexes"):
        if row["name"] in VECTOR_INDEXES and row["dimensions"] is not None:
            found = int(row["dimensions"])
            if found != dimensions:
                raise SchemaMismatch(row["name"], dimensions, found)


#: the vector index whose filter properties include the declared metadata keys
METADATA_INDEX = "turn_embedding"
_METADATA_SLOT = "/*metadata*/"


def expected_properties(name: str, filter_keys: Sequence[str] = ()) -> tuple[str, ...]:
    """The indexed properties of search index ``name`` in this layout: `SEARCH_INDEXES`'s, and
    for `METADATA_INDEX` the declared metadata keys' ``meta_<key>`` after them."""
    base = SEARCH_INDEXES[name].properties
    return base + index_properties(filter_keys) if name == METADATA_INDEX else base


def outdated_search_indexes(
    store: Store, analyzer: str = DEFAULT_ANALYZER, filter_keys: Sequence[str] = ()
) -> dict[str, tuple[str, str]]:
    """kgmem search indexes whose layout differs from `SEARCH_INDEXES` (with the declared
    metadata ``filter_keys``; and, for the text indexes, whose Lucene analyzer is not
    ``analyzer``): name -> (found, expected), both human-readable."""
    out: dict[str, tuple[str, str]] = {}
    for row in store.read("read/list_vector_indexes"):
        spec = SEARCH_INDEXES.get(row["name"])
        if spec is None:
            continue
        found = (tuple(row["properties"] or ()), row["quantization"])
        wanted = expected_properties(row["name"], filter_keys)
        if found != (wanted, spec.quantization):
            out[row["name"]] = (
                f"properties {list(found[0])}, quantization {found[1]}",
                f"properties {list(wanted)}, quantization {spec.quantization}",
            )
        elif spec.analyzed and row.get("analyzer") not in (None, analyzer):
            out[row["name"]] = (f"analyzer {row['analyzer']}", f"analyzer {analyzer}")
    return out


def check_search_indexes(
    store: Store,
    dimensions: int,
    analyzer: str = DEFAULT_ANALYZER,
    filter_keys: Sequence[str] = (),
) -> None:
    """Raise `SchemaMismatch` (dimension) or `SchemaOutdated` (layout) for existing indexes."""
    check_vector_dimensions(store, dimensions)
    outdated = outdated_search_indexes(store, analyzer, filter_keys)
    for name, (found, expected) in sorted(outdated.items()):
        raise SchemaOutdated(name, found, expected)


def apply_schema(
    store: Store,
    dimensions: int,
    analyzer: str = DEFAULT_ANALYZER,
    filter_keys: Sequence[str] = (),
) -> list[str]:
    """Create every constraint and index that is missing.

    Args:
        store: an open store.
        dimensions: the embedder's output dimension (384 for all-MiniLM-L6-v2).
        analyzer: the Lucene analyzer of the turn and fact text indexes
            (``Settings.fulltext_analyzer``; docs/languages.md).
        filter_keys: metadata keys the turn vector index filters on
            (``Settings.metadata_filter_keys``, checked by `kgmem.metadata.check_filter_keys`).

    Returns:
        the names of the statements run (all of ``cypher/schema/``, sorted).

    Raises:
        SchemaMismatch: an existing vector index has another dimension.
        SchemaOutdated: an existing search index has an older layout (see module docstring).
    """
    keys = check_filter_keys(filter_keys)
    check_search_indexes(store, dimensions, analyzer, keys)
    names = list(store.queries.names("schema"))
    for name in names:
        try:
            if name == SEARCH_INDEXES[METADATA_INDEX].statement:
                _create_metadata_index(store, name, dimensions, keys)
                continue
            store.write(name, dimensions=dimensions, analyzer=analyzer)
        except StoreError as exc:
            # another process created the same index between IF NOT EXISTS and commit (two
            # ingests starting on a fresh database at once): it exists, which is the goal
            if "EquivalentSchemaRuleAlreadyExists" not in str(exc):
                raise
    store.write("write/await_indexes")
    return names


def _create_metadata_index(store: Store, name: str, dimensions: int, keys: Sequence[str]) -> None:
    """Run the turn vector index's statement with the declared keys' properties in its
    ``WITH [...]`` (`kgmem.metadata.index_clause`: checked keys, never raw input)."""
    store.write(
        store.queries.filled(name, _METADATA_SLOT, index_clause(keys)), dimensions=dimensions
    )


def restore_key_case(store: Store, batch: int = 10_000) -> int:
    """Give stored supersession keys their exact scope back; returns how many changed.

    Keys written before ids were kept exact case-folded their whole holder, so a conversation
    ``Chat-A`` (or an owner ``Alice``) keyed its facts under ``chat-a:...``
    (``owner:alice:...``) and a lookup by the id as given found nothing. A key changes only
    when its holder, case-folded, equals the fact's own holder (`key_holder` of ``holder`` or
    ``subject``) case-folded, or names the same entity under the case-folded conversation id
    (an owned conversation whose keys missed the move into the owner's scope). Idempotent.
    """
    changed = offset = 0
    while True:
        rows = store.read("read/case_folded_keys", skip=offset, limit=batch)
        updates = [u for u in (_exact_key(row) for row in rows) if u is not None]
        if updates:
            store.write("write/set_fact_keys", rows=updates)
            changed += len(updates)
        offset += len(rows)
        if len(rows) < batch:
            return changed


def _exact_key(row: dict[str, Any]) -> dict[str, str] | None:
    key = str(row["key"])
    folded_cid = f"{str(row['conversation_id']).casefold()}:e:"
    for candidate in (row.get("holder"), row.get("subject")):
        if not candidate:
            continue
        exact = key_holder(str(candidate))
        if key.startswith(exact + "|"):
            return None
        entity = exact.rpartition(":e:")[2]
        for stale in (exact.casefold(), folded_cid + entity):
            if key.startswith(stale + "|"):
                return {"id": str(row["id"]), "key": exact + key[len(stale) :]}
    return None


def rebuild_search_indexes(
    store: Store,
    dimensions: int,
    analyzer: str = DEFAULT_ANALYZER,
    filter_keys: Sequence[str] = (),
) -> list[str]:
    """Bring a store written by an older kgmem to this layout; keeps all data.

    Drops the outdated search indexes, gives every conversation a Conversation node and its
    turns and facts their tenant token (with the owner's token), their ``owner`` ('' for none)
    and turns their ``source_kind`` (``chat`` when unset), then applies the schema (the
    indexes repopulate from the stored properties; `apply_schema` waits until they are
    online).

    Returns:
        the names of the indexes dropped and recreated.

    Raises:
        SchemaMismatch: a vector index has another dimension (rebuild does not re-embed).
    """
    check_vector_dimensions(store, dimensions)
    keys = check_filter_keys(filter_keys)
    stale = sorted(outdated_search_indexes(store, analyzer, keys))
    for name in stale:
        store.write("write/drop_index", name=name)
    for row in store.read("read/conversation_ids"):
        cid = row["conversation_id"]
        store.write("write/backfill_tenant_tokens", conversation_id=cid, tk=tenant_token(cid))
    apply_schema(store, dimensions, analyzer, keys)
    return stale
