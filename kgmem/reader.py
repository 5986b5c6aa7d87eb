"""The optional reader: a citation-locked answer from an OpenAI-compatible chat endpoint.

``kgmem ask`` retrieves turns, hands them to a chat model as a numbered list (each with its
turn id, date and speaker) and asks for an answer that cites turn ids in square brackets. The
lock is applied in code, not trusted to the model: citations are checked against the turns
the model was given, and an answer with no valid citation becomes an abstention
(`ABSTENTION`, "not in memory"). Nothing derived replaces the raw text: the reader only ever
sees original turns (docs/design.md §1).

Settings (``KGMEM_READER_*``): ``reader_base_url`` (e.g. ``http://127.0.0.1:8080/v1``; the
client POSTs to ``<base_url>/chat/completions``), ``reader_model``, ``reader_api_key``
(optional bearer token), ``reader_max_tokens`` (the completion cap), ``reader_timeout_s``.
Calls use temperature 0, retry 429 and 5xx answers and transport errors with exponential
back-off (tenacity), and record tokens in/out and latency.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import BaseModel, Field
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from kgmem.config import DEFAULT_K, Settings
from kgmem.errors import ReaderError
from kgmem.models import Hit

if TYPE_CHECKING:
    from kgmem.api import Memory
    from kgmem.retrieve.retriever import SearchResult

__all__ = [
    "ABSTENTION",
    "Reader",
    "ReaderAnswer",
    "answer_result",
    "ask",
    "build_messages",
    "format_turns",
    "lock_citations",
]

#: what an abstaining answer says
ABSTENTION = "not in memory"

SYSTEM_PROMPT = (
    "You answer questions about a past conversation using ONLY the numbered turns you are "
    "given. Each turn reads: [n] turn_id (date, speaker): text. Dates are the day the turn was "
    "said; resolve relative dates ('yesterday', 'last week') against that date. Answer in one "
    "or two short sentences and cite every turn you rely on by writing its turn_id in square "
    "brackets, e.g. [conv-1:D1:3]. If the turns do not answer the question, reply exactly: "
    f"{ABSTENTION}"
)

_BRACKETS = re.compile(r"\[([^\[\]\n]{1,200})\]")
_SEPARATORS = re.compile(r"[,;]|\s+and\s+")


class ReaderAnswer(BaseModel):
    """A citation-locked answer.

    Attributes:
        question, conversation_id: what was asked, of which conversation.
        answer: the model's answer (citations kept inline), or `ABSTENTION`.
        abstained: True when the answer is `ABSTENTION`.
        reason: why it abstained: ``no turns retrieved``, ``not supported by memory: …``
            (`SearchResult.answerable` was False; no model call), ``model abstained``,
            ``no valid citation``; None when it answered.
        citations: valid cited turn ids, in order of first citation.
        invalid_citations: bracketed tokens that named no given turn (dropped).
        raw: the model's text as received ("" when no call was made).
        turn_ids: the turn ids the model was shown, in the order numbered.
        model: the model name sent.
        tokens_in, tokens_out: the endpoint's reported usage (None if it reported none).
        latency_ms: wall time of the chat call including retries, milliseconds.
    """

    question: str
    conversation_id: str
    answer: str
    abstained: bool
    reason: str | None = None
    citations: list[str] = Field(default_factory=list)
    invalid_citations: list[str] = Field(default_factory=list)
    raw: str = ""
    turn_ids: list[str] = Field(default_factory=list)
    model: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: float = 0.0


def format_turns(hits: Sequence[Hit]) -> str:
    """The numbered turn list the model sees: ``[n] turn_id (YYYY-MM-DD, speaker): text``."""
    return "\n".join(
        f"[{n}] {hit.turn_id} ({hit.observed_at.date().isoformat()}, {hit.speaker}): "
        f"{' '.join(hit.text.split())}"
        for n, hit in enumerate(hits, start=1)
    )


def build_messages(question: str, hits: Sequence[Hit]) -> list[dict[str, str]]:
    """Chat messages (system + user) for ``question`` over ``hits``, OpenAI format."""
    user = f"Turns:\n{format_turns(hits)}\n\nQuestion: {' '.join(question.split())}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def lock_citations(
    raw: str, turn_ids: Sequence[str]
) -> tuple[str, str | None, list[str], list[str]]:
    """Apply the citation lock to a model's text.

    A bracketed token cites a turn when it equals one of ``turn_ids`` or is the 1-based number
    of one in the list the model saw (``[2]``); several may share brackets (``[a, b]``).

    Args:
        raw: the model's answer text.
        turn_ids: the turn ids the model was shown, in numbered order.

    Returns:
        ``(answer, reason, citations, invalid)``: ``answer`` is ``raw`` stripped, or
        `ABSTENTION` when the model abstained (``reason`` ``"model abstained"``) or cited no
        given turn (``reason`` ``"no valid citation"``); ``reason`` is None when it answered.
    """
    allowed = set(turn_ids)
    citations: list[str] = []
    invalid: list[str] = []
    for group in _BRACKETS.findall(raw):
        for token in (part.strip() for part in _SEPARATORS.split(group)):
            if not token:
                continue
            cited: str | None = None
            if token in allowed:
                cited = token
            elif token.isdigit() and 1 <= int(token) <= len(turn_ids):
                cited = turn_ids[int(token) - 1]
            if cited is None:
                invalid.append(token)
            elif cited not in citations:
                citations.append(cited)
    text = raw.strip()
    if text.lower().strip(" .!\"'") == ABSTENTION or text.lower().startswith(ABSTENTION):
        return ABSTENTION, "model abstained", [], invalid
    if not citations:
        return ABSTENTION, "no valid citation", [], invalid
    return text, None, citations, invalid


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code == 429 or exc.response.status_code >= 500
    return isinstance(exc, httpx.TransportError)


class Reader:
    """A client for one OpenAI-compatible ``/chat/completions`` endpoint.

    The constructor makes no request. Use `Reader.from_settings`, then `answer`; `close` (or
    ``with``) releases the HTTP connection pool.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1``.
        model: the model name to send.
        api_key: bearer token, or None.
        max_tokens: completion token cap (>= 1).
        timeout_s: per-request timeout in seconds.
        attempts: tries per call (429/5xx/transport errors are retried; >= 1).
        backoff_s: first back-off wait in seconds (doubles per retry, capped at 8 s).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        max_tokens: int = 256,
        timeout_s: float = 60.0,
        attempts: int = 4,
        backoff_s: float = 0.5,
    ) -> None:
        if max_tokens < 1 or attempts < 1:
            raise ValueError("max_tokens and attempts must be >= 1")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.max_tokens = max_tokens
        self.attempts = attempts
        self.backoff_s = backoff_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(timeout=timeout_s, headers=headers)

    @classmethod
    def from_settings(cls, settings: Settings) -> Reader:
        """A reader from ``KGMEM_READER_*``. Raises `ReaderError` when no endpoint is set."""
        if not settings.reader_base_url or not settings.reader_model:
            raise ReaderError(
                "no reader configured: set KGMEM_READER_BASE_URL (an OpenAI-compatible API root, "
                "e.g. http://127.0.0.1:8080/v1) and KGMEM_READER_MODEL; `kgmem search` works "
                "without one"
            )
        key = settings.reader_api_key.get_secret_value() if settings.reader_api_key else None
        return cls(
            settings.reader_base_url,
            settings.reader_model,
            api_key=key,
            max_tokens=settings.reader_max_tokens,
            timeout_s=settings.reader_timeout_s,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, Any], float]:
        """One chat completion at temperature 0.

        Returns:
            ``(text, usage, latency_ms)``; ``usage`` as the endpoint reported it (may be {}).

        Raises:
            ReaderError: a non-retryable HTTP error, retries exhausted, or a malformed answer.
        """
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        url = f"{self.base_url}/chat/completions"
        started = time.perf_counter()
        try:
            for attempt in Retrying(
                stop=stop_after_attempt(self.attempts),
                wait=wait_exponential(multiplier=self.backoff_s, max=8),
                retry=retry_if_exception(_retryable),
                reraise=True,
            ):
                with attempt:
                    response = self._http.post(url, json=body)
                    response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            raise ReaderError(
                f"reader endpoint {url} answered HTTP {exc.response.status_code}: "
                f"{exc.response.text[:200]}"
            ) from exc
        except (httpx.HTTPError, RetryError) as exc:
            raise ReaderError(f"reader endpoint {url} failed: {exc}") from exc
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ReaderError(f"reader endpoint {url} sent no chat completion: {exc}") from exc
        usage = data.get("usage") or {}
        return str(text), usage if isinstance(usage, dict) else {}, latency_ms

    def answer(self, question: str, hits: Sequence[Hit], conversation_id: str) -> ReaderAnswer:
        """A citation-locked answer to ``question`` from ``hits`` (no call when there are none)."""
        turn_ids = [hit.turn_id for hit in hits]
        base = ReaderAnswer(
            question=question,
            conversation_id=conversation_id,
            answer=ABSTENTION,
            abstained=True,
            turn_ids=turn_ids,
            model=self.model,
        )
        if not hits:
            return base.model_copy(update={"reason": "no turns retrieved"})
        raw, usage, latency_ms = self.complete(build_messages(question, hits))
        answer, reason, citations, invalid = lock_citations(raw, turn_ids)
        return base.model_copy(
            update={
                "answer": answer,
                "abstained": reason is not None,
                "reason": reason,
                "citations": citations,
                "invalid_citations": invalid,
                "raw": raw,
                "tokens_in": usage.get("prompt_tokens"),
                "tokens_out": usage.get("completion_tokens"),
                "latency_ms": latency_ms,
            }
        )


