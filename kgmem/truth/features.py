"""Feature vectors of the four truth decisions, built from what the product already computes.

Every input text is represented by its MiniLM vector (`kgmem.embed.Embedder`, unit norm, 384-d),
the vectors the write and read paths have anyway, and by the shape of its function words
(`function_words`); speakers by their role. Pure numpy and a regex, no model: the weights learn
what the cues mean (the corpus, `corpus/truth/`, is written so that a cue word alone does not
decide). Content words never become features: on the corpus's dev split they taught the model
the train writers' topics (dev macro-F1 fell), while function words ("not", "any more",
"too", "instead", "from now on", "if") carry the negation, change, request and modality cues a
sentence vector blurs.

Shapes (``d`` the embedding dimension, 384 for MiniLM):

- `relation_features`: ``[stored, new, stored - new, stored * new, cos, fw(new), fw(stored),
  pair(new, stored)]`` -> ``4d + 1 + 2H + P``.
- `request_features`: ``[last, previous or 0, has_previous, fw(last)]`` -> ``2d + 1 + H``.
- `answer_features`: ``[q, f, q * f, |q - f|, cos, role(q), role(f), fw(f), fw(q), pair(q, f)]``
  -> ``4d + 7 + 2H + P``.
- `attribution_features`: ``[clause, turn, role(turn), turns / 4, fw(clause), fw(turn)]`` ->
  ``2d + 4 + 2H``.

(``fw`` is `function_words`, ``H`` = `HASH_WIDTH`; ``pair`` is `pair_scalars`, ``P`` =
`PAIR_WIDTH`.)

Each accepts a batch (leading axis ``n``) so one call scores all of a statement's candidates.
"""

from __future__ import annotations

import itertools
import re
import zlib
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from spacy.lang.en.stop_words import STOP_WORDS

Matrix = npt.NDArray[np.float32]

ROLES = ("user", "assistant")
"""Speaker roles with their own feature; any other speaker (a name in a group chat) is 'other'."""


HASH_WIDTH = 1024
"""Buckets of the hashed function-word features (CRC-32 of the n-gram, modulo this)."""
FW_SCALE = 0.3
"""Weight of the function-word block against the unit-norm vectors (chosen on the dev split
among 0.3 and 1)."""
CUE_WORDS = frozenset(
    {
        "anymore", "instead", "actually", "forget", "delete", "remove", "save", "remember",
        "always", "prefer", "rather", "never", "now", "again", "too", "also", "wrong", "meant",
        "not", "n't", "no",
    }
)  # fmt: skip
"""Words outside spaCy's English stop list that still mark change, correction, request or
negation; kept as function-word features (a feature, never a decision on its own)."""
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|[?!]")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_NEGATION = re.compile(r"\b(?:not|no|never|nor|none|nothing|anymore|longer)\b|n't\b", re.I)
PAIR_SCALE = 0.3
"""Weight of the `pair_scalars` block (chosen on the dev split among 0.3 and 1)."""
PAIR_WIDTH = 13
"""Columns of `pair_scalars`."""


def function_words(texts: list[str]) -> Matrix:
    """Hashed function-word n-grams of each text: ``(n, HASH_WIDTH)`` float32, ``log1p`` counts
    times `FW_SCALE`. Tokens are lower-cased words; a word that is neither in spaCy's English
    stop list nor in `CUE_WORDS` becomes a placeholder, so unigrams, bigrams and the first
    word say how a sentence is built ("not _ anymore", "^if", "_ too") and never what it is
    about."""
    out = np.zeros((len(texts), HASH_WIDTH), dtype=np.float32)
    for i, text in enumerate(texts):
        buckets, values = _function_word_row(text)
        out[i, buckets] = values
    return out


