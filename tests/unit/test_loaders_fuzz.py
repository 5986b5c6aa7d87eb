"""Property-based fuzzing of everything that reads untrusted text: the chat and LoCoMo loaders,
the date resolver and the query planner. Each either succeeds (with its documented invariants)
or raises a `KgmemError` subclass, never anything else.

Budget: ``KGMEM_FUZZ_EXAMPLES`` examples per test (default 200; profile in tests/strategies.py).
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kgmem.errors import DateParseError, InputError, KgmemError
from kgmem.ingest.extraction.dates import resolve_time
from kgmem.ingest.loaders.chat import load_chat, parse_chat_conversation
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.models import ConversationRecord
from kgmem.retrieve.plan import plan
from kgmem.time import parse_session_datetime
from tests.strategies import (
    FUZZ_EXAMPLES,
    chat_documents,
    json_values,
    locomo_samples,
    nasty_text,
    record_figure,
)

_outcomes = {"ok": 0, "typed_error": 0}


def _check(conv: ConversationRecord) -> None:
    """Invariants of a successfully loaded conversation."""
    assert conv.conversation_id and ":" not in conv.conversation_id
    ids = [t.id for t in conv.turns]
    assert len(set(ids)) == len(ids)
    for n, turn in enumerate(conv.turns):
        assert turn.index == n
        assert turn.id.startswith(conv.conversation_id + ":")
        assert turn.text.strip() and turn.speaker.strip()
        turn.text.encode("utf-8")
        turn.speaker.encode("utf-8")
        assert turn.observed_at.tzinfo is not None
    for fact in conv.facts:
        assert set(fact.cites) <= set(ids)


def _count(ok: bool) -> None:
    _outcomes["ok" if ok else "typed_error"] += 1


def _write(payload: bytes, suffix: str) -> Path:
    with tempfile.NamedTemporaryFile("wb", suffix=suffix, delete=False) as fh:
        fh.write(payload)
    return Path(fh.name)


@given(chat_documents)
def test_chat_parser_fuzz(doc: Any) -> None:
    try:
        conv = parse_chat_conversation(doc, file="fuzz.json")
    except InputError as exc:
        assert exc.file == "fuzz.json"
        _count(False)
        return
    _check(conv)
    _count(True)


@given(st.one_of(chat_documents.map(json.dumps), st.text(max_size=200)), st.integers(0, 400))
def test_chat_file_fuzz_with_truncation(text: str, cut: int) -> None:
    """Whole or truncated documents, as JSON or JSONL, as files on disk."""
    payload = text.encode("utf-8", "surrogatepass")[: cut or None]
    path = _write(payload, ".json")
    try:
        records = load_chat(path)
    except KgmemError as exc:
        assert str(path) in str(exc)
        _count(False)
        return
    finally:
        path.unlink()
    for conv in records:
        _check(conv)
    _count(True)


@given(st.lists(locomo_samples(), max_size=2), st.integers(0, 600))
def test_locomo_file_fuzz(samples: list[Any], cut: int) -> None:
    text = json.dumps(samples)
    path = _write(text.encode("utf-8", "surrogatepass")[: cut if cut % 3 == 0 else None], ".json")
    try:
        records = load_locomo(path)
    except KgmemError as exc:
        assert str(path) in str(exc)
        _count(False)
        return
    finally:
        path.unlink()
    for conv in records:
        _check(conv)
    _count(True)


@given(json_values)
def test_locomo_any_json_fuzz(value: Any) -> None:
    path = _write(json.dumps(value).encode("utf-8", "surrogatepass"), ".json")
    try:
        for conv in load_locomo(path):
            _check(conv)
        _count(True)
    except KgmemError:
        _count(False)
    finally:
        path.unlink()


_zones = st.sampled_from(
    [UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12, minutes=-30))]
)
_refs = st.builds(
    lambda d, z: d.replace(tzinfo=z),
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    _zones,
)
_phrases = st.one_of(
    nasty_text,
    st.lists(
        st.sampled_from(
            [
                "yesterday",
                "last",
                "next",
                "week",
                "weekend",
                "month",
                "year",
                "ago",
                "two",
                "3",
                "days",
                "Monday",
                "Sunday",
                "summer",
                "May",
                "2023",
                "in",
                "the",
                "of",
                "before",
                "10 May",
                "2023-05-08",
                "this",
                "coming",
                "a few",
                "earlier",
            ]
        ),
        max_size=8,
    ).map(" ".join),
)


@given(_phrases, _refs)
def test_resolve_time_fuzz(text: str, reference: datetime) -> None:
    for interval in resolve_time(text, reference):
        assert interval.start < interval.end
        assert interval.start.utcoffset() == timedelta(0)
        assert interval.phrase and interval.phrase in text
    _count(True)


@given(_phrases, st.datetimes())
def test_resolve_time_naive_reference_is_typed(text: str, reference: datetime) -> None:
    try:
        resolve_time(text, reference)
    except DateParseError:
        _count(False)
        return
    raise AssertionError("a naive reference must raise DateParseError")


@given(
    st.one_of(
        nasty_text,
        st.from_regex(r"\d{1,2}:\d{2} [ap]m on \d{1,2} [A-Z][a-z]+, \d{4}", fullmatch=True),
    )
)
def test_parse_session_datetime_fuzz(value: str) -> None:
    try:
        parsed = parse_session_datetime(value)
    except DateParseError:
        _count(False)
        return
    assert parsed.tzinfo is not None
    _count(True)


@given(st.one_of(nasty_text, _phrases, st.text(max_size=300)), st.one_of(st.none(), _refs))
def test_planner_fuzz(question: str, reference: datetime | None) -> None:
    """`plan` is documented never to raise: any text gives a serialisable, deterministic plan."""
    qplan = plan(question, reference=reference)
    assert qplan.operators and "semantic" in qplan.operators
    dumped = qplan.model_dump(mode="json")
    json.dumps(dumped)  # a plan is always serialisable
    assert plan(question, reference=reference).model_dump(mode="json") == dumped
    _count(True)


def test_fuzz_budget_reaches_a_fuzzer() -> None:
    """One full hypothesis run of a fuzzer tries the configured budget (not a handful of
    examples): measured on the planner fuzzer, called here directly, so the figure does not
    depend on which tests ran before."""
    before = sum(_outcomes.values())
    test_planner_fuzz()
    tried = sum(_outcomes.values()) - before
    record_figure("fuzz_inputs_planner", tried)
    assert tried >= FUZZ_EXAMPLES
