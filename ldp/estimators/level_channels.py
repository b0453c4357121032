"""How reports arise from answer levels: the channels the binned fit inverts.

A level channel says how a mechanism's reports arise from the answer levels
``f`` and fits them, vectorised over rows: ``fit`` (the constrained
maximum-likelihood ``f̃`` on the simplex, by EM).  :class:`HistogramChannel`
covers the mechanisms whose report is one of ``m`` outputs,
:class:`UnaryChannel` unary encoding; :func:`level_channel` picks one for a
mechanism, and :func:`debiased_levels` gives the debiased level shares with
the covariance the binned distribution's intervals are computed from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.channel import channel_estimate
from ldp.estimators.consistency import binomial_mle
from ldp.estimators.simplex_newton import newton_fit

TOLERANCE = 1e-9
MAX_ITERATIONS = 2_000
WARM_UP_ITERATIONS = 30
"""SQUAREM iterations before the point fit's Newton steps."""
POLISH_TOLERANCE = 1e-13
"""The fallback's plain EM steps stop once no share moves by this much."""
POLISH_STEPS = 20_000
"""At most this many plain EM steps polish the fallback fit."""


def _squarem(
    step: Any, loglik: Any, start: FloatArray, tol: float, max_iter: int
) -> FloatArray:
    """Run a simplex-preserving EM map ``step`` to convergence, row by row.

    SQUAREM (Varadhan & Roland 2008, scheme S3): from ``f0``,
    ``r = EM(f0) − f0``, ``v = EM(EM(f0)) − 2 EM(f0) + f0``,
    ``α = −‖r‖/‖v‖`` (at most −1) and ``f = EM(f0 − 2αr + α²v)``; a row
    whose extrapolation leaves the simplex or lowers the likelihood falls back
    to the plain double EM step, so the log-likelihood never decreases.  Rows
    stop when their log-likelihood gains less than ``tol``.
    """
    f = start.copy()
    current = loglik(f)
    active = np.ones(f.shape[0], dtype=bool)
    for _ in range(max_iter):
        rows = np.nonzero(active)[0]
        if rows.size == 0:
            break
        f0 = f[rows]
        f1 = step(f0, rows)
        f2 = step(f1, rows)
        r, v = f1 - f0, f2 - 2 * f1 + f0
        r_norm = np.linalg.norm(r, axis=1)
        v_norm = np.linalg.norm(v, axis=1)
        alpha = -np.divide(r_norm, v_norm, out=np.ones_like(r_norm), where=v_norm > 0)
        alpha = np.minimum(alpha, -1.0)[:, None]
        jump = f0 - 2 * alpha * r + alpha**2 * v
        jump = np.maximum(jump, 1e-12)
        empty = jump.sum(axis=1) <= 0
        jump[empty] = f2[empty]
        jump /= jump.sum(axis=1, keepdims=True)
        candidate = step(jump, rows)
        gained = loglik(candidate, rows)
        plain = loglik(f2, rows)
        worse = gained < plain
        candidate[worse] = f2[worse]
        gained = np.where(worse, plain, gained)
        f[rows] = candidate
        active[rows] = gained - current[rows] >= tol
        current[rows] = gained
    return f


