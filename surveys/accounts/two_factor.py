"""Optional two-factor sign-in with a TOTP authenticator app (django-otp).

A researcher starts enrolment (an unconfirmed device with a fresh secret),
scans the QR code or types the secret, and confirms with a code; from then on
signing in needs a code as well.  Codes are checked against the researcher's
one device, inside a transaction, with django-otp's throttling and its refusal
to accept the same code twice.
"""

from __future__ import annotations

import base64
from binascii import unhexlify

import qrcode
import qrcode.image.svg
from django.db import transaction
from django.utils.translation import gettext
from django_otp.plugins.otp_totp.models import TOTPDevice

DEVICE_NAME = "Authenticator app"


class CodeRefused(Exception):
    """The code does not verify; the message says what to do."""


def two_factor_state_sync(user_id: int) -> str:
    """Copy the confirmed device's persistent id onto the user row ("" for none).

    Called inside the transaction of every change this module makes, and by the
    device model's save and delete signals for changes made anywhere else, so the
    row never says "off" while a confirmed device exists.  Returns what it wrote.
    """
    from surveys.accounts.models import User

    device = TOTPDevice.objects.filter(user_id=user_id, confirmed=True).first()
    state = device.persistent_id if device is not None else ""
    User.objects.filter(pk=user_id).update(two_factor_device=state)
    return state


def _device_changed(sender, instance: TOTPDevice, **kwargs) -> None:
    """Signal receiver (post_save, post_delete of TOTPDevice)."""
    two_factor_state_sync(instance.user_id)


def connect_signals() -> None:
    """Keep the user row in step with device changes made outside this module."""
    from django.db.models.signals import post_delete, post_save

    post_save.connect(_device_changed, sender=TOTPDevice, dispatch_uid="deniable_2fa_s")
    post_delete.connect(
        _device_changed, sender=TOTPDevice, dispatch_uid="deniable_2fa_d"
    )


def confirmed_device(user) -> TOTPDevice | None:
    """The researcher's confirmed device, if two-factor sign-in is on."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def pending_device(user) -> TOTPDevice | None:
    """The device being enrolled (scanned but not yet confirmed), if any."""
    return TOTPDevice.objects.filter(user=user, confirmed=False).first()


@transaction.atomic
def enrolment_start(*, user) -> TOTPDevice:
    """A new unconfirmed device with a fresh secret (replacing any earlier one)."""
    TOTPDevice.objects.filter(user=user, confirmed=False).delete()
    return TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)


def verify(device: TOTPDevice, code: str) -> None:
    """Accept ``code`` for ``device`` or raise CodeRefused.

    The device row is locked while the code is checked; a failure is committed
    (it counts towards django-otp's throttling) before CodeRefused is raised.
    """
    code = "".join(code.split())
    with transaction.atomic():
        locked = TOTPDevice.objects.select_for_update().get(pk=device.pk)
        allowed, _ = locked.verify_is_allowed()
        well_formed = code.isdigit() and len(code) == locked.digits
        accepted = allowed and well_formed and locked.verify_token(code)
        if allowed and not well_formed:
            locked.throttle_increment(commit=True)
    if not allowed:
        raise CodeRefused(
            gettext(
                "Too many wrong codes in a row: wait a few seconds, then enter the "
                "code your app shows now."
            )
        )
    if not accepted:
        raise CodeRefused(
            gettext(
                "That code is not right. Enter the 6-digit code your authenticator "
                "app shows now (each code works once)."
            )
        )


def enrolment_confirm(*, user, code: str) -> TOTPDevice:
    """Turn two-factor sign-in on with a code from the pending device."""
    device = pending_device(user)
    if device is None:
        raise CodeRefused(gettext("Start the set-up again: no device is waiting."))
    verify(device, code)
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user, confirmed=True).delete()
        TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
        two_factor_state_sync(user.pk)
    device.refresh_from_db()
    return device


def two_factor_disable(*, user, code: str) -> None:
    """Turn two-factor sign-in off, proven by a current code."""
    device = confirmed_device(user)
    if device is None:
        raise CodeRefused(gettext("Two-factor sign-in is already off."))
    verify(device, code)
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        two_factor_state_sync(user.pk)


def secret_words(device: TOTPDevice) -> str:
    """The secret in base32, in groups of four, for typing into an app."""
    secret = base64.b32encode(unhexlify(device.key)).decode("ascii").rstrip("=")
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def qr_code_data_uri(device: TOTPDevice) -> str:
    """The otpauth URI as an SVG QR code in a data: URI (no third-party request)."""
    image = qrcode.make(
        device.config_url, image_factory=qrcode.image.svg.SvgPathImage, border=2
    )
    return "data:image/svg+xml;base64," + base64.b64encode(image.to_string()).decode()
