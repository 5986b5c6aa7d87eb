"""`Memory`: the one public entry point. The CLI, the MCP server and the reader are thin
layers over it.

Example:
    >>> from kgmem import Memory, Settings
    >>> with Memory.from_settings(Settings()) as memory:      # doctest: +SKIP
    ...     memory.add_turns("chat-1", [{"speaker": "Ana", "text": "I moved to Lisbon."}])
    ...     result = memory.search("Where does Ana live?", "chat-1", k=5)
"""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.errors import ConversationNotFound, MalformedInput, OwnerNotFound
from kgmem.ingest.documents import Document, DocumentReport, load_document, write_document
from kgmem.ingest.nlp import load_pipeline
from kgmem.ingest.pipeline import AppendHook, FactSources, Ingestor, IngestReport, NewTurn
from kgmem.ingest.requests import RequestPolicy, topic_request
from kgmem.ingest.threads import OwnerThreads, share_entities
from kgmem.models import SOURCE_KINDS, ConversationRecord, TurnRecord
from kgmem.retrieve.chain import ChainResult, StoreFactSource, follow_chain
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.engine import retriever_for
from kgmem.retrieve.retriever import Retriever, SearchResult
from kgmem.retrieve.scope import Scope, SearchFilters, check_owner, owner_scope_key
from kgmem.retrieve.warm import warm_read_path
from kgmem.roles import check_roles, role_of
from kgmem.store import Store
from kgmem.store.schema import apply_schema, await_search_indexes, rebuild_search_indexes
from kgmem.store.tenant import owner_token
from kgmem.turns import check_conversation_id, make_turn

__all__ = ["MAX_QUERY_CHARS", "Memory"]


def _aware(value: Any) -> datetime | None:
    if not isinstance(value, datetime):
        return None
    return value if value.utcoffset() is not None else value.replace(tzinfo=UTC)


Progress = Callable[[str, int, int], None]

