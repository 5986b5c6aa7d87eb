"""What of a turn the fact extractor parses: its prose, within a budget.

Facts come from prose. A fenced code block (```` ``` ```` or ``~~~``) or a markdown table is
not English: parsed as sentences it yields clauses such as "user = User.query.get(id)" and costs
most of the parse of a long assistant answer. Such blocks stay searchable (each turn's
passages and the BM25 index hold the whole text; `kgmem.ingest.extraction.passages`); they are
only kept out of the parse, replaced by a line break so the sentences around them stay apart.

The parse is also bounded per turn: dependency parsing is the costliest step of ingest (over
85 % of extraction; `SpacyExtractor`), and a long turn's later paragraphs are reached by dense
search through its passages. The budget is `Settings.extract_chars` (``KGMEM_EXTRACT_CHARS``);
a turn's prose longer than it is cut at the last sentence end (else the last whitespace)
before the budget. A turn with no code or table and within the budget (every LoCoMo turn, every
turn under 500 characters) is parsed exactly as written.
"""

from __future__ import annotations

import re

__all__ = ["parsed_prose"]

_FENCED = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def parsed_prose(text: str, budget: int | None) -> str:
    """The part of ``text`` the fact extractor parses.

    Args:
        text: a turn's text (captions already split off).
        budget: the most characters parsed; None or 0 = no bound.

    Returns:
        ``text`` without fenced code blocks and markdown table rows (each replaced by one
        line break), cut at the last sentence end or line break (else whitespace) at or before
        ``budget`` characters. ``text`` itself when it holds neither and is within the budget.
    """
    if "```" in text or "~~~" in text:
        text = _FENCED.sub("\n", text)
    if "|" in text:
        text = _TABLE_ROW.sub("", text)
    if not budget or len(text) <= budget:
        return text
    head = text[:budget]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends:
        return head[: ends[-1]]
    cut = head.rfind(" ")
    return head[:cut] if cut > 0 else head
