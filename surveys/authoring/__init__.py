"""Researchers build surveys: surveys, questions, mechanism specs and budgets."""
