"""Finite channels (ordinal, numeric): the algebra and the result, side by side.

:mod:`~ldp.estimators.channel.algebra` inverts the channel for the answer
shares and solves for the score vector of the mean;
:mod:`~ldp.estimators.channel.result` holds :class:`ChannelEstimate`, which
carries both for one report histogram.
"""

from ldp.estimators.channel.algebra import (
    CONDITION_MAX,
    channel_inversion,
    channel_mle,
    inversion_matrix,
    score_mean,
    score_vector,
)
from ldp.estimators.channel.result import (
    CONSISTENT_METHODS,
    INTERVAL_METHODS,
    ChannelEstimate,
    channel_estimate,
)

__all__ = [
    "CONDITION_MAX",
    "CONSISTENT_METHODS",
    "INTERVAL_METHODS",
    "ChannelEstimate",
    "channel_estimate",
    "channel_inversion",
    "channel_mle",
    "inversion_matrix",
    "score_mean",
    "score_vector",
]
