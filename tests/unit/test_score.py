"""The scorer on hand-computed examples (docs/design.md §3.4)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kgmem.retrieve.score import (
    Candidate,
    ScoreWeights,
    TimeWindow,
    merge_candidates,
    score_candidates,
)

MAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
JUNE = datetime(2023, 6, 9, 19, 55, tzinfo=UTC)

#: the brief's first cut (fact 0.2) with no generator signals, the weights these cases use
FIRST_CUT = ScoreWeights(fact=0.2, adjacent=0.06, time=0.05, date=0.2, fact_floor=0.0, signals=())


def cand(
    turn: str,
    index: int,
    cosine: float,
    *,
    session: int = 1,
    fact: float | None = None,
    when: datetime = MAY,
) -> Candidate:
    return Candidate(
        turn_id=turn,
        text=turn,
        speaker="A",
        session=session,
        index=index,
        observed_at=when,
        cosine=cosine,
        fact_cosine=fact,
        fact_id=f"f-{turn}" if fact is not None else None,
        generators={"dense_turns"},
    )


def test_four_terms_hand_computed() -> None:
    pool = [
        cand("t0", 0, 0.50, fact=0.60),  # 0.50 + 0.2*0.60 = 0.62 (top-3)
        cand("t1", 1, 0.40),  # 0.40, beside t0 -> +0.06 ... but t1 is itself top-3
        cand("t2", 2, 0.30, fact=0.10),  # 0.30 + 0.02 = 0.32 (top-3)
        cand("t3", 3, 0.31),  # beside t2 (top-3), same session -> 0.31 + 0.06 = 0.37
        cand("t9", 9, 0.35, session=2, when=JUNE),  # June 2023; question names June -> +0.05
    ]
    hits = score_candidates(pool, FIRST_CUT, TimeWindow(year=2023, month=6))
    scores = {h.turn_id: h.score for h in hits}
    # top-3 by cosine + 0.2*fact: t0 0.62, t1 0.40, t9 0.35 -> t9 is top-3, so t2 (0.32) is not
    assert scores["t0"] == pytest.approx(0.62)
    assert scores["t1"] == pytest.approx(0.40)  # neighbour of t0 but itself top-3: no bonus
    assert scores["t2"] == pytest.approx(0.32 + 0.06)  # beside t1 (top-3, same session)
    assert scores["t3"] == pytest.approx(0.31)  # beside t2, which is not top-3
    assert scores["t9"] == pytest.approx(0.35 + 0.05)
    assert [h.turn_id for h in hits] == ["t0", "t1", "t9", "t2", "t3"]
    t2 = next(h for h in hits if h.turn_id == "t2")
    assert t2.terms == {"cosine": 0.3, "fact": pytest.approx(0.02), "adjacent": 0.06, "time": 0.0}
    assert t2.trace["fact_id"] == "f-t2"
    assert t2.trace["generators"] == ["dense_turns"]


def test_adjacency_needs_same_session() -> None:
    pool = [
        cand("a", 5, 0.9, session=1),
        cand("b", 6, 0.1, session=2),
        cand("c", 7, 0.2),
        cand("d", 8, 0.15),
    ]
    hits = {h.turn_id: h for h in score_candidates(pool, FIRST_CUT)}
    assert hits["b"].terms["adjacent"] == 0.0


def test_zero_weights_switch_terms_off() -> None:
    pool = [cand("a", 0, 0.5, fact=0.9), cand("b", 1, 0.1)]
    hits = score_candidates(
        pool, ScoreWeights(fact=0.0, adjacent=0.0, time=0.0), TimeWindow(year=2023)
    )
    assert [h.score for h in hits] == [0.5, 0.1]


def test_ties_break_by_timeline_order() -> None:
    hits = score_candidates(
        [cand("late", 9, 0.5), cand("early", 2, 0.5)], replace(FIRST_CUT, adjacent=0.0)
    )
    assert [h.turn_id for h in hits] == ["early", "late"]


def test_time_window_year_only_and_event_time() -> None:
    window = TimeWindow(year=2022)
    assert not window.contains(MAY)
    c = cand("x", 0, 0.2)
    c.event_time = datetime(2022, 12, 1, tzinfo=UTC)
    (hit,) = score_candidates([c], FIRST_CUT, window)
    assert hit.terms["time"] == 0.05
    assert not TimeWindow().contains(MAY)


def test_merge_keeps_best_fact_and_union_of_generators() -> None:
    a = cand("t", 0, 0.3, fact=0.2)
    b = cand("t", 0, 0.3, fact=0.7)
    b.generators = {"dense_facts"}
    (merged,) = merge_candidates([[a], [b]])
    assert merged.fact_cosine == 0.7 and merged.fact_id == "f-t"
    assert merged.generators == {"dense_turns", "dense_facts"}


def test_fact_floor_rewards_matching_not_having_a_fact() -> None:
    w = ScoreWeights(fact=1.0, adjacent=0.0, time=0.0, date=0.0, fact_floor=1.0, signals=())
    texts = {
        "none": "I always format code with black first.",  # no fact: its text is the evidence
        "weak": "We went over the plans with the builder.",  # a weaker fact than its text
        "good": "The budget is capped at eighteen thousand euros.",
        "asks": "Which trail shoes should I buy for the mud?",  # only asks: no stand-in
        "short": "Welcome to Ghent!",  # too short to stand in
    }
    pool = [
        replace(cand("none", 0, 0.60), text=texts["none"]),  # 0.60 + 0.60
        replace(cand("weak", 1, 0.50, fact=0.30), text=texts["weak"]),  # 0.50 + max(.30, .50)
        replace(cand("good", 2, 0.40, fact=0.70), text=texts["good"]),  # 0.40 + 0.70
        replace(cand("asks", 3, 0.90), text=texts["asks"]),  # 0.90
        replace(cand("short", 4, 0.80), text=texts["short"]),  # 0.80
    ]
    scores = {h.turn_id: h.score for h in score_candidates(pool, w)}
    assert scores == pytest.approx(
        {"none": 1.2, "weak": 1.0, "good": 1.1, "asks": 0.9, "short": 0.8}
    )
    # at 0 the term is the citing fact alone, as before the floor existed
    off = {h.turn_id: h.score for h in score_candidates(pool, replace(w, fact_floor=0.0))}
    assert off == pytest.approx({"none": 0.6, "weak": 0.8, "good": 1.1, "asks": 0.9, "short": 0.8})


LONG = " ".join(["word"] * 25)


def _said(
    turn: str, index: int, cosine: float, role: str | None, session: int = 1, text: str = LONG
) -> Candidate:
    c = replace(cand(turn, index, cosine, session=session), role=role, speaker=role or "Ana")
    return replace(c, text=text)


def test_a_user_turn_and_the_assistants_reply_are_one_exchange() -> None:
    from kgmem.retrieve.score import exchange_partners

    pool = [
        _said("ask", 4, 0.6, "user"),
        _said("reply", 5, 0.2, "assistant"),
        _said("next-ask", 6, 0.1, "user"),  # the reply answers "ask", not this later turn
        _said("other-session", 7, 0.5, "assistant", session=2),
    ]
    assert exchange_partners(pool) == {"ask": "reply", "reply": "ask"}
    hits = {h.turn_id: h for h in score_candidates(pool, replace(FIRST_CUT, exchange=0.5))}
    assert hits["reply"].terms["exchange"] == pytest.approx(0.5 * 0.6)
    assert hits["ask"].terms["exchange"] == pytest.approx(0.5 * 0.2)
    assert "exchange" not in hits["next-ask"].terms
    assert "exchange" not in hits["other-session"].terms


def test_a_short_acknowledgement_lifts_nothing_but_is_lifted() -> None:
    from kgmem.retrieve.score import exchange_partners

    pool = [_said("ask", 0, 0.6, "user"), _said("ack", 1, 0.2, "assistant", text="Welcome!")]
    assert exchange_partners(pool) == {"ack": "ask"}


def test_turns_without_roles_have_no_exchange() -> None:
    pool = [_said("a", 0, 0.6, None), _said("b", 1, 0.2, None)]
    hits = score_candidates(pool, replace(FIRST_CUT, exchange=0.5))
    assert all("exchange" not in h.terms for h in hits)
    off = score_candidates(
        [_said("q", 0, 0.6, "user"), _said("r", 1, 0.2, "assistant")],
        replace(FIRST_CUT, exchange=0.0),
    )
    assert all("exchange" not in h.terms for h in off)
