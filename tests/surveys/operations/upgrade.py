"""Migrate a released version's data to the current code and report what changed.

    DATABASE_URL=<empty database> python -m tests.surveys.operations.upgrade FILE.json

With Django's MigrationExecutor it migrates the empty database to the release's
migration state (``"migrations"`` of a file written by ``release_fixture.py``),
inserts the release's rows through the *historical* models of that state, then
migrates to the newest migrations and compares every row with what the release
wrote.  It then checks the tallies against a recount (``verify_tallies``), that
estimates computed from the migrated tallies equal those after
``recount_tallies``, and that the upgraded database keeps working: new
responses are stored and tallied.  Prints one JSON report; the test asserts on it.
"""

from __future__ import annotations

import json
import os
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import django


def insert_rows(apps, objects: list[dict[str, Any]]) -> dict[str, int]:
    """Insert serialized rows through the models of ``apps`` (a migration state).

    Values are saved raw, as ``loaddata`` saves them: ``auto_now`` fields keep
    the recorded times.  Returns the rows inserted per model label.
    """
    from django.core.management.color import no_style
    from django.db import connection

    inserted: dict[str, int] = {}
    models = {}
    for obj in objects:
        model = models.setdefault(obj["model"], apps.get_model(obj["model"]))
        row = model(pk=model._meta.pk.to_python(obj["pk"]))
        many: dict[str, list] = {}
        for name, value in obj["fields"].items():
            field = model._meta.get_field(name)
            if field.many_to_many:
                many[name] = value
            elif field.is_relation:
                setattr(row, field.attname, value)
            else:
                setattr(row, field.attname, field.to_python(value))
        row.save_base(raw=True, force_insert=True)
        for name, pks in many.items():
            getattr(row, name).set(pks)
        inserted[obj["model"]] = inserted.get(obj["model"], 0) + 1
    # Rows came with their ids: move the id sequences past them, as loaddata does.
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(
            no_style(), list(models.values())
        ):
            cursor.execute(statement)
    return inserted


def _parse_time(value: str):
    from django.utils.dateparse import parse_datetime

    return parse_datetime(value)


def _received_at_coarsened(recorded: Any, now: Any, fields_now: dict) -> bool:
    from surveys.collection.models import coarse_time

    return _parse_time(now) == coarse_time(_parse_time(recorded))


def _used_kept(recorded: Any, fields_now: dict) -> bool:
    return fields_now.get("used") is (recorded is not None)


def _payload_stored_compactly(recorded: Any, fields_now: dict) -> bool:
    """collection 0009: the JSON payload now lives in ``value`` or ``bits``,
    which decode (under the report's spec) to exactly the payload recorded."""
    import base64

    from surveys.collection import report_codec
    from surveys.collection.selectors import report_specs

    key = (fields_now["question"], fields_now["spec_revision"])
    bits = fields_now["bits"]
    stored = base64.b64decode(bits) if bits is not None else None
    spec = report_specs([key])[key]
    return report_codec.decode(spec, fields_now["value"], stored) == recorded


# Changes a migration makes on purpose, each with the check that it made exactly
# that change.  collection 0002 (unlinkable respondents, docs/privacy.md): the
# arrival time is truncated to RECEIVED_AT_GRANULARITY, an invitation keeps only
# whether it was used, and a submission no longer names its invitation.
# collection 0008-0010 (compact storage): a report's JSON payload became its
# ``value`` or ``bits`` column.
INTENDED_CHANGES = {
    ("collection.submission", "received_at"): _received_at_coarsened,
}
INTENDED_DROPS = {
    ("collection.invitation", "used_at"): _used_kept,
    ("collection.submission", "invitation"): lambda recorded, fields_now: True,
    ("collection.report", "payload"): _payload_stored_compactly,
}


