"""Array types used in ``ldp``'s annotations (numpy's own ``NDArray``)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
"""A float64 array: shares, standard errors, bounds, channels."""

IntArray = NDArray[np.int64]
"""An int64 array: support counts, report histograms, integer weights."""

AnyArray = NDArray[Any]
"""An array whose dtype depends on the input (reports, bit matrices)."""
