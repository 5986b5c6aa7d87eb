"""Writing to memory: whole conversations, appended turns and documents (`kgmem.api.Memory`
delegates here)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kgmem.embed import Embedder
from kgmem.errors import KgmemError, MalformedInput
from kgmem.ids import checks_ids
from kgmem.ingest.document_writes import DocumentReport, write_document
from kgmem.ingest.loaders.documents import Document, load_document
from kgmem.ingest.report import FactSources, IngestReport, Progress
from kgmem.ingest.writing.append import AppendHook, NewTurn
from kgmem.memory.caches import ReadCaches
from kgmem.memory.ingestors import Ingestors
from kgmem.memory.owners import Owners
from kgmem.memory.schema import SchemaKeeper
from kgmem.metadata import check_metadata, merge_metadata
from kgmem.models import SOURCE_KINDS, ConversationRecord
from kgmem.retrieve.scope import check_owner
from kgmem.retrieve.warm import WARM_QUESTION, warm_read_path
from kgmem.roles import check_roles, role_of
from kgmem.store import Store
from kgmem.turns import check_conversation_id, make_turn

log = logging.getLogger(__name__)

__all__ = ["Writer"]


class Writer:
    """The write methods of `kgmem.api.Memory`: every write applies the schema first, claims
    the conversation's owner, runs an ingestor and drops the conversation's cached context.

    Args:
        store: the Neo4j seam.
        embedder: sizes the warm-up of the read path after a write.
        schema: applied before the first write.
        owners: a write's ``owner`` is claimed here.
        ingestors: build the pipeline each write runs.
        caches: dropped for the conversation around every write.
        search: `kgmem.memory.search.Searcher.search`, run once after a bulk write to warm up.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        schema: SchemaKeeper,
        owners: Owners,
        ingestors: Ingestors,
        caches: ReadCaches,
        search: Callable[..., Any],
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.schema = schema
        self.owners = owners
        self.ingestors = ingestors
        self.caches = caches
        self.search = search

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
            conversation: from a loader (`kgmem.ingest.loaders.locomo.load_locomo`,
                `kgmem.ingest.loaders.chat.load_chat`).
            facts: which fact sources to build: ``annotation`` (the dataset's own), ``extracted``
                (spaCy rules), ``both``, or ``none``.
            progress: optional callback ``(stage, done, total)``.
            roles: speaker name → role (``user``/``assistant``/``system``/``tool``), over the
                roles the loader set (the chat format's ``roles`` object) and `kgmem.roles.role_of`.
            requests: detect memory requests (default: ``Settings.requests``).
            owner: the user, agent or team the conversation belongs to (default: the record's
                ``owner``); see `add_turns`.

        After a write it runs the read path's statements once (`kgmem.retrieve.warm`), so the
        first question after a bulk ingest does not wait for the server to replan them.

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
        self.schema.ensure()
        self.owners.claim(conversation.conversation_id, owner)
        try:
            ingestor = self.ingestors.ingestor(facts, requests=requests)
            report = ingestor.ingest(conversation, facts=facts, progress=progress)
            report.bookmarks = self.store.bookmarks()
        finally:  # the conversation's entities and speakers may have changed
            self.caches.invalidate(conversation.conversation_id)
        if report.turns_written:  # after the invalidation, so what it reads stays cached
            self._warm_after_ingest(conversation.conversation_id)
        return report

    def _warm_after_ingest(self, conversation_id: str) -> None:
        """Leave the server ready for the first question on what was just written.

        A bulk write changes the statistics the server planned the read path on, so it replans
        the statements on their next run (measured on a fresh server: 2-5 s on the first
        question, of which the plans were 2.3 s; the first real read of the new data, its index
        pages and Lucene readers, most of the rest). So the read path's statements run once
        (`kgmem.retrieve.warm.warm_read_path`, 1-2 ms each when nothing needs replanning) and
        one search of the conversation with one hit, which also leaves the conversation's
        context and answerability support in the read caches (on a long agent chat the support
        is most of a first question: every turn's words stemmed). Never raises: a failure is
        logged.
        """
        warm_read_path(self.store, self.embedder.dimension)
        try:
            self.search(WARM_QUESTION, conversation_id, k=1)
        except KgmemError as exc:
            log.info("warm-up search after ingest failed: %s", exc)

    @checks_ids
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
        metadata: Mapping[str, Any] | None = None,
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
            metadata: flat key/value pairs stored with every turn of the call (a project, a
                source, an importance, a date); a turn's own ``metadata`` mapping adds keys
                and wins on a shared key. Returned with hits (`kgmem.models.Hit.metadata`) and
                filterable with `search` ``where=`` (`kgmem.metadata`, docs/metadata.md).

        Returns:
            what was written; ``turn_ids`` are the stored ids in order. Turns whose id the
            conversation already holds (or that repeat an id of the same call) are skipped, so
            appending the same turn twice stores it once.

        Raises:
            MalformedInput: a turn without speaker/text, a naive datetime, a ``:`` in the
                conversation id, an unknown ``source_kind``, an empty owner or one other than
                the conversation's, metadata that `kgmem.metadata.check_metadata` refuses
                (naming the key; nothing is written).
        """
        return self._add_turns(
            conversation_id,
            turns,
            session=session,
            observed_at=observed_at,
            roles=roles,
            requests=requests,
            owner=owner,
            metadata=metadata,
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
        metadata: Mapping[str, Any] | None = None,
    ) -> IngestReport:
        """`add_turns` with an `AppendHook` run inside the append's locked transaction (the
        LangGraph store allocates item versions there)."""
        check_conversation_id(conversation_id, file="<add_turns>")
        if owner is not None:
            check_owner(owner)
        mapping = check_roles(roles)
        default_time = observed_at or datetime.now(UTC)
        shared = check_metadata(metadata)
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
                    metadata=_turn_metadata(conversation_id, offset, shared, raw.get("metadata")),
                )
            )
        self.schema.ensure()
        self.owners.claim(conversation_id, owner)
        self.caches.invalidate(conversation_id)
        try:
            report = self.ingestors.ingestor("extracted", requests=requests).append(
                conversation_id, fresh, hook=hook
            )
            report.bookmarks = self.store.bookmarks()
            return report
        finally:
            self.caches.invalidate(conversation_id)

    @checks_ids
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
        every search hit of it (docs/documents.md, `kgmem.ingest.loaders.documents`).

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
                `kgmem.ingest.loaders.documents.load_document` for how a string is told apart), or a
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
        self.schema.ensure()
        self.owners.claim(cid, owner)
        self.caches.invalidate(cid)
        try:
            ingestor = self.ingestors.ingestor("extracted", requests=False)
            report = write_document(ingestor, cid, document)
        finally:
            self.caches.invalidate(cid)
        if report.written or report.removed:
            report.bookmarks = self.store.bookmarks()
        return report


def _turn_metadata(
    conversation_id: str, offset: int, shared: Mapping[str, Any], own: object
) -> dict[str, Any] | None:
    """A turn's metadata: the call's, with the turn's own keys winning (`kgmem.metadata`).

    Raises:
        MalformedInput: as `kgmem.metadata.check_metadata`, naming ``turns[offset].metadata``.
    """
    try:
        merged = merge_metadata(shared, own)
    except MalformedInput as exc:
        raise MalformedInput(
            exc.reason,
            conversation_id=conversation_id,
            turn=f"#{offset}",
            argument=f"turns[{offset}].{exc.argument or 'metadata'}",
        ) from None
    return merged or None
