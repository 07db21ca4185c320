"""KL-Chernoff and Hoeffding bounds on a mean in [0, 1] (paper section 4, appendices A-B).

All functions are pure and vectorized: pass floats or numpy arrays (they broadcast); a float
comes back for all-scalar input, an array otherwise.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

ArrayOrFloat = float | np.ndarray

# Bisection halves [x, 1] or [0, x] each step; 100 steps reach the spacing of doubles.
_BISECTION_STEPS = 100


def _out(value: np.ndarray) -> ArrayOrFloat:
    return float(value) if value.ndim == 0 else value


def _check(x: np.ndarray, n: np.ndarray, delta: np.ndarray) -> None:
    if np.any((x < 0) | (x > 1) | np.isnan(x)):
        raise ValueError("the observed mean x must lie in [0, 1]")
    if np.any(~(n >= 1)):
        raise ValueError("the number of samples n must be at least 1")
    if np.any(~((delta > 0) & (delta < 1))):
        raise ValueError("delta must lie strictly between 0 and 1")


def kl_bernoulli(x: ArrayLike, y: ArrayLike) -> ArrayOrFloat:
    """d(x, y): relative entropy between Bernoulli(x) and Bernoulli(y), with limit values.

    Definition A.1 lists overlapping cases at x = y = 1 (0 by case 3, infinity by case 4);
    we take the limit, 0, as for every x = y.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    out = np.full(x.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inner = (x > 0) & (x < 1) & (y > 0) & (y < 1)
        xi, yi = x[inner], y[inner]
        # log1p of the relative gap keeps d accurate when y is within 1e-9 of x (n = 1e9);
        # far from x, differences of logs avoid overflow (subnormal x) and rounding (tiny y)
        near = np.abs(yi - xi) <= 0.5 * xi
        first = np.where(near, -xi * np.log1p(np.where(near, (yi - xi) / xi, 0.0)),
                         xi * (np.log(xi) - np.log(yi)))
        near = np.abs(yi - xi) <= 0.5 * (1 - xi)
        second = np.where(near, -(1 - xi) * np.log1p(np.where(near, (xi - yi) / (1 - xi), 0.0)),
                          (1 - xi) * (np.log1p(-xi) - np.log1p(-yi)))
        out[inner] = first + second
        zero = (x == 0) & (y < 1)
        out[zero] = -np.log1p(-y[zero])
        one = (x == 1) & (y > 0)
        out[one] = -np.log(y[one])
    out[x == y] = 0.0
    return _out(np.maximum(out, 0.0))


def _bisect(x: np.ndarray, budget: np.ndarray, upper: bool) -> np.ndarray:
    """The y on x's upper (or lower) side where d(x, y) = budget, rounded outward."""
    lo = x.copy() if upper else np.zeros_like(x)
    hi = np.ones_like(x) if upper else x.copy()
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        inside = np.asarray(kl_bernoulli(x, mid)) <= budget
        if upper:
            lo, hi = np.where(inside, mid, lo), np.where(inside, hi, mid)
        else:
            lo, hi = np.where(inside, lo, mid), np.where(inside, mid, hi)
    return hi if upper else lo


def _chernoff(x: ArrayLike, n: ArrayLike, delta: ArrayLike, upper: bool) -> ArrayOrFloat:
    x, n, delta = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, n, delta)))
    _check(x, n, delta)
    budget = -np.log(delta) / n
    out = np.ones(x.shape) if upper else np.zeros(x.shape)
    mid = (x > 0) & (x < 1)
    out[mid] = _bisect(x[mid], budget[mid], upper)
    # closed forms: d(0, y) = -ln(1 - y) and d(1, y) = -ln(y)
    if upper:
        out[x == 0] = -np.expm1(-budget[x == 0])
    else:
        out[x == 1] = np.exp(-budget[x == 1])
    return _out(out)


def chernoff_upper(x: ArrayLike, n: ArrayLike, delta: ArrayLike) -> ArrayOrFloat:
    """U(x, n, δ) = max{y in [0, 1] : d(x, y) <= ln(1/δ)/n} (eq. 4.1)."""
    return _chernoff(x, n, delta, upper=True)


def chernoff_lower(x: ArrayLike, n: ArrayLike, delta: ArrayLike) -> ArrayOrFloat:
    """L(x, n, δ) = min{y in [0, 1] : d(x, y) <= ln(1/δ)/n} (eq. 4.2)."""
    return _chernoff(x, n, delta, upper=False)


def _hoeffding_width(n: NDArray[np.float64], delta: NDArray[np.float64], paper: bool
                     ) -> NDArray[np.float64]:
    return np.sqrt(-np.log(delta) / (n if paper else 2 * n))


def hoeffding_upper(x: ArrayLike, n: ArrayLike, delta: ArrayLike, *,
                    paper: bool = False) -> ArrayOrFloat:
    """x + sqrt(ln(1/δ)/(2n)), unclipped (values above 1 are uninformative).

    `paper=True` gives appendix B's form x + sqrt(ln(1/δ)/n), which Tables 3-4 print; it is
    sqrt(2) wider than Hoeffding's inequality requires for variables in [0, 1].
    """
    x, n, delta = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, n, delta)))
    _check(x, n, delta)
    return _out(x + _hoeffding_width(n, delta, paper))


def hoeffding_lower(x: ArrayLike, n: ArrayLike, delta: ArrayLike, *,
                    paper: bool = False) -> ArrayOrFloat:
    """x - sqrt(ln(1/δ)/(2n)), unclipped; `paper=True` as in hoeffding_upper."""
    x, n, delta = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, n, delta)))
    _check(x, n, delta)
    return _out(x - _hoeffding_width(n, delta, paper))


def rid_for_test_length(n_t: ArrayLike, delta: ArrayLike) -> ArrayOrFloat:
    """RID = 1 - exp(ln(1-δ)/n_t): no ridiculous answer in n_t questions w.p. >= 1-δ (sec. 3)."""
    n_t, delta = np.broadcast_arrays(np.asarray(n_t, dtype=float), np.asarray(delta, dtype=float))
    if np.any(~(n_t >= 1)):
        raise ValueError("the test length n_t must be at least 1")
    if np.any(~((delta > 0) & (delta < 1))):
        raise ValueError("delta must lie strictly between 0 and 1")
    return _out(-np.expm1(np.log1p(-delta) / n_t))
