"""LoCoMo's answer scoring (token F1, EM) and the extractive floor (kgmem.bench.answers)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kgmem.bench.answers import (
    answer_value,
    extractive_answer,
    locomo_em,
    locomo_f1,
    locomo_normalize,
    strip_citations,
    token_f1,
)
from kgmem.models import Hit


def _hit(turn_id: str, text: str, day: int = 8) -> Hit:
    return Hit(
        turn_id=turn_id,
        text=text,
        speaker="Ana",
        session=1,
        observed_at=datetime(2023, 5, day, 13, 56, tzinfo=UTC),
        score=0.5,
    )


def test_normalisation_drops_commas_punctuation_articles_and_and() -> None:
    assert locomo_normalize("The Cat, and a Dog!") == "cat dog"
    assert locomo_normalize("7 May, 2023") == "7 may 2023"


def test_f1_stems_with_porter_as_locomo_does() -> None:
    # "painting"/"paintings" and "races"/"race" share Porter stems
    assert token_f1("paintings", "painting") == 1.0
    assert token_f1("she ran charity races", "charity race") == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert token_f1("nothing", "something else") == 0.0


def test_multi_hop_splits_at_commas_and_scores_each_gold_part() -> None:
    # gold parts: pottery (found), camping (missed): mean of 1 and 0
    assert locomo_f1("pottery, hiking", "Pottery, camping", 1) == 0.5
    # a single-hop answer is scored whole: 1 of 2 predicted tokens, 1 of 2 gold tokens
    assert locomo_f1("pottery, hiking", "Pottery, camping", 4) == 0.5


def test_open_domain_gold_is_cut_at_the_first_semicolon() -> None:
    assert locomo_f1("Likely yes", "Likely yes; she loves it", 3) == 1.0
    assert locomo_f1("Likely yes", "Likely yes; she loves it", 4) < 1.0
    assert locomo_em("likely yes.", "Likely yes; she loves it", 3) == 1.0


def test_exact_match_compares_token_sets_without_stemming() -> None:
    assert locomo_em("2023 May 7", "7 May 2023", 2) == 1.0
    assert locomo_em("paintings", "painting", 4) == 0.0


def test_citations_are_stripped_before_scoring() -> None:
    assert strip_citations("Lisbon [c1:D1:3], then Porto [2].") == "Lisbon, then Porto."


def test_answer_value_reads_the_value_or_none() -> None:
    assert answer_value({"value": "Ghent", "value_type": "place"}) == "Ghent"
    assert answer_value({"value": None}) is None
    assert answer_value(None) is None


def test_extractive_cuts_to_a_date_for_a_time_question() -> None:
    question = {"asked": "time", "value_type": None, "views": {"bm25_content_words": ["moved"]}}
    hits = [_hit("c:D1:1", "I love Lisbon. We moved there on 3 March 2022, finally!")]
    assert extractive_answer(question, hits) == "3 March 2022"


def test_extractive_time_question_without_a_date_says_the_day_of_the_turn() -> None:
    question = {"asked": "time", "views": {"bm25_content_words": ["support", "group"]}}
    hits = [_hit("c:D1:1", "I went to a LGBTQ support group yesterday.", day=8)]
    assert extractive_answer(question, hits) == "8 May 2023"


def test_extractive_takes_the_best_matching_sentence_else_the_better_rank() -> None:
    question = {"asked": "thing", "views": {"bm25_content_words": ["counseling", "applied"]}}
    hits = [
        _hit("c:D1:1", "Nice weather today. Sounds great."),
        _hit("c:D1:2", "Hello there. I applied to a counseling program."),
    ]
    assert extractive_answer(question, hits) == "I applied to a counseling program."
    tie = {"asked": "thing", "views": {"bm25_content_words": ["zebra"]}}
    assert extractive_answer(tie, hits) == "Nice weather today."
    assert extractive_answer(tie, []) == ""
