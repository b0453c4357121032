"""Optimized local hashing (OLH) with an exactly pairwise-independent hash."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.exact import exp_decimal, keep_other_weights, log_ratio
from ldp.mechanisms.about import (
    ORDINAL,
    SCALE,
    SINGLE_CHOICE,
    ExportColumn,
    REstimator,
)
from ldp.mechanisms.oracle import FrequencyOracle
from ldp.mechanisms.storage import (
    BITS,
    ReportStorage,
    StoredReport,
    natural,
    sequence,
)
from ldp.mechanisms.words import Number, Words, gettext_noop
from ldp.sampling import Draw, secure_words, uniform_below
from ldp.spec.ratio import pair_ratio
from ldp.spec.validation import COMMON_FIELDS, is_int

G_MAX = 2**16
"""Largest hash range ``g`` (a report's ``y`` is stored in 16 bits)."""
PRIME = 2**31 - 1
_CHUNK = 1 << 16


def default_g(epsilon: float) -> int:
    """Hash range ``g = round(e^ε) + 1`` (the OLH optimum), capped at 2^16.

    Parameters
    ----------
    epsilon : float
        Requested ε.

    Returns
    -------
    int
        ``round(e^ε) + 1``.

    Notes
    -----
    Minimises the variance ``(e^ε − 1 + g)^2/((e^ε − 1)^2 (g − 1))``.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.4, eq. (11)-(12).
    """
    rounded = int(exp_decimal(epsilon).to_integral_value(rounding=ROUND_HALF_UP))
    return min(rounded + 1, G_MAX)


def collision_probability(g: int, prime: int = PRIME) -> Fraction:
    """Exact ``P(h(x) = h(x'))`` for ``x ≠ x'`` over uniform ``a, b`` in ``[0, P)``.

    Parameters
    ----------
    g : int
        Hash range.
    prime : int, optional
        The prime modulus ``P``.

    Returns
    -------
    Fraction
        ``c = Σ_r n_r^2 / P^2``, ``n_r = #{z in [0, P): z mod g = r}``.

    Notes
    -----
    For ``x ≠ x' (mod P)`` the pair ``(a x + b, a x' + b) mod P`` is uniform on
    ``Z_P^2``, so the hashes collide iff two independent uniform residues agree
    mod g.  ``c`` exceeds ``1/g`` slightly because P is not a multiple of g.

    References
    ----------
    .. [1] J. L. Carter, M. N. Wegman, "Universal classes of hash functions",
       JCSS 18(2), 1979.
    .. [2] docs/maths.md, section 3 (OLH pitfall).
    """
    base, extra = divmod(prime, g)
    total = extra * (base + 1) ** 2 + (g - extra) * base**2
    return Fraction(total, prime * prime)


class SeededHashStorage(ReportStorage):
    """A report ``[a, b, y]`` stored as big-endian unsigned 32, 32 and 16-bit words.

    Ten bytes in ``bits`` (``y < g <= 2^16``).

    Examples
    --------
    >>> spec = {"mechanism": "olh", "k": 5}
    >>> stored = SeededHashStorage().encode(spec, [1, 2, 3])
    >>> stored.bits, SeededHashStorage().decode(spec, None, stored.bits)
    (b'\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x02\\x00\\x03', [1, 2, 3])
    """

    column = BITS
    _words = struct.Struct(">IIH")
    _dtype = np.dtype([("a", ">u4"), ("b", ">u4"), ("y", ">u2")])

    def encode(self, spec: Mapping[str, Any], report: Any) -> StoredReport:
        name = str(spec["mechanism"])
        a, b, y = (natural(part, name) for part in sequence(report, 3, name))
        try:
            return StoredReport(bits=self._words.pack(a, b, y))
        except struct.error:
            raise ValueError(
                f"{name} report {report!r} does not fit its stored form"
            ) from None

    def decode(self, spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
        raw = self._bits_of(spec, value, bits)
        if len(raw) != self._words.size:
            raise ValueError(
                f"a stored {spec['mechanism']} report has {self._words.size} bytes"
            )
        return list(self._words.unpack(raw))

    def array(
        self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]
    ) -> AnyArray:
        joined = self._joined(spec, rows, self._words.size)
        seeded = np.frombuffer(joined, dtype=self._dtype)
        return np.stack([seeded[part].astype(np.int64) for part in "aby"], axis=1)


R_ESTIMATOR = REstimator(
    "estimate_olh",
    """support_olh <- function(rows, columns, k, g, ...) {
  a <- rows[[columns[1]]]; b <- rows[[columns[2]]]; y <- rows[[columns[3]]]
  matrix(vapply(seq_len(k) - 1L, function(v) {
    as.numeric(((a * v + b) %% 2147483647) %% g == y)
  }, numeric(length(y))), nrow = length(y))
}
estimate_olh <- function(d, columns, labels, g, p, q, title = columns[1],
                         revision_column = NA, revision = NA,
                          simplex = FALSE) {
  keep <- keep_rows(d, columns[1], revision_column, revision)
  a <- d[[columns[1]]][keep]; b <- d[[columns[2]]][keep]; y <- d[[columns[3]]][keep]
  count <- sapply(seq_along(labels) - 1, function(v) {
    sum(((a * v + b) %% 2147483647) %% g == y)
  })
  show(title, labels, count, sum(keep), p, q, 1, simplex)
}""",
    support="support_olh",
)
"""Shares from the seeds and hash values: the reports whose hash of v is y."""


class OptimizedLocalHashing(FrequencyOracle):
    """Hash the answer to ``[0, g)`` and randomize the hash with GRR over g.

    Notes
    -----
    Report ``(a, b, y)``; it supports v iff ``((a v + b) mod P) mod g = y``.
    ``p* = K/S``, ``q* = c p* + (1 − c) Q/S`` with the exact collision
    probability ``c``; ``ε' = ln(K/Q)``.  Variance at ``f ≈ 0``
    ``≈ 4 e^ε/(e^ε − 1)^2`` per report at ``g = round(e^ε) + 1``.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.4 (OLH).
    .. [2] docs/maths.md, section 3.
    """

    name = "olh"
    label = gettext_noop("Optimized local hashing")
    kinds = (SINGLE_CHOICE, ORDINAL)
    spec_fields = COMMON_FIELDS | {"epsilon", "g"}
    storage = SeededHashStorage()
    support_words = "reports whose hash ((a·v + b) mod 2147483647) mod g equals y"
    r_estimator = R_ESTIMATOR

    def r_arguments(self) -> dict[str, Any]:
        """``g``: the hash range; the shares have a consistent form."""
        return {"g": self.g, "simplex": True}

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        fields = super().validate_fields(spec)
        if "g" in spec:
            g = spec["g"]
            if not is_int(g) or not 2 <= g <= G_MAX:
                raise ValueError(
                    f"spec field 'g' is {g!r}; allowed: integers 2 <= g <= {G_MAX}"
                )
            fields["g"] = g
        return fields

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(k, False)``: a report supports every answer hashing to its ``y``."""
        return int(params["k"]), False

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        return pair_ratio(spec["weights"]["keep"], spec["weights"]["other"])

    def report_words(self, report: Any) -> Words:
        """A random grouping of the answers and a randomized group."""
        return Words(
            gettext_noop(
                "a randomized group from a random grouping of the answers, never "
                "one answer"
            )
        )

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device hashes the answer into %(g)s buckets with a random hash "
                "and reports a randomized bucket (optimized local hashing: short "
                "reports for many options)."
            ),
            {"g": Number(self.weights["g"])},
        )

    def support_rows(self, reports: AnyArray) -> AnyArray:
        """``S[i, v] = [((a_i v + b_i) mod P) mod g = y_i]``."""
        prime, g = int(self.weights["prime"]), int(self.weights["g"])
        values = np.arange(self.k, dtype=np.int64)
        a, b, y = (reports[:, column].astype(np.int64) for column in range(3))
        hashed = (a[:, None] * values[None, :] + b[:, None]) % prime % g
        rows: AnyArray = hashed == y[:, None]
        return rows

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The hash seeds ``a``, ``b`` and the reported hash value ``y``."""
        return (
            ExportColumn("_a", "hash seed a", measure=SCALE),
            ExportColumn("_b", "hash seed b", measure=SCALE),
            ExportColumn("_y", "reported hash value y"),
        )

    @cached_property
    def g(self) -> int:
        """Hash range ``g`` (requested, or ``round(e^ε) + 1``).

        Returns
        -------
        int
            ``2 <= g <= 2^16``.

        Notes
        -----
        See :func:`default_g`.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.4.
        """
        return self._params.get("g") or default_g(self._params["epsilon"])

    @property
    def row_sum(self) -> int:
        """``S = K + (g − 1) Q``, the bound of the GRR draw over the hash range.

        Returns
        -------
        int
            At most ``2^32``.

        Notes
        -----
        ``P(y = h) = K/S``, ``P(y = other) = Q/S``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.4.
        """
        return self.weights["keep"] + (self.g - 1) * self.weights["other"]

    def _derive_weights(self) -> dict[str, int]:
        keep, other = keep_other_weights(self._params["epsilon"], self.g)
        return {"g": self.g, "prime": PRIME, "keep": keep, "other": other}

    def _exact_epsilon(self) -> Decimal:
        return log_ratio(self.weights["keep"], self.weights["other"])

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        s = self.row_sum
        p = Fraction(self.weights["keep"], s)
        c = collision_probability(self.g)
        q = c * p + (1 - c) * Fraction(self.weights["other"], s)
        return np.full(self.k, float(p)), np.full(self.k, float(q))

    def _perturb(self, h: Any, v: Any) -> Any:
        keep, other = self.weights["keep"], self.weights["other"]
        i = np.maximum(v - keep, 0) // other
        return np.where(v < keep, h, np.where(i < h, i, i + 1))

    def randomize_one(self, value: int, draw: Draw | None = None) -> list[int]:
        """Randomize one answer to ``[a, b, y]`` (three ``uniform_below`` calls).

        Parameters
        ----------
        value : int
            The true answer in ``[0, k)``.
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        list of int
            ``[a, b, y]``.

        Notes
        -----
        ``a, b ~ U[0, P)``, ``h = ((a x + b) mod P) mod g``, then GRR over g:
        ``y = h`` w.p. ``K/S``, each other value w.p. ``Q/S``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.4; ldp/spec/README.md.
        """
        x = self._check_value(value)
        draw = secure_words() if draw is None else draw
        a = uniform_below(PRIME, draw)
        b = uniform_below(PRIME, draw)
        h = ((a * x + b) % PRIME) % self.g
        v = uniform_below(self.row_sum, draw)
        return [a, b, int(self._perturb(np.int64(h), np.int64(v)))]

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize answers into an ``(n, 3)`` int64 array of ``(a, b, y)``.

        Parameters
        ----------
        values : array_like of int
            True answers in ``[0, k)``.
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of int64, shape (n, 3)
            One ``(a, b, y)`` row per answer.

        Notes
        -----
        Same channel as ``randomize_one``, drawn with ``rng.integers``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.4.
        """
        x = self._check_values(values)
        a = rng.integers(0, PRIME, size=x.size, dtype=np.int64)
        b = rng.integers(0, PRIME, size=x.size, dtype=np.int64)
        h = ((a * x + b) % PRIME) % self.g
        v = rng.integers(0, self.row_sum, size=x.size, dtype=np.int64)
        return np.stack([a, b, self._perturb(h, v)], axis=1)

    def validate_report(self, report: Any) -> None:
        """Accept ``[a, b, y]`` with ``a, b`` in ``[0, P)`` and ``y`` in ``[0, g)``.

        Parameters
        ----------
        report : object
            One report as decoded from JSON.

        Raises
        ------
        ValueError
            Naming the bad value and what is allowed.  Booleans are not ints.

        Notes
        -----
        ``P = 2^31 − 1``; the hash seeds may be any residue, including 0.

        References
        ----------
        .. [1] docs/maths.md, section 10; ldp/spec/README.md.
        """
        if not isinstance(report, list) or len(report) != 3:
            raise ValueError(f"olh report is {report!r}; allowed: a list [a, b, y]")
        self._int_in("a", report[0], PRIME)
        self._int_in("b", report[1], PRIME)
        self._int_in("y", report[2], self.g)

    def _array_from_reports(self, reports: list[Any]) -> AnyArray:
        return np.asarray(reports, dtype=np.int64).reshape(-1, 3)

    def _check_array(self, array: AnyArray) -> AnyArray:
        if array.ndim != 2 or array.shape[1] != 3:
            raise ValueError("olh reports must have shape (n, 3)")
        if array.size and array.dtype.kind not in "iu":
            raise ValueError("olh reports must be integers")
        if array.size and (
            array.min() < 0
            or array[:, :2].max() >= PRIME
            or array[:, 2].max() >= self.g
        ):
            raise ValueError(
                f"olh reports need a, b in [0, {PRIME}) and y in [0, {self.g})"
            )
        return array.astype(np.int64, copy=False)

    def _support_counts(self, array: AnyArray) -> IntArray:
        """Count supports in chunks: ``O(n k)`` vectorised 32-bit operations.

        ``r = (a v + b) mod P`` is updated by adding ``a`` and reducing with
        ``min(r, r − P)`` (unsigned wrap-around makes ``r − P`` the larger one
        when ``r < P``); ``r mod g`` is ``r & (g − 1)`` when g is a power of two
        and ``r − g ⌊r/g⌋`` otherwise (exact integer division, never
        ``np.remainder``, which numpy does not vectorise for a scalar divisor).
        """
        counts = np.zeros(self.k, dtype=np.int64)
        g = np.uint32(self.g)
        mask = np.uint32(self.g - 1) if self.g & (self.g - 1) == 0 else None
        prime = np.uint32(PRIME)
        for start in range(0, array.shape[0], _CHUNK):
            chunk = array[start : start + _CHUNK]
            a = chunk[:, 0].astype(np.uint32)
            y = chunk[:, 2].astype(np.uint32)
            r = chunk[:, 1].astype(np.uint32)  # (a*0 + b) mod P
            hashed = np.empty_like(r)
            spare = np.empty_like(r)
            same = np.empty(r.shape, dtype=np.bool_)
            hits = []
            for _ in range(self.k):
                if mask is not None:
                    np.bitwise_and(r, mask, out=hashed)
                else:
                    np.floor_divide(r, g, out=hashed)
                    np.multiply(hashed, g, out=hashed)
                    np.subtract(r, hashed, out=hashed)
                np.equal(hashed, y, out=same)
                hits.append(np.count_nonzero(same))
                np.add(r, a, out=r)  # both < 2^31: no uint32 overflow
                np.subtract(r, prime, out=spare)
                np.minimum(r, spare, out=r)
            counts += np.array(hits, dtype=np.int64)
        return counts
