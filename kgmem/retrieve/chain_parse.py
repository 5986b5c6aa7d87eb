"""Chain questions, parsed: "the country of citizenship of the spouse of X" as a base and an
ordered relation chain (pure; no store access).

`compile_question` finds relation cues (the lexicon's ``cues``: relations with their common
paraphrases), the answer type the question names (``answer_types``), the name spans that may be
the base entity, and orders the cues into a chain relative to the base: "the capital of the
country that X comes from" is ``[country_of_origin, capital]``. `chain_question` says whether a
question reads as a chain question at all. The walk over the graph is `kgmem.retrieve.chain`.
The relation lexicon (`kgmem.lexicon`) loads on first use, not at import.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgmem.lexicon import lexicon

__all__ = [
    "STOPWORDS",
    "ChainPlan",
    "Mention",
    "NameSpan",
    "chain_order",
    "chain_question",
    "compile_question",
    "name_key",
    "unexplained_words",
]


@functools.cache
def _answer_types() -> tuple[tuple[re.Pattern[str], frozenset[str]], ...]:
    """(pattern, answer kinds) per answer type of the lexicon (loaded on first use)."""
    return tuple((t.pattern, t.kinds) for t in lexicon().answer_types)


@functools.cache
def _type_word() -> re.Pattern[str]:
    """Any answer-type word of the lexicon."""
    return re.compile(
        "|".join(f"(?:{t.pattern.pattern})" for t in lexicon().answer_types), re.IGNORECASE
    )


_STOP = (
    "a an the of in on at to for from by with and or is are was were be been does did do has "
    "have had what which who whom whose where when how that this these those his her their its "
    "he she they it name called known as serves serve"
)
STOPWORDS = frozenset(_STOP.split())
_TOKEN = re.compile(r"[^\s\"\u201c\u201d()\[\],?!;:]+")
_GOVERNED = re.compile(
    r"^\s*(?:of|for|by|with|from|in|to|under)?\s*(?:the\s+)?['\u2018]?\s*$", re.IGNORECASE
)
_POSSESSIVE = re.compile(r"(?:'|\u2019)s$")
_NAME_PARTICLES = frozenset({"of", "the", "and", "de", "du", "von", "van", "la", "le", "al", "y"})
_LAST_CLAUSE = re.compile(r",?\s+and\s+(who|what|which|where)\b", re.IGNORECASE)
_ARTICLE = re.compile(r"^the\s", re.IGNORECASE)  # name_key drops a leading "the"


def name_key(name: str) -> str:
    """Normalised lookup key of a name: NFKC, casefold, punctuation → space (apostrophes inside
    words kept), whitespace collapsed, a leading "the " dropped. ``"The Beatles"`` and
    ``"the beatles"`` share a key; so do ``"Washington, D.C."`` and ``"Washington D.C"``."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("\u2019", "'")
    text = re.sub(r"(?<!\w)'|'(?!\w)", " ", text)
    text = re.sub(r"[^\w' ]+", " ", text)
    text = " ".join(text.split())
    return text[4:] if text.startswith("the ") and len(text) > 4 else text


# --- plan ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mention:
    """A relation cue in a question: character ``spans`` (two when a slot splits the cue),
    candidate relations with synonym costs, and whether it is weak (optional at low cost)."""

    text: str
    spans: tuple[tuple[int, int], ...]
    relations: dict[str, float]
    weak: bool

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]


@dataclass(frozen=True)
class NameSpan:
    """A token n-gram that may name the base entity: surface text, key, char span, tokens."""

    text: str
    key: str
    start: int
    end: int
    tokens: int


@dataclass
class ChainPlan:
    """A compiled question.

    Attributes:
        question: the question text.
        base: the surface guessed for the base entity (the resolver re-checks it in the graph).
        relations: the literal chain, hop order (first relation applies to the base); each item
            is the primary relation of a cue.
        answer_kinds: kinds the answer may have (from the wh-phrase), or None.
        mentions: every cue, in surface order.
        names: every n-gram that may name the base (resolved against the graph).
    """

    question: str
    base: str | None
    relations: list[str]
    answer_kinds: frozenset[str] | None
    mentions: list[Mention]
    names: list[NameSpan]
    order: list[int] = field(default_factory=list)


