"""`Memory`: the one public entry point. The CLI, the MCP server and the reader are thin
layers over it.

`Memory` is a facade: it owns one of each collaborator of `kgmem.memory` (a schema keeper, an
ingestor factory, the owners, a writer, a forgetter, a searcher and the facts service) and
each public method delegates to the one that does the work (`kgmem.memory.delegate`), whose
docstring it shows.

Example:
    >>> from kgmem import Memory, Settings
    >>> with Memory.from_settings(Settings()) as memory:      # doctest: +SKIP
    ...     memory.add_turns("chat-1", [{"speaker": "Ana", "text": "I moved to Lisbon."}])
    ...     result = memory.search("Where does Ana live?", "chat-1", k=5)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.ingest.document_writes import DocumentReport as DocumentReport
from kgmem.ingest.loaders.documents import Document as Document
from kgmem.ingest.report import FactSources as FactSources
from kgmem.ingest.report import IngestReport as IngestReport
from kgmem.ingest.report import Progress as Progress
from kgmem.ingest.requests.rules import RequestPolicy
from kgmem.ingest.writing.append import AppendHook as AppendHook
from kgmem.memory.caches import ReadCaches
from kgmem.memory.delegate import delegate
from kgmem.memory.facts import Facts
from kgmem.memory.forgetter import Forgetter
from kgmem.memory.ingestors import Ingestors
from kgmem.memory.items import KeyedItems
from kgmem.memory.owners import Owners
from kgmem.memory.schema import SchemaKeeper
from kgmem.memory.search import MAX_QUERY_CHARS, Searcher, check_query
from kgmem.memory.standing import Standing
from kgmem.memory.writer import Writer
from kgmem.models import ConversationRecord as ConversationRecord
from kgmem.retrieve.chain import ChainResult as ChainResult
from kgmem.store import Store
from kgmem.truth.weights import shipped_models

__all__ = ["MAX_QUERY_CHARS", "Memory", "check_query"]


class Memory:
    """Long-term conversational memory in Neo4j.

    Build with `Memory.from_settings`; the constructor touches neither the network nor the
    models (both load on first use). Call `close` (or use ``with``) when done.

    Args:
        store: the Neo4j seam.
        embedder: the sentence embedder (shared by ingest and search).
        settings: the settings the pieces were built from.
    """

    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        # the truth decisions' weights are checked at start, so a missing or stale file fails
        # here, naming it, rather than at the first write or question that needs a decision
        self.truth = shipped_models()
        self.caches = ReadCaches()
        self.schema = SchemaKeeper(store, embedder, settings, self.caches)
        self.ingestors = Ingestors(store, embedder, settings)
        self.owners = Owners(store, self.caches)
        self.searcher = Searcher(store, embedder, settings, self.schema, self.caches, self.owners)
        self.writer = Writer(
            store,
            embedder,
            self.schema,
            self.owners,
            self.ingestors,
            self.caches,
            search=self.searcher.search,
        )
        self.forgetter = Forgetter(
            store, settings, self.schema, self.owners, self.ingestors, self.caches
        )
        self.facts = Facts(store, self.owners, self.caches)
        self.standing = Standing(store, embedder, settings)
        #: the LangGraph store's keyed item versions (`kgmem.memory.items`)
        self.items = KeyedItems(store, self.writer)

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> Memory:
        """A memory configured from ``KGMEM_*`` settings (read now, not at import)."""
        settings = settings or Settings()
        shipped_models()  # before a driver exists: bad weights raise with nothing to close
        return cls(Store.from_settings(settings), Embedder.from_settings(settings), settings)

    def close(self) -> None:
        """Close the store's driver."""
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- schema & plumbing: kgmem.memory.schema, kgmem.memory.owners -----------------------
    verify = delegate("schema", SchemaKeeper.verify)
    apply_schema = delegate("schema", SchemaKeeper.apply_schema)
    migrate = delegate("schema", SchemaKeeper.migrate)
    rebuild_schema = delegate("schema", SchemaKeeper.rebuild_schema)
    owner_of = delegate("owners", Owners.owner_of)
    owner_conversations = delegate("owners", Owners.owner_conversations)

    def bookmarks(self) -> list[str]:
        """Neo4j bookmarks of this memory's writes so far (opaque strings; see `use_bookmarks`)."""
        return self.store.bookmarks()

    def use_bookmarks(self, bookmarks: Sequence[str]) -> None:
        """Read-after-write across processes: after this call, searches wait until the writes
        behind ``bookmarks`` (`IngestReport.bookmarks` or `bookmarks` of another `Memory`)
        are visible. Needed on a cluster or Aura; harmless on one server."""
        self.store.use_bookmarks(bookmarks)

    @property
    def extractor(self) -> Any:
        """The rule-based fact extractors (`kgmem.memory.ingestors.Ingestors.extractor`)."""
        return self.ingestors.extractor

    @property
    def request_policy(self) -> RequestPolicy:
        """Who may make memory requests, and their limits, from the ``KGMEM_REQUESTS`` and
        ``KGMEM_REQUEST_*`` settings."""
        return self.ingestors.request_policy

    # --- write: kgmem.memory.writer ----------------------------------------------------------
    add_conversation = delegate("writer", Writer.add_conversation)
    add_turns = delegate("writer", Writer.add_turns)
    add_document = delegate("writer", Writer.add_document)

    # --- forget: kgmem.memory.forgetter ------------------------------------------------------
    forget = delegate("forgetter", Forgetter.forget)
    forget_owner = delegate("forgetter", Forgetter.forget_owner)
    forget_turns = delegate("forgetter", Forgetter.forget_turns)
    forget_about = delegate("forgetter", Forgetter.forget_about)
    requests = delegate("forgetter", Forgetter.requests)

    # --- read: kgmem.memory.search -----------------------------------------------------------
    engine = delegate("searcher", Searcher.engine)
    search = delegate("searcher", Searcher.search)
    warm = delegate("searcher", Searcher.warm)
    evidence_cypher = delegate("searcher", Searcher.evidence_cypher)
    conversations = delegate("searcher", Searcher.conversations)
    counts = delegate("searcher", Searcher.counts)
    turns_around = delegate("searcher", Searcher.turns_around)

    # --- standing instructions: kgmem.memory.standing ----------------------------------------
    instructions = delegate("standing", Standing.instructions)

    # --- facts over time: kgmem.memory.facts -------------------------------------------------
    chain = delegate("facts", Facts.chain)
    history = delegate("facts", Facts.history)
    current = delegate("facts", Facts.current)
    profile = delegate("facts", Facts.profile)
    timeline = delegate("facts", Facts.timeline)
