"""What a respondent checks with: the receipt of a submission, the verify page,
and the device scripts whose fingerprints the verify page and the design card
publish.
"""

from __future__ import annotations

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
)
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from surveys.authoring import translations
from surveys.collection import assets, selectors
from surveys.version import deniable_version


# --- after submitting -------------------------------------------------------------
@require_safe
@never_cache
def receipt(request: HttpRequest, receipt: str) -> HttpResponse:
    submission = selectors.submission_by_receipt(receipt)
    if submission is None:
        raise Http404("No such receipt.")
    translations.localize_for_request(request, submission.survey)
    return render(
        request,
        "collection/receipt.html",
        {
            "survey": submission.survey,
            "submission": submission,
            "lines": selectors.submission_receipt(submission=submission),
        },
    )


# --- verification -----------------------------------------------------------------
@require_safe
def verify(request: HttpRequest) -> HttpResponse:
    version = deniable_version()
    recorded = assets.recorded_fingerprints(version)
    scripts = [*assets.device_scripts(), assets.verify_script()]
    return render(
        request,
        "collection/verify.html",
        {
            "scripts": scripts[:-1],
            "version": version,
            "record": [
                {
                    "name": script.name,
                    "path": path,
                    "recorded": recorded.get(path, ""),
                }
                for script in scripts
                for path in [_recorded_path(recorded, script.name)]
            ],
            "randomizer": assets.randomizer_script(),
            "wording": assets.wording_script(),
            "outbox": assets.outbox_script(),
            "ledger": assets.ledger_script(),
            "section_checks": assets.section_checks_script(),
            **assets.flow_scripts(),
            "respond_js": assets.respond_script(),
            "respond_parts": assets.respond_parts(),
            "verify_js": assets.verify_script(),
        },
    )


def _recorded_path(recorded: dict[str, str], name: str) -> str:
    """The repository path the record gives the file ``name``."""
    return next((path for path in recorded if path.endswith(f"/{name}")), name)


def _module(script: assets.Script) -> HttpResponse:
    """A device module, byte for byte the file its hash is computed from."""
    response = HttpResponse(
        script.source, content_type="text/javascript; charset=utf-8"
    )
    response["Cache-Control"] = "no-cache"
    response["ETag"] = f'"{script.integrity}"'
    return response


@require_safe
def randomizer_js(request: HttpRequest) -> HttpResponse:
    """The randomizer module (the respondent's agent)."""
    return _module(assets.randomizer_script())


@require_safe
def wording_js(request: HttpRequest) -> HttpResponse:
    """The respondent wording module."""
    return _module(assets.wording_script())