def ask(
    memory: Memory, reader: Reader, question: str, conversation_id: str, k: int = DEFAULT_K
) -> ReaderAnswer:
    """Search ``conversation_id`` for ``question`` and answer from the top ``k`` turns; abstain
    without calling the model when the search finds the question unanswerable
    (`kgmem.retrieve.retriever.SearchResult.answerable`).

    Raises:
        ReaderError: the endpoint failed (see `Reader.complete`).
    """
    return answer_result(reader, memory.search(question, conversation_id, k), conversation_id)


def answer_result(reader: Reader, result: SearchResult, conversation_id: str) -> ReaderAnswer:
    """The citation-locked answer to a search's question from all of its hits; an abstention
    without a model call when the search found the question unanswerable.

    Raises:
        ReaderError: the endpoint failed (see `Reader.complete`).
    """
    question = result.query
    if not result.answerable:  # nothing in memory supports it for the person it names
        detail = result.answerability.get("reason", "")
        return ReaderAnswer(
            question=question,
            conversation_id=conversation_id,
            answer=ABSTENTION,
            abstained=True,
            reason=f"not supported by memory: {detail}".rstrip(": "),
            turn_ids=[hit.turn_id for hit in result.hits],
            model=reader.model,
        )
    return reader.answer(question, result.hits, conversation_id)
