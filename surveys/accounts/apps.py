from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "surveys.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from surveys.accounts.sessions import stamp_sign_in
        from surveys.accounts.two_factor import connect_signals

        user_logged_in.connect(stamp_sign_in, dispatch_uid="deniable_stamp_sign_in")
        connect_signals()
