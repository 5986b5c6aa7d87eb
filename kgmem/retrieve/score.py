"""One scorer, applied once per candidate turn, recording every term.

The form of the first cut that worked on LoCoMo (docs/design.md §3.4; earlier work on all ten
conversations: multi-hop ALL@10 9.6 → 24.1 with MiniLM), with the shipped, dev-tuned weights
(`kgmem.config.Settings`: ``KGMEM_W_*``):

    score = cos(turn, q)
          + w_fact     · max cos(fact citing the turn, q)                              (1.0)
          + stand_in   = w_fact · max(0, fact_floor · cos(turn, q) - that fact cosine)    (1.0)
          + w_adjacent if the turn sits beside one of the top-3 turns of the same session (0.06)
          + w_time     if the turn lies in the month or year the question names          (0.05)
          ± w_date     when the question names one day (or weekend): + if the turn's resolved
                       event time (else the time it was said) falls in it, - if the turn's
                       fact is dated to another day (so "last Thursday" asked on a
                       Monday must not match a turn that merely says "last Thursday")    (0.2)
          + w_exchange · the base score (cosine + fact terms) of the turn's exchange partner in
                       the pool: the assistant's reply to a user's turn, and that user turn
                       for the reply (roles ``user`` / ``assistant``, adjacent in a session;
                       a partner of fewer than `EXCHANGE_WORDS` words gives nothing) (0.5)
          + Σ w_signal · generator signal (bm25 0.3; entity, event, hop 0.05 when on)

``fact_floor`` (``KGMEM_W_FACT_FLOOR``) lets a turn's own text stand in for a citing fact
that matches the question worse than the turn does, or for no fact at all: a turn's evidence is
its best match over its passages and the facts that cite it, so a turn with no fact (an
instruction, a short update, a code answer) is not behind one with a weak fact only because an
extractor found something to cite there. At 0 the term is the citing fact's cosine alone (0
without one), the term as it stood before.

`ScoreWeights`' defaults are the shipped weights (the ``w_*`` settings' defaults); the brief's
first cut (w_fact = 0.2) is a negative row of the ablation: on the dev split it is about 25
points ALL@10 below 1.0.

Cosines are raw cosine similarities in [-1, 1]; the score is their weighted sum and is only
meaningful for ranking. Candidates reach the scorer from small generator pools; the scorer
never sees a whole ranked list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kgmem.config import Settings, shipped_default
from kgmem.models import Hit
from kgmem.turns import conversation_of, only_asks

__all__ = [
    "SIGNAL_SETTINGS",
    "Candidate",
    "ScoreWeights",
    "TimeWindow",
    "exchange_partners",
    "score_candidates",
]

#: generator signal -> the setting that weighs it (``KGMEM_W_*``), in `ScoreWeights.signals` order
SIGNAL_SETTINGS: tuple[tuple[str, str], ...] = (
    ("bm25", "w_bm25"),
    ("entity", "w_entity"),
    ("event", "w_event"),
    ("hop", "w_hop"),
    ("chain", "w_chain"),
    ("speaker", "w_speaker"),
)


def _shipped(name: str) -> Any:
    return field(default_factory=lambda: shipped_default(name))


@dataclass(frozen=True)
class ScoreWeights:
    """Weights of the scorer's terms; a weight of 0 switches a term off (ablation).

    Attributes:
        fact / adjacent / time: the first-cut terms (docs/design.md §3.4).
        exchange: the share of its exchange partner's base score a turn gets
            (`exchange_partners`); 0 switches the term off.
        fact_floor: the share of the turn's own cosine that stands in for a weaker (or absent)
            citing fact in the fact term, in [0, 1]; 0 = the citing fact alone.
        date: the day-match term (see module docstring).
        adjacent_top: how many of the best turns give their neighbours the adjacency term
            (``KGMEM_ADJACENT_TOP``).
        signals: weight per generator signal in ``Candidate.bonus`` (each signal lies in
            [0, 1]): ``bm25`` (BM25 score / the best BM25 score of the query's pool),
            ``entity`` (linked to a resolved non-speaker entity), ``event`` (a member of an
            event of the seed facts), ``hop`` (reached by the stateful hop). A signal with no
            weight here counts 1.0 (e.g. ``current``, already a signed score).
    """

    fact: float = _shipped("w_fact")
    adjacent: float = _shipped("w_adjacent")
    time: float = _shipped("w_time")
    date: float = _shipped("w_date")
    fact_floor: float = _shipped("w_fact_floor")
    adjacent_top: int = _shipped("adjacent_top")
    exchange: float = _shipped("w_exchange")
    signals: tuple[tuple[str, float], ...] = field(
        default_factory=lambda: tuple((s, shipped_default(w)) for s, w in SIGNAL_SETTINGS)
    )

    @classmethod
    def from_settings(cls, settings: Settings) -> ScoreWeights:
        """The weights of ``settings`` (``KGMEM_W_*``)."""
        return cls(
            fact=settings.w_fact,
            adjacent=settings.w_adjacent,
            time=settings.w_time,
            date=settings.w_date,
            fact_floor=settings.w_fact_floor,
            adjacent_top=settings.adjacent_top,
            exchange=settings.w_exchange,
            signals=tuple((s, getattr(settings, w)) for s, w in SIGNAL_SETTINGS),
        )

    def signal(self, name: str) -> float:
        return dict(self.signals).get(name, 1.0)


@dataclass(frozen=True)
class TimeWindow:
    """The month and/or year a question names (either may be None)."""

    year: int | None = None
    month: int | None = None
    day: tuple[datetime, datetime] | None = None

    def on_day(self, c: Candidate) -> float:
        """+1 when ``c`` is dated (event time, else said) inside `day`, -1 when its event time
        lies outside it, 0 when no day is named."""
        if self.day is None:
            return 0.0
        start, end = self.day
        when = c.event_time or c.observed_at
        if when.tzinfo is None:
            when = when.replace(tzinfo=start.tzinfo)
        if start <= when < end:
            return 1.0
        return -1.0 if c.event_time is not None else 0.0

    def contains(self, when: datetime | None) -> bool:
        if when is None or (self.year is None and self.month is None):
            return False
        if self.year is not None and when.year != self.year:
            return False
        return self.month is None or when.month == self.month


@dataclass
class Candidate:
    """A turn in the pool, with what the generators learned about it.

    Attributes:
        cosine: cos(turn, q) in [-1, 1].
        fact_cosine: max cos(fact citing the turn, q) in [-1, 1], or None if no fact cites it.
        generators: names of the generators that brought it in (``dense_turns``, ...).
        trace: extra provenance (fact ids, event times, hop path) copied to the hit.
        passage: for a turn stored as passages, the one that matched best (``n, start, end,
            cosine``; offsets into ``text``), copied to the hit; None otherwise.
        role: the speaker's role (`kgmem.roles`: ``user``, ``assistant``, ...) when the
            conversation gives one; pairs a user's turn with the assistant's reply (exchange).
    """

    turn_id: str
    text: str
    speaker: str
    session: int
    index: int
    observed_at: datetime
    cosine: float
    conversation_id: str = ""
    source: str | None = None
    fact_cosine: float | None = None
    fact_id: str | None = None
    event_time: datetime | None = None
    generators: set[str] = field(default_factory=set)
    bonus: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)
    passage: dict[str, Any] | None = None
    role: str | None = None


def score_candidates(
    candidates: Iterable[Candidate],
    weights: ScoreWeights,
    window: TimeWindow | None = None,
) -> list[Hit]:
    """Score every candidate once and rank them (score desc, then timeline order).

    Args:
        candidates: the pool (one entry per turn).
        weights: term weights.
        window: the month/year the question names, if any.

    Returns:
        hits with ``terms`` = {"cosine", "fact", "adjacent", "time", + any generator bonus} and
        ``trace`` = {"generators": [...], "fact_id": ..., ...}.
    """
    pool = list(candidates)
    stand_in = {c.turn_id: weights.fact * _stand_in(c, weights.fact_floor) for c in pool}
    base = {
        c.turn_id: c.cosine + weights.fact * (c.fact_cosine or 0.0) + stand_in[c.turn_id]
        for c in pool
    }
    by_rank = sorted(pool, key=lambda c: (-base[c.turn_id], c.index))
    top = by_rank[: weights.adjacent_top]
    beside = {(c.conversation_id, c.session, c.index + d) for c in top for d in (-1, 1)}
    top_ids = {c.turn_id for c in top}
    partner = exchange_partners(pool) if weights.exchange else {}

    hits: list[tuple[float, int, Hit]] = []
    for c in pool:
        terms: dict[str, float] = {"cosine": round(c.cosine, 6)}
        terms["fact"] = round(weights.fact * (c.fact_cosine or 0.0), 6)
        if stand_in[c.turn_id]:
            terms["stand_in"] = round(stand_in[c.turn_id], 6)
        adjacent = (c.conversation_id, c.session, c.index) in beside and c.turn_id not in top_ids
        terms["adjacent"] = weights.adjacent if adjacent else 0.0
        in_window = window is not None and (
            window.contains(c.observed_at) or window.contains(c.event_time)
        )
        terms["time"] = weights.time if in_window else 0.0
        if c.turn_id in partner:
            terms["exchange"] = round(weights.exchange * base[partner[c.turn_id]], 6)
        if window is not None and window.day is not None and weights.date:
            terms["date"] = weights.date * window.on_day(c)
        for name, value in c.bonus.items():
            weighted = weights.signal(name) * value
            if weighted:
                terms[name] = round(weighted, 6)
        score = sum(terms.values())
        trace: dict[str, Any] = {"generators": sorted(c.generators)}
        if c.fact_id is not None:
            trace["fact_id"] = c.fact_id
        trace.update(c.trace)
        hits.append(
            (
                score,
                c.index,
                Hit(
                    turn_id=c.turn_id,
                    text=c.text,
                    speaker=c.speaker,
                    session=c.session,
                    observed_at=c.observed_at,
                    conversation_id=c.conversation_id or conversation_of(c.turn_id),
                    source=c.source,
                    score=round(score, 6),
                    terms=terms,
                    trace=trace,
                    passage=c.passage,
                ),
            )
        )
    hits.sort(key=lambda item: (-item[0], item[1]))
    return [hit for _, _, hit in hits]


#: the fewest words a turn needs to lift its exchange partner: an acknowledgement ("Welcome to
#: Ghent!", "That must be a relief.") or a one-line question says too little to stand for the
#: exchange's topic, and lifted its partner above the turn that answers (agent-chat cases);
#: BEAM's exchanges are requests and answers of 20 words and more
EXCHANGE_WORDS = 20


def exchange_partners(pool: Sequence[Candidate]) -> dict[str, str]:
    """``turn id -> partner turn id`` for the exchanges in ``pool``: a ``user`` turn and the
    ``assistant`` turn right after it in the same session, each the other's partner when that
    other has at least `EXCHANGE_WORDS` words. Turns without roles (two people chatting) have
    no partner."""
    at = {(c.conversation_id, c.session, c.index): c for c in pool if c.role}
    out: dict[str, str] = {}
    for (conversation, session, index), c in at.items():
        reply = at.get((conversation, session, index + 1))
        if c.role != "user" or reply is None or reply.role != "assistant":
            continue
        if _has_words(reply.text, EXCHANGE_WORDS):
            out[c.turn_id] = reply.turn_id
        if _has_words(c.text, EXCHANGE_WORDS):
            out[reply.turn_id] = c.turn_id
    return out


def _has_words(text: str, n: int) -> bool:
    """Whether ``text`` has at least ``n`` whitespace-separated words (splits at most ``n``
    times, so a long turn costs no more than a short one)."""
    return len(text.split(maxsplit=n)) >= n


#: the fewest words a turn needs for its own text to stand in for a fact: a shorter turn with
#: no fact ("Welcome to Ghent!", "haha same") states too little to be evidence of an answer;
#: "I moved to Lisbon." states a fact and gets one from the extractor
STAND_IN_WORDS = 5


def _stand_in(c: Candidate, floor: float) -> float:
    """How much more than its best citing fact's cosine the turn's own text gives the fact term:
    ``max(0, floor * cos(turn, q) - fact cosine)`` (a missing fact counts 0), or 0 when
    ``floor`` is 0 or the turn only asks (`kgmem.turns.only_asks`) or has fewer than
    `STAND_IN_WORDS` words: it states nothing to stand in."""
    if floor <= 0.0 or not _has_words(c.text, STAND_IN_WORDS) or only_asks(c.text):
        return 0.0
    return max(0.0, floor * c.cosine - (c.fact_cosine or 0.0))


def merge_candidates(pools: Sequence[Iterable[Candidate]]) -> list[Candidate]:
    """Union of generator pools by turn id: generators, best fact and bonuses are merged."""
    merged: dict[str, Candidate] = {}
    for pool in pools:
        for c in pool:
            seen = merged.get(c.turn_id)
            if seen is None:
                merged[c.turn_id] = c
                continue
            seen.generators |= c.generators
            if c.fact_cosine is not None and (
                seen.fact_cosine is None or c.fact_cosine > seen.fact_cosine
            ):
                seen.fact_cosine, seen.fact_id = c.fact_cosine, c.fact_id
                seen.event_time = c.event_time or seen.event_time
            for name, value in c.bonus.items():
                seen.bonus[name] = max(seen.bonus.get(name, 0.0), value)
            for key, value in c.trace.items():
                seen.trace.setdefault(key, value)
            if c.passage is not None and seen.passage is None:
                seen.passage = c.passage
    return list(merged.values())