@dataclass(frozen=True)
class HistogramChannel:
    """Each report is one of ``m`` outputs: ``Q[x, y] = P(report y | level x)``.

    The ordinal, numeric-grid, GRR and binary mechanisms.  The reports are
    i.i.d. multinomial with cell probabilities ``(Qᵀ f)_y``.
    """

    channel: FloatArray
    # Which column of ``channel`` each report value counts towards (None: its
    # own); see :meth:`merged`.
    groups: IntArray | None = None

    @classmethod
    def merged(cls, matrix: FloatArray) -> HistogramChannel:
        """The channel with identical columns merged into one (their sum).

        Reports whose columns ``Q[:, y]`` are equal are indistinguishable to
        the likelihood: with a merged column ``Q'[:, g] = Σ_{y in g} Q[:, y]``
        and merged counts ``c'_g = Σ_{y in g} c_y``,
        ``Σ_y c_y ln (Qᵀf)_y = Σ_g c'_g ln (Q'ᵀf)_g − Σ_g c'_g ln |g|``, so the
        maximiser, every EM iterate and the multinomial law of ``c'`` are the
        same, with fewer columns to multiply (the piecewise mechanism on 201
        levels at ε = 1: 643 report values, 401 distinct columns).
        """
        matrix = np.asarray(matrix, dtype=float)
        _, first, groups = np.unique(
            matrix.T, axis=0, return_index=True, return_inverse=True
        )
        if first.size == matrix.shape[1]:
            return cls(matrix)
        groups = np.asarray(groups, dtype=np.int64).reshape(-1)
        summed = np.zeros((matrix.shape[0], first.size))
        np.add.at(summed.T, groups, matrix.T)
        return cls(summed, groups)

    @property
    def levels(self) -> int:
        return int(self.channel.shape[0])

    def sufficient(self, counts: FloatArray) -> FloatArray:
        """The report histogram on the (merged) columns of ``channel``."""
        counts = np.asarray(counts, dtype=float)
        if self.groups is None:
            return counts
        merged: FloatArray = np.zeros(self.channel.shape[1])
        np.add.at(merged, self.groups, counts)
        return merged

    def fit(
        self, counts: FloatArray, n: int, max_iter: int = MAX_ITERATIONS
    ) -> FloatArray:
        """Maximise ``Σ_y c_y ln (Qᵀ f)_y`` over the simplex by EM.

        EM step (Agrawal & Aggarwal 2001, section 3):
        ``f_x ← f_x Σ_y (c_y/n) Q[x, y] / (Qᵀ f)_y``, accelerated by SQUAREM,
        from the uniform start, for at most ``max_iter`` iterations.
        """
        q = np.asarray(self.channel, dtype=float)
        shares = np.atleast_2d(np.asarray(counts, dtype=float)) / n

        def predicted(f: FloatArray) -> FloatArray:
            out: FloatArray = np.maximum(f @ q, 1e-300)
            return out

        def step(f: FloatArray, rows: IntArray) -> FloatArray:
            ratio = shares[rows] / predicted(f)
            updated: FloatArray = f * (ratio @ q.T)
            normalised: FloatArray = updated / updated.sum(axis=1, keepdims=True)
            return normalised

        def loglik(f: FloatArray, rows: IntArray | None = None) -> FloatArray:
            s = shares if rows is None else shares[rows]
            value: FloatArray = np.sum(s * np.log(predicted(f)), axis=1)
            return value

        start = np.full((shares.shape[0], self.levels), 1.0 / self.levels)
        return _squarem(step, loglik, start, TOLERANCE, max_iter)

    def point_fit(self, counts: FloatArray, n: int) -> FloatArray:
        """The maximum-likelihood level shares of one count vector, to rounding.

        A warm-up of at most :data:`WARM_UP_ITERATIONS` SQUAREM iterations of
        :meth:`fit` (the same start, steps and stop), then projected Newton
        steps (:func:`ldp.estimators.simplex_newton.newton_fit`: Bertsekas
        1982 on the orthant form of the likelihood) until the KKT residual
        ``max_x |min(f_x, 1 − Σ_y s_y Q[x, y]/(Qᵀf)_y)|`` is at most
        :data:`~ldp.estimators.simplex_newton.KKT_TOLERANCE`: the positive
        shares' gradient equals 1 and no zero share's exceeds it.  The
        Newton steps converge quadratically onto the maximum itself, so two
        implementations of the same steps (the export's R script,
        ``ldp.estimators.binned_r``) agree to rounding, where SQUAREM's or
        EM's stops land anywhere along the likelihood's flat directions.
        Where they do not converge within
        :data:`~ldp.estimators.simplex_newton.NEWTON_STEPS` (a likelihood
        flat along many directions, as the geometric mechanism's on 201
        levels), :meth:`polished_fit`.
        """
        counts = np.asarray(counts, dtype=float)
        start = self.fit(counts[None, :], n, WARM_UP_ITERATIONS)[0]
        fitted = newton_fit(self.channel, counts / n, start)
        if fitted is not None:
            return fitted
        return self.polished_fit(counts, n)

    def polished_fit(self, counts: FloatArray, n: int) -> FloatArray:
        """:meth:`fit` of one count vector, polished by plain EM steps: the
        point fit's fallback where the Newton steps do not converge.

        SQUAREM's extrapolation divides by ``‖v‖``, a second difference of
        the iterates that cancels to rounding noise near the maximum, so its
        last steps land anywhere within a few 1e-8 of it along the flat
        directions of the likelihood.  The EM step itself has no such
        cancellation: from :meth:`fit`'s stop, plain steps
        ``f_x ← f_x Σ_y (c_y/n) Q[x, y] / (Qᵀ f)_y`` (renormalised) run until
        no share moves by :data:`POLISH_TOLERANCE` (at most
        :data:`POLISH_STEPS`).
        """
        q = np.asarray(self.channel, dtype=float)
        counts = np.asarray(counts, dtype=float)
        shares = counts / n
        f: FloatArray = self.fit(counts[None, :], n)[0]
        for _ in range(POLISH_STEPS):
            updated = f * (q @ (shares / np.maximum(f @ q, 1e-300)))
            updated /= updated.sum()
            moved = float(np.max(np.abs(updated - f)))
            f = updated
            if moved < POLISH_TOLERANCE:
                break
        return f


