"""Self sign-up: who may make an account, the address check, the approval.

``ACCOUNT_SIGNUP`` (settings, env ``SIGNUP``) says whether strangers may make
researcher accounts: ``off`` (the default: only an administrator makes them),
``approval`` (anyone may ask; an administrator approves) or ``open``.  An
account made here is inactive (it cannot sign in) until the link emailed to
its address is followed and, under ``approval``, until an administrator
approves it (the admin's "Approve" action).  Inactive accounts are refused
at sign-in exactly like a wrong password, so the sign-in page does not say
which accounts exist.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.mail import mail_admins, send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _

from surveys.accounts.models import User

OFF, APPROVAL, OPEN = "off", "approval", "open"
MODES = (OFF, APPROVAL, OPEN)


def mode() -> str:
    """The sign-up mode in force (``off``, ``approval`` or ``open``)."""
    return settings.ACCOUNT_SIGNUP


class EmailVerificationTokenGenerator(PasswordResetTokenGenerator):
    """A signed, expiring token for one account's current, unverified address.

    Django's password-reset tokens under another salt: the hash covers the
    account, its address and whether it was verified, so a link stops working
    once it was used or the address changed, and after PASSWORD_RESET_TIMEOUT.
    """

    key_salt = "deniable.accounts.signup.EmailVerificationTokenGenerator"

    def _make_hash_value(self, user, timestamp: int) -> str:
        return f"{user.pk}{user.email}{user.email_verified_at}{timestamp}"


verification_tokens = EmailVerificationTokenGenerator()


def _send(user: User, template: str, context: dict) -> None:
    context = {"user": user, **context}
    subject = render_to_string(f"registration/{template}_subject.txt", context)
    body = render_to_string(f"registration/{template}.txt", context)
    send_mail(" ".join(subject.split()), body, None, [user.email])


def verification_path(user: User) -> str:
    """The path of the account's verification link (the site's host goes first)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = verification_tokens.make_token(user)
    return reverse("signup_verify", kwargs={"uidb64": uid, "token": token})


@transaction.atomic
def signup_create(*, username: str, email: str, password: str, site: str) -> User:
    """Make an inactive account and email its verification link.

    ``site`` is the scheme and host the link starts with (the request's own).
    Raises ValidationError, and writes nothing, when sign-up is off, the
    username or address is taken, or the password fails the validators; an
    error of the mail server (OSError, SMTPException) is raised too, after
    which nothing is written either (the message goes out inside the
    transaction).
    """
    if mode() == OFF:
        raise ValidationError(_("Sign-up is closed on this server."))
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError({"username": _("That username is taken.")})
    if User.objects.filter(email__iexact=email).exists():
        raise ValidationError(
            {"email": _("An account already uses that address; reset its password.")}
        )
    user = User(
        username=username,
        email=email,
        is_active=False,
        awaiting_approval=mode() == APPROVAL,
    )
    password_validation.validate_password(password, user=user)
    user.set_password(password)
    user.full_clean()
    user.save()
    _send(user, "verify_email", {"link": site + verification_path(user)})
    return user


def user_from_link(uidb64: str, token: str) -> User | None:
    """The unverified account a verification link names, or None if it is not valid."""
    try:
        pk = int(urlsafe_base64_decode(uidb64).decode())
    except (ValueError, UnicodeDecodeError):
        return None
    user = User.objects.filter(pk=pk, email_verified_at__isnull=True).first()
    if user is None or not verification_tokens.check_token(user, token):
        return None
    return user


def email_verify(*, user: User) -> User:
    """Mark the address verified; the account can sign in unless approval waits.

    Under approval, the site's ADMINS are then told by email (a failure to
    reach them does not undo the verification).
    """
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.email_verified_at is not None:
            return user
        user.email_verified_at = timezone.now()
        user.is_active = not user.awaiting_approval
        user.save(update_fields=["email_verified_at", "is_active"])
    if user.awaiting_approval:
        with translation.override(settings.LANGUAGE_CODE):
            body = render_to_string("registration/approval_needed.txt", {"user": user})
        mail_admins(
            f"Account awaiting approval: {user.username}", body, fail_silently=True
        )
    return user


@transaction.atomic
def accounts_approve(*, users, site: str) -> list[User]:
    """Approve accounts awaiting it; each verified one can sign in at once.

    Returns the accounts approved (those not awaiting approval are left as
    they are).  The approved are told by email, with a link to ``site``'s
    sign-in page; a mail server's error is raised and nothing is approved.
    """
    link = site + reverse("login")
    approved = list(
        User.objects.select_for_update().filter(
            pk__in=[u.pk for u in users], awaiting_approval=True
        )
    )
    for user in approved:
        user.awaiting_approval = False
        user.is_active = user.email_verified_at is not None
        user.save(update_fields=["awaiting_approval", "is_active"])
        if user.email:
            _send(user, "account_approved", {"link": link})
    return approved


def unverified_expired(now=None):
    """Sign-ups whose address was never confirmed and whose link has expired
    (``PASSWORD_RESET_TIMEOUT`` after the account was made): inactive, never
    signed in, owning no survey, not staff.  Their link can no longer work,
    so they can never be used; an administrator's own accounts are active,
    and a deactivated one that ever signed in or owns a survey is kept."""
    made_before = (now or timezone.now()) - timedelta(
        seconds=settings.PASSWORD_RESET_TIMEOUT
    )
    return User.objects.filter(
        is_active=False,
        is_staff=False,
        is_superuser=False,
        email_verified_at__isnull=True,
        last_login__isnull=True,
        date_joined__lt=made_before,
        surveys__isnull=True,
    )


def unverified_delete(now=None) -> list[str]:
    """Delete :func:`unverified_expired` accounts; their usernames, sorted."""
    with transaction.atomic():
        found = list(unverified_expired(now).select_for_update(of=("self",)))
        User.objects.filter(pk__in=[user.pk for user in found]).delete()
    return sorted(user.username for user in found)
