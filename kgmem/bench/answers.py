"""Answer-level scores without an LLM: LoCoMo's token F1 and exact match, and an extractive floor.

Scoring is LoCoMo's own (Maharana et al., ACL 2024; ``task_eval/evaluation.py`` of
snap-research/locomo), so figures sit beside published ones:

- **normalisation** (`locomo_normalize`): drop commas, lower case, drop ASCII punctuation, drop
  the words a/an/the/and, collapse white space;
- **token F1** (`token_f1`): F1 of the two bags of normalised tokens, each token stemmed with
  NLTK's Porter stemmer (the stemmer that script uses);
- per category (`locomo_f1`): multi-hop (1) answers are split at commas on both sides and each
  gold part scores its best predicted part (mean over gold parts); an open-domain (3) gold answer
  is cut at its first ``;``; temporal (2) and single-hop (4) score the whole strings;
- **exact match** (`locomo_em`): the sets of normalised tokens are equal (not stemmed), with the
  same open-domain cut.

Two answerers need no model: the value of `SearchResult.answer` (the typed fact a question
about an attribute resolves to, `answer_value`) and `extractive_answer`, the sentence of the top
hits that best matches the question, cut to the value's span where the expected value type has a
recognisable form. Both are **floors**: what a reader that copies text out of the evidence
would score, not what a reader that composes an answer would.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from kgmem.ingest.extraction.values import FORM_TYPES, find_values

if TYPE_CHECKING:
    from nltk.stem import PorterStemmer

    from kgmem.models import Hit

__all__ = [
    "answer_value",
    "extractive_answer",
    "locomo_em",
    "locomo_f1",
    "locomo_normalize",
    "strip_citations",
    "token_f1",
]

_DROPPED_WORDS = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W_]+")
_YEAR_AFTER = re.compile(r",?\s+((?:19|20)\d\d)\b")
_CITATION = re.compile(r"\s*\[[^\[\]\n]{1,200}\]")

#: the answer slot of `kgmem.retrieve.question.Question.asked` -> the value type whose span
#: answers it, for the slots a pattern of `kgmem.ingest.extraction.values` can find
_SLOT_TYPES = {"time": ("date", "time"), "count": ("number",), "duration": ("number",)}
#: value types `kgmem.ingest.extraction.values.find_values` recognises by form
_PATTERN_TYPES = FORM_TYPES


@cache
def _stemmer() -> PorterStemmer:
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def locomo_normalize(text: str) -> str:
    """LoCoMo's answer normalisation (module docstring)."""
    text = text.replace(",", "").lower().translate(_PUNCTUATION)
    return " ".join(_DROPPED_WORDS.sub(" ", text).split())


def _stems(text: str) -> list[str]:
    stem = _stemmer().stem
    return [stem(word) for word in locomo_normalize(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    """Token F1 of two strings over Porter-stemmed normalised tokens, in [0, 1]."""
    predicted, wanted = _stems(prediction), _stems(gold)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def _gold_for(gold: str, category: int) -> str:
    return gold.split(";")[0].strip() if category == 3 else gold


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """LoCoMo's F1 of one answer for a question of ``category`` (1-4), in [0, 1]."""
    gold = _gold_for(gold, category)
    if category != 1:
        return token_f1(prediction, gold)
    predicted = [p.strip() for p in prediction.split(",")]
    parts = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in predicted) for g in parts) / len(parts)


def locomo_em(prediction: str, gold: str, category: int) -> float:
    """LoCoMo's exact match: 1.0 when the normalised token sets are equal, else 0.0."""
    wanted = set(locomo_normalize(_gold_for(gold, category)).split())
    return 1.0 if set(locomo_normalize(prediction).split()) == wanted else 0.0


def strip_citations(text: str) -> str:
    """A reader's answer without its bracketed citations (``"Lisbon [conv-1:D1:3]."`` →
    ``"Lisbon."``), the text that is scored."""
    return _CITATION.sub("", text).strip()


def answer_value(answer: Mapping[str, Any] | None) -> str | None:
    """The value of a `SearchResult.answer` dict as text, or None when there is none."""
    if not answer:
        return None
    value = answer.get("value")
    return None if value is None or str(value).strip() == "" else str(value)


def _expected_types(question: Mapping[str, Any]) -> tuple[str, ...]:
    typed = question.get("value_type")
    if isinstance(typed, str) and typed in _PATTERN_TYPES:
        return (typed,)
    return _SLOT_TYPES.get(str(question.get("asked") or ""), ())


def extractive_answer(question: Mapping[str, Any], hits: Sequence[Hit]) -> str:
    """The extractive baseline's answer from ``hits`` (best first), or "" when there are none.

    Every sentence of every hit is scored by the question's content words it contains (stemmed,
    `SearchResult.question` ``views.bm25_content_words``), plus one when it holds a value of the
    expected type (the question's ``value_type``, else its answer slot: a time asks for a date,
    a count or duration for a number); ties go to the better-ranked hit, then the earlier
    sentence. Where a type is expected and the sentence holds a value of it, the answer is that
    value's span; a time question whose best sentence holds no date is answered with the day
    the turn was said (``"7 May 2023"``); otherwise the whole sentence.

    Args:
        question: `kgmem.retrieve.question.Question.as_dict` of the question.
        hits: the top hits the answer may quote.
    """
    views = question.get("views") or {}
    words = {_stemmer().stem(w.lower()) for w in views.get("bm25_content_words") or ()}
    expected = _expected_types(question)
    best: tuple[float, str, Hit] | None = None
    for hit in hits:
        for sentence in _SENTENCE_END.split(" ".join(hit.text.split())):
            if not sentence:
                continue
            stems = {_stemmer().stem(w.lower()) for w in _WORD.findall(sentence)}
            typed = any(kind in expected for kind, *_ in find_values(sentence))
            score = len(words & stems) + (1.0 if typed else 0.0)
            if best is None or score > best[0]:
                best = (score, sentence, hit)
    if best is None:
        return ""
    _, sentence, hit = best
    for kind, _start, end, surface in find_values(sentence):
        if kind in expected:
            # the date pattern stops before a year ("3 March" of "3 March 2022")
            year = _YEAR_AFTER.match(sentence, end) if kind == "date" else None
            return f"{surface} {year.group(1)}" if year else surface
    if "date" in expected:
        day = hit.observed_at
        return f"{day.day} {day.strftime('%B')} {day.year}"
    return sentence
