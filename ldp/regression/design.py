"""Design matrices with named columns, from numeric and categorical covariates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import FloatArray

INTERCEPT = "(Intercept)"
"""Name of the constant column every :func:`design_matrix` starts with."""


@dataclass(frozen=True, eq=False)
class DesignMatrix:
    """A numeric design matrix and the name of each of its columns.

    Attributes
    ----------
    matrix : ndarray, shape (n, p)
        One row per respondent, one column per coefficient.
    names : tuple of str
        Column names, in order; dummy columns read ``"variable[level]"``.
    reference : dict
        For each categorical variable, its reference (omitted) level.

    Examples
    --------
    >>> design = DesignMatrix(np.ones((3, 1)), ("(Intercept)",))
    >>> design.matrix.shape, design.names
    ((3, 1), ('(Intercept)',))
    """

    matrix: FloatArray
    names: tuple[str, ...]
    reference: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        matrix = np.asarray(self.matrix, dtype=float)
        if matrix.ndim != 2:
            raise ValueError(
                f"design matrix must be 2-dimensional, got shape {matrix.shape}"
            )
        if len(self.names) != matrix.shape[1]:
            raise ValueError(
                f"design matrix has {matrix.shape[1]} columns but "
                f"{len(self.names)} names"
            )
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"design matrix column names repeat: {self.names}")
        if not np.all(np.isfinite(matrix)):
            raise ValueError("design matrix has missing or infinite values")
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "names", tuple(self.names))


def _levels(name: str, values: Sequence[Any]) -> list[str]:
    text = [str(value) for value in values]
    if any(value in ("", "None", "nan") for value in text):
        raise ValueError(f"categorical column {name!r} has missing values")
    return text


def design_matrix(
    data: Mapping[str, Sequence[Any]],
    *,
    numeric: Sequence[str] = (),
    categorical: Mapping[str, Any] | None = None,
    intercept: bool = True,
) -> DesignMatrix:
    """Build a design matrix from numeric and dummy-coded categorical columns.

    Parameters
    ----------
    data : mapping of str to sequence
        Columns of equal length, by name (one entry per respondent).
    numeric : sequence of str, optional
        Names of columns used as numbers, one coefficient each.
    categorical : mapping of str to level, optional
        Names of columns used as categories, each with its reference level
        (``None`` takes the first level in sorted order).  Every other level
        gets a 0/1 column named ``"name[level]"``.
    intercept : bool, optional
        Start with a constant column named ``"(Intercept)"`` (default).

    Returns
    -------
    DesignMatrix
        The matrix, its column names and the reference levels.

    Raises
    ------
    ValueError
        For a missing column, columns of unequal length, a missing or
        non-numeric value, a reference level that does not occur, or a
        categorical column with a single level.

    Notes
    -----
    Treatment (dummy) coding: with reference level ``r`` a coefficient of
    ``"name[l]"`` is the difference of the linear predictor between level
    ``l`` and ``r``, other covariates held fixed; in the logistic model its
    exponential is the odds ratio of ``l`` against ``r``.

    References
    ----------
    .. [1] A. Agresti, "Categorical Data Analysis", 3rd ed., Wiley 2013,
       section 4.2 (indicator variables for categorical predictors).
    .. [2] docs/maths.md, section 6.4.

    Examples
    --------
    >>> design = design_matrix(
    ...     {"age": [25, 40, 31], "region": ["north", "south", "east"]},
    ...     numeric=["age"], categorical={"region": "north"})
    >>> design.names
    ('(Intercept)', 'age', 'region[east]', 'region[south]')
    >>> design.matrix
    array([[ 1., 25.,  0.,  0.],
           [ 1., 40.,  0.,  1.],
           [ 1., 31.,  1.,  0.]])
    """
    categorical = dict(categorical or {})
    wanted = list(numeric) + list(categorical)
    for name in wanted:
        if name not in data:
            raise ValueError(f"column {name!r} is not in the data ({sorted(data)})")
    lengths = {name: len(data[name]) for name in wanted}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns have unequal lengths: {lengths}")
    n = next(iter(lengths.values()), 0)
    columns: list[FloatArray] = []
    names: list[str] = []
    if intercept:
        columns.append(np.ones(n))
        names.append(INTERCEPT)
    for name in numeric:
        try:
            column = np.asarray(data[name], dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                f"numeric column {name!r} has non-numeric values"
            ) from None
        if not np.all(np.isfinite(column)):
            raise ValueError(f"numeric column {name!r} has missing values")
        columns.append(column)
        names.append(name)
    reference: dict[str, str] = {}
    for name, wanted_reference in categorical.items():
        values = _levels(name, data[name])
        levels = sorted(set(values))
        if len(levels) < 2:
            raise ValueError(
                f"categorical column {name!r} has a single level {levels}; "
                "it cannot be estimated against a reference"
            )
        base = levels[0] if wanted_reference is None else str(wanted_reference)
        if base not in levels:
            raise ValueError(
                f"reference level {base!r} of {name!r} does not occur; "
                f"allowed: one of {levels}"
            )
        reference[name] = base
        array = np.asarray(values)
        for level in levels:
            if level != base:
                columns.append((array == level).astype(float))
                names.append(f"{name}[{level}]")
    matrix = np.column_stack(columns) if columns else np.zeros((n, 0))
    return DesignMatrix(matrix, tuple(names), reference)


def as_design(design: Any, names: Sequence[str] | None = None) -> DesignMatrix:
    """Return ``design`` as a :class:`DesignMatrix` (naming bare columns).

    Parameters
    ----------
    design : DesignMatrix or array_like, shape (n, p)
        The covariates.
    names : sequence of str, optional
        Column names for a bare array (default ``x0, x1, ...``).

    Returns
    -------
    DesignMatrix
        ``design`` itself, or the array with its names.

    Raises
    ------
    ValueError
        For a matrix that is not 2-d, not finite, or names of another length.

    Notes
    -----
    Bare arrays are used as given: no intercept is added.

    References
    ----------
    .. [1] docs/maths.md, section 6.4.

    Examples
    --------
    >>> as_design(np.ones((2, 2))).names
    ('x0', 'x1')
    """
    if isinstance(design, DesignMatrix):
        return design
    matrix = np.asarray(design, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(
            f"design matrix must be 2-dimensional, got shape {matrix.shape}"
        )
    if names is None:
        names = [f"x{j}" for j in range(matrix.shape[1])]
    return DesignMatrix(matrix, tuple(names))


def check_full_rank(design: DesignMatrix) -> None:
    """Raise ValueError unless the design matrix has full column rank.

    Parameters
    ----------
    design : DesignMatrix
        The covariates.

    Raises
    ------
    ValueError
        Naming the columns that are linear combinations of earlier ones, or
        saying there are fewer rows than columns.

    Notes
    -----
    Rank from the singular values, tolerance ``max(n, p) · s_max · eps``
    (numpy's ``matrix_rank``); a column is named when adding it does not
    raise the rank of the columns before it.

    References
    ----------
    .. [1] G. H. Golub, C. F. Van Loan, "Matrix Computations", 4th ed., 2013,
       section 5.4 (rank determination by the SVD).

    Examples
    --------
    >>> check_full_rank(DesignMatrix(np.array([[1.0, 2.0], [1.0, 2.0]]),
    ...                              ("a", "b")))
    Traceback (most recent call last):
    ...
    ValueError: design matrix is rank-deficient (rank 1 of 2 columns): \
column 'b' is a linear combination of earlier columns; drop it or merge levels
    """
    matrix = design.matrix
    n, p = matrix.shape
    if p == 0:
        raise ValueError("design matrix has no columns")
    if n < p:
        raise ValueError(
            f"design matrix has {n} rows for {p} columns; at least {p} are needed"
        )
    rank = int(np.linalg.matrix_rank(matrix))
    if rank == p:
        return
    redundant = []
    for j in range(p):
        if int(np.linalg.matrix_rank(matrix[:, : j + 1])) <= len(
            [i for i in range(j) if i not in redundant]
        ):
            redundant.append(j)
    named = ", ".join(repr(design.names[j]) for j in redundant)
    plural = len(redundant) > 1
    raise ValueError(
        f"design matrix is rank-deficient (rank {rank} of {p} columns): "
        f"column{'s' if plural else ''} {named} "
        f"{'are linear combinations' if plural else 'is a linear combination'} "
        "of earlier columns; drop it or merge levels"
    )
