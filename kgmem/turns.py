"""Id rules and turn records, shared by every loader, `Memory.add_turns` and the read path.

Node ids are ``<conversation_id>:<local id>``. Local ids may contain ``:`` (LoCoMo's ``D1:3``),
so a conversation id must not: otherwise turn ``b:1`` of conversation ``a`` and turn ``1`` of
conversation ``a:b`` would share an id and the second ingest would overwrite the first tenant's
turn, silently moving it to the other tenant. Without ``:`` the prefix up to the first
``:`` names the tenant unambiguously.

`make_turn` is the one place a `TurnRecord` is built from untrusted input: every loader (LoCoMo,
the generic chat format, numbered fact lists) and `Memory.add_turns` call it, so a turn is
validated the same way wherever it comes from, and errors name the file, conversation and turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from kgmem.errors import MalformedInput
from kgmem.models import TurnRecord

__all__ = [
    "DOCUMENT_ID_PREFIX",
    "MAX_TURN_CHARS",
    "MAX_TURN_RAW_CHARS",
    "check_conversation_id",
    "check_turn_length",
    "check_unicode",
    "conversation_of",
    "is_document_turn",
    "make_turn",
    "turn_id",
    "turn_length",
    "turn_text",
]

#: the longest turn text accepted, in characters (caption included) counted with every run of
#: whitespace as one character (`turn_length`). spaCy's parser needs about 1 GB of temporary
#: memory per 100,000 characters of text (spaCy's documentation of ``max_length``), and what it
#: costs, like what the embedder and BM25 read, is tokens and passages: a run of blank padding
#: is one whitespace token however long it is. So the limit counts what is read, not the
#: padding: a generated answer padded with 340,000 blanks around 5,000 characters of text (seen
#: in BEAM) is accepted and stored exactly as given, while 200,000 characters of words (a pasted
#: document of that size takes about a minute to extract) is the most one turn may hold.
MAX_TURN_CHARS = 200_000
#: the longest raw turn text accepted, whitespace included: spaCy refuses a text over its
#: ``nlp.max_length`` (1,000,000) with a bare ``ValueError``.
MAX_TURN_RAW_CHARS = 1_000_000
_WHITESPACE_RUN = re.compile(r"\s{2,}")


def turn_length(text: str) -> int:
    """``text``'s length with every run of whitespace counted as one character (what
    `MAX_TURN_CHARS` bounds)."""
    return len(text) - sum(len(run.group()) - 1 for run in _WHITESPACE_RUN.finditer(text))


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")
#: a sentence that opens as a question: an interrogative word or an auxiliary first (after at
#: most one interjection such as "hmm,"); the closed class of English question openers
_ASKING_START = re.compile(
    r"^\W*(?:\w+,\s*)?(?:what|which|who|whom|whose|when|where|why|how|can|could|would|should|"
    r"will|shall|may|might|do|does|did|is|are|was|were|am|have|has|had|any)\b",
    re.IGNORECASE,
)


def only_asks(text: str) -> bool:
    """Whether ``text`` is a single question and nothing else ("Which trail shoes should I get
    for mud?", "hmm, can I still use Flask routes?"): one sentence that opens as a question and
    ends with "?". It states nothing, so it is neither evidence of an answer nor a conflict's
    end. A turn that states something first ("I prefer video samples, can you help me add
    them?", "I moved. Any tips?") is not."""
    body = text.strip()
    return (
        body.endswith("?")
        and _SENTENCE_BREAK.search(body) is None
        and _ASKING_START.match(body) is not None
    )


def check_unicode(
    values: Iterable[str], *, file: str, cid: str | None, turn: str | None = None
) -> None:
    """Raise `MalformedInput` if a string cannot be encoded as UTF-8.

    JSON may spell lone UTF-16 surrogates (``"\\ud83d"``); Python decodes them into strings
    that neither the tokenizer nor the Neo4j driver accepts (a ``TypeError`` deep inside the
    embedder). Reliability tests found this; rejecting them here names the turn instead.
    """
    for value in values:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise MalformedInput(
                f"text is not valid Unicode (lone surrogate at position {exc.start})",
                file=file,
                conversation_id=cid,
                turn=turn,
            ) from exc


def check_conversation_id(cid: str, *, file: str) -> None:
    """Raise `MalformedInput` if ``cid`` is empty, contains ``:`` or is not valid Unicode
    (see the module docstring for why ``:`` is reserved)."""
    check_unicode([cid], file=file, cid=None)
    if not cid.strip():
        raise MalformedInput("conversation id must not be empty", file=file)
    if ":" in cid:
        raise MalformedInput(
            "conversation id must not contain ':' (it separates the id from turn ids)",
            file=file,
            conversation_id=cid,
        )


DOCUMENT_ID_PREFIX = "doc-"
"""Every document chunk's local turn id starts with this (`kgmem.ingest.loaders.documents`)."""


def is_document_turn(full_turn_id: str) -> bool:
    """Whether a full turn id (``<conversation_id>:<local id>``) names a document chunk."""
    return full_turn_id.partition(":")[2].startswith(DOCUMENT_ID_PREFIX)


def conversation_of(turn_id: str) -> str:
    """The conversation id of a turn id (the part before the first ``:``; a conversation id
    never holds one, see `check_conversation_id`)."""
    return turn_id.partition(":")[0]


def turn_id(conversation_id: str, local: str) -> str:
    """The node id of a turn: ``<conversation_id>:<local id>`` (e.g. ``conv-26:D1:3``)."""
    return f"{conversation_id}:{local}"


def turn_text(text: str, caption: str | None) -> str:
    """The stored turn text: the utterance, plus ``[shared image: <caption>]`` if any."""
    text = text.strip()
    if caption and caption.strip():
        shared = f"[shared image: {caption.strip()}]"
        return f"{text} {shared}" if text else shared
    return text


def check_turn_length(text: str, *, file: str, conversation_id: str, turn: str) -> None:
    """Raise `MalformedInput` for a text over `MAX_TURN_CHARS` (each whitespace run counted as
    one character, `turn_length`) or over `MAX_TURN_RAW_CHARS` in all."""
    length = turn_length(text)
    if length > MAX_TURN_CHARS or len(text) > MAX_TURN_RAW_CHARS:
        raise MalformedInput(
            f"turn text has {length:,} characters counting each whitespace run as one "
            f"({len(text):,} in all), over the limit of {MAX_TURN_CHARS:,} "
            f"(kgmem.turns.MAX_TURN_CHARS; {MAX_TURN_RAW_CHARS:,} with whitespace, "
            "MAX_TURN_RAW_CHARS); split it into several turns",
            file=file,
            conversation_id=conversation_id,
            turn=turn,
        )


def make_turn(
    conversation_id: str,
    local: Any,
    *,
    speaker: Any,
    text: Any,
    session: int,
    index: int,
    observed_at: Any,
    caption: Any = None,
    file: str = "<memory>",
) -> TurnRecord:
    """Validate one raw turn and build its record.

    Args:
        conversation_id: the tenant (already checked with `check_conversation_id`).
        local: the turn's local id (string or integer; stripped).
        speaker: who said it (non-empty string; stripped).
        text: the utterance (string); with ``caption`` it must not be empty.
        session: 1-based session number; index: 0-based position in the conversation.
        observed_at: a timezone-aware datetime (stored in UTC).
        caption: an optional image caption, appended as ``[shared image: ...]``.
        file: named in errors.

    Raises:
        MalformedInput: an empty or non-string id, speaker or text, a caption that is not a
            string, invalid Unicode, a text over `MAX_TURN_CHARS` (whitespace runs counted
            as one character) or `MAX_TURN_RAW_CHARS`, or a naive (or
            non-datetime) ``observed_at``; the message names the file, conversation and turn.
    """
    where = str(local).strip() if isinstance(local, str | int) else f"#{index}"
    if not isinstance(local, str | int) or isinstance(local, bool) or not where:
        raise MalformedInput(
            "turn 'id' must be a non-empty string",
            file=file,
            conversation_id=conversation_id,
            turn=f"#{index}",
        )
    if not isinstance(speaker, str) or not speaker.strip():
        raise MalformedInput(
            "turn has no speaker", file=file, conversation_id=conversation_id, turn=where
        )
    if not isinstance(text, str) or (caption is not None and not isinstance(caption, str)):
        raise MalformedInput(
            "turn text must be a string", file=file, conversation_id=conversation_id, turn=where
        )
    full = turn_text(text, caption)
    if not full:
        raise MalformedInput(
            "turn has no text", file=file, conversation_id=conversation_id, turn=where
        )
    check_turn_length(full, file=file, conversation_id=conversation_id, turn=where)
    if not isinstance(observed_at, datetime) or observed_at.utcoffset() is None:
        raise MalformedInput(
            "observed_at must be a timezone-aware datetime",
            file=file,
            conversation_id=conversation_id,
            turn=where,
        )
    speaker = speaker.strip()
    check_unicode([where, speaker, full], file=file, cid=conversation_id, turn=where)
    return TurnRecord(
        id=turn_id(conversation_id, where),
        conversation_id=conversation_id,
        session=session,
        index=index,
        dia_id=where,
        speaker=speaker,
        text=full,
        observed_at=observed_at.astimezone(UTC),
    )
