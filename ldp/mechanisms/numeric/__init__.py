"""Numeric questions on a grid: geometric, Gaussian, Duchi, piecewise."""

from ldp.mechanisms.numeric.duchi import Duchi
from ldp.mechanisms.numeric.finite import FiniteChannelMechanism
from ldp.mechanisms.numeric.gaussian import DiscreteGaussian
from ldp.mechanisms.numeric.geometric import Geometric
from ldp.mechanisms.numeric.grid import GridMechanism
from ldp.mechanisms.numeric.piecewise import Piecewise

__all__ = [
    "DiscreteGaussian",
    "Duchi",
    "FiniteChannelMechanism",
    "Geometric",
    "GridMechanism",
    "Piecewise",
]
