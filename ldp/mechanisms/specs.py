"""What a family's spec holds: its fields, their checks and what follows from them.

:class:`SpecRules` is mixed into :class:`~ldp.mechanisms.base.Mechanism`.
Each family declares, as class attributes and class methods that read a spec
alone (never compile it):

- ``spec_fields`` and :meth:`SpecRules.validate_fields`: the fields its spec
  may carry and their checks (``validate_spec`` checks what all specs share);
- :meth:`SpecRules.counts_layout`: the length of its support counts and
  whether they are a histogram of the reports;
- :meth:`SpecRules.weights_ratio`: the worst-case likelihood ratio of a
  compiled spec, from its integer weights alone (what the device computes
  before it randomizes: ``ε = ln R``);
- :meth:`SpecRules.request`: the requested spec for a question's answers
  and ε (``takes_design``: forced response takes a design instead of an ε).

A family registers these rules under its name as it is defined
(``ldp.spec.families``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, ClassVar

from ldp.spec import families
from ldp.spec.validation import (
    COMMON_FIELDS,
    SPEC_VERSION,
    check_epsilon,
    check_k,
    required,
)


class SpecRules:
    """A family's spec rules (see the module's docstring)."""

    name: ClassVar[str]
    spec_fields: ClassVar[frozenset[str]] = COMMON_FIELDS | {"epsilon"}
    """The fields its spec may carry."""
    takes_design: ClassVar[bool] = False
    """True when a requested spec carries a design instead of an ε."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            families.register(
                cls.name,
                families.FamilyRules(
                    cls.spec_fields,
                    cls.validate_fields,
                    cls.counts_layout,
                    cls.weights_ratio,
                ),
            )

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        """Check this family's fields of a spec and return them normalized.

        Parameters
        ----------
        spec : mapping
            A requested or compiled spec naming this family, with no field
            outside ``spec_fields``.

        Returns
        -------
        dict
            The parameters beyond ``version`` and ``mechanism`` (by default
            ``k`` and ``epsilon``).

        Raises
        ------
        ValueError
            Naming the field, the bad value and what is allowed.

        Examples
        --------
        >>> import ldp
        >>> family = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1}).__class__
        >>> family.validate_fields({"mechanism": "grr", "k": 3, "epsilon": 1})
        {'k': 3, 'epsilon': 1.0}
        """
        k = check_k(spec.get("k"))
        return {"k": k, "epsilon": check_epsilon(required(spec, "epsilon"))}

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """How many support counts a spec has, and whether they sum to n.

        Parameters
        ----------
        params : dict
            The validated spec (``validate_spec``).
        weights : object
            Its ``weights`` field, if compiled (None otherwise).

        Returns
        -------
        length : int
            By default ``k``.
        histogram : bool
            True (the default) when the counts are a histogram of the ``n``
            reports; False when each is a support count ``0 <= C_v <= n``.

        Examples
        --------
        >>> import ldp
        >>> family = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1}).__class__
        >>> family.counts_layout({"k": 3}, None)
        (3, True)
        """
        return int(params["k"]), True

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """The worst-case likelihood ratio of a compiled spec, from its weights.

        Parameters
        ----------
        spec : mapping
            A compiled spec of this family; it is not validated (it may be a
            tampered one), only read.

        Returns
        -------
        Fraction
            ``R = max over reports y and answers x, x' of P(y|x)/P(y|x')``.

        Notes
        -----
        ``ε = ln R`` (docs/maths.md, section 1), computed by the device from
        the same integers before it randomizes.

        References
        ----------
        .. [1] P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local
           differential privacy", JMLR 17, 2016.
        """
        raise ValueError(f"no likelihood ratio for mechanism {cls.name!r}")

    @classmethod
    def request(
        cls,
        answers: Mapping[str, Any],
        epsilon: float,
        *,
        max_selections: int | None = None,
        design: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """The requested spec for a question's answers at ``epsilon``.

        Parameters
        ----------
        answers : mapping
            The answer domain: ``{"k": k}``, or a grid ``{"low", "high",
            "step"}`` as decimal strings.
        epsilon : float
            The requested ε.
        max_selections : int, optional
            The most options one answer may select (multi-select; None: k).
        design : mapping, optional
            A design the researcher chose, for a family that ``takes_design``
            (its fields as exact ``"p/q"`` strings); None: its default.

        Returns
        -------
        dict
            A requested spec (no weights); ``ldp.build`` compiles it.

        Raises
        ------
        ValueError
            For a design given to a family that takes none.

        Examples
        --------
        >>> import ldp
        >>> family = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1}).__class__
        >>> family.request({"k": 4}, 1.5)
        {'version': 1, 'mechanism': 'grr', 'k': 4, 'epsilon': 1.5}
        """
        if design is not None:
            raise ValueError(f"{cls.name} takes no design")
        return {"version": SPEC_VERSION, "mechanism": cls.name, **answers} | {
            "epsilon": epsilon
        }

    @classmethod
    def accepts(cls, answers: Mapping[str, Any]) -> bool:
        """Whether this family can randomize an answer domain of this size.

        Parameters
        ----------
        answers : mapping
            The answer domain (``{"k": k}`` or a grid).

        Returns
        -------
        bool
            True by default; a family with a tighter limit than the spec
            format's (ordinal, per-option RR) says so.

        Examples
        --------
        >>> import ldp
        >>> family = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1}).__class__
        >>> family.accepts({"k": 4096})
        True
        """
        return True

    @classmethod
    def selection_limit(cls, spec: Mapping[str, Any]) -> int | None:
        """The most options one answer may select under ``spec``, if it says.

        Parameters
        ----------
        spec : mapping
            A spec of this family (not validated).

        Returns
        -------
        int or None
            None by default: the spec sets no limit of its own.

        Examples
        --------
        >>> import ldp
        >>> family = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1}).__class__
        >>> family.selection_limit({"mechanism": "grr", "k": 3}) is None
        True
        """
        return None

    @classmethod
    def noise_exhausted(cls, params: dict[str, Any], epsilon: float) -> bool | None:
        """Whether a request is below all a calibrating family can reach.

        Parameters
        ----------
        params : dict
            A validated spec of this family.
        epsilon : float
            A request.

        Returns
        -------
        bool or None
            None by default (the family does not calibrate a noise
            parameter); see the geometric and Gaussian families.

        Notes
        -----
        Read by :func:`ldp.mechanisms.smallest.smallest_epsilon`.

        References
        ----------
        .. [1] docs/maths.md, section 1.4.
        """
        return None

    @classmethod
    def smallest_epsilon_hint(cls, params: dict[str, Any]) -> float | None:
        """A family's shortcut to the smallest ε it can deliver, or None.

        Parameters
        ----------
        params : dict
            A validated spec of this family.

        Returns
        -------
        float or None
            None by default: :func:`ldp.mechanisms.smallest.smallest_epsilon`
            then bisects over compiles; a family whose compile is costly
            returns its exact minimum instead (verified by one compile).

        Notes
        -----
        The minimum is the least float ε with ``0 < ε' <= ε`` within the
        tolerance.

        References
        ----------
        .. [1] docs/maths.md, section 1.3.
        """
        return None
