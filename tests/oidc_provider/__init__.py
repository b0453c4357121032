"""A tiny OpenID Connect provider for the single sign-on test (django-oauth-toolkit).

Its own Django project, run in its own process with its own settings
(``tests.oidc_provider.settings``) on a free port: tests/system/servers/
test_single_sign_on.py starts it, makes its user and client, and signs a
researcher in to Deniable through it.
"""
