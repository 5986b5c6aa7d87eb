"""The state and plumbing every `kgmem.api.Memory` method shares: the store, the embedder, the
settings, the schema, the caches every write invalidates, the ingestor a write runs, owners and
bookmarks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import MalformedInput
from kgmem.ids import checks_ids
from kgmem.ingest.pipeline import FactSources, Ingestor
from kgmem.ingest.requests import RequestPolicy
from kgmem.ingest.threads import share_entities
from kgmem.retrieve.chain import StoreFactSource
from kgmem.retrieve.scope import check_owner, owner_scope_key
from kgmem.roles import check_roles
from kgmem.store import Store
from kgmem.store.schema import apply_schema, rebuild_search_indexes, restore_key_case
from kgmem.store.tenant import owner_token
from kgmem.truth.weights import shipped_models

__all__ = ["MemoryBase"]


class MemoryBase:
    """The state of a `kgmem.api.Memory` (its arguments are documented there)."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        # the truth decisions' weights are checked at start, so a missing or stale file fails
        # here, naming it, rather than at the first write or question that needs a decision
        self.truth = shipped_models()
        self._schema_ready = False
        self._indexes_online = False
        self._extractor: Any = None
        self._contexts: dict[str, Any] = {}
        self._chain_sources: dict[str, StoreFactSource] = {}

    # --- schema & plumbing ---------------------------------------------------------------------
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
        self._schema_ready = True
        self._indexes_online = True  # apply_schema waits until they are online
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
            self._contexts.clear()
            self._chain_sources.clear()
        return {"keys_restored": restored}

    def rebuild_schema(self) -> list[str]:
        """Replace search indexes of an older layout, keeping all data (see
        `kgmem.store.schema.rebuild_search_indexes`), and move the entities of owned
        conversations stored per conversation into their owner's scope
        (`kgmem.ingest.threads.share_entities`); returns the indexes rebuilt, and
        ``owner_entities`` when entities were moved."""
        rebuilt = rebuild_search_indexes(
            self.store,
            self.embedder.dimension,
            self.settings.fulltext_analyzer,
            self.settings.metadata_filter_keys,
        )
        if share_entities(self.store)["conversations"]:
            rebuilt.append("owner_entities")
        self._schema_ready = True
        self._indexes_online = True  # rebuild waits until they are online
        self._contexts.clear()
        self._chain_sources.clear()
        return rebuilt

    def _invalidate(self, conversation_id: str) -> None:
        """Drop what this memory caches about a conversation, and every owner context (the
        conversation may be an owner's; every write calls it)."""
        self._contexts.pop(conversation_id, None)
        self._chain_sources.pop(conversation_id, None)
        for key in [k for k in self._contexts if k.startswith(owner_scope_key(""))]:
            self._contexts.pop(key, None)

    def _ensure_schema(self) -> None:
        if not self._schema_ready:
            self.apply_schema()

    @property
    def extractor(self) -> Any:
        """The rule-based fact extractors, loaded lazily: spaCy clauses, lexicon statements
        (`kgmem.ingest.relations`) and value-form statements (`kgmem.ingest.attributes`)."""
        if self._extractor is None:
            from kgmem.ingest.attributes import ValueExtractor
            from kgmem.ingest.extract import SpacyExtractor
            from kgmem.ingest.relations import CombinedExtractor, RelationExtractor

            self._extractor = CombinedExtractor(
                [SpacyExtractor(self.settings.spacy_model), RelationExtractor(), ValueExtractor()]
            )
        return self._extractor

    @property
    def request_policy(self) -> RequestPolicy:
        """Who may make memory requests, and their limits, from the ``KGMEM_REQUESTS`` and
        ``KGMEM_REQUEST_*`` settings."""
        s = self.settings
        return RequestPolicy(
            enabled=s.requests,
            roles=frozenset(check_roles({r: r for r in s.request_roles}).values()),
            max_turns=s.request_max_turns,
            similarity=s.request_similarity,
        )

    def _ingestor(self, facts: FactSources, *, requests: bool | None = None) -> Ingestor:
        extractor = self.extractor if facts in ("extracted", "both") else None
        policy = self.request_policy
        if requests is not None:
            policy = RequestPolicy(requests, policy.roles, policy.max_turns, policy.similarity)
        return Ingestor(
            self.store,
            self.embedder,
            extractor=extractor,
            batch_size=self.settings.write_batch_size,
            requests=policy,
            spacy_model=self.settings.spacy_model,
        )

    def _claim_owner(self, conversation_id: str, owner: str | None) -> None:
        """Give the conversation ``owner`` before anything of it is written (``write/claim_owner``).

        Raises:
            MalformedInput: an empty owner, or the conversation already has another owner.
        """
        if owner is None:
            return
        check_owner(owner)
        rows = self.store.write(
            "write/claim_owner",
            conversation_id=conversation_id,
            owner=owner,
            owner_tk=owner_token(owner),
        )
        stored = rows[0]["owner"] if rows else owner
        if stored != owner:
            raise MalformedInput(
                f"conversation {conversation_id!r} belongs to another owner; a conversation has "
                "one owner (write under that owner, or to another conversation id)",
                conversation_id=conversation_id,
            )
        if rows and rows[0]["before"] is None:  # entities it already holds become the owner's
            share_entities(self.store, conversation_id)
        self._invalidate_owner(owner)

    def _invalidate_owner(self, owner: str) -> None:
        """Drop this memory's cached context of an owner's conversations taken together."""
        self._contexts.pop(owner_scope_key(owner), None)

    def bookmarks(self) -> list[str]:
        """Neo4j bookmarks of this memory's writes so far (opaque strings; see `use_bookmarks`)."""
        return self.store.bookmarks()

    def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        """Read-after-write across processes: after this call, searches wait until the writes
        behind ``bookmarks`` (`IngestReport.bookmarks` or `bookmarks` of another `Memory`)
        are visible. Needed on a cluster or Aura; harmless on one server."""
        self.store.use_bookmarks(bookmarks)

    @checks_ids
    def owner_of(self, conversation_id: str) -> str | None:
        """The owner of a conversation, or None (no owner, or no such conversation)."""
        rows = self.store.read("read/conversation_owner", conversation_id=conversation_id)
        return rows[0]["owner"] if rows else None

    @checks_ids
    def owner_conversations(self, owner: str) -> list[str]:
        """The ids of the owner's conversations, sorted (empty for an unknown owner).

        Raises:
            MalformedInput: an empty owner.
        """
        check_owner(owner)
        rows = self.store.read("read/owner_conversations", owner=owner)
        return [str(r["conversation_id"]) for r in rows]
