"""Long turns as passages: what the embedder sees of a turn longer than its window.

all-MiniLM-L6-v2 reads the first 256 word pieces of a text and ignores the rest, so without
this a key fact after a code block in a 5,000-character assistant answer is invisible to dense
search. A turn longer than `PASSAGE_CHARS` (counted as `kgmem.turns.turn_length` counts: a run
of whitespace is one character) is split into passages, each embedded on its own and stored as
a ``(:Passage)-[:OF]->(:Turn)`` node with its character offsets into the stored text; a turn's
dense score weighs its best passage against its head and the number of its passages
(`kgmem.retrieve.generators.with_passage`). A shorter turn is one passage, the turn
itself, and gets no Passage node: its embedding is exactly what it was before passages existed
(every LoCoMo turn is under 500 characters).

How a long turn is cut (`passage_spans`), coarsest first:

1. blocks: fenced code blocks (````` ``` `````) whole, and paragraphs (text between blank lines);
2. a block over the budget is cut into lines (code) or sentences (prose);
3. a line or sentence still over the budget is cut into windows of the budget overlapping by
   `OVERLAP_CHARS`, so a sentence cut in two is whole in one of the windows or nearly so;
4. consecutive pieces are packed together up to the budget.

Whitespace between pieces belongs to no passage (blank padding yields none); nothing else is
dropped: every non-blank character of the turn is in at least one passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.turns import turn_length

__all__ = [
    "OVERLAP_CHARS",
    "PASSAGE_CHARS",
    "Embedded",
    "embed_turn_texts",
    "passage_spans",
]

#: the longest passage, in characters with whitespace runs counted as one: about 200 word
#: pieces of English prose, inside MiniLM's window of 256 (code runs nearer 3 characters a
#: piece, so a dense code passage may lose its last lines to the window; the next passage
#: starts there only when packing put a boundary there, which is why code is cut by lines)
PASSAGE_CHARS = 800
#: a one-passage text longer than this (raw, padding included) is embedded with its whitespace
#: runs collapsed: the embedder clips its input at 4,000 raw characters
RAW_EMBED_CHARS = 4 * PASSAGE_CHARS
#: how much two windows of one over-long sentence or line share
OVERLAP_CHARS = 120

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+")
_LINE_END = re.compile(r"\n")

Span = tuple[int, int]


def _trimmed(text: str, start: int, end: int) -> Span | None:
    """``[start, end)`` without its leading and trailing whitespace; None if all blank."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _split(text: str, start: int, end: int, separator: re.Pattern[str]) -> list[Span]:
    """``text[start:end]`` cut at every match of ``separator`` (matches dropped, trimmed)."""
    out: list[Span] = []
    at = start
    for m in separator.finditer(text, start, end):
        piece = _trimmed(text, at, m.start())
        if piece:
            out.append(piece)
        at = m.end()
    piece = _trimmed(text, at, end)
    if piece:
        out.append(piece)
    return out


def _blocks(text: str) -> list[tuple[Span, bool]]:
    """Fenced code blocks whole and paragraphs, in order: ``((start, end), is_code)``."""
    out: list[tuple[Span, bool]] = []
    at = 0
    for m in _FENCE.finditer(text):
        out.extend((span, False) for span in _split(text, at, m.start(), _BLANK_LINE))
        out.append(((m.start(), m.end()), True))
        at = m.end()
    out.extend((span, False) for span in _split(text, at, len(text), _BLANK_LINE))
    return out


def _length(text: str, span: Span) -> int:
    return turn_length(text[span[0] : span[1]])


def _windows(text: str, span: Span, budget: int, overlap: int) -> list[Span]:
    """``span`` in windows of at most ``budget`` raw characters overlapping by ``overlap``."""
    out: list[Span] = []
    start, end = span
    step = max(budget - overlap, 1)
    at = start
    while at < end:
        piece = _trimmed(text, at, min(at + budget, end))
        if piece:
            out.append(piece)
        if at + budget >= end:
            break
        at += step
    return out


def _pieces(text: str, span: Span, code: bool, budget: int, overlap: int) -> list[Span]:
    """``span`` as pieces of at most ``budget``: whole, else lines or sentences, else windows."""
    if _length(text, span) <= budget:
        return [span]
    out: list[Span] = []
    for part in _split(text, span[0], span[1], _LINE_END if code else _SENTENCE_END):
        if _length(text, part) <= budget:
            out.append(part)
        elif not code:  # a sentence over the budget may still hold lines (a list, a table)
            for line in _split(text, part[0], part[1], _LINE_END):
                if _length(text, line) <= budget:
                    out.append(line)
                else:
                    out.extend(_windows(text, line, budget, overlap))
        else:
            out.extend(_windows(text, part, budget, overlap))
    return out


def passage_spans(
    text: str, budget: int = PASSAGE_CHARS, overlap: int = OVERLAP_CHARS
) -> list[Span]:
    """The passages of ``text`` as ``(start, end)`` character offsets into it, in order.

    Args:
        text: a turn's stored text.
        budget: the longest passage (`turn_length`, whitespace runs counted as one); > overlap.
        overlap: characters shared by two windows of one over-long sentence or line.

    Returns:
        ``[(0, len(text))]`` when the text fits the budget (one passage, the turn itself);
        otherwise the passages described in the module docstring, at least one.
    """
    if turn_length(text) <= budget:
        return [(0, len(text))]
    pieces = [
        piece
        for span, code in _blocks(text)
        for piece in _pieces(text, span, code, budget, overlap)
    ]
    packed: list[Span] = []
    for piece in pieces:
        if packed and piece[0] >= packed[-1][1]:
            merged = (packed[-1][0], piece[1])
            if _length(text, merged) <= budget:
                packed[-1] = merged
                continue
        packed.append(piece)
    return packed or [(0, len(text))]


@dataclass(frozen=True)
class Embedded:
    """One turn's vectors.

    Attributes:
        vector: the turn's own embedding, ``(dim,)`` float32, unit norm: of its whole text when
            it is one passage, else of its first passage.
        passages: ``(start, end, vector)`` of every passage when there are two or more (empty
            for a turn that is one passage).
    """

    vector: npt.NDArray[np.float32]
    passages: tuple[tuple[int, int, npt.NDArray[np.float32]], ...] = ()


def embed_turn_texts(encode: Any, texts: Sequence[str]) -> list[Embedded]:
    """Embed turn texts, long ones as passages, in one batch.

    Args:
        encode: the embedder's ``encode`` (texts → ``(n, dim)`` float32, rows unit norm).
        texts: stored turn texts.

    Returns:
        One `Embedded` per text, in order.
    """
    spans = [passage_spans(text) for text in texts]
    inputs: list[str] = []
    for text, cut in zip(texts, spans, strict=True):
        if len(cut) == 1:
            # a short text as it is (so every LoCoMo turn embeds exactly as before); a padded
            # one without its padding, which would push its words past the embedder's clip
            inputs.append(text if len(text) <= RAW_EMBED_CHARS else " ".join(text.split()))
        else:
            # whitespace runs as one space: a passage packed across blank padding stays short
            # for the embedder's character clip, and the tokenizer reads the same words
            inputs.extend(" ".join(text[s:e].split()) for s, e in cut)
    vectors = encode(inputs)
    out: list[Embedded] = []
    at = 0
    for cut in spans:
        if len(cut) == 1:
            out.append(Embedded(vector=vectors[at]))
            at += 1
            continue
        parts = tuple((s, e, vectors[at + n]) for n, (s, e) in enumerate(cut))
        out.append(Embedded(vector=parts[0][2], passages=parts))
        at += len(cut)
    return out
