"""Analyses a researcher asks for, run as background jobs: cross-tabs, breakdowns,
regressions, weighted estimates, simulated pilots.
"""
