"""Estimators: unbiased frequencies, intervals and consistency."""