def _find_mentions(question: str) -> list[Mention]:
    found: list[Mention] = []
    for cue in lexicon().cues:
        pattern, rels, weak = cue.pattern, cue.relations, cue.weak
        for m in pattern.finditer(question):
            spans: tuple[tuple[int, int], ...]
            if "x" in pattern.groupindex and m.start("x") >= 0:
                spans = ((m.start(), m.start("x")), (m.end("x"), m.end()))
            else:
                spans = ((m.start(), m.end()),)
            found.append(Mention(m.group(0), spans, rels, weak))
    found.sort(key=lambda mm: (-sum(e - s for s, e in mm.spans), mm.start))
    taken: list[tuple[int, int]] = []
    kept: list[Mention] = []
    for mention in found:
        if any(s < te and ts < e for s, e in mention.spans for ts, te in taken):
            continue
        taken.extend(mention.spans)
        kept.append(mention)
    return sorted(kept, key=lambda mm: mm.start)


def _name_spans(question: str, max_tokens: int = 10) -> list[NameSpan]:
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(question)]
    spans: dict[tuple[str, int, int], NameSpan] = {}
    for i in range(len(tokens)):
        for j in range(i, min(len(tokens), i + max_tokens)):
            start, end = tokens[i][0], tokens[j][1]
            text = question[start:end]
            variants = [(text, end)]
            if _POSSESSIVE.search(text):
                variants.append((text[:-2], end - 2))
            if _ARTICLE.match(text):
                continue  # "the X" has the key of "X": keep the span without the article
            for surface, stop in variants:
                key = name_key(surface)
                if len(key) < 2 or key in STOPWORDS:
                    continue
                spans.setdefault((key, start, stop), NameSpan(surface, key, start, stop, j - i + 1))
    return list(spans.values())


def _guess_base(question: str, mentions: list[Mention], names: list[NameSpan]) -> NameSpan | None:
    """The longest run of content tokens outside every cue, preferring quoted or capitalised."""
    covered = [span for m in mentions for span in m.spans]

    def free(n: NameSpan) -> bool:
        if any(n.start < e and s < n.end for s, e in covered):
            return False
        words = [w.lower().strip("'\"\u2018\u2019\u201c\u201d") for w in n.text.split()]
        if any(_type_word().fullmatch(w) for w in words):
            return False
        inner_ok = all(w not in STOPWORDS or w in _NAME_PARTICLES for w in words[1:-1])
        return inner_ok and words[0] not in STOPWORDS and words[-1] not in STOPWORDS

    def rank(n: NameSpan) -> tuple[int, int, int, int]:
        quoted = question[max(0, n.start - 1) : n.start] in "\"\u201c'\u2018" and n.start > 0
        caps = sum(1 for w in n.text.split() if w[:1].isupper())
        initial = 1 if n.start == 0 else 0
        return (int(quoted), caps - initial, n.tokens, -n.start)

    candidates = [n for n in names if free(n)]
    return max(candidates, key=rank) if candidates else None


def chain_order(
    question: str, mentions: Sequence[Mention], base_start: int, base_end: int
) -> list[int]:
    """Order cue indices into hop order relative to the base span.

    Cues before the base apply inside-out (nearest first); cues after it (the base is a clause
    subject: "the country where X was a citizen") apply before them — unless the nearest cue
    before the base governs it ("the CEO of Twitter holds citizenship of…": CEO first).
    """
    pre = sorted(
        (i for i, m in enumerate(mentions) if m.end <= base_start), key=lambda i: -mentions[i].end
    )
    post = sorted(
        (i for i, m in enumerate(mentions) if m.start >= base_end), key=lambda i: mentions[i].start
    )
    around = [i for i in range(len(mentions)) if i not in pre and i not in post]  # a slot cue
    if pre and _GOVERNED.match(question[mentions[pre[0]].end : base_start]):
        return [*around, pre[0], *post, *pre[1:]]
    return [*around, *post, *pre]


