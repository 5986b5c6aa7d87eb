"""Intervals and paired tests for benchmark figures: a one-question change told from noise.

- `bootstrap_interval`: the percentile bootstrap 95 % interval of a mean over questions
  (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13), by
  `scipy.stats.bootstrap` with a fixed seed and `RESAMPLES` resamples;
- `ratio_interval`: the same for a ratio of two per-question sums (precision = flagged-and-right
  over flagged), questions resampled in pairs;
- `mcnemar`: the exact McNemar test of two configurations on the same questions (McNemar,
  Psychometrika 1947): only the discordant questions count, and under "no difference" each
  is equally likely to go either way, a binomial test (`scipy.stats.binomtest`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["ALPHA", "RESAMPLES", "SEED", "bootstrap_interval", "mcnemar", "ratio_interval"]

RESAMPLES = 1000
"""Bootstrap resamples per interval."""
SEED = 0
"""The bootstrap's seed: the same data give the same interval on every run."""
ALPHA = 0.05
"""Two-sided level: 95 % intervals; a paired difference with p < ALPHA is beyond noise."""


def _interval(
    data: tuple[npt.NDArray[np.float64], ...], statistic: Any, paired: bool
) -> list[float]:
    from scipy.stats import bootstrap

    result = bootstrap(
        data,
        statistic,
        n_resamples=RESAMPLES,
        confidence_level=1 - ALPHA,
        method="percentile",
        paired=paired,
        vectorized=True,
        rng=np.random.default_rng(SEED),
    )
    low, high = result.confidence_interval
    return [float(low), float(high)]


def bootstrap_interval(values: Sequence[float]) -> list[float]:
    """The 95 % percentile-bootstrap interval ``[low, high]`` of the mean of ``values``
    (one value per question, e.g. ALL@10 in {0, 1}); ``[v, v]`` when every value is ``v``.

    Raises:
        ValueError: ``values`` is empty.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("interval of an empty sample")
    if np.all(data == data[0]):  # nothing to resample; scipy would warn of degenerate data
        return [float(data[0]), float(data[0])]
    return _interval((data,), lambda x, axis: np.mean(x, axis=axis), paired=False)


def ratio_interval(numerator: Sequence[float], denominator: Sequence[float]) -> list[float]:
    """The 95 % interval of ``sum(numerator) / sum(denominator)``, questions resampled with
    both of their values (a resample whose denominator is 0 counts as ratio 0, as
    `kgmem.bench.answerability` reports an empty precision).

    Raises:
        ValueError: the sequences are empty or of different lengths.
    """
    top, bottom = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    if top.size == 0 or top.shape != bottom.shape:
        raise ValueError("ratio interval needs two non-empty samples of one length")

    def ratio(t: npt.NDArray[np.float64], b: npt.NDArray[np.float64], axis: int) -> Any:
        total = np.sum(b, axis=axis)
        return np.divide(np.sum(t, axis=axis), total, out=np.zeros_like(total), where=total > 0)

    if np.all(top == top[0]) and np.all(bottom == bottom[0]):
        value = float(ratio(top, bottom, 0))
        return [value, value]
    return _interval((top, bottom), ratio, paired=True)


def mcnemar(row: Sequence[bool], reference: Sequence[bool]) -> dict[str, Any]:
    """Exact McNemar test of two paired outcomes (e.g. ALL@10 per question).

    Args:
        row, reference: one outcome per question, the same questions in the same order.

    Returns:
        ``{"row_only": b, "reference_only": c, "p": two-sided exact p-value (1.0 when b + c
        = 0), "beyond_noise": p < ALPHA}``.

    Raises:
        ValueError: the sequences differ in length.
    """
    if len(row) != len(reference):
        raise ValueError("paired outcomes must cover the same questions")
    from scipy.stats import binomtest

    b = sum(1 for x, y in zip(row, reference, strict=True) if x and not y)
    c = sum(1 for x, y in zip(row, reference, strict=True) if y and not x)
    p = float(binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    # six significant digits: a p-value of 1e-60 is not 0
    return {"row_only": b, "reference_only": c, "p": float(f"{p:.6g}"), "beyond_noise": p < ALPHA}