@lru_cache(maxsize=65536)
def _function_word_row(text: str) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
    """Non-zero buckets of one text's `function_words` row and their values, cached: a question
    re-reads the same stored facts, whose texts never change."""
    words = [
        w if (w in STOP_WORDS or w in CUE_WORDS or w in "?!" or "'" in w) else "_"
        for w in _TOKEN.findall(text.lower().replace("\u2019", "'"))
    ]
    grams = [w for w in words if w != "_"]
    grams += [f"{a} {b}" for a, b in itertools.pairwise(words) if a != "_" or b != "_"]
    if words:
        grams.append("^" + words[0])
    counts: dict[int, int] = {}
    for gram in grams:
        bucket = zlib.crc32(gram.encode("utf-8")) % HASH_WIDTH
        counts[bucket] = counts.get(bucket, 0) + 1
    buckets = np.fromiter(counts, dtype=np.intp, count=len(counts))
    values = np.log1p(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
    return buckets, values * np.float32(FW_SCALE)


@lru_cache(maxsize=65536)
def _profile(
    text: str,
) -> tuple[frozenset[str], frozenset[str], bool, frozenset[str], int]:
    """What `pair_scalars` reads of one text, cached like `_function_word_row`: its content
    words, numbers, whether it negates, its capitalised words, its length in words."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    content = frozenset(
        w for w in words if w not in STOP_WORDS and w not in CUE_WORDS and len(w) > 1
    )
    numbers = frozenset(_NUMBER.findall(text))
    names = frozenset(_NAME.findall(text))
    return content, numbers, bool(_NEGATION.search(text)), names, len(text.split())


def pair_scalars(first: list[str], second: list[str]) -> Matrix:
    """What two texts share, as ``(n, PAIR_WIDTH)`` float32 times `PAIR_SCALE`: the Jaccard of
    their content words and the share of each side's content words the other holds, whether
    they share any; whether they share a number, and whether only the second or only the first
    has one the other lacks; negation on the first side only, on the second only, on both; the
    Jaccard of their capitalised words (names) and whether the second names one the first does
    not; and the log ratio of their lengths in words. Counts, never the words themselves."""
    out = np.zeros((len(first), PAIR_WIDTH), dtype=np.float32)
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        ca, na, ea, pa, la = _profile(a)
        cb, nb, eb, pb, lb = _profile(b)
        both = len(ca & cb)
        out[i] = [
            both / max(1, len(ca | cb)),
            both / max(1, len(ca)),
            both / max(1, len(cb)),
            both > 0,
            bool(na & nb),
            bool(nb - na),
            bool(na - nb),
            ea and not eb,
            eb and not ea,
            ea and eb,
            len(pa & pb) / max(1, len(pa | pb)),
            bool(pb - pa),
            np.log1p(lb) - np.log1p(la),
        ]
    return out * np.float32(PAIR_SCALE)


def role_vector(speakers: list[str]) -> Matrix:
    """One-hot role per speaker: shape ``(n, 3)`` (user, assistant, other)."""
    out = np.zeros((len(speakers), len(ROLES) + 1), dtype=np.float32)
    for i, speaker in enumerate(speakers):
        name = speaker.strip().lower()
        out[i, ROLES.index(name) if name in ROLES else len(ROLES)] = 1.0
    return out


def _cos(a: Matrix, b: Matrix) -> Matrix:
    out: Matrix = np.sum(a * b, axis=1, keepdims=True, dtype=np.float32)
    return out


def relation_features(
    stored: Matrix, new: Matrix, new_texts: list[str], stored_texts: list[str]
) -> Matrix:
    """Features of (stored fact, new statement) pairs: ``(n, 4d + 1 + 2H + P)`` float32.

    The function words of both sides and `pair_scalars` of (new, stored) say how the two are
    built against each other (a negation or a number only the new side has, the names and
    content words they share); with them writer cross-validation of the corpus's relation rows
    rose from macro-F1 0.730 to 0.758 (docs/benchmarks.md).

    Args:
        stored: ``(n, d)`` unit vectors of the stored facts' texts.
        new: ``(n, d)`` unit vectors of the new statement (the same row repeated for candidates).
        new_texts: the new statement's text, one per row or one for all.
        stored_texts: each stored fact's text, one per row.
    """
    one = new_texts[:1] if len(new_texts) != len(new) else new_texts
    fw = function_words(one)
    fw = np.broadcast_to(fw, (len(new), HASH_WIDTH)) if len(fw) == 1 else fw
    return np.hstack(
        [
            stored,
            new,
            stored - new,
            stored * new,
            _cos(stored, new),
            fw,
            function_words(stored_texts),
            pair_scalars(one * len(stored_texts) if len(one) == 1 else one, stored_texts),
        ]
    ).astype(np.float32)


def request_features(last: Matrix, previous: Matrix | None, texts: list[str]) -> Matrix:
    """Features of user turns classified as memory requests: ``(n, 2d + 1)`` float32.

    Args:
        last: ``(n, d)`` vectors of the user turn that is classified.
        previous: ``(n, d)`` vectors of the turn before it (zero rows where there is none), or
            None when no turn has one.
        texts: the classified turns' texts.
    """
    n, d = last.shape
    if previous is None:
        previous = np.zeros((n, d), dtype=np.float32)
    has = (np.abs(previous).sum(axis=1, keepdims=True) > 0).astype(np.float32, copy=False)
    return np.hstack([last, previous, has, function_words(texts)]).astype(np.float32, copy=False)


def answer_features(
    question: Matrix,
    facts: Matrix,
    asker: list[str],
    speakers: list[str],
    question_texts: list[str],
    fact_texts: list[str],
) -> Matrix:
    """Features of (question, fact) pairs: ``(n, 4d + 7 + 2H + P)`` float32.

    Args:
        question: ``(n, d)`` or ``(1, d)`` question vectors (broadcast over the facts).
        facts: ``(n, d)`` fact vectors.
        asker: the question's speaker, one per row or one for all.
        speakers: each fact's speaker, one per row.
        question_texts: the question's text, one per row or one for all.
        fact_texts: each fact's text.
    """
    q = np.broadcast_to(question, facts.shape)
    asked = role_vector(asker if len(asker) == len(facts) else asker[:1] * len(facts))
    fq = function_words(question_texts[:1] if len(question_texts) != len(facts) else question_texts)
    fq = np.broadcast_to(fq, (len(facts), HASH_WIDTH)) if len(fq) == 1 else fq
    return np.hstack(
        [
            q,
            facts,
            q * facts,
            np.abs(q - facts),
            _cos(q, facts),
            asked,
            role_vector(speakers),
            function_words(fact_texts),
            fq,
            pair_scalars(
                question_texts[:1] * len(facts)
                if len(question_texts) != len(facts)
                else question_texts,
                fact_texts,
            ),
        ]
    ).astype(np.float32, copy=False)


def attribution_features(
    clause: Matrix,
    turn: Matrix,
    speakers: list[str],
    turns: list[int],
    clause_texts: list[str],
    turn_texts: list[str],
) -> Matrix:
    """Features of clauses to attribute: ``(n, 2d + 4 + 2H)`` float32.

    Args:
        clause: ``(n, d)`` vectors of the clauses.
        turn: ``(n, d)`` vectors of the whole turn each clause is in.
        speakers: who said each turn.
        turns: how many turns of context each has (1-4).
        clause_texts: the clauses' texts.
        turn_texts: the whole turns' texts (how the turn around the clause is built: "if",
            "she said", "you could").
    """
    count = np.asarray(turns, dtype=np.float32).reshape(-1, 1) / 4.0
    return np.hstack(
        [
            clause,
            turn,
            role_vector(speakers),
            count,
            function_words(clause_texts),
            function_words(turn_texts),
        ]
    ).astype(np.float32, copy=False)
