"""Respondents answer: consent, forms, report ingestion and invitations."""
