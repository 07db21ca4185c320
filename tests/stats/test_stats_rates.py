"""Means and rates with standard errors, against values worked out by hand."""

from __future__ import annotations

import pytest

from verstehen.stats.rates import mean_se, rate_se


def test_mean_se_uses_the_sample_variance() -> None:
    # [1, 0, 1, 1]: mean 3/4; squared deviations 1/16 * 3 + 9/16 = 3/4; s² = 3/4 / 3 = 1/4
    assert mean_se([1.0, 0.0, 1.0, 1.0]) == pytest.approx((0.75, 0.25))
    assert mean_se([0.5]) == (0.5, 0.0)


def test_rate_se_is_binomial() -> None:
    # 3 of 12: p = 1/4, sqrt(1/4 * 3/4 / 12) = sqrt(1/64) = 1/8
    assert rate_se(3, 12) == pytest.approx((0.25, 0.125))
    assert rate_se(0, 5) == (0.0, 0.0)
