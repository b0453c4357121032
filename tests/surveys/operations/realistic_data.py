"""Realistic data, written only through the project's own services.

For the backup, restore and upgrade tests, and for each release's data fixture
(``release_fixture.py``): researchers, a published survey with one question
per mechanism family (every question kind) and a plain question, the demo
survey with a question changed after responses (a second spec revision), used
and unused invitations, an API token, a draft and a closed survey, tallies as
the workers leave them, and a few reports not tallied yet.

``python -m tests.surveys.operations.realistic_data`` fills the (migrated)
database named by DATABASE_URL and prints a JSON count of rows per model.
"""

from __future__ import annotations

import dataclasses
import json
import os

import django


def populate() -> dict[str, int]:
    """Write the data set; returns the number of rows per model label."""
    # Imported here: run as a script, Django is set up only in __main__ below.
    from django.apps import apps

    from surveys.accounts.services import researcher_create
    from surveys.analysis.tallies import services as analysis
    from surveys.api_tokens.services import api_token_create
    from surveys.authoring import selectors
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig
    from surveys.authoring.models import Survey
    from surveys.collection import demo
    from surveys.collection.services import invitations_create, submission_ingest
    from tests.surveys.analysis.conftest import (
        FAMILIES,
        make_survey,
        responses,
        submit_bulk,
    )

    ada = researcher_create(
        username="ada", email="ada@example.org", password="correct horse 42 staple"
    )
    every_family = make_survey(ada)
    submit_bulk(every_family, 40, seed=11)
    tokens = invitations_create(survey=every_family, count=3)
    (invited,) = responses(every_family, 1, seed=12)
    # One response through an invitation; its tally refresh runs on commit.
    submission_ingest(survey=every_family, response=invited, invitation_token=tokens[0])

    owner, _ = demo.demo_researcher()
    demo_survey, _ = demo.demo_survey(owner=owner)
    demo.simulate_respondents(survey=demo_survey, count=60)
    warner = demo_survey.questions.get(mechanism="warner")
    authoring.question_update(
        question=warner,
        text=warner.text,
        privacy=dataclasses.replace(
            selectors.question_privacy_config(warner), epsilon=0.8
        ),
    )
    demo_survey.refresh_from_db()
    demo.simulate_respondents(survey=demo_survey, count=20, seed=7)
    api_token_create(user=owner, name="nightly export")

    draft = authoring.survey_create(owner=ada, title="Draft, never published")
    authoring.question_create(
        survey=draft,
        text="How often do you skip breakfast?",
        privacy=PrivacyConfig(kind="ordinal", options=("Never", "Some days", "Daily")),
    )
    closed = make_survey(ada, FAMILIES[:2], plain=False)
    submit_bulk(closed, 5, seed=21)
    authoring.survey_close(survey=closed, user=ada)

    for survey_id in Survey.objects.values_list("pk", flat=True):
        analysis.tallies_refresh(survey_id=survey_id)  # what the workers do
    submit_bulk(every_family, 2, seed=13)  # arrived after the last refresh

    return {
        model._meta.label_lower: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label
        in {"accounts", "authoring", "collection", "analysis", "api_tokens"}
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    django.setup()
    print(json.dumps(populate(), sort_keys=True))
