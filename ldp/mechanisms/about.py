"""What every mechanism declares for the rest of the project.

A mechanism's module is its one home: besides the maths it declares, here as
class attributes and methods of :class:`About` (mixed into
:class:`~ldp.mechanisms.base.Mechanism`), what the survey platform needs to
know of it:

- ``label`` and the plain words of :meth:`About.describe` for researchers,
  and the words of a stored report for respondents
  (:meth:`About.report_words`, ``receipt_why``): message ids and
  :class:`~ldp.mechanisms.words.Words` (``ldp.mechanisms.words``);
- ``kinds``: the kinds of answer (question kinds) that may use it, and
  ``headline``: whether its headline estimate is each answer's share or the
  mean answer (``mean_only`` when its reports identify nothing else);
- ``storage``: how its reports are stored compactly
  (``ldp.mechanisms.storage``);
- the columns of its reports in a per-respondent export
  (:meth:`About.export_columns`, :meth:`About.export_cells`) and how to
  debias them by hand (:meth:`About.debias_note`);
- ``regression``: the regression its answers can be the outcome of.

``ldp.mechanisms.registry`` lists the mechanisms; nothing outside a
mechanism's module names it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ldp.mechanisms.storage import INTEGER, ReportStorage
from ldp.mechanisms.words import Words

SHARE, MEAN = "share", "mean"
"""What a headline estimate is: each answer's share, or the mean answer."""

YES_NO, SINGLE_CHOICE, ORDINAL = "yes_no", "single_choice", "ordinal"
NUMERIC, MULTI_SELECT = "numeric", "multi_select"
ANSWER_KINDS = (YES_NO, SINGLE_CHOICE, ORDINAL, NUMERIC, MULTI_SELECT)
"""The kinds of answer a mechanism may randomize: yes or no, one of k options,
a level of an ordered scale, a number on a grid, a set of options.  A question
kind of the survey platform has the same name."""

LOGISTIC, LINEAR = "logistic", "linear"
"""Regressions an answer can be the outcome of (docs/maths.md, sections 6.4 and 6.5)."""

NOMINAL, SCALE, ANSWERS = "nominal", "scale", "answers"
"""Measure levels of an export column; ``ANSWERS``: ordinal when the
question's answers are ordered (a scale), else nominal."""

BIT_LABELS = {0: "bit 0", 1: "bit 1"}


@dataclass(frozen=True)
class ExportColumn:
    """One column a report fills in the per-respondent table.

    Attributes
    ----------
    suffix : str
        Appended to the question's variable name ("" for one column).
    label : str
        English variable label after the "randomized report" warning;
        ``{question}`` stands for the question's text and ``{option}`` for
        the label of option :attr:`option`.
    option : int or None
        The option a per-option column is about.
    answers : int
        How many codes, from 0, carry the question's answer labels.
    value_labels : mapping
        Further fixed value labels (bits, padding items, Duchi's two ends).
    measure : str
        ``"nominal"``, ``"scale"`` or ``"answers"`` (ordinal for a scale).
    factor : bool
        Written as labels in the CSV (a factor in R), else as numbers.
    """

    suffix: str = ""
    label: str = "{question}"
    option: int | None = None
    answers: int = 0
    value_labels: Mapping[int, str] = field(default_factory=dict)
    measure: str = NOMINAL
    factor: bool = False


@dataclass(frozen=True)
class REstimator:
    """An R function that recomputes a question's estimates from its reports.

    Attributes
    ----------
    name : str
        The function's R name.
    source : str
        Its R definition.  It may call the helpers every script defines:
        ``keep_rows(d, column, revision_column, revision)`` (the rows with a
        report, of one revision), ``show(title, labels, count, n, p, q,
        scale, simplex)`` (prints ``scale·(count/n − q)/(p − q)``, its
        standard error and, with ``simplex``, the Norm-Sub shares) and
        ``project_simplex(v)``.  It returns what it estimated, by the
        estimates file's field names (``estimate``, ``standard_error``,
        ``consistent``, ``mean``, ``mean_standard_error``, ``mean_interval``).
    one_column : bool
        True when it takes the name of its one column rather than the vector
        of its columns' names.
    support : str
        For frequency oracles and multi-select mechanisms, the R function
        (defined in ``source``) ``support(rows, columns, k, ...)`` giving the
        0/1 support matrix ``S[i, v]`` of the report rows ``rows`` (as
        ``support_rows``; further named arguments are the estimator's):
        weighted estimates take ``Σ w_i S_iv / Σ w_i``.  "" for none.
    """

    name: str
    source: str
    one_column: bool = False
    support: str = ""


