"""Documents as sources: a Markdown, plain-text or PDF file (or a text) read, checked and split into
sections and chunks that become turns (`kgmem.api.Memory.add_document`, ``kgmem ingest docs``).

Reading. A file is read whole as UTF-8 (a byte-order mark is dropped) and refused as a whole,
before anything is written, with one `kgmem.errors.DocumentRejected` when it is

- ``too_large``: over `MAX_DOCUMENT_CHARS` characters (or `MAX_DOCUMENT_BYTES` bytes on disk);
- ``binary``: it holds a NUL byte, or more than one control character in 100 (UTF-16 text is
  refused this way too: save it as UTF-8);
- ``undecodable``: not valid UTF-8;
- ``unreadable``: missing, a directory, or not permitted;
- ``empty``: nothing but whitespace (or a PDF without a text layer);
- ``unsupported``: a PDF when pypdf (the ``pdf`` extra) is not installed.

A PDF (``.pdf``, up to `MAX_PDF_BYTES`) is read with pypdf: the text layer of each page, one
section per page with the trail ``page <n>``; an encrypted PDF is ``unreadable``, a damaged one
``undecodable``.

Writing is not here: `kgmem.ingest.document_writes.write_document` writes only what changed,
through the append and forget-turns paths of `kgmem.ingest.pipeline.Ingestor`.

Structure. Markdown (``.md``, ``.markdown``, ...; and a text given as a string) is parsed with
markdown-it-py (CommonMark plus tables; YAML front matter at the start is dropped): every
heading opens a section whose *heading trail* is its heading and the headings above it
(``Install > Linux``). A plain-text file (any other suffix) is one section of paragraphs
(blank-line separated). Each top-level block (paragraph, list, table, code block, quote) becomes
plain text: inline markup, link targets and HTML tags are dropped, list items keep a ``-`` or
``1.`` marker, table rows join their cells with ``|``, code keeps its lines. A heading with no
text of its own under it (directly followed by a subheading) makes no chunk; it stays in its
subsections' trails.

Chunks. A section's blocks are packed in order into chunks of at most `CHUNK_CHARS` characters
(the section's heading is the first line of its first chunk); a block longer than that is split
at line breaks, then sentence ends, then spaces. Each chunk is one turn:

- ``speaker`` = the document's name (the file name, or the last part of ``source``);
- ``source`` = ``<document>#<heading trail>`` (just ``<document>`` before the first heading);
- ``role`` = ``document`` (`kgmem.roles.DOCUMENT`: facts are extracted and cited, never a
  memory request);
- ``observed_at`` = the time given, else the file's modification time (UTC), else now;
- the turn id is ``doc-<document hash>-<chunk hash>``: the chunk hash covers the heading trail
  and the text, so re-ingesting a changed file keeps the chunks whose text and heading are
  unchanged and replaces only the others
  (`kgmem.ingest.document_writes.plan_document`).
"""

from __future__ import annotations

import hashlib
import io
import os
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Literal

from kgmem.errors import DocumentRejected, MalformedInput
from kgmem.ingest.loaders.document_chunks import Chunk, chunk_markdown, chunk_pages, chunk_text
from kgmem.turns import DOCUMENT_ID_PREFIX, MAX_TURN_CHARS, check_unicode

__all__ = [
    "MARKDOWN_SUFFIXES",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_CHARS",
    "MAX_PDF_BYTES",
    "Document",
    "load_document",
    "load_text",
]


#: the longest document accepted, in characters: the same budget as one turn
#: (`kgmem.turns.MAX_TURN_CHARS`, 200,000). Every chunk goes through fact extraction at ingest
#: (about a minute per 100,000 characters), and a re-ingest that replaces a chunk derives the
#: conversation's facts again (`Memory.forget_turns`). Split a longer document into files.
MAX_DOCUMENT_CHARS = MAX_TURN_CHARS

#: the largest file read, in bytes: UTF-8 takes at most 4 bytes a character, so a larger file
#: cannot be under `MAX_DOCUMENT_CHARS`; it is refused without being read.
MAX_DOCUMENT_BYTES = 4 * MAX_DOCUMENT_CHARS

#: the largest PDF read, in bytes: a PDF holds fonts and images besides its text, so its file
#: is larger than its text; the text extracted from it has the `MAX_DOCUMENT_CHARS` limit.
MAX_PDF_BYTES = 20_000_000

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn"})
"""File suffixes parsed as Markdown; any other suffix is read as plain text."""

_PATH_SUFFIXES = MARKDOWN_SUFFIXES | {".txt", ".text", ".pdf"}
_CONTROL_SHARE = 0.01  # more control characters than this share of the text: binary
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v")

Format = Literal["markdown", "text", "pdf"]