def compare_rows(objects: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Compare the recorded rows with the database, through the current models.

    Returns (differences, fields the current models no longer have).  A change
    listed in ``INTENDED_CHANGES`` or ``INTENDED_DROPS`` is no difference if its
    check passes (and a difference if it does not).
    """
    from django.apps import apps
    from django.core import serializers

    differences, dropped = [], set()
    for obj in objects:
        model = apps.get_model(obj["model"])
        row = model._base_manager.filter(pk=obj["pk"]).first()
        if row is None:
            differences.append(f"{obj['model']} {obj['pk']}: missing")
            continue
        (now,) = json.loads(serializers.serialize("json", [row]))
        for name, value in obj["fields"].items():
            intended = (obj["model"], name)
            if intended in INTENDED_DROPS and name not in now["fields"]:
                if not INTENDED_DROPS[intended](value, now["fields"]):
                    differences.append(
                        f"{obj['model']} {obj['pk']} {name}: recorded {value!r}, "
                        f"not carried over as intended ({now['fields']!r})"
                    )
            elif name not in now["fields"]:
                dropped.add(f"{obj['model']}.{name}")
            elif intended in INTENDED_CHANGES and now["fields"][name] != value:
                if not INTENDED_CHANGES[intended](value, now["fields"][name], now):
                    differences.append(
                        f"{obj['model']} {obj['pk']} {name}: recorded {value!r}, "
                        f"now {now['fields'][name]!r} (not the intended change)"
                    )
            elif now["fields"][name] != value:
                differences.append(
                    f"{obj['model']} {obj['pk']} {name}: recorded {value!r}, "
                    f"now {now['fields'][name]!r}"
                )
    return differences, sorted(dropped)


def invitation_hash_schemes() -> dict[str, int]:
    """Invitations per hash scheme: rows made before keyed hashes stay "sha256"."""
    from django.db.models import Count

    from surveys.collection.models import Invitation

    rows = Invitation.objects.values("hash_scheme").annotate(n=Count("id"))
    return {row["hash_scheme"]: row["n"] for row in rows}


def row_counts(labels: set[str]) -> dict[str, int]:
    from django.apps import apps

    return {label: apps.get_model(label)._base_manager.count() for label in labels}


def verify_tallies() -> dict[str, Any]:
    """``manage.py verify_tallies``: passed or not, and what it printed."""
    from django.core.management import CommandError, call_command

    out = StringIO()
    try:
        call_command("verify_tallies", stdout=out)
    except CommandError as error:
        return {"passed": False, "output": f"{out.getvalue()}{error}"}
    return {"passed": True, "output": out.getvalue()}


def estimates() -> str:
    """Every survey's estimates (without timestamps), as canonical JSON."""
    import dataclasses

    from surveys.analysis.results.selectors import survey_results
    from surveys.authoring.models import Survey

    return json.dumps(
        {
            survey.pk: [
                dataclasses.asdict(q) for q in survey_results(survey=survey).questions
            ]
            for survey in Survey.objects.order_by("pk")
        },
        sort_keys=True,
        default=str,
    )


def keeps_working() -> dict[str, int]:
    """New responses to the open demo survey are stored and tallied."""
    from surveys.analysis.models import Tally
    from surveys.analysis.tallies import services
    from surveys.collection import demo
    from surveys.collection.models import Submission

    survey = demo.demo_survey(owner=demo.demo_researcher()[0])[0]

    def tallied() -> int:
        return sum(
            Tally.objects.filter(question__survey=survey).values_list("n", flat=True)
        )

    before, tallied_before = Submission.objects.filter(survey=survey).count(), tallied()
    stored = demo.simulate_respondents(survey=survey, count=5, seed=4242)
    # Stored reports are announced on commit (folded at once without a broker);
    # a refresh folds whatever that left.
    services.tallies_refresh(survey_id=survey.pk)
    return {
        "stored": stored,
        "submissions_added": Submission.objects.filter(survey=survey).count() - before,
        "folded": tallied() - tallied_before,
    }


def upgrade(release_file: Path) -> dict[str, Any]:
    """Run the whole upgrade rehearsal on the (empty) default database."""
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.db.migrations.executor import MigrationExecutor

    from surveys.analysis.tallies import services
    from surveys.authoring.models import Survey

    release = json.loads(release_file.read_text())
    targets = sorted(release["migrations"].items())
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()  # reload what is applied now
    historical = executor.loader.project_state(targets).apps
    with transaction.atomic():
        inserted = insert_rows(historical, release["objects"])

    executor = MigrationExecutor(connection)
    newest = executor.loader.graph.leaf_nodes()
    executor.migrate(newest)
    differences, dropped = compare_rows(release["objects"])
    report: dict[str, Any] = {
        "release": release["release"],
        "migrated_from": dict(targets),
        "migrated_to": dict(sorted(newest)),
        "inserted": inserted,
        "rows_now": row_counts(set(inserted)),
        "differences": differences,
        "dropped_fields": dropped,
        "verify_tallies": verify_tallies(),
        "invitation_hash_schemes": invitation_hash_schemes(),
    }
    for survey_id in Survey.objects.values_list("pk", flat=True):
        services.tallies_refresh(survey_id=survey_id)  # what the workers do
    incremental = estimates()
    call_command("recount_tallies", stdout=StringIO())
    report["estimates_equal_after_recount"] = incremental == estimates()
    report["keeps_working"] = keeps_working()
    report["verify_tallies_after_new_responses"] = verify_tallies()
    return report


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.surveys.operations.upgrade FILE")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    django.setup()
    print(json.dumps(upgrade(Path(sys.argv[1])), sort_keys=True))
