"""Researchers' invitation pages: invitation links, the recipients page (email
invitations and reminders), and unsubscribing."""

from __future__ import annotations

import csv

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from surveys.accounts import audit
from surveys.authoring import access, translations
from surveys.authoring.models import Survey
from surveys.collection import device_links, selectors, services
from surveys.expected_fields import ExpectedFieldsMixin
from surveys.invitations import mailings, recipient_list, tasks
from surveys.invitations.forms import (
    InvitationsForm,
    MailingForm,
    MailLanguageForm,
    RecipientsImportForm,
)


def _owned(request: HttpRequest, survey_id: int) -> Survey:
    return access.survey_get_for(user=request.user, pk=survey_id, need=access.EDIT)


def _mailing_form(
    kind: str, survey: Survey, data=None, language: str = mailings.EVERY_LANGUAGE
) -> MailingForm:
    subject, body = mailings.mailing_defaults(kind, survey, language)
    return MailingForm(
        data,
        initial={"kind": kind, "subject": subject, "body": body, "language": language},
        prefix=kind,
        languages=translations.declared_languages(survey),
    )


def _language_form(request: HttpRequest, survey: Survey) -> MailLanguageForm:
    """The page's choice of the emails' languages (GET ``language``)."""
    declared = translations.declared_languages(survey)
    names = ", ".join(translations.language_name(code) for code in declared)
    choices = [
        (
            mailings.EVERY_LANGUAGE,
            gettext("Every language of the survey (%(names)s)") % {"names": names},
        )
    ]
    if len(declared) > 1:
        choices += [(code, translations.language_name(code)) for code in declared]
    form = MailLanguageForm(request.GET or None, choices=choices)
    form.picked = (  # type: ignore[attr-defined]
        form.cleaned_data["language"] if form.is_valid() else mailings.EVERY_LANGUAGE
    )
    return form


