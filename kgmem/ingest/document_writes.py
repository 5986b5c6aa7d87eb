"""A document written into a conversation: only what changed since it was last written, through
the append and forget-turns paths of `kgmem.ingest.pipeline.Ingestor`
(`kgmem.api.Memory.add_document`; reading and chunking are `kgmem.ingest.loaders.documents`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from kgmem.ingest.loaders.document_chunks import Chunk
from kgmem.ingest.loaders.documents import Document
from kgmem.ingest.pipeline import Ingestor
from kgmem.ingest.writing.append import NewTurn
from kgmem.roles import DOCUMENT
from kgmem.turns import make_turn, turn_id

__all__ = ["DocumentPlan", "DocumentReport", "plan_document", "write_document"]


@dataclass(frozen=True)
class DocumentPlan:
    """What a (re-)ingest of a document changes in one conversation.

    Attributes:
        add: chunks not stored yet, in document order, with their local ids.
        remove: full turn ids of stored chunks the document no longer has.
        kept: how many stored chunks stay as they are.
    """

    add: tuple[tuple[str, Chunk], ...]
    remove: tuple[str, ...]
    kept: int

    def __bool__(self) -> bool:
        return bool(self.add or self.remove)


@dataclass
class DocumentReport:
    """What one `kgmem.api.Memory.add_document` did (all zeros and empty lists when the
    document was unchanged: nothing was written).

    Attributes:
        conversation_id / document / name: where it went, its key and its speaker.
        chunks: how many chunks it has now.
        kept: chunks already stored unchanged (not rewritten).
        written: full ids of the chunks written now, in document order.
        removed: full ids of stored chunks it no longer has, forgotten with their facts.
        facts_written: facts extracted from the written chunks.
        facts_removed: facts deleted with the removed chunks (the conversation's extracted
            facts are then derived again from the turns that remain).
        bookmarks: Neo4j bookmarks of the writes (see `kgmem.api.Memory.use_bookmarks`).
    """

    conversation_id: str
    document: str
    name: str
    chunks: int
    kept: int = 0
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    facts_written: int = 0
    facts_removed: int = 0
    bookmarks: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def plan_document(document: Document, conversation_id: str, stored: Sequence[str]) -> DocumentPlan:
    """Compare a document's chunks with the full turn ids stored for its key.

    Args:
        document: as read now.
        conversation_id: the conversation it goes into.
        stored: full ids of the turns the conversation holds for ``document.key``.

    Returns:
        the plan; empty (false) when the document is unchanged.
    """
    have = set(stored)
    wanted = {turn_id(conversation_id, document.local_id(c)): c for c in document.chunks}
    add = tuple(
        (full.partition(":")[2], chunk) for full, chunk in wanted.items() if full not in have
    )
    remove = tuple(sorted(have - wanted.keys()))
    return DocumentPlan(add=add, remove=remove, kept=len(have & wanted.keys()))


def write_document(ingestor: Ingestor, conversation_id: str, document: Document) -> DocumentReport:
    """Write what changed of ``document`` in a conversation (`kgmem.api.Memory.add_document`).

    Every chunk is first validated as a turn (`kgmem.turns.make_turn`, the one validator).
    Then the stored chunk ids of the document's key are read (``read/document_turns``) and
    compared (`plan_document`): nothing more happens when they match. Otherwise the new chunks
    are appended (`Ingestor.append`, under the conversation lock, with extracted facts) and
    then the chunks the document no longer has are forgotten (`Ingestor.forget_turns`, the
    no-trace path of `kgmem.api.Memory.forget_turns`). The caller applies the schema and
    invalidates its caches.

    Returns:
        the report (``bookmarks`` left for the caller).

    Raises:
        MalformedInput: a chunk that is not a valid turn (nothing is written).
    """
    cid = conversation_id
    where = document.file or "<add_document>"
    for n, chunk in enumerate(document.chunks):
        make_turn(
            cid,
            document.local_id(chunk),
            speaker=document.name,
            text=chunk.text,
            session=1,
            index=n,
            observed_at=document.observed_at,
            file=where,
        )
    stored = ingestor.store.read("read/document_turns", conversation_id=cid, document=document.key)
    plan = plan_document(document, cid, [row["id"] for row in stored])
    report = DocumentReport(
        conversation_id=cid,
        document=document.key,
        name=document.name,
        chunks=len(document.chunks),
        kept=plan.kept,
    )
    if plan.add:
        added = ingestor.append(
            cid,
            [
                NewTurn(
                    speaker=document.name,
                    text=chunk.text,
                    observed_at=document.observed_at,
                    id=local,
                    role=DOCUMENT,
                    source=document.source_of(chunk),
                    source_kind="document",
                    document=document.key,
                )
                for local, chunk in plan.add
            ],
        )
        report.written = added.turn_ids
        report.facts_written = added.facts_written
    if plan.remove:
        counts = ingestor.forget_turns(cid, list(plan.remove))
        report.removed = list(plan.remove)
        report.facts_removed = counts["facts"]
    return report
