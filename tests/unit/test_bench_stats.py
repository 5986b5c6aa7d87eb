"""Bootstrap intervals and the McNemar test (kgmem.bench.stats) on hand-made outcomes."""

from __future__ import annotations

import pytest

from kgmem.bench.stats import bootstrap_interval, mcnemar, ratio_interval


def test_interval_is_fixed_by_the_seed_and_holds_the_mean() -> None:
    values = [1.0] * 60 + [0.0] * 40
    low, high = bootstrap_interval(values)
    assert bootstrap_interval(values) == [low, high]  # the same data, the same interval
    assert low < 0.6 < high
    # the binomial standard error is about 0.049: the interval spans about +-1.96 of it
    assert high - low == pytest.approx(2 * 1.96 * 0.049, abs=0.04)


def test_constant_outcomes_give_a_point_interval() -> None:
    assert bootstrap_interval([1.0, 1.0, 1.0]) == [1.0, 1.0]
    with pytest.raises(ValueError):
        bootstrap_interval([])


def test_ratio_interval_resamples_questions_in_pairs() -> None:
    # precision: 8 of 10 flagged questions are right; 10 further questions are not flagged
    right = [1.0] * 8 + [0.0] * 12
    flagged = [1.0] * 10 + [0.0] * 10
    low, high = ratio_interval(right, flagged)
    assert low < 0.8 < high
    assert low >= 0.0 and high <= 1.0
    assert ratio_interval([0.0, 0.0], [0.0, 0.0]) == [0.0, 0.0]  # nothing flagged: ratio 0


def test_mcnemar_counts_only_discordant_questions() -> None:
    row = [True] * 6 + [True] * 50 + [False] * 44
    ref = [False] * 6 + [True] * 50 + [False] * 44
    result = mcnemar(row, ref)
    # six discordant questions all one way: two-sided exact p = 2 / 2**6
    assert result == {"row_only": 6, "reference_only": 0, "p": 0.03125, "beyond_noise": True}
    same = mcnemar([True, False], [True, False])
    assert same["p"] == 1.0 and not same["beyond_noise"]
    one = mcnemar([True, False, False], [False, False, False])
    assert one["row_only"] == 1 and not one["beyond_noise"]  # one question is noise
    with pytest.raises(ValueError):
        mcnemar([True], [])