@dataclass(frozen=True)
class Document:
    """A document read and chunked, not yet written.

    Attributes:
        key: its identity within a conversation: the ``source`` given, else the file's resolved
            path (POSIX), else ``text-<hash>`` of the text. Re-ingest replaces the chunks of the
            same key.
        name: the speaker of its chunks (the file name, or the last part of ``source``;
            ``document`` for a text without one).
        format: ``markdown``, ``text`` or ``pdf``.
        observed_at: when its chunks were observed (timezone-aware, UTC).
        chunks: in document order (at least one).
        file: the file read, if any (named in errors).
    """

    key: str
    name: str
    format: Format
    observed_at: datetime
    chunks: tuple[Chunk, ...]
    file: str | None = None

    @property
    def conversation_id(self) -> str:
        """The default conversation of the document: ``doc-<name>`` (``:`` becomes ``-``, which
        a conversation id may not contain). Two files of one name share it; their chunks stay
        apart by key."""
        return "doc-" + self.name.replace(":", "-")

    def source_of(self, chunk: Chunk) -> str:
        """``<key>#<heading trail>``, or the key alone for a chunk before any heading."""
        return f"{self.key}#{chunk.heading}" if chunk.trail else self.key

    def local_id(self, chunk: Chunk) -> str:
        """The chunk's local turn id: ``doc-<key hash>-<chunk digest>[-<occurrence>]``."""
        key = hashlib.sha256(self.key.encode("utf-8")).hexdigest()[:8]
        tail = f"-{chunk.occurrence}" if chunk.occurrence > 1 else ""
        return f"{DOCUMENT_ID_PREFIX}{key}-{chunk.digest}{tail}"


def load_document(
    path_or_text: str | os.PathLike[str],
    *,
    source: str | None = None,
    observed_at: datetime | None = None,
) -> Document:
    """Read, check and chunk a document (nothing is written).

    Args:
        path_or_text: a path (`os.PathLike`, or a one-line string that names an existing file
            or ends in ``.md`` / ``.markdown`` / ``.txt`` / ``.text`` / ``.pdf``), else the
            document's text itself (Markdown unless ``source`` ends in a non-Markdown suffix).
        source: the document's name and key instead of its path (give one for a text, so that
            re-ingesting a changed text replaces it).
        observed_at: when it was observed (timezone-aware); default the file's modification
            time, or now for a text.

    Returns:
        the `Document`.

    Raises:
        DocumentRejected: the file is too large, binary, undecodable, unreadable or empty, or
            a PDF without the ``pdf`` extra (the module docstring lists the rules).
        MalformedInput: an empty ``source``, or a naive ``observed_at``.
    """
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise MalformedInput("a document's source must be a non-empty string")
    if observed_at is not None and (
        not isinstance(observed_at, datetime) or observed_at.utcoffset() is None
    ):
        raise MalformedInput("observed_at must be a timezone-aware datetime", file=source)
    path = _as_path(path_or_text)
    pages: list[str] | None = None
    if path is not None:
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            pages, mtime = _read_pdf(path)
            text = ""
        else:
            text, mtime = _read_file(path)
        key = source.strip() if source else path.resolve().as_posix()
        fmt: Format = (
            "pdf" if pages is not None else "markdown" if suffix in MARKDOWN_SUFFIXES else "text"
        )
        name = PurePosixPath(source.strip()).name if source else path.name
        file: str | None = str(path)
        when = observed_at or mtime
    else:
        assert isinstance(path_or_text, str)
        return load_text(path_or_text, source=source, observed_at=observed_at)
    if pages is not None:
        chunks = chunk_pages(pages)
    else:
        chunks = chunk_markdown(text) if fmt == "markdown" else chunk_text(text)
    if not chunks:
        raise DocumentRejected(
            "the document has no text (only headings, markup or whitespace; a PDF without a "
            "text layer, such as a scan, has none)",
            kind="empty",
            file=file,
        )
    return Document(
        key=key,
        name=name or key,
        format=fmt,
        observed_at=when.astimezone(UTC),
        chunks=tuple(chunks),
        file=file,
    )


def load_text(
    text: str, *, source: str | None = None, observed_at: datetime | None = None
) -> Document:
    """Check and chunk a document given as text, never read as a path: what a service that
    takes documents from clients calls (`kgmem.http`), so a request cannot make the server
    read one of its own files.

    Args:
        text: the document's text (Markdown unless ``source`` ends in a non-Markdown suffix).
        source: the document's name and key (give one, so that re-adding a changed text
            replaces it); default ``text-<hash of the text>``.
        observed_at: when it was observed (timezone-aware); default now.

    Raises:
        DocumentRejected: too large, binary-like or empty.
        MalformedInput: not a string, an empty ``source``, or a naive ``observed_at``.
    """
    if not isinstance(text, str):
        raise MalformedInput(f"a document's text is a string, not {type(text).__name__}")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise MalformedInput("a document's source must be a non-empty string")
    if observed_at is not None and (
        not isinstance(observed_at, datetime) or observed_at.utcoffset() is None
    ):
        raise MalformedInput("observed_at must be a timezone-aware datetime", file=source)
    file = source.strip() if source else None
    text = _check_text(text, file)
    key = file or f"text-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"
    suffix = PurePosixPath(file).suffix.lower() if file else ""
    fmt: Format = "text" if suffix and suffix not in MARKDOWN_SUFFIXES else "markdown"
    name = PurePosixPath(file).name if file else "document"
    when = observed_at or datetime.now(UTC)
    chunks = chunk_markdown(text) if fmt == "markdown" else chunk_text(text)
    if not chunks:
        raise DocumentRejected(
            "the document has no text (only headings, markup or whitespace)",
            kind="empty",
            file=file,
        )
    return Document(
        key=key,
        name=name or key,
        format=fmt,
        observed_at=when.astimezone(UTC),
        chunks=tuple(chunks),
        file=file,
    )


