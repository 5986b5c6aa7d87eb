"""Long turns as passages (`kgmem.ingest.extraction.passages`): how a turn is cut, that nothing but
whitespace is left out, that a short turn is one passage embedded as before."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from kgmem.ingest.extraction.passages import (
    OVERLAP_CHARS,
    PASSAGE_CHARS,
    embed_turn_texts,
    passage_spans,
)
from kgmem.turns import turn_length

PROSE = "Keeping the route thin makes each piece easy to test on its own. " * 4
CODE = (
    "```python\n"
    + "\n".join(f"def handler_{i}(request):\n    return {i}" for i in range(40))
    + "\n```"
)
LONG = f"{PROSE}\n\n{CODE}\n\nThe real fix is an index on transactions.user_id and a cache."


def _covered(text: str, spans: Sequence[tuple[int, int]]) -> bool:
    marks = bytearray(len(text))
    for start, end in spans:
        marks[start:end] = b"\x01" * (end - start)
    return all(marks[i] or ch.isspace() for i, ch in enumerate(text))


def test_short_turn_is_one_passage_the_whole_text() -> None:
    text = "I moved to Lisbon last month." * 10
    assert passage_spans(text) == [(0, len(text))]


def test_long_turn_cut_at_blocks_within_budget_and_nothing_lost() -> None:
    spans = passage_spans(LONG)
    assert len(spans) > 1
    assert all(turn_length(LONG[s:e]) <= PASSAGE_CHARS for s, e in spans)
    assert _covered(LONG, spans)
    assert spans == sorted(spans)
    # the sentence after the code block is in a passage of its own text, found whole
    assert any("index on transactions.user_id" in LONG[s:e] for s, e in spans)
    # code is cut by lines, never inside one
    for s, e in spans:
        piece = LONG[s:e]
        assert not piece.startswith("eturn") and not piece.endswith("def handler_")


def test_over_long_sentence_windows_overlap() -> None:
    sentence = "word " * 600  # one 3,000-character sentence, no break
    spans = passage_spans(sentence.strip())
    assert len(spans) >= 4 and _covered(sentence.strip(), spans)
    for (_, end), (start, _) in pairwise(spans):
        assert end - start >= OVERLAP_CHARS - 10  # consecutive windows share the overlap


def test_padding_is_no_passage() -> None:
    text = "First part of the answer. " * 20 + " " * 300_000 + "Last line."
    spans = passage_spans(text)
    assert all(text[s:e].strip() == text[s:e] and text[s:e] for s, e in spans)
    assert _covered(text, spans) and text[spans[-1][0] : spans[-1][1]].endswith("Last line.")


def test_padded_passage_is_embedded_without_its_padding() -> None:
    seen: list[str] = []

    def encode(texts: Sequence[str]) -> npt.NDArray[np.float32]:
        seen.extend(texts)
        return _encode(texts)

    text = "Step one of the proof. " * 20 + " " * 100_000 + "Label the point D."
    embed_turn_texts(encode, [text])
    assert max(len(t) for t in seen) <= PASSAGE_CHARS
    assert any(t.endswith("Label the point D.") for t in seen)


def _encode(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    """A stand-in for the embedder: one unit vector per text, from its length."""
    out = np.zeros((len(texts), 4), dtype=np.float32)
    for i, text in enumerate(texts):
        out[i, len(text) % 4] = 1.0
    return out


def test_embed_turn_texts_one_batch_and_first_passage_is_the_turn_vector() -> None:
    calls: list[int] = []

    def encode(texts: Sequence[str]) -> npt.NDArray[np.float32]:
        calls.append(len(texts))
        return _encode(texts)

    short = "A short turn."
    out = embed_turn_texts(encode, [short, LONG])
    assert len(calls) == 1  # every text and passage in one encode call
    assert out[0].passages == () and np.array_equal(out[0].vector, _encode([short])[0])
    spans = passage_spans(LONG)
    assert [(s, e) for s, e, _ in out[1].passages] == spans
    assert np.array_equal(out[1].vector, out[1].passages[0][2])
    assert calls == [1 + len(spans)]
