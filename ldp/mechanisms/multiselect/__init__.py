"""Multi-select (checkbox) questions: per-option RR and padding-and-sampling."""

from ldp.mechanisms.multiselect.base import MultiSelectMechanism
from ldp.mechanisms.multiselect.padding import PaddingAndSampling, padding_weights
from ldp.mechanisms.multiselect.rr import MultiRandomizedResponse

__all__ = [
    "MultiRandomizedResponse",
    "MultiSelectMechanism",
    "PaddingAndSampling",
    "padding_weights",
]