def _page(request, survey, *, import_form=None, invite=None, remind=None, status=200):
    language_form = _language_form(request, survey)
    picked = language_form.picked
    return render(
        request,
        "collection/recipients.html",
        {
            "survey": survey,
            "counts": recipient_list.recipient_counts(survey=survey),
            "import_form": import_form or RecipientsImportForm(),
            "language_form": language_form,
            "invite_form": invite or _mailing_form("invitation", survey, None, picked),
            "remind_form": remind or _mailing_form("reminder", survey, None, picked),
            "can_send": survey.status == Survey.Status.OPEN and not survey.archived,
            "retention_days": settings.RECIPIENT_RETENTION_DAYS,
            "reminders_max": settings.REMINDERS_MAX,
            "reminder_min_days": settings.REMINDER_MIN_DAYS,
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def recipients(request: HttpRequest, survey_id: int) -> HttpResponse:
    """Counts by state; POST imports a CSV file of addresses."""
    survey = _owned(request, survey_id)
    if request.method == "GET":
        return _page(request, survey)
    form = RecipientsImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["addresses"]
        try:
            if survey.archived:
                raise ValidationError(
                    gettext("This survey is archived; it takes no recipients.")
                )
            if upload.size > recipient_list.CSV_MAX_BYTES:
                raise ValidationError(recipient_list.too_big_words(upload.size))
            found = recipient_list.parse_recipients_csv(upload.read())
            added, already = recipient_list.recipients_add(
                survey=survey, emails=found.emails
            )
            audit.record(
                request.user, audit.Action.INVITE, survey, f"{added} addresses added"
            )
        except ValidationError as error:
            for message in error.messages:
                form.add_error("addresses", message)
        else:
            skipped = already + found.duplicates_in_file
            values = {"added": added, "skipped": skipped}
            if skipped:
                # Two counts in one sentence: the plural follows the first.
                added_words = ngettext(
                    "%(added)s recipient added; %(skipped)s already on the list "
                    "or repeated.",
                    "%(added)s recipients added; %(skipped)s already on the list "
                    "or repeated.",
                    added,
                )
            else:
                added_words = ngettext(
                    "%(added)s recipient added.", "%(added)s recipients added.", added
                )
            messages.success(request, added_words % values)
            return redirect("collection:recipients", survey_id=survey.pk)
    return _page(request, survey, import_form=form, status=400)


@login_required
@require_POST
def recipients_send(request: HttpRequest, survey_id: int) -> HttpResponse:
    """Send the invitations (to recipients not sent one yet) or a reminder."""
    survey = _owned(request, survey_id)
    kind = request.POST.get("kind")
    if kind not in ("invitation", "reminder"):
        kind = request.POST.get("reminder-kind") or request.POST.get("invitation-kind")
    kind = kind if kind in ("invitation", "reminder") else "invitation"
    form = _mailing_form(kind, survey, request.POST)
    if not form.is_valid():
        forms = {"invite": form} if kind == "invitation" else {"remind": form}
        return _page(request, survey, status=400, **forms)
    if survey.status != Survey.Status.OPEN or survey.archived:
        messages.error(
            request,
            gettext(
                "Emails go out only while the survey is open: its links would not "
                "work now. Nothing was sent."
            ),
        )
        return redirect("collection:recipients", survey_id=survey.pk)
    try:
        audit.record(request.user, audit.Action.INVITE, survey, f"{kind} emails queued")
        outcome = tasks.send_mailing.delay(
            survey.pk,
            kind,
            request.build_absolute_uri("/"),
            form.cleaned_data["subject"],
            form.cleaned_data["body"],
            form.cleaned_data["language"],
        )
    except mailings.TemporaryFailure as error:
        messages.error(
            request,
            gettext(
                "The mail server could not take the emails (%(error)s). Those not "
                "sent stay “not sent yet”: try again later."
            )
            % {"error": error},
        )
        return redirect("collection:recipients", survey_id=survey.pk)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        result = outcome.result or {}
        sent, refused = result.get("sent", 0), result.get("refused", 0)
        messages.success(
            request,
            ngettext(
                "%(sent)s email sent; %(refused)s refused by the mail server.",
                "%(sent)s emails sent; %(refused)s refused by the mail server.",
                sent,
            )
            % {"sent": sent, "refused": refused},
        )
    else:
        messages.success(
            request,
            gettext("Sending in the background: the counts below update as it goes."),
        )
    return redirect("collection:recipients", survey_id=survey.pk)


class UnsubscribeForm(ExpectedFieldsMixin, forms.Form):
    """The unsubscribe POST: the page's button sends nothing; a mail client's
    one-click unsubscribe sends ``List-Unsubscribe=One-Click`` (RFC 8058)."""

    also_expected = frozenset()  # CSRF-exempt: no token is sent

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["List-Unsubscribe"] = forms.ChoiceField(
            choices=[("One-Click", "One-Click")],
            required=False,
            error_messages={
                "invalid_choice": gettext_lazy(
                    "A one-click unsubscribe sends “One-Click”, nothing else."
                )
            },
        )


@never_cache
@csrf_exempt  # RFC 8058 one-click unsubscribe: the signed token is the credential
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks to confirm; POST (a button here, or a mail client's one-click
    ``List-Unsubscribe-Post``) stops every further email about the survey."""
    recipient = recipient_list.recipient_from_unsubscribe_token(token)
    if recipient is None:
        return render(request, "collection/unsubscribe.html", {"bad": True}, status=404)
    form = UnsubscribeForm(request.POST, request.FILES)
    done = request.method == "POST" and form.is_valid()
    if done:
        recipient_list.unsubscribe(recipient)
    # In the respondent's language among the survey's (as its other pages).
    translations.localize_for_request(request, recipient.survey)
    refused = request.method == "POST" and not done
    return render(
        request,
        "collection/unsubscribe.html",
        {
            "title": recipient.survey.title,
            "done": done,
            "refusals": [e for errors in form.errors.values() for e in errors]
            if refused
            else [],
        },
        status=400 if refused else 200,
    )


# --- invitations (the survey's owner) ---------------------------------------------
@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def invitations(request: HttpRequest, survey_id: int) -> HttpResponse:
    survey = access.survey_get_for(user=request.user, pk=survey_id, need=access.EDIT)
    form = InvitationsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if survey.status == Survey.Status.CLOSED or survey.archived:
            form.add_error(
                None, gettext("This survey is closed; it needs no more invitations.")
            )
        else:
            tokens = services.invitations_create(
                survey=survey, count=form.cleaned_data["count"]
            )
            audit.record(
                request.user,
                audit.Action.INVITE,
                survey,
                f"{len(tokens)} invitation links made",
            )
            return _invitations_csv(request, survey, tokens)
    return render(
        request,
        "collection/invitations.html",
        {
            "survey": survey,
            "form": form,
            "counts": selectors.invitation_counts(survey=survey),
        },
    )


def _invitations_csv(
    request: HttpRequest, survey: Survey, tokens: list[str]
) -> HttpResponse:
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")  # when the file was made
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="invitations-survey-{survey.pk}-{stamp}.csv"'
    )
    response["Cache-Control"] = "no-store"
    writer = csv.writer(response)
    origin = device_links.server_origin(request)
    on_device = bool(device_links.device_link(origin, invitation="x"))
    writer.writerow(["invitation_url", *(["device_url"] if on_device else [])])
    for token in tokens:
        url = request.build_absolute_uri(
            reverse("collection:consent_invitation", args=[token])
        )
        # The same invitation, opened on the independent device (DEVICE_URL).
        device = device_links.device_link(origin, invitation=token)
        writer.writerow([url, *([device] if on_device else [])])
    return response
