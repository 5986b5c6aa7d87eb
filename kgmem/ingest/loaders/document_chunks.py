"""Chunking of documents (pure, no I/O): Markdown sections, plain-text paragraphs and PDF pages
packed into chunks of at most `CHUNK_CHARS` characters, each with its heading trail and content
digest. The rules are described in `kgmem.ingest.loaders.documents`.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CHUNK_CHARS", "Chunk", "chunk_markdown", "chunk_pages", "chunk_text"]

#: the longest chunk, in characters. The embedder (all-MiniLM-L6-v2) reads at most 256 word
#: pieces of a text and ignores the rest; technical Markdown runs at about 3.4 characters a word
#: piece (measured with its tokenizer on docs/design.md and docs/retrieval.md: 17,292
#: characters, 5,055 pieces), so 800 characters (about 235 pieces) is the most a chunk can hold
#: with every word of it seen by dense retrieval. Chat turns, which the read path is tuned on,
#: are shorter still.
CHUNK_CHARS = 800

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
#: YAML front matter (Jekyll, Hugo, MkDocs): metadata, not text, at the very start of a file
_FRONT_MATTER = re.compile(
    r"\A---[ \t]*\n[\w-]+[ \t]*:.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL
)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_TRAIL_SEP = " > "


@dataclass(frozen=True)
class Chunk:
    """One chunk of a document, in document order.

    Attributes:
        trail: the heading trail, outermost first (empty before the first heading or in a
            plain-text file).
        text: the chunk's plain text (at most about `CHUNK_CHARS` characters).
        digest: hex SHA-256 prefix of the trail and the text (what re-ingest compares).
        occurrence: 1 for the first chunk of this digest in the document, 2 for a repeat, ...
    """

    trail: tuple[str, ...]
    text: str
    digest: str
    occurrence: int = 1

    @property
    def heading(self) -> str:
        """The trail as one string (``Install > Linux``; empty if none)."""
        return _TRAIL_SEP.join(self.trail)


def chunk_markdown(text: str, *, limit: int = CHUNK_CHARS) -> list[Chunk]:
    """Split Markdown into chunks by sections (see the module docstring).

    Args:
        text: the Markdown source.
        limit: the longest chunk in characters (a section's heading line may add its length to
            the first chunk).

    Returns:
        chunks in document order (empty if the text holds no text outside markup).
    """
    sections: list[tuple[tuple[str, ...], str | None, list[str]]] = [((), None, [])]
    for trail, block, is_heading in _markdown_blocks(text):
        if is_heading:
            sections.append((trail, block, []))
        else:
            sections[-1][2].append(block)
    return _chunks(sections, limit)


def chunk_text(text: str, *, limit: int = CHUNK_CHARS) -> list[Chunk]:
    """Split plain text into chunks of paragraphs (blank-line separated), one section."""
    return _chunks([((), None, _paragraphs(text))], limit)


def chunk_pages(pages: Sequence[str], *, limit: int = CHUNK_CHARS) -> list[Chunk]:
    """Split a PDF's page texts into chunks: one section per page, its trail ``page <n>``
    (1-based), its paragraphs packed like plain text."""
    return _chunks([((f"page {n}",), None, _paragraphs(p)) for n, p in enumerate(pages, 1)], limit)


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _PARAGRAPH.split(text) if p.strip()]


def _chunks(
    sections: Sequence[tuple[tuple[str, ...], str | None, list[str]]], limit: int
) -> list[Chunk]:
    out: list[Chunk] = []
    seen: dict[str, int] = {}
    for trail, heading, blocks in sections:
        if not blocks:
            continue  # a heading without text of its own lives on in its subsections' trails
        for body in _pack(heading, blocks, limit):
            digest = hashlib.sha256(
                (_TRAIL_SEP.join(trail) + "\x1f" + body).encode("utf-8")
            ).hexdigest()[:16]
            seen[digest] = seen.get(digest, 0) + 1
            out.append(Chunk(trail=trail, text=body, digest=digest, occurrence=seen[digest]))
    return out


def _pack(heading: str | None, blocks: Sequence[str], limit: int) -> list[str]:
    """Greedy packing of a section's blocks into chunks of at most ``limit`` characters."""
    pieces = [piece for block in blocks for piece in _split(block, limit)]
    chunks: list[str] = []
    current = heading or ""
    fresh = True  # current holds nothing but the heading: the next piece joins it whatever
    for piece in pieces:
        if not fresh and len(current) + 2 + len(piece) > limit:
            chunks.append(current)
            current, fresh = piece, False
            continue
        joiner = "\n" if fresh and current else ("\n\n" if current else "")
        current, fresh = current + joiner + piece, False
    if current and not fresh:
        chunks.append(current)
    return chunks


