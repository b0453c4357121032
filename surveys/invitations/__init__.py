"""Researchers invite respondents: invitation links, recipient lists, email mailings
and unsubscribing.
"""