@dataclass(frozen=True)
class UnaryChannel:
    """Unary encoding: one bit per level, on with ``p`` for the answer, else ``q``.

    The support count of level ``v`` is ``C_v = Bin(n_v, p) + Bin(n − n_v, q)``
    with ``(n_v) ~ Multinomial(n, f)``; the bits are independent given the
    answer.
    """

    p: float
    q: float
    levels: int

    def sufficient(self, counts: FloatArray) -> FloatArray:
        """The support counts, as they are."""
        return np.asarray(counts, dtype=float)

    def fit(self, counts: FloatArray, n: int) -> FloatArray:
        """Maximise ``Σ_x C_x ln λ_x + (n − C_x) ln(1 − λ_x)`` on the simplex.

        ``λ_x = q + (p − q) f_x``: the per-bit binomial (composite) likelihood
        of the support counts, solved exactly by
        :func:`ldp.estimators.consistency.binomial_mle` (KKT conditions and
        bisection on the multiplier; Wang et al., NDSS 2020, section 4).
        """
        rows = np.atleast_2d(np.asarray(counts, dtype=float))
        p = np.full(self.levels, self.p)
        q = np.full(self.levels, self.q)
        fitted: FloatArray = np.vstack(
            [binomial_mle(row.astype(np.int64), n, p, q, steps=80) for row in rows]
        )
        return fitted

    def point_fit(self, counts: FloatArray, n: int) -> FloatArray:
        """:meth:`fit` of one count vector (exact up to its bisection)."""
        fitted: FloatArray = self.fit(np.asarray(counts, dtype=float)[None, :], n)[0]
        return fitted


LevelChannel = HistogramChannel | UnaryChannel
"""How reports arise from answer levels: ``fit``, vectorised over rows."""