def _split(block: str, limit: int) -> list[str]:
    """A block cut into pieces of at most ``limit`` characters: at line breaks (kept), then at
    sentence ends, then (a sentence longer than ``limit``) at spaces, then anywhere."""
    if len(block) <= limit:
        return [block]
    units: list[tuple[str, str]] = []  # (what joins it to the unit before, its text)
    for line in block.split("\n"):
        if not line.strip():
            continue
        sentences = [line] if len(line) <= limit else _SENTENCE_END.split(line)
        joiner = "\n"
        for sentence in (s for s in sentences if s.strip()):
            parts = (
                [sentence]
                if len(sentence) <= limit
                else textwrap.wrap(sentence, limit, break_long_words=True, break_on_hyphens=False)
            )
            for part in parts:
                units.append((joiner, part))
                joiner = " "
    pieces: list[str] = []
    current = ""
    for joiner, part in units:
        if current and len(current) + 1 + len(part) > limit:
            pieces.append(current)
            current = part
        else:
            current = current + joiner + part if current else part
    if current:
        pieces.append(current)
    return pieces


def _markdown_blocks(text: str) -> list[tuple[tuple[str, ...], str, bool]]:
    """(heading trail, plain text, is a heading) for every top-level block, in order."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(_FRONT_MATTER.sub("", text, count=1))
    trail: list[tuple[int, str]] = []
    out: list[tuple[tuple[str, ...], str, bool]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            level = int(tok.tag[1:])
            title = _inline(tokens[i + 1]).strip()
            while trail and trail[-1][0] >= level:
                trail.pop()
            if title:
                trail.append((level, title))
                out.append((tuple(t for _, t in trail), title, True))
            i += 3  # heading_open, inline, heading_close
            continue
        end = i
        if tok.nesting == 1:  # a container: up to its close at the same level
            while not (tokens[end].nesting == -1 and tokens[end].level == tok.level):
                end += 1
        body = _render(tokens[i : end + 1]).strip()
        if body:
            out.append((tuple(t for _, t in trail), body, False))
        i = end + 1
    return out


def _render(tokens: Sequence[Any]) -> str:
    """Plain text of one top-level block's tokens."""
    lines: list[str] = []
    lists: list[int | None] = []  # per open list: the next number, or None for bullets
    marker: str | None = None
    row: list[str] | None = None
    for tok in tokens:
        kind = tok.type
        if kind == "bullet_list_open":
            lists.append(None)
        elif kind == "ordered_list_open":
            start = tok.attrGet("start")
            lists.append(int(start) if start is not None else 1)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open" and lists:
            number = lists[-1]
            marker = "  " * (len(lists) - 1) + ("- " if number is None else f"{number}. ")
            if number is not None:
                lists[-1] = number + 1
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            lines.append(" | ".join(row))
            row = None
        elif kind == "inline":
            content = _inline(tok).strip()
            if row is not None:
                row.append(content)
            elif content:
                if marker is not None:
                    lines.append(marker + content)
                    marker = None
                else:
                    lines.append("  " * len(lists) + content)
        elif kind in ("fence", "code_block", "html_block"):
            code = tok.content.rstrip("\n")
            if code.strip():
                lines.append(code)
    return "\n".join(lines)


def _inline(tok: Any) -> str:
    """Plain text of an inline token: text and code kept, markup and link targets dropped."""
    parts: list[str] = []
    for child in tok.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content)  # the alt text
    return "".join(parts)