def _answer_kinds(prefix: str) -> frozenset[str] | None:
    best: tuple[int, frozenset[str]] | None = None
    for pattern, kinds in _answer_types():
        m = pattern.search(prefix)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), kinds)
    return best[1] if best else None


def compile_question(question: str) -> ChainPlan:
    """Compile a question into a base surface, an ordered relation chain and an answer type.

    Pure and deterministic; no store access. The chain is "literal": the resolver may relax it.

    Args:
        question: e.g. "What is the capital of the country that X comes from?".

    Returns:
        a `ChainPlan`; ``relations`` may be empty when no cue is recognised.
    """
    mentions = _find_mentions(question)
    names = _name_spans(question)
    base = _guess_base(question, mentions, names)
    if base is not None:
        order = chain_order(question, mentions, base.start, base.end)
    else:
        order = list(range(len(mentions)))[::-1]
    cut = min([m.start for m in mentions] + ([base.start] if base else []) + [len(question)])
    if (
        mentions
        and cut == mentions[0].start
        and all(w.lower() in STOPWORDS for w in question[:cut].split())
    ):
        cut = mentions[0].end  # "What is the country of citizenship of X": the cue names it
    relations: list[str] = []
    for i in order:
        primary = min(mentions[i].relations.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if not mentions[i].weak and primary not in relations:
            relations.append(primary)
    kinds = _answer_kinds(question[:cut])
    last = list(_LAST_CLAUSE.finditer(question))
    if last:  # "In which country …, and who is …?": the last question asked names the type
        kinds = _answer_kinds(question[last[-1].start(1) :]) or kinds
    return ChainPlan(
        question, base.text if base else None, relations, kinds, mentions, names, order
    )


#: content words a chain question may hold beyond its cues, base and answer-type words
#: ("Which sport is associated with X?": "associated"); measured on the LoCoMo dev questions
#: (1 lets 8 of 497 through, 2 lets 20) and FactConsolidation (184 of 200 vs 192)
MAX_UNEXPLAINED = 1


def unexplained_words(plan: ChainPlan) -> list[str]:
    """The question's content words that neither a cue, the base span nor an answer-type word
    accounts for (lower-cased, in surface order). Stopwords are not content."""
    spans = [span for m in plan.mentions for span in m.spans]
    if plan.base is not None:
        start = next((n.start for n in plan.names if n.text == plan.base), -1)
        if start >= 0:
            spans.append((start, start + len(plan.base)))
    words = []
    for m in _TOKEN.finditer(plan.question):
        if any(a <= m.start() and m.end() <= b for a, b in spans):
            continue
        word = m.group(0).lower().strip("'\"\u2018\u2019\u201c\u201d")
        if word and word not in STOPWORDS and not _type_word().fullmatch(word):
            words.append(word)
    return words


def chain_question(question: str) -> ChainPlan | None:
    """The compiled chain when ``question`` reads as a chain question, else None.

    A chain question names at least one (non-weak) relation of the lexicon, a base, and little
    else: at most `MAX_UNEXPLAINED` content words outside the cues, the base and the
    answer-type words ("What is the country of citizenship of the spouse of X?" has none;
    "What happened to Melanie's son on their road trip?" has three: "happened", "road",
    "trip"). Whether the wh-phrase asks for an entity (not a time, a manner, a count) is the
    planner's check. Pure; never raises.
    """
    if not any(c.pattern.search(question) for c in lexicon().cues):
        return None  # the cheap test first: most questions name no relation
    plan = compile_question(question)
    if not plan.relations or plan.base is None:
        return None
    return plan if len(unexplained_words(plan)) <= MAX_UNEXPLAINED else None
