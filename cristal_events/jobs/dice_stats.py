"""The statistics of the fairness report: the chi-square survival function and the runs of fair dice.

Pure functions of numbers (:mod:`cristal_events.jobs.dice_report` applies them to the log's dice):
:func:`chi2_sf` (with :func:`gamma_q`, the regularized upper incomplete gamma function),
:func:`no_run_probability`, :func:`run_tail` and :func:`expected_longest_run`.
"""

from __future__ import annotations

import functools
import math

# Written here rather than taken from scipy: scipy.stats.chi2.sf is the only function the report needs,
# and scipy is a 40 MB dependency (with numpy) for it. The regularized upper incomplete gamma function
# Q(a, x) by its series for x < a + 1 and by its continued fraction (modified Lentz) otherwise, as in
# Numerical Recipes (Press et al., 3rd ed., §6.2, gser/gcf); math.lgamma gives ln Γ(a).
_EPS = 1e-15
_TINY = 1e-300
_ITMAX = 10_000


def _gamma_p_series(a: float, x: float) -> float:
    """P(a, x) by its series (converges quickly for x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(_ITMAX):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (converges quickly for x ≥ a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _ITMAX):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0, x ≥ 0."""
    if a <= 0 or x < 0:
        raise ValueError("gamma_q needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return 1.0 - _gamma_p_series(a, x)
    return _gamma_q_fraction(a, x)


def chi2_sf(statistic: float, df: int) -> float:
    """P(X² ≥ statistic) for a chi-square variable with ``df`` degrees of freedom: Q(df/2, statistic/2)."""
    return gamma_q(df / 2.0, max(statistic, 0.0) / 2.0)


# -------------------------------------------------------------------------------------------- streaks
@functools.lru_cache(maxsize=1024)
def no_run_probability(n: int, run: int, p: float) -> float:
    """The probability that ``n`` independent trials of success probability ``p`` hold no run of ``run``
    successes: A(m) = A(m−1) − (1−p)·p^run·A(m−run−1), A(m) = 1 for m < run, A(run) = 1 − p^run (a first
    run that ends at trial m starts after a failure at m−run and a run-free start).

    The recurrence reads A(m−run−1) through an iterator over the list it appends to (a list's
    iterator sees what is appended) and keeps A(m−1) in a local: the same operations in the same
    order as indexing the list, so the same floats, in half the time (the 1M campaign's report:
    68 calls over 190,000 rolls of d6, 0.43 s against 0.93; benchmarks/README.md, "Ninth session")."""
    if run <= 0:
        return 0.0
    if n < run:
        return 1.0
    # n // run disjoint blocks of `run` trials, each all successes with p^run: P(no run) is at most
    # (1 − p^run)^(n // run); below 1e-18 it is 0 to a double, and the O(n) recurrence is skipped
    if p < 1 and (n // run) * math.log1p(-(p ** run)) < -41.5:
        return 0.0
    a = [1.0] * run + [1.0 - p ** run]
    k = (1.0 - p) * p ** run
    cur, append, lag = a[-1], a.append, iter(a)  # lag: A(m−run−1), from A(0) on
    for _ in range(n - run):
        cur = cur - k * next(lag)
        append(cur)
    return max(0.0, min(1.0, cur))


def run_tail(n: int, run: int, p: float) -> float:
    """The probability of a run of at least ``run`` successes in ``n`` trials."""
    return 1.0 - no_run_probability(n, run, p)


@functools.lru_cache(maxsize=256)
def expected_longest_run(n: int, p: float) -> float:
    """The mean longest run of successes in ``n`` trials: Σ_{L≥1} P(longest ≥ L)."""
    if n <= 0 or p <= 0:
        return 0.0
    if p >= 1:
        return float(n)
    total, run = 0.0, 1
    while run <= n:
        tail = run_tail(n, run, p)
        total += tail
        if tail < 1e-9:
            break
        run += 1
    return total
