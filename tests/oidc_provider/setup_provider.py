"""Make the provider's user and Deniable's client (run with the provider's settings).

``python -m tests.oidc_provider.setup_provider USERNAME EMAIL PASSWORD CLIENT_ID
SECRET REDIRECT_URI``

The client is made by the first run and kept by the next ones, so a provider
that serves several tests gets one user per test.
"""

import sys

import django


def main(username, email, password, client_id, secret, redirect_uri) -> None:
    django.setup()
    from django.contrib.auth.models import User
    from oauth2_provider.models import Application

    User.objects.create_user(username, email=email, password=password)
    if Application.objects.filter(client_id=client_id).exists():
        return
    Application.objects.create(
        name="Deniable",
        client_id=client_id,
        client_secret=secret,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=redirect_uri,
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )


if __name__ == "__main__":
    main(*sys.argv[1:7])
