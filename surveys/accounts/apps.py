from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "surveys.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from surveys.accounts.sessions import stamp_sign_in

        user_logged_in.connect(stamp_sign_in, dispatch_uid="deniable_stamp_sign_in")