class About(ABC):
    """The declarations every mechanism makes (see the module's docstring)."""

    name: ClassVar[str]
    label: ClassVar[str]
    """The mechanism's name for people, a message id (English)."""
    kinds: ClassVar[tuple[str, ...]] = ()
    """The answer kinds (question kinds) that may use it, in ``ANSWER_KINDS``."""
    headline: ClassVar[str] = SHARE
    """``SHARE`` or ``MEAN``: what its headline estimate is."""
    mean_only: ClassVar[bool] = False
    """True when its reports identify the mean answer and nothing else."""
    mean_only_reason: ClassVar[str] = ""
    """Why, for a mean-only mechanism, no distribution is estimated (message id)."""
    bins_alternative: ClassVar[str] = ""
    """What to choose instead for a distribution in bins (message id)."""
    receipt_why: ClassVar[str] = ""
    """Why a respondent's report still protects them, where the report alone
    could mislead (a message id; "" when obvious)."""
    regression: ClassVar[str | None] = None
    """``LOGISTIC`` or ``LINEAR``: the regression its answer can be the
    outcome of; None if none."""
    storage: ClassVar[ReportStorage] = INTEGER
    """How its reports are stored (``ldp.mechanisms.storage``)."""
    r_estimator: ClassVar[REstimator | None] = None
    """The R function an export's script debiases its reports with (None:
    none; estimate it with ldp)."""
    one_hot_bits: ClassVar[bool] = False
    """True when a report is the answer's one-hot vector, each bit flipped
    (unary encodings): its channel over levels is the bits' ``p*``, ``q*``."""

    k: int

    @abstractmethod
    def describe(self) -> Words:
        """The compiled mechanism in plain words, for researchers.

        Returns
        -------
        Words
            A message id and its values, computed from the integer weights.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "hadamard", "k": 5, "epsilon": 1.0}).describe()
        Words(message='The device reports one randomized bit of a Hadamard code...)
        """

    def report_words(self, report: Any) -> Words:
        """What a stored report says, for the respondent who sent it.

        Parameters
        ----------
        report : object
            One valid JSON report of this mechanism.

        Returns
        -------
        Words
            A message id whose values may name the question's answers
            (``Answer``, ``Options``) or grid (``GridValue``).

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> warner.report_words(1).message
        'a randomized yes/no answer, “%(answer)s”'
        """
        return Words("the randomized code %(code)r", {"code": report})

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The columns one report fills in the per-respondent table.

        Returns
        -------
        tuple of ExportColumn
            One per cell of :meth:`export_cells`, in order.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> [(c.answers, c.measure, c.factor) for c in grr.export_columns()]
        [(3, 'answers', True)]
        """
        return (ExportColumn(answers=self.k, measure=ANSWERS, factor=True),)

    def export_cells(self, report: Any) -> list[Any]:
        """The cells of one JSON report, one per :meth:`export_columns` entry.

        Parameters
        ----------
        report : object
            One valid JSON report.

        Returns
        -------
        list
            The report's numbers, as the columns hold them.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0}).export_cells(2)
        [2]
        """
        return list(report) if isinstance(report, list) else [report]

    def r_arguments(self) -> dict[str, Any]:
        """Further named arguments of :attr:`r_estimator` for this spec.

        Returns
        -------
        dict
            Argument name to a number, a flag, a vector or a matrix (a list
            of rows); none by default.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0}).r_arguments()
        {'g': 4, 'simplex': True}
        """
        return {}

    def debias_note(self) -> str:
        """How to debias this mechanism's reports by hand, for a codebook.

        Returns
        -------
        str
            An English sentence with the formula and its constants.

        Examples
        --------
        >>> import ldp
        >>> ordinal = ldp.build({"mechanism": "ordinal", "k": 3, "epsilon": 1.0})
        >>> ordinal.debias_note()[:45]
        'Invert the randomization channel of the compi'
        """
        return (
            "Invert the randomization channel of the compiled spec in design.json "
            "(ldp.build(spec).estimate(ldp.build(spec).aggregate(reports)))."
        )
