"""Cross-tabulation of two independently randomized questions.

Two questions randomized independently on the same device form one joint
channel, the Kronecker product of their channels, so the joint distribution
of the true answers is estimated by inverting that product.  Everything here
is post-processing of the reports (no privacy cost).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.consistency import project_simplex
from ldp.estimators.intervals import (
    ConfidenceInterval,
    bounded_interval,
    check_method,
    critical_value,
)

CELLS_MAX = 2500
"""Largest number of joint answer cells ``k_A · k_B`` estimated (the sandwich
covariance has ``(k_A k_B)²`` entries)."""


def joint_histogram(
    reports_a: IntArray, reports_b: IntArray, outputs_a: int, outputs_b: int
) -> IntArray:
    """Count each pair of reports ``(y_A, y_B)`` from the same respondent.

    Parameters
    ----------
    reports_a, reports_b : ndarray of int, shape (n,)
        Paired reports: entry ``i`` of both comes from respondent ``i``.
    outputs_a, outputs_b : int
        Number of possible reports of each question.

    Returns
    -------
    ndarray of int64, shape (outputs_a, outputs_b)
        ``c[y_A, y_B]``; its row-major flattening is indexed by
        ``y = y_A · outputs_b + y_B``, the column order of ``Q_A ⊗ Q_B``.

    Notes
    -----
    ``c ~ Multinomial(n, (Q_A ⊗ Q_B)ᵀ π)`` with ``π`` the joint distribution of
    the true answers, flattened the same way.

    References
    ----------
    .. [1] docs/maths.md, section 6 (cross-tabs).
    """
    a = np.asarray(reports_a, dtype=np.int64).reshape(-1)
    b = np.asarray(reports_b, dtype=np.int64).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(
            f"paired reports must have equal lengths, got {a.size} and {b.size}"
        )
    for name, values, outputs in (("A", a, outputs_a), ("B", b, outputs_b)):
        if values.size and (values.min() < 0 or values.max() >= outputs):
            raise ValueError(f"reports of {name} must lie in [0, {outputs})")
    flat = np.bincount(a * outputs_b + b, minlength=outputs_a * outputs_b)
    return flat.reshape(outputs_a, outputs_b).astype(np.int64)


@dataclass(frozen=True, eq=False)
class CrossTabEstimate:
    """Unbiased joint shares of two randomized questions, with covariance.

    Attributes
    ----------
    n : int
        Number of respondents who answered both questions.
    estimate : ndarray, shape (k_A, k_B)
        ``π̂[x_A, x_B]``; may be negative; sums to 1 (square channels).
    covariance : ndarray, shape (k_A k_B, k_A k_B)
        Sandwich covariance of the row-major flattening of ``estimate``.
    counts : ndarray, shape (m_A, m_B)
        The joint report histogram.
    variance_floor : ndarray, shape (k_A, k_B)
        ``V₀ = min_x' Var(M[cell, Y] | x')``: no answers make one report's
        score for a cell vary less (law of total variance), so ``V₀/n``
        bounds the cell's variance from below.
    interval_methods : tuple of str
        ``("wald",)``.
    """

    n: int
    estimate: FloatArray
    covariance: FloatArray = field(repr=False)
    counts: IntArray = field(repr=False)
    variance_floor: FloatArray = field(repr=False)

    interval_methods: ClassVar[tuple[str, ...]] = ("wald",)

    @property
    def standard_error(self) -> FloatArray:
        """Standard error of each cell, ``sqrt(diag(Cov))``, shape (k_A, k_B).

        Returns
        -------
        ndarray, shape (k_A, k_B)
            ``sqrt(max(diag(Cov), 0))`` reshaped like the estimate.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = crosstab_estimate(np.array([[300, 200], [100, 400]]), q, q)
        >>> est.standard_error.round(3)
        array([[0.038, 0.038],
               [0.029, 0.041]])
        """
        variance = np.clip(np.diag(self.covariance), 0.0, None)
        return np.sqrt(variance).reshape(self.estimate.shape)

    def confidence_interval(
        self, level: float = 0.95, method: str | None = None
    ) -> ConfidenceInterval[FloatArray]:
        """Wald intervals ``π̂ ± z_{1−α/2} · SE'`` for every cell, within [0, 1].

        Parameters
        ----------
        level : float, default 0.95
            Confidence level ``1 − α`` of each interval.
        method : {"wald"}, optional
            The only method.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays of shape (k_A, k_B), within [0, 1] and
            of positive width.

        Raises
        ------
        ValueError
            For a level outside (0, 1) or another method.

        Notes
        -----
        ``π̂`` is a linear map of a multinomial mean, so it is asymptotically
        normal with the sandwich covariance.  ``SE'² = max(SE², V₀/n)`` with
        ``V₀`` the :attr:`variance_floor`, so identical reports cannot give a
        point; the interval is centred on ``π̂`` moved towards [0, 1] and
        intersected with it, which never covers less
        (:func:`ldp.estimators.intervals.bounded_interval`; docs/maths.md,
        section 6.8).

        References
        ----------
        .. [1] docs/maths.md, section 6.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = crosstab_estimate(np.array([[300, 200], [100, 400]]), q, q)
        >>> est.confidence_interval(0.95).low.round(3)
        array([[0.476, 0.   ],
               [0.   , 0.67 ]])
        """
        check_method(method or self.interval_methods[0], self.interval_methods)
        z = critical_value(level)
        variance = np.maximum(self.standard_error**2, self.variance_floor / self.n)
        return bounded_interval(self.estimate, z * np.sqrt(variance), 0.0, 1.0)

    def consistent(self) -> FloatArray:
        """Norm-Sub: the Euclidean projection of ``π̂`` onto the simplex.

        Returns
        -------
        ndarray, shape (k_A, k_B)
            Non-negative shares summing to 1.

        Notes
        -----
        ``π̃ = max(π̂ + δ, 0)`` with δ such that ``Σ π̃ = 1``.

        References
        ----------
        .. [1] T. Wang et al., "Locally differentially private frequency
           estimation with consistency", NDSS 2020, section 4.3.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = crosstab_estimate(np.array([[300, 200], [100, 400]]), q, q)
        >>> est.estimate
        array([[ 0.55, -0.05],
               [-0.25,  0.75]])
        >>> est.consistent()
        array([[0.4, 0. ],
               [0. , 0.6]])
        """
        flat = project_simplex(self.estimate.reshape(-1))
        return flat.reshape(self.estimate.shape)

    def margins(self) -> tuple[FloatArray, FloatArray]:
        """Row and column sums of ``π̂``: unbiased marginals of A and B.

        Returns
        -------
        rows : ndarray
            ``Σ_b π̂[a, b]``, the marginal shares of A.
        columns : ndarray
            ``Σ_a π̂[a, b]``, the marginal shares of B.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = crosstab_estimate(np.array([[300, 200], [100, 400]]), q, q)
        >>> rows, columns = est.margins()
        >>> rows, columns
        (array([0.5, 0.5]), array([0.3, 0.7]))
        """
        return self.estimate.sum(axis=1), self.estimate.sum(axis=0)


def crosstab_estimate(
    counts: IntArray, channel_a: FloatArray, channel_b: FloatArray
) -> CrossTabEstimate:
    """Debias a joint report histogram through the Kronecker product channel.

    Parameters
    ----------
    counts : ndarray, shape (m_A, m_B)
        Joint report histogram (:func:`joint_histogram`).
    channel_a : ndarray, shape (k_A, m_A)
        ``Q_A[x, y] = P(report y | answer x)`` of question A.
    channel_b : ndarray, shape (k_B, m_B)
        The same for question B.

    Returns
    -------
    CrossTabEstimate
        ``π̂`` and its sandwich covariance.

    Notes
    -----
    With independent randomization ``P(y_A, y_B | x_A, x_B) =
    Q_A[x_A, y_A] Q_B[x_B, y_B]``, i.e. the joint channel is ``Q_A ⊗ Q_B``.
    With ``λ̂ = c/n`` (row-major) and ``M = ((Q_A ⊗ Q_B)ᵀ)⁺ =
    (Q_Aᵀ)⁺ ⊗ (Q_Bᵀ)⁺`` (least squares when a channel is not square):

    ``π̂ = M λ̂``,  ``Cov(π̂) = M [diag(λ̂) − λ̂λ̂ᵀ] Mᵀ / n``.

    ``M (Q_A ⊗ Q_B)ᵀ = I`` when both channels have full row rank, so
    ``E π̂ = π`` exactly.

    References
    ----------
    .. [1] docs/maths.md, section 6 (cross-tabs).
    .. [2] D. Agrawal, C. C. Aggarwal, PODS 2001.
    .. [3] G. Blair, K. Imai, Y.-Y. Zhou, "Design and analysis of the
       randomized response technique", JASA 110(511), 2015.
    """
    qa = np.asarray(channel_a, dtype=float)
    qb = np.asarray(channel_b, dtype=float)
    c = np.asarray(counts, dtype=np.int64)
    if qa.ndim != 2 or qb.ndim != 2:
        raise ValueError("channels must be 2-d arrays Q[x, y]")
    if c.shape != (qa.shape[1], qb.shape[1]):
        raise ValueError(
            f"counts have shape {c.shape}; allowed: (outputs of A, outputs of B) "
            f"= {(qa.shape[1], qb.shape[1])}"
        )
    cells = qa.shape[0] * qb.shape[0]
    if cells > CELLS_MAX:
        raise ValueError(
            f"the cross-tab would have {cells} cells; allowed: at most {CELLS_MAX}"
        )
    for name, q in (("A", qa), ("B", qb)):
        if q.shape[1] < q.shape[0] or np.linalg.matrix_rank(q) < q.shape[0]:
            raise ValueError(
                f"the channel of {name} is not invertible: its answers cannot be "
                "told apart from its reports"
            )
    n = int(c.sum())
    if n < 2:
        raise ValueError(f"need at least 2 paired reports, got {n}")
    m = np.kron(np.linalg.pinv(qa.T), np.linalg.pinv(qb.T))
    shares = c.reshape(-1) / n
    estimate = m @ shares
    covariance = (m * shares) @ m.T - np.outer(estimate, estimate)
    covariance /= n
    # Var(M[cell, Y] | x') for every joint answer x' (rows of Q_A ⊗ Q_B).
    joint = np.kron(qa, qb)
    given = joint @ (m * m).T - (joint @ m.T) ** 2
    return CrossTabEstimate(
        n=n,
        estimate=estimate.reshape(qa.shape[0], qb.shape[0]),
        covariance=covariance,
        counts=c.copy(),
        variance_floor=np.maximum(given.min(axis=0), 0.0).reshape(
            qa.shape[0], qb.shape[0]
        ),
    )
