"""Researchers' pages: the dashboard, cross-tabs, models, privacy, bins and the
consistent method.
"""
