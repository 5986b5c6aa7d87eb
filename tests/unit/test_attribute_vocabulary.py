"""The attribute vocabulary is written for everyday life, not for the test sentences: no
three-word sequence of any sentence of a cases file (``../shared/data/cases/*.json``) occurs
in it, and every entry has the fields `kgmem.ingest.extraction.attributes` reads."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgmem.ingest.extraction.attributes import VOCABULARY_FILE, vocabulary
from kgmem.ingest.extraction.values import VALUE_TYPES

CASES_DIR = Path(
    os.environ.get("KGMEM_CASES_DIR")
    or Path(__file__).resolve().parents[3] / "shared" / "data" / "cases"
)
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _trigrams(text: str) -> set[tuple[str, str, str]]:
    words = _WORD.findall(text.lower())
    return set(zip(words, words[1:], words[2:], strict=False))


def _vocabulary_trigrams() -> set[tuple[str, str, str]]:
    data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    out: set[tuple[str, str, str]] = set()
    for entry in data["attributes"]:  # the "about" text explains the file, it states nothing
        for text in _strings(entry):
            out |= _trigrams(text)
    return out


def _case_sentences(data: dict[str, Any]) -> Iterator[str]:
    for case in data.get("cases", []):
        conversation = case.get("conversation") or {}
        for session in conversation.get("sessions", []):
            for turn in session.get("turns", []):
                yield str(turn.get("text", ""))
        for query in case.get("queries", []):
            yield str(query.get("query", ""))


def test_no_case_trigram_in_the_vocabulary() -> None:
    files = sorted(CASES_DIR.glob("*.json"))
    if not files:
        pytest.skip(f"no cases files in {CASES_DIR}")
    vocab = _vocabulary_trigrams()
    found = {
        (path.name, " ".join(gram), sentence)
        for path in files
        for sentence in _case_sentences(json.loads(path.read_text(encoding="utf-8")))
        for gram in _trigrams(sentence) & vocab
    }
    assert not found, f"case word sequences in {VOCABULARY_FILE.name}: {sorted(found)}"


def test_trigram_reader_sees_a_planted_sequence() -> None:
    assert ("live", "in", "a") in _trigrams("I live in a flat")


def test_every_attribute_is_well_formed() -> None:
    vocab = vocabulary()
    assert len(vocab.attributes) >= 20
    for attribute in vocab.attributes.values():
        assert attribute.multiplicity in ("single", "multi")
        assert attribute.value_types and set(attribute.value_types) <= set(VALUE_TYPES)
        assert attribute.questions, attribute.id


def test_every_value_type_the_code_names_is_a_value_type() -> None:
    from kgmem.ingest.extraction import attributes, value_statements
    from kgmem.ingest.extraction.values import VALUE_TYPES
    from kgmem.retrieve.resolve import ANSWER_TYPES

    named = (
        attributes._DISTINCTIVE
        | value_statements._FORM_TYPES
        | value_statements._COPULA_TYPES
        | ANSWER_TYPES
    )
    assert named <= set(VALUE_TYPES)
    for attribute in vocabulary().attributes.values():
        assert set(attribute.value_types) <= set(VALUE_TYPES), attribute.id
