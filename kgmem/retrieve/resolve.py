"""Deterministic current and past values (docs/design.md §3.6), decided in code so that the
reader never adjudicates contradictions.

For a question about a *state* of the entities it names (`QueryPlan.state`):

- **current** ("now", "currently", "still", "these days", "anymore", or a present-tense "where
  does X live" / "what does X drink" / "who is X dating"): per supersession key the question's
  words name (`relevant_rows`), the latest fact visible at the moment of asking (``serial``,
  then ``valid_from``, then id) is the value;
- **past** ("did", "was", "used to", "before", "previously", "in February 2024", "when X lived
  in A"): per key, the value whose validity interval ``[valid_from, next value's valid_from)``
  overlaps the time the question names; else, for "before <anchor>", the value just before the
  first one that names the anchor; else the value before the current one.

The chosen value's turns get ``bonus`` (the ``current_bonus`` setting) and a trace naming the
decision; turns cited only by the key's other values get the same amount as a penalty; then
`order_hits` puts the chosen turn directly above the highest-ranked turn of another value of the
same key, so a stale value can never outrank the value the question asks for on wording alone.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from kgmem.config import shipped_default
from kgmem.ingest.extraction.attributes import vocabulary
from kgmem.ingest.extraction.supersession import FAMILY_WORDS, MULTI_VALUED, SINGLE_VALUED
from kgmem.ingest.extraction.values import FORM_TYPES, ValueType
from kgmem.models import Hit, TimeInterval
from kgmem.retrieve.generators import LinkedPools
from kgmem.retrieve.plan import QueryPlan
from kgmem.retrieve.question import Question
from kgmem.retrieve.score import Candidate

__all__ = [
    "ANSWER_TYPES",
    "current_values",
    "mark_answers",
    "order_hits",
    "relevant_rows",
    "resolve_current",
    "resolve_state",
]

_EPOCH = datetime.min.replace(tzinfo=UTC)


def _order(row: dict[str, Any]) -> tuple[int, datetime, str]:
    when = row.get("valid_from") or _EPOCH
    if isinstance(when, datetime) and when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (int(row["serial"] or 0), when, str(row["fact_id"]))


def _family_words() -> dict[str, set[str]]:
    """Words that name each relation family: `FAMILY_WORDS` (the attribute vocabulary's
    question and state words), the family's own name parts and the first word of each of its
    relations (``live_in`` → "live")."""
    words: dict[str, set[str]] = defaultdict(set)
    for family, cues in FAMILY_WORDS.items():
        words[family].update(cues)
    for relation, family in SINGLE_VALUED.items():
        words[family].update(family.split("_"))
        words[family].add(relation.split("_")[0])
    return words


_WORDS = _family_words()


def relevant_rows(question: Question, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the keyed facts whose relation family the question names ("live" → residence) or,
    for a multi-valued family, whose object word it names ("bike" → ``…|owned|bike``); none
    when it names no family (a current-state cue alone says nothing about *which* value).
    The question's words are its `Question.state_words`."""
    asked = question.state_words
    named = {family for family, cues in _WORDS.items() if cues & asked}
    out = []
    for row in rows:
        parts = str(row["key"]).split("|")
        family = parts[1] if len(parts) > 1 else parts[-1]
        attribute = vocabulary().attributes.get(family)
        if family.startswith("favorite_"):
            hit = bool({"favorite", "favourite", family[9:]} & asked)
        elif attribute is not None and attribute.per_thing and len(parts) > 2:
            # an attribute of a thing: the question names the thing ("my flight")
            hit = family in named and set(parts[2].split("-")) <= asked
        elif family in MULTI_VALUED and len(parts) > 2:
            hit = parts[2] in asked or (family in named and family != "likes")
        else:
            hit = family in named
        if hit:
            out.append(row)
    return out


def _aware(value: Any) -> datetime | None:
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _past_choice(
    ordered: list[dict[str, Any]], window: TimeInterval | None, anchor: str | None
) -> tuple[int, str] | None:
    """Index of the value a past question asks for, and why."""
    if window is not None:
        chosen = None
        for i, row in enumerate(ordered):
            start = _aware(row.get("valid_from")) or _EPOCH
            nxt = _aware(ordered[i + 1].get("valid_from")) if i + 1 < len(ordered) else None
            if start < window.end and (nxt is None or nxt > window.start):
                chosen = i
        if chosen is not None:
            return chosen, f"valid during {window.phrase or window.start.date().isoformat()}"
    if anchor:
        words = {w.lower() for w in re.findall(r"[A-Za-z0-9]{3,}", anchor)}
        for i, row in enumerate(ordered):
            text = {w.lower() for w in re.findall(r"[A-Za-z0-9]{3,}", str(row.get("text", "")))}
            if i > 0 and words and words <= text:
                return i - 1, f"value before the one naming {anchor!r}"
    current_turns = set(ordered[-1]["cites"]) if ordered else set()
    for i in range(len(ordered) - 2, -1, -1):
        row = ordered[i]
        if row.get("modality") != "negated" and not set(row["cites"]) & current_turns:
            return i, "the last value before the current one"
    return None