def level_channel(mechanism: Any) -> LevelChannel | None:
    """The channel of a mechanism over its levels, or None when there is none.

    Parameters
    ----------
    mechanism : ldp.Mechanism
        An ordinal, numeric-grid, GRR, binary or unary-encoding mechanism.

    Returns
    -------
    HistogramChannel, UnaryChannel or None
        None for hashing oracles (OLH, Hadamard: no small channel over
        the levels) and for channels with fewer outputs than levels (Duchi's
        two outputs identify only the mean).

    Notes
    -----
    A histogram channel is ``Q = mechanism.channel_matrix()`` with identical
    columns merged (:meth:`HistogramChannel.merged`); unary
    encoding is described by its realised ``p*``, ``q*`` (docs/maths.md,
    section 2).
    """
    if getattr(mechanism, "one_hot_bits", False):
        p, q = float(mechanism.p_star[0]), float(mechanism.q_star[0])
        return UnaryChannel(p, q, int(mechanism.k))
    try:
        matrix = np.asarray(mechanism.channel_matrix(), dtype=float)
    except NotImplementedError:
        return None
    if matrix.shape[1] < matrix.shape[0]:
        return None
    return _merged_once(matrix)


# Merged channels by their matrix's digest: merging sorts the columns
# (``np.unique(axis=0)``), about 25 ms for the piecewise mechanism on 201
# levels, and one result asks for the same channel four times (fit, bins,
# median, export script); a profile showed it cost more than the fit.
_MERGED: dict[tuple[tuple[int, ...], bytes], HistogramChannel] = {}
_MERGED_KEPT = 32


def _merged_once(matrix: FloatArray) -> HistogramChannel:
    """:meth:`HistogramChannel.merged`, computed once per distinct matrix in
    this process (read-only arrays, so a shared channel cannot be changed)."""
    matrix = np.ascontiguousarray(matrix, dtype=float)
    key = (matrix.shape, hashlib.sha256(matrix.tobytes()).digest())
    found = _MERGED.get(key)
    if found is None:
        found = HistogramChannel.merged(matrix)
        for array in (found.channel, found.groups):
            if array is not None:
                array.setflags(write=False)
        if len(_MERGED) >= _MERGED_KEPT:
            _MERGED.pop(next(iter(_MERGED)))
        _MERGED[key] = found
    return found


def debiased_levels(mechanism: Any, stat: Any) -> tuple[FloatArray, FloatArray]:
    """The debiased level shares ``f̂`` of a mechanism's reports and their
    covariance, as the mechanism's own estimator gives them.

    Parameters
    ----------
    mechanism : ldp.Mechanism
        A mechanism with a level channel (:func:`level_channel`).
    stat : ldp.SupportCounts
        The aggregate of its reports (at least 2).

    Returns
    -------
    (ndarray, ndarray)
        ``f̂`` and ``Cov(f̂)``, shape ``(k,)`` and ``(k, k)``.

    Notes
    -----
    A histogram channel (ordinal, numeric grids, GRR, binary): the channel
    inversion ``f̂ = A c/n`` with its sandwich covariance
    ``A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n`` (``ldp.estimators.channel``, the
    mechanism's :meth:`estimate` where it gives one).  Unary encoding: the
    frequency oracle's ``f̂_v`` with its variances on the diagonal; the
    bits of one report are independent given its answer, so
    ``Cov(b_u, b_v) = −(p − q)² f_u f_v`` and
    ``Cov(f̂_u, f̂_v) = −f_u f_v/n`` off it, evaluated at ``f̂`` held
    within [0, 1] (docs/maths.md, section 11).
    """
    estimate = mechanism.estimate(stat)
    channel = level_channel(mechanism)
    if isinstance(channel, UnaryChannel):
        f = np.clip(estimate.estimate, 0.0, 1.0)
        covariance = -np.outer(f, f) / estimate.n
        np.fill_diagonal(covariance, np.asarray(estimate.standard_error) ** 2)
        return np.asarray(estimate.estimate, dtype=float), covariance
    if not hasattr(estimate, "covariance"):
        estimate = channel_estimate(
            np.asarray(stat.counts),
            mechanism.channel_matrix(),
            np.arange(int(mechanism.k), dtype=float),
            mechanism=str(mechanism.name),
            epsilon=float(mechanism.epsilon),
        )
    return np.asarray(estimate.estimate, dtype=float), estimate.covariance