#: the longest search query accepted, in characters: a question is a sentence or two, the
#: embedder reads at most ``Settings.embed_max_chars`` of it, and the BM25 query keeps at most
#: 32 words of at most 255 characters (`kgmem.retrieve.generators.question_words`)
MAX_QUERY_CHARS = 10_000


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
        self._schema_ready = False
        self._indexes_online = False
        self._extractor: Any = None
        self._contexts: dict[str, Any] = {}
        self._chain_sources: dict[str, StoreFactSource] = {}

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> Memory:
        """A memory configured from ``KGMEM_*`` settings (read now, not at import)."""
        settings = settings or Settings()
        embedder = Embedder(
            settings.embedder,
            batch_size=settings.embed_batch_size,
            max_chars=settings.embed_max_chars,
        )
        return cls(Store.from_settings(settings), embedder, settings)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        names = apply_schema(self.store, self.embedder.dimension)
        self._schema_ready = True
        self._indexes_online = True  # apply_schema waits until they are online
        return names

    def rebuild_schema(self) -> list[str]:
        """Replace search indexes of an older layout, keeping all data (see
        `kgmem.store.schema.rebuild_search_indexes`), and move the entities of owned
        conversations stored per conversation into their owner's scope
        (`kgmem.ingest.threads.share_entities`); returns the indexes rebuilt, and
        ``owner_entities`` when entities were moved."""
        rebuilt = rebuild_search_indexes(self.store, self.embedder.dimension)
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

    # --- write ---------------------------------------------------------------------------------
    def add_conversation(
        self,
        conversation: ConversationRecord,
        *,
        facts: FactSources = "both",
        progress: Progress | None = None,
        roles: Mapping[str, str] | None = None,
        requests: bool | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """Ingest a whole conversation (idempotent: re-adding it changes nothing).

        Memory requests the user makes in it are applied (docs/roles-and-requests.md): a turn
        that asks not to be kept is not stored, a forget request removes the user's earlier
        turns that state its topic; `IngestReport` ``requests`` / ``withheld`` / ``removed`` /
        ``not_applied`` say what happened. Stored requests are applied again on re-ingest.

        Args:
            conversation: from a loader (`kgmem.ingest.locomo.load_locomo`,
                `kgmem.ingest.chat.load_chat`).
            facts: which fact sources to build: ``annotation`` (the dataset's own), ``extracted``
                (spaCy rules), ``both``, or ``none``.
            progress: optional callback ``(stage, done, total)``.
            roles: speaker name → role (``user``/``assistant``/``system``/``tool``), over the
                roles the loader set (the chat format's ``roles`` object) and `kgmem.roles.role_of`.
            requests: detect memory requests (default: ``Settings.requests``).
            owner: the user, agent or team the conversation belongs to (default: the record's
                ``owner``); see `add_turns`.

        Raises:
            MalformedInput: a role that is not one of `kgmem.roles.ROLES`, a bad owner, or an
                owner other than the one the conversation already has.
        """
        mapping = check_roles(roles)
        owner = owner if owner is not None else conversation.owner
        conversation = conversation.model_copy(
            update={
                "turns": tuple(
                    t.model_copy(update={"role": role_of(t.speaker, mapping)})
                    if t.speaker in mapping or t.role is None
                    else t
                    for t in conversation.turns
                )
            }
        )
        self._ensure_schema()
        self._claim_owner(conversation.conversation_id, owner)
        try:
            ingestor = self._ingestor(facts, requests=requests)
            report = ingestor.ingest(conversation, facts=facts, progress=progress)
            report.bookmarks = self.store.bookmarks()
            return report
        finally:  # the conversation's entities and speakers may have changed
            self._invalidate(conversation.conversation_id)

    def add_turns(
        self,
        conversation_id: str,
        turns: Sequence[Mapping[str, Any]],
        *,
        session: int | None = None,
        observed_at: datetime | None = None,
        roles: Mapping[str, str] | None = None,
        requests: bool | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """Append turns to a live conversation (creating it if new).

        Memory requests among the new turns are applied as in `add_conversation` (a turn that
        asks not to be kept is not stored; a forget request removes the stored turns of the
        user that state its topic, through `forget_turns`). ``requests=False`` stores the turns
        as they are (MCP ``remember`` and the LangGraph store do: they never delete).

        Safe with concurrent writers — other threads, processes or machines appending to the
        same conversation: the turns' ``index`` and default ids are allocated inside the write
        transaction under the conversation's lock, and the turns are written together with their
        ``NEXT`` edge, facts, entities and links (all or nothing). See docs/reliability.md.

        Args:
            conversation_id: the tenant.
            turns: dicts with ``speaker`` and ``text``, optionally ``id`` (else ``t<index>``,
                made unique if an explicit id already took it), ``session``, ``observed_at``
                (timezone-aware; else the ``observed_at`` arg or now, UTC), ``source`` (where
                the text comes from, e.g. a document's ``file#heading``) and ``source_kind``
                (``chat``, the default, ``document`` or ``facts``; `kgmem.models.SourceKind`).
            session: session number (default: the last stored session, or 1).
            observed_at: default timestamp for turns that carry none.
            roles: speaker name → role; otherwise `kgmem.roles.role_of` (a speaker named
                ``user`` or ``assistant`` has that role).
            requests: detect memory requests (default: ``Settings.requests``).
            owner: the user, agent or team the conversation belongs to: `search` with
                ``owner=`` ranks all of an owner's conversations together. Set on the first
                write that names one (a conversation written without an owner gets it then, on
                all its turns); None keeps the stored owner. A conversation has one owner.

        Returns:
            what was written; ``turn_ids`` are the stored ids in order. Turns whose id the
            conversation already holds (or that repeat an id of the same call) are skipped, so
            appending the same turn twice stores it once.

        Raises:
            MalformedInput: a turn without speaker/text, a naive datetime, a ``:`` in the
                conversation id, an unknown ``source_kind``, an empty owner or one other than
                the conversation's (nothing is written).
        """
        return self._add_turns(
            conversation_id,
            turns,
            session=session,
            observed_at=observed_at,
            roles=roles,
            requests=requests,
            owner=owner,
        )

    def _add_turns(
        self,
        conversation_id: str,
        turns: Sequence[Mapping[str, Any]],
        *,
        session: int | None = None,
        observed_at: datetime | None = None,
        roles: Mapping[str, str] | None = None,
        requests: bool | None = None,
        hook: AppendHook | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """`add_turns` with an `AppendHook` run inside the append's locked transaction (the
        LangGraph store allocates item versions there)."""
        check_conversation_id(conversation_id, file="<add_turns>")
        if owner is not None:
            check_owner(owner)
        mapping = check_roles(roles)
        default_time = observed_at or datetime.now(UTC)
        fresh: list[NewTurn] = []
        for offset, raw in enumerate(turns):
            if not isinstance(raw, Mapping):
                raise MalformedInput(
                    "turn is not a mapping", conversation_id=conversation_id, turn=f"#{offset}"
                )
            # one validator for every turn (kgmem.turns); index and default id are allocated
            # later, inside the write transaction
            raw_session = raw.get("session", session)
            checked = make_turn(
                conversation_id,
                raw["id"] if raw.get("id") is not None else f"#{offset}",
                speaker=raw.get("speaker"),
                text=raw.get("text"),
                session=int(raw_session) if raw_session is not None else 1,
                index=offset,
                observed_at=raw.get("observed_at", default_time),
                file="<add_turns>",
            )
            kind = raw.get("source_kind", "chat")
            if kind not in SOURCE_KINDS:
                raise MalformedInput(
                    f"source_kind {kind!r} is not one of {', '.join(SOURCE_KINDS)}",
                    conversation_id=conversation_id,
                    turn=f"#{offset}",
                )
            source = raw.get("source")
            if source is not None and not isinstance(source, str):
                raise MalformedInput(
                    "a turn's source is a string",
                    conversation_id=conversation_id,
                    turn=f"#{offset}",
                )
            fresh.append(
                NewTurn(
                    speaker=checked.speaker,
                    text=raw["text"],  # stored exactly as given (validated above)
                    observed_at=checked.observed_at,
                    id=str(raw["id"]).strip() if raw.get("id") is not None else None,
                    session=int(raw_session) if raw_session is not None else None,
                    role=role_of(checked.speaker, mapping),
                    source=source,
                    source_kind=kind,
                )
            )
        self._ensure_schema()
        self._claim_owner(conversation_id, owner)
        self._invalidate(conversation_id)
        try:
            report = self._ingestor("extracted", requests=requests).append(
                conversation_id, fresh, hook=hook
            )
            report.bookmarks = self.store.bookmarks()
            return report
        finally:
            self._invalidate(conversation_id)

    def add_document(
        self,
        path_or_text: str | os.PathLike[str] | Document,
        *,
        conversation_id: str | None = None,
        owner: str | None = None,
        source: str | None = None,
        observed_at: datetime | None = None,
    ) -> DocumentReport:
        """Add a Markdown, plain-text or PDF document as turns: one per chunk of a section, spoken
        by the document, with ``source`` = ``<document>#<heading trail>`` on the turn and on
        every search hit of it (docs/documents.md, `kgmem.ingest.documents`).

        Facts are extracted from the chunks and cite them like any turn's; the chunks have the
        ``document`` role (`kgmem.roles.DOCUMENT`), so they never make a memory request and are
        never "the user". Adding the same document again writes nothing when it is unchanged;
        when it changed, the chunks whose heading and text are unchanged stay as they are, new
        chunks are appended, and the chunks it no longer has are forgotten with their facts
        exactly like `forget_turns` (no trace of their text; the conversation's facts are
        derived again, so a value a removed chunk superseded is current again). The new
        chunks are written first, then the old ones forgotten: a crash in between leaves both
        (never neither), and adding the document again completes the swap.

        Args:
            path_or_text: a file path, the document's text (see
                `kgmem.ingest.documents.load_document` for how a string is told apart), or a
                `Document` already loaded.
            conversation_id: the conversation to add it to (a chat's id, to search it with that
                chat); default ``doc-<file name>``.
            owner: the owner the conversation belongs to (docs/scopes-and-filters.md): the
                document's chunks are searched with the owner's other conversations.
            source: the document's name and identity instead of its path (give one with a text,
                so that re-adding a changed text replaces it). Ignored for a `Document`.
            observed_at: when its chunks were observed (timezone-aware); default the file's
                modification time, or now for a text. Ignored for a `Document`.

        Returns:
            a `DocumentReport`: chunks kept, written and removed, facts written and removed.

        Raises:
            DocumentRejected: the file is too large, binary, undecodable, unreadable or empty,
                or a PDF without the ``pdf`` extra; nothing is written.
            MalformedInput: an empty ``source``, a naive ``observed_at``, a ``:`` in the
                conversation id, an empty owner or a conversation of another owner; nothing is
                written.
        """
        document = (
            path_or_text
            if isinstance(path_or_text, Document)
            else load_document(path_or_text, source=source, observed_at=observed_at)
        )
        cid = conversation_id if conversation_id is not None else document.conversation_id
        check_conversation_id(cid, file=document.file or "<add_document>")
        self._ensure_schema()
        self._claim_owner(cid, owner)
        self._invalidate(cid)
        try:
            report = write_document(self._ingestor("extracted", requests=False), cid, document)
        finally:
            self._invalidate(cid)
        if report.written or report.removed:
            report.bookmarks = self.store.bookmarks()
        return report

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

    def forget(self, conversation_id: str) -> dict[str, int]:
        """Delete a conversation: turns, sessions, facts, events and entities no one else uses.

        Returns:
            counts deleted per label. Raises `ConversationNotFound` if it holds nothing.
        """
        self._invalidate(conversation_id)
        owner = self.owner_of(conversation_id)
        rows = self.store.write("write/forget_conversation", conversation_id=conversation_id)
        counts = {k: int(v) for k, v in rows[0].items()} if rows else {}
        if not any(counts.values()):
            raise ConversationNotFound(conversation_id)
        if owner is not None:  # a value this thread superseded in another is current again
            OwnerThreads(self.store).supersede(owner)
        return counts

    def forget_owner(self, owner: str) -> dict[str, int]:
        """Delete everything of an owner, with the no-trace guarantee of `forget`: every
        conversation it owns (turns, sessions, facts, events, entities, memory-request records,
        forgotten-turn ids, the Conversation nodes), in one transaction.

        Returns:
            counts deleted per label and ``conversations``.

        Raises:
            MalformedInput: an empty owner. OwnerNotFound: the owner has no conversation.
        """
        check_owner(owner)
        rows = self.store.write("write/forget_owner", owner=owner)
        counts = {k: int(v) for k, v in rows[0].items()} if rows else {}
        self._contexts.clear()
        self._chain_sources.clear()
        if not counts.get("conversations"):
            raise OwnerNotFound(owner)
        return counts

    def owner_of(self, conversation_id: str) -> str | None:
        """The owner of a conversation, or None (no owner, or no such conversation)."""
        rows = self.store.read("read/conversation_owner", conversation_id=conversation_id)
        return rows[0]["owner"] if rows else None

    def forget_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> dict[str, int]:
        """Forget single turns of a conversation so that no trace of their text remains.

        The turns go, and with them every fact citing one of them (a fact that also cites a kept
        turn is dropped too: its text may quote the forgotten one). ``NEXT`` is relinked around
        them. The conversation's entities, mentions and extracted facts are then derived again
        from the kept turns (so no entity name or alias survives that only a forgotten turn
        said), events are regrouped, and supersession is recomputed: if a forgotten fact had
        superseded another, the older value is current again and its ``valid_to`` is cleared.
        All in one transaction under the conversation's lock; this memory's cached context of
        the conversation is dropped. The cost is one extraction pass over the kept turns.

        Forgetting is idempotent: ids already forgotten are remembered (the id only, as a
        ``ForgottenTurn`` node) and skipped. Re-ingesting a source that still holds a forgotten
        turn stores it again.

        Args:
            conversation_id: the tenant.
            turn_ids: local ids (``a1``, ``D1:3``) or full ids (``<conversation_id>:a1``).

        Returns:
            ``{"turns": n, "facts": n, "rederived_facts": n}`` (0 turns when all were already
            forgotten).

        Raises:
            TurnNotFound: an id the conversation never held, named in the message (nothing
                is changed).
            MalformedInput: no turn ids given, or a ``:`` in the conversation id.
        """
        check_conversation_id(conversation_id, file="<forget_turns>")
        if not turn_ids:
            raise MalformedInput("no turn ids to forget", conversation_id=conversation_id)
        prefix = f"{conversation_id}:"
        full = [t if t.startswith(prefix) else prefix + t for t in turn_ids]
        self._ensure_schema()
        self._invalidate(conversation_id)
        try:
            return self._ingestor("extracted").forget_turns(conversation_id, full)
        finally:
            self._invalidate(conversation_id)

    def forget_about(self, conversation_id: str, description: str) -> dict[str, Any]:
        """Forget what the user said about ``description`` ("my passport number", or a whole
        request such as "forget what I said about my landlord"): the same matching and limits as
        a request made in the conversation (`kgmem.ingest.requests`), applied to every stored
        turn of the user (every turn when no turn has a role), through `forget_turns`.

        Returns:
            ``{"status": "applied" | "too_broad" | "no_match", "turn_ids": [...], "matched": n,
            "turns": n, "facts": n}``: ids and counts, never text. A request that would remove
            more than ``Settings.request_max_turns`` turns removes nothing (``too_broad``).

        Raises:
            MalformedInput: an empty description or a ``:`` in the conversation id.
            ConversationNotFound: the conversation holds no turns.
        """
        check_conversation_id(conversation_id, file="<forget_about>")
        if not description or not description.strip():
            raise MalformedInput(
                "nothing to forget: empty description", conversation_id=conversation_id
            )
        self._ensure_schema()
        rows = self.store.read("read/conversation_turns", conversation_id=conversation_id)
        if not rows:
            raise ConversationNotFound(conversation_id)
        turns = [
            TurnRecord(
                id=r["id"],
                conversation_id=conversation_id,
                session=int(r["session"]),
                index=int(r["index"]),
                dia_id=str(r["dia_id"]),
                speaker=r["speaker"],
                text=r["text"],
                observed_at=r["observed_at"],
                role=r["role"],
                request=bool(r["request"]),
            )
            for r in rows
        ]
        ingestor = self._ingestor("extracted")
        explicit = topic_request(description, load_pipeline(self.settings.spacy_model))
        plan = ingestor.plan(turns, prior=set(), explicit=explicit)
        # the audit record of an explicit request names no turn: it gets an id of its own
        outcome = dataclasses.replace(
            plan.outcomes[0], turn_id=f"{conversation_id}:forget-about-{uuid.uuid4().hex[:12]}"
        )
        plan.outcomes = [outcome]
        counts = {"turns": 0, "facts": 0}
        self._invalidate(conversation_id)
        try:
            if plan.removed:
                done = ingestor.forget_turns(conversation_id, sorted(plan.removed))
                counts = {"turns": done["turns"], "facts": done["facts"]}
            ingestor.record_requests(conversation_id, plan, turns)
        finally:
            self._invalidate(conversation_id)
        return {
            "status": outcome.status,
            "turn_ids": sorted(plan.removed),
            "matched": outcome.matched,
            **counts,
        }

    def requests(self, conversation_id: str) -> list[dict[str, Any]]:
        """The audit records of a conversation's memory requests, in conversation order:
        ``{"id", "turn_id", "kind", "status", "index", "observed_at", "recorded_at",
        "removed", "matched"}`` (ids, counts and times only; no text is kept)."""
        rows = self.store.read("read/memory_requests", conversation_id=conversation_id)
        return [{k: v for k, v in row.items() if k != "gone"} for row in rows]

    # --- read ----------------------------------------------------------------------------------
    def engine(self, config: EngineConfig | None = None) -> Retriever:
        """The retriever of ``config``'s strategy over this memory (default: the shipped
        configuration): a `kgmem.retrieve.cosine.CosineRetriever` or
        `kgmem.retrieve.linked.LinkedRetriever`. Retrievers share this memory's
        per-conversation context cache, which every write here invalidates."""
        return retriever_for(
            self.store,
            self.embedder,
            config or EngineConfig.from_settings(self.settings),
            contexts=self._contexts,
            chain_sources=self._chain_sources,
        )

    def search(
        self,
        query: str,
        conversation_id: str | None = None,
        k: int = 10,
        *,
        config: EngineConfig | None = None,
        as_of: datetime | None = None,
        asked_by: str | None = None,
        owner: str | None = None,
        speakers: Sequence[str] | str | None = None,
        sessions: Sequence[int] | int | None = None,
        between: Sequence[datetime | None] | None = None,
        sources: Sequence[str] | str | None = None,
        conversations: Sequence[str] | None = None,
    ) -> SearchResult:
        """The turns that bear on ``query``, best first, each with its score terms and trace.

        Every filter is optional and applied inside the vector index (docs/scopes-and-filters.md):
        a filtered search ranks all turns that pass it, not a filtered default top-k.

        Args:
            query: a question or any text.
            conversation_id: the conversation to search (others are never read); None with
                ``owner``: all of the owner's conversations, in one read with one ranking
                (each hit names its ``conversation_id``).
            k: number of hits.
            config: retrieval configuration (default: the shipped best dev configuration).
            as_of: the moment the question is asked (timezone-aware datetime; naive = UTC):
                turns observed after it are invisible, relative dates in the question resolve
                against it and "current" means current then. None = now.
            asked_by: the speaker asking (one of the conversation's speakers): "I", "me",
                "my" and "the user" in ``query`` mean this speaker. None = the conversation's
                speaker whose role is ``user`` (`kgmem.roles`), if any.
            owner: search all conversations of this owner (see `add_turns`); with a
                ``conversation_id``, that conversation must belong to the owner.
            speakers: only turns said by these speakers (a name or a list).
            sessions: only turns of these session numbers.
            between: ``(start, end)``: only turns observed in that range (inclusive; None for
                an open end; naive datetimes are UTC).
            sources: only turns of these source kinds: ``chat``, ``document``, ``facts``.
            conversations: with ``owner``: only these of the owner's conversations, still in
                one read (the LangGraph store searches a namespace prefix this way).

        Returns:
            `SearchResult` with hits (turn id, text, speaker, session, observed_at UTC, score,
            terms, trace), the plan, candidates examined, timings in ms, current/past value
            decisions and the answerability signal (``answerable``, ``unsupported``).

        Raises:
            MalformedInput: ``query`` is not a string, is longer than `MAX_QUERY_CHARS`, or is
                not valid Unicode; neither a conversation nor an owner; a bad filter
                (`kgmem.retrieve.scope.SearchFilters.of`).
            ConversationNotFound: the conversation holds no turns, or belongs to another
                owner than ``owner`` (`kgmem.errors.OwnerNotFound`: the owner holds none).
            IndexNotOnline: on this memory's first search, a search index is still populating
                after `kgmem.store.schema.INDEX_WAIT_S` (or failed).
        """
        if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
            size = f"{len(query):,} characters" if isinstance(query, str) else "not a string"
            raise MalformedInput(
                f"the search query is {size}; a query is a string of at most "
                f"{MAX_QUERY_CHARS:,} characters (kgmem.api.MAX_QUERY_CHARS)",
                conversation_id=conversation_id,
            )
        filters = SearchFilters.of(
            speakers=speakers,
            sessions=sessions,
            between=between,
            sources=sources,
            conversations=conversations,
        )
        Scope(conversation_id=conversation_id, owner=owner)  # checked before any read
        if not self._indexes_online:  # once per Memory: a populating index misses turns
            await_search_indexes(self.store)
            self._indexes_online = True
        return self.engine(config).search(
            query,
            conversation_id,
            k,
            as_of=as_of,
            asked_by=asked_by,
            owner=owner,
            filters=filters,
        )

    def warm(self) -> dict[str, Any]:
        """Get ready to answer at once, for a service to call at start-up: wait for the search
        indexes, compile the read path's query plans on the server
        (`kgmem.retrieve.warm.warm_read_path`: a few round trips that read nothing, 1-2 ms
        each when the plans are cached already) and load the embedding model. Without it, the
        first search pays for all three (the plans only after a server start that was not
        `kgmem neo4j start`, which warms them itself).

        Returns:
            ``{"plans_ms": {statement: ms}, "model_ms": float}`` (``plans_ms`` is empty when
            nothing could be warmed: a server problem there is only logged).

        Raises:
            IndexNotOnline: as on the first search.
            ModelUnavailable: the embedding model cannot load (as the first search would).
        """
        if not self._indexes_online:
            await_search_indexes(self.store)
            self._indexes_online = True
        plans_ms = warm_read_path(self.store)
        t0 = time.perf_counter()
        _ = self.embedder.model
        return {"plans_ms": plans_ms, "model_ms": round((time.perf_counter() - t0) * 1000, 1)}

    def chain(self, question: str, conversation_id: str) -> ChainResult:
        """Answer a chain question ("the country of citizenship of the spouse of X") by following
        relations of `kgmem.lexicon` from the entity it names, over current values.

        Args:
            question: any text; its relation cues and names are read by
                `kgmem.retrieve.chain.compile_question`.
            conversation_id: the conversation (others are never read).

        Returns:
            a `ChainResult`: the answer (the last hop's object) or None, and every hop with its
            fact, serial, whether it was the current value, and the turns it cites.
        """
        source = self._chain_sources.get(conversation_id)
        if source is None:
            source = self._chain_sources[conversation_id] = StoreFactSource(
                self.store, conversation_id
            )
        return follow_chain(source, conversation_id, question)

    def _keys(self, conversation_id: str, entity: str, relation: str) -> list[str]:
        from kgmem.ingest.supersession import relation_family

        family = relation_family(relation) or relation.strip().lower().replace(" ", "_")
        rows = self.store.read("read/resolve_entity", conversation_id=conversation_id, name=entity)
        subjects = [row["id"] for row in rows] + [entity]
        return [f"{subject}|{family}" for subject in dict.fromkeys(subjects)]

    def history(
        self,
        conversation_id: str | None,
        entity: str,
        relation: str,
        *,
        owner: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every value a single-valued relation has had, oldest first (nothing is ever deleted).

        With ``owner`` (and no conversation), the values of every conversation of the owner,
        oldest first by ``valid_from`` (then by conversation and serial): one person's values
        across threads, the last one current. Each row then names its ``conversation_id``.

        Args:
            conversation_id: the tenant (None with ``owner``).
            entity: a canonical name or alias (``"Mel"`` finds Melanie) or an entity id.
            relation: a relation (``live_in``) or its family (``residence``); see
                `kgmem.ingest.supersession.SINGLE_VALUED`.

        Returns:
            fact dicts (id, text, serial, valid_from, valid_to, supersedes, superseded_by,
            cites) ordered by serial; the last one is the current value.
        """
        if conversation_id is None:
            if owner is None:
                raise MalformedInput("history needs a conversation id or an owner")
            rows: list[dict[str, Any]] = []
            for cid in self.owner_conversations(owner):
                rows += [r | {"conversation_id": cid} for r in self.history(cid, entity, relation)]
            never = datetime.min.replace(tzinfo=UTC)
            return sorted(
                rows,
                key=lambda r: (
                    _aware(r.get("valid_from")) or never,
                    r["conversation_id"],
                    r["serial"],
                ),
            )
        keys = self._keys(conversation_id, entity, relation)
        return self.store.read("read/facts_by_key", conversation_id=conversation_id, keys=keys)

    def current(
        self,
        conversation_id: str | None,
        entity: str,
        relation: str,
        *,
        owner: str | None = None,
    ) -> dict[str, Any] | None:
        """The current value: the latest ``serial`` on the supersession key (decided in code);
        with ``owner``, the latest across the owner's conversations (see `history`).

        Returns None when memory holds no value. See `history` for the arguments.
        """
        rows = self.history(conversation_id, entity, relation, owner=owner)
        return rows[-1] if rows else None

    def profile(
        self, conversation_id: str, entity: str, *, history: bool = False
    ) -> dict[str, list[dict[str, Any]]]:
        """Every current attribute value of an entity, grouped by attribute
        (docs/attributes.md).

        Args:
            conversation_id: the tenant.
            entity: a canonical name or alias (``"Mel"`` finds Melanie) or an entity id.
            history: add superseded values (``current`` False, ``valid_to`` set).

        Returns:
            attribute id → value dicts in arrival order: ``value``, ``value_type``, ``thing``,
            ``multiplicity``, ``modality`` (``negated`` for a retraction), ``valid_from`` /
            ``valid_to`` (ISO 8601 or None), ``current``, ``fact_id``, ``text``, ``key`` and
            ``cites`` (turn ids, the evidence). Empty when the entity holds no listed
            attribute value or is unknown.
        """
        rows = self.store.read("read/resolve_entity", conversation_id=conversation_id, name=entity)
        ids = list(dict.fromkeys([*(row["id"] for row in rows), entity]))
        out: dict[str, list[dict[str, Any]]] = {}
        for row in self.store.read(
            "read/entity_profile", conversation_id=conversation_id, entity_ids=ids, history=history
        ):
            value = dict(row)
            out.setdefault(str(value.pop("attribute")), []).append(value)
        return out

    def owner_conversations(self, owner: str) -> list[str]:
        """The ids of the owner's conversations, sorted (empty for an unknown owner).

        Raises:
            MalformedInput: an empty owner.
        """
        check_owner(owner)
        rows = self.store.read("read/owner_conversations", owner=owner)
        return [str(r["conversation_id"]) for r in rows]

    def timeline(
        self, conversation_id: str | None = None, *, owner: str | None = None
    ) -> list[dict[str, Any]]:
        """What memory holds, as a map: one entry per session of each conversation (chat and
        fact-list turns) and per document, oldest first.

        Returns:
            ``{"conversation_id", "kind": "session" | "document", "session", "source", "first",
            "last", "turns"}`` dicts (``first`` / ``last``: observed datetimes, UTC;
            ``source``: a document's file, the part of its turns' ``source`` before ``#``).

        Raises:
            MalformedInput: neither a conversation nor an owner, or an empty owner.
        """
        Scope(conversation_id=conversation_id, owner=owner)  # checked
        if conversation_id is not None:
            cids = [conversation_id]
        else:
            assert owner is not None
            cids = self.owner_conversations(owner)
        return self.store.read("read/timeline", conversation_ids=cids)

    def evidence_cypher(self, result: SearchResult) -> str:
        """A ready-to-paste Neo4j Browser statement drawing ``result``'s evidence subgraph."""
        from kgmem.retrieve.evidence import evidence_cypher

        return evidence_cypher(result)

    def conversations(self) -> list[dict[str, Any]]:
        """Every stored conversation with its turn count and first/last timestamps."""
        return self.store.read("read/list_conversations")

    def counts(self, conversation_id: str) -> dict[str, int]:
        """Node/edge counts of one conversation (turns, next, facts, cites, entities, events)."""
        rows = self.store.read("read/count_conversation", conversation_id=conversation_id)
        return {k: int(v) for k, v in rows[0].items()}