def _as_path(value: str | os.PathLike[str]) -> Path | None:
    if isinstance(value, os.PathLike):
        return Path(value)
    if not isinstance(value, str):
        raise MalformedInput(
            f"a document is a path or a string of text, not {type(value).__name__}"
        )
    if "\n" in value or not value.strip() or len(value) > 4096:
        return None
    candidate = Path(value.strip())
    if candidate.suffix.lower() in _PATH_SUFFIXES:
        return candidate
    try:
        return candidate if candidate.is_file() else None
    except OSError:  # a name too long for the file system is text
        return None


def _read_bytes(path: Path, limit: int, name: str) -> tuple[bytes, datetime]:
    """The file's bytes and modification time (UTC), refused unread when over ``limit``."""
    where = str(path)
    try:
        info = path.stat()
        if not path.is_file():
            raise DocumentRejected("not a regular file", kind="unreadable", file=where)
        if info.st_size > limit:
            raise DocumentRejected(
                f"the file has {info.st_size:,} bytes, over the limit of {limit:,} "
                f"(kgmem.ingest.loaders.documents.{name}); split it",
                kind="too_large",
                file=where,
            )
        return path.read_bytes(), datetime.fromtimestamp(info.st_mtime, UTC)
    except OSError as exc:
        raise DocumentRejected(
            f"cannot read the file: {exc.strerror or exc}", kind="unreadable", file=where
        ) from exc


def _read_pdf(path: Path) -> tuple[list[str], datetime]:
    """The checked text of each page of a PDF (pypdf, the ``pdf`` extra) and its time."""
    where = str(path)
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError as exc:
        raise DocumentRejected(
            "reading PDF needs the pdf extra (pip install 'kgmem[pdf]'); or convert it to "
            "Markdown or text",
            kind="unsupported",
            file=where,
        ) from exc
    data, mtime = _read_bytes(path, MAX_PDF_BYTES, "MAX_PDF_BYTES")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentRejected(
                "the PDF is encrypted; save an unencrypted copy", kind="unreadable", file=where
            )
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:  # what pypdf raises on junk
        raise DocumentRejected(
            f"not a readable PDF ({type(exc).__name__}: {exc})", kind="undecodable", file=where
        ) from exc
    _check_text("\n\n".join(pages) or " ", where, allow_empty=True)
    return [p.replace("\r\n", "\n").replace("\r", "\n") for p in pages], mtime


def _read_file(path: Path) -> tuple[str, datetime]:
    """The file's checked text and its modification time (UTC)."""
    where = str(path)
    data, mtime = _read_bytes(path, MAX_DOCUMENT_BYTES, "MAX_DOCUMENT_BYTES")
    if b"\x00" in data:
        raise DocumentRejected(
            "the file holds NUL bytes: a binary file (or UTF-16 text; save it as UTF-8)",
            kind="binary",
            file=where,
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentRejected(
            f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            kind="undecodable",
            file=where,
        ) from exc
    return _check_text(text, where), mtime


def _check_text(text: str, file: str | None, *, allow_empty: bool = False) -> str:
    """``text`` with newlines normalised, or `DocumentRejected` (binary, too large, empty)."""
    try:
        check_unicode([text], file=file or "<document>", cid=None)
    except MalformedInput as exc:
        raise DocumentRejected(exc.reason, kind="undecodable", file=file) from exc
    if "\x00" in text:
        raise DocumentRejected("the text holds NUL characters", kind="binary", file=file)
    if len(text) > MAX_DOCUMENT_CHARS:
        raise DocumentRejected(
            f"the document has {len(text):,} characters, over the limit of "
            f"{MAX_DOCUMENT_CHARS:,} (kgmem.ingest.loaders.documents.MAX_DOCUMENT_CHARS); split it",
            kind="too_large",
            file=file,
        )
    controls = sum(
        1 for ch in text if ch not in _ALLOWED_CONTROLS and unicodedata.category(ch) == "Cc"
    )
    if controls > _CONTROL_SHARE * len(text):
        raise DocumentRejected(
            f"{controls:,} control characters in {len(text):,}: a binary file, not text",
            kind="binary",
            file=file,
        )
    if not text.strip() and not allow_empty:
        raise DocumentRejected("the document is empty", kind="empty", file=file)
    return text.replace("\r\n", "\n").replace("\r", "\n")
