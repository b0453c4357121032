"""Researcher accounts: the custom user model, sign-in and account creation."""
