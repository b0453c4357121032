"""Rerunnable benchmarks that print figures; ``benchmarks/run_all.py`` runs them all."""