def resolve_state(
    rows: Sequence[dict[str, Any]],
    pool: dict[str, Candidate],
    *,
    mode: str = "current",
    window: TimeInterval | None = None,
    anchor: str | None = None,
    bonus: float = shipped_default("current_bonus"),
) -> list[dict[str, Any]]:
    """Choose one value per supersession key and re-score ``pool`` (turn id → candidate).

    Args:
        rows: keyed fact rows (the ``keyed`` part of ``read/linked_read``): fact_id, key,
            serial, valid_from, text, object, modality, cites; already restricted to what was
            visible when the question was asked.
        pool: the candidate turns; only turns already in the pool are re-scored.
        mode: ``current`` (latest value) or ``past`` (see module docstring).
        window: the time the question names (past questions).
        anchor: the phrase after "before" (past questions).
        bonus: score added to the chosen value's turns and taken from the turns only the
            key's other values cite (`kgmem.retrieve.config.EngineConfig.current_bonus`; larger
            than the adjacency and time terms, smaller than a cosine gap that signals topic).

    Returns:
        one decision per key: ``{"key", "mode", "winner", "text", "reason", "superseded":
        [fact ids of the key's other values], "winner_turns", "other_turns"}``.
    """
    by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_key[row["key"]].append(row)
    decisions: list[dict[str, Any]] = []
    winners: set[str] = set()
    losers: set[str] = set()
    for key in sorted(by_key):
        ordered = sorted(by_key[key], key=_order)
        if mode == "past":
            found = _past_choice(ordered, window, anchor)
            if found is None:
                continue
            index, reason = found
        else:
            index, reason = len(ordered) - 1, "latest value"
        winner = ordered[index]
        others = [r for i, r in enumerate(ordered) if i != index]
        other_turns = sorted({t for r in others for t in r["cites"]} - set(winner["cites"]))
        decision = {
            "key": key,
            "mode": mode,
            "winner": winner["fact_id"],
            "text": winner["text"],
            "reason": reason,
            "superseded": [r["fact_id"] for r in others],
            "winner_turns": list(winner["cites"]),
            "other_turns": other_turns,
        }
        decisions.append(decision)
        for turn in winner["cites"]:
            winners.add(turn)
            if turn in pool:
                pool[turn].bonus["current"] = bonus
                pool[turn].trace["current"] = {
                    k: v for k, v in decision.items() if k not in ("winner_turns", "other_turns")
                }
        losers.update(other_turns)
    for turn in losers - winners:
        if turn in pool:
            pool[turn].bonus["current"] = -bonus
            pool[turn].trace["superseded"] = True
    return decisions


def resolve_current(
    rows: Sequence[dict[str, Any]], pool: dict[str, Candidate]
) -> list[dict[str, Any]]:
    """Latest-wins per key (`resolve_state` with ``mode="current"``)."""
    return resolve_state(rows, pool, mode="current")


ANSWER_TYPES: frozenset[ValueType] = FORM_TYPES
"""Value types whose value is the answer by its form (`kgmem.ingest.extraction.values.FORM_TYPES`):
a question that explicitly asks for an e-mail address is answered by the turn holding one,
whatever else shares its topic word."""


def mark_answers(decisions: list[dict[str, Any]], question: Question) -> None:
    """Mark (``"answer": True``) the decisions on the attribute an explicit question asks for
    (`kgmem.retrieve.asked`) when its expected value type is one of `ANSWER_TYPES`:
    `order_hits` then puts the chosen turn first."""
    ask = question.ask
    if ask is None or not ask.explicit or ask.value_type not in ANSWER_TYPES:
        return
    for decision in decisions:
        parts = str(decision["key"]).split("|")
        if len(parts) > 1 and parts[1] == ask.attribute:
            decision["answer"] = True


def order_hits(hits: list[Hit], decisions: Sequence[dict[str, Any]]) -> list[Hit]:
    """Put each decision's chosen turn directly above the highest-ranked turn of another value
    of its key (of any other turn, for a decision marked ``"answer"`` by `mark_answers`), when
    it ranks below it; the moved hit's trace records ``"reordered"``.

    Returns:
        a new list (same hits, possibly reordered).
    """
    out = list(hits)
    for decision in decisions:
        winner_turns = set(decision.get("winner_turns", ()))
        other = set(decision.get("other_turns", ())) - winner_turns
        if decision.get("answer"):  # the asked value itself: first (`mark_answers`)
            other = {h.turn_id for h in out} - winner_turns
        pos = {h.turn_id: i for i, h in enumerate(out)}
        w = min((pos[t] for t in winner_turns if t in pos), default=None)
        o = min((pos[t] for t in other if t in pos), default=None)
        if w is None or o is None or w < o:
            continue
        hit = out.pop(w)
        hit.trace["reordered"] = {
            "above": out[o].turn_id,
            "key": decision["key"],
            "reason": "asked value" if decision.get("answer") else "current value",
        }
        out.insert(o, hit)
    return out


def current_values(
    qplan: QueryPlan, pool: list[Candidate], pools: LinkedPools, bonus: float
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """Current or past value per supersession key about the plan's entities (`resolve_state`,
    ``bonus`` the ``current_bonus`` setting) over the keyed facts `linked_read` returned
    (already restricted to what was visible at ``as_of``); the chosen values' turns join the
    pool if they are not in it yet (with their best citing facts, `LinkedPools.keyed_turns`).
    Returns the pool and the decisions (`mark_answers` marks each value that answers the
    question)."""
    rows = relevant_rows(qplan.reading, pools.keyed)
    if not rows:
        return pool, []
    by_id = {c.turn_id: c for c in pool}
    wanted = sorted({t for row in rows for t in row["cites"]} - set(by_id))
    joined = [pools.keyed_turns[t] for t in wanted if t in pools.keyed_turns]
    by_id.update({c.turn_id: c for c in joined})
    decisions = resolve_state(
        rows,
        by_id,
        mode=qplan.state or "current",
        window=qplan.time_range,
        anchor=qplan.anchor if qplan.relation == "before" else None,
        bonus=bonus,
    )
    mark_answers(decisions, qplan.reading)
    return list(by_id.values()), decisions
