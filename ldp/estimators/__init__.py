"""Estimators: each mechanism family's maths next to its result class.

- :mod:`~ldp.estimators.base`: the :class:`~ldp.estimators.base.Estimate`
  interface every ``Mechanism.estimate()`` returns.
- :mod:`~ldp.estimators.frequency`: frequency oracles (formulas, result).
- :mod:`~ldp.estimators.multiselect`: multi-select shares (formulas, result).
- :mod:`~ldp.estimators.channel`: ordinal and numeric finite channels
  (algebra, result).
- :mod:`~ldp.estimators.mean`: score means and :class:`MeanEstimate`.
- :mod:`~ldp.estimators.intervals`: confidence intervals and the one normal/t
  quantile helper.
- :mod:`~ldp.estimators.consistency`: simplex projection and MLEs.
- :mod:`~ldp.estimators.crosstab`: cross-tabs of two questions.
"""
