"""The schema of a memory's store: the server check, constraints and indexes, migrations, and
whether the search indexes are online (`kgmem.api.Memory` delegates here)."""

from __future__ import annotations

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.ingest.writing.threads import share_entities
from kgmem.memory.caches import ReadCaches
from kgmem.store import Store
from kgmem.store.schema import (
    apply_schema,
    await_search_indexes,
    rebuild_search_indexes,
    restore_key_case,
)

__all__ = ["SchemaKeeper"]


class SchemaKeeper:
    """Applies the schema once per memory and waits for the search indexes once per memory.

    Args:
        store: the Neo4j seam.
        embedder: its ``dimension`` sizes the vector indexes.
        settings: ``fulltext_analyzer`` for the BM25 indexes, ``metadata_filter_keys`` for the
            vector index's filter properties.
        caches: dropped when a migration rewrites keys.
    """

    def __init__(
        self, store: Store, embedder: Embedder, settings: Settings, caches: ReadCaches
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.caches = caches
        self.ready = False
        self.indexes_online = False

    def verify(self) -> None:
        """Check the server answers and credentials work.

        Raises:
            Neo4jUnavailable: nothing answers. AuthenticationFailed: wrong credentials.
        """
        self.store.verify()

    def apply_schema(self) -> list[str]:
        """Create constraints and indexes (idempotent).

        Raises:
            SchemaMismatch: a vector index of another dimension exists.
            SchemaOutdated: a search index of an older layout exists (`rebuild_schema` fixes it).
        """
        names = apply_schema(
            self.store,
            self.embedder.dimension,
            self.settings.fulltext_analyzer,
            self.settings.metadata_filter_keys,
        )
        self.ready = True
        self.indexes_online = True  # apply_schema waits until they are online
        return names

    def migrate(self) -> dict[str, int]:
        """Bring stored data written by an older kgmem to this version's rules (idempotent;
        `kgmem schema apply` runs it and prints what changed).

        Returns:
            ``keys_restored``: supersession keys whose conversation or owner scope had been
            case-folded and now carry the id exactly as given
            (`kgmem.store.schema.restore_key_case`).
        """
        restored = restore_key_case(self.store)
        if restored:
            self.caches.clear()
        return {"keys_restored": restored}

    def rebuild_schema(self) -> list[str]:
        """Replace search indexes of an older layout, keeping all data (see
        `kgmem.store.schema.rebuild_search_indexes`), and move the entities of owned
        conversations stored per conversation into their owner's scope
        (`kgmem.ingest.writing.threads.share_entities`); returns the indexes rebuilt, and
        ``owner_entities`` when entities were moved."""
        rebuilt = rebuild_search_indexes(
            self.store,
            self.embedder.dimension,
            self.settings.fulltext_analyzer,
            self.settings.metadata_filter_keys,
        )
        if share_entities(self.store)["conversations"]:
            rebuilt.append("owner_entities")
        self.ready = True
        self.indexes_online = True  # rebuild waits until they are online
        self.caches.clear()
        return rebuilt

    def ensure(self) -> None:
        """Apply the schema before this memory's first write."""
        if not self.ready:
            self.apply_schema()

    def await_indexes(self) -> None:
        """Wait for the search indexes on this memory's first read (`IndexNotOnline` after
        `kgmem.store.schema.INDEX_WAIT_S`)."""
        if not self.indexes_online:  # once per Memory: a populating index misses turns
            await_search_indexes(self.store)
            self.indexes_online = True
