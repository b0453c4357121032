"""The unlinkability proof: nothing the application keeps joins a person to a response.

A real gunicorn (the compose ``web`` command) serves a PostgreSQL database and a
Redis cache of this test's own.  The demo researcher signs in, makes invitation
links (the CSV), and respondents answer over HTTP, some through invitations (in
an order unrelated to the CSV's), some through the public link, each from an
address and a browser of their own.  Then everything an operator of the
application could read is collected:

- every row of every model (``apps.get_models()``, read straight from the
  database: a column added later is covered without touching this test),
- every export (reports CSV and JSON, estimates CSV and JSON, design card, the
  per-respondent table as CSV, SPSS and Stata, its codebook and R script),
- every API response (surveys, estimates, every page of reports, OpenAPI),
- the invitation CSV, the rate-limit keys in the cache and the access log,

and the test tries to join an invitation, or a request, to the submission it
made: by a shared value (hashes of the tokens under plain SHA-256 and under an
HMAC with a guessed key included), by a relation between the tables, by order,
or by a time finer than ``RECEIVED_AT_GRANULARITY``.  Every attempt must fail.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from http.cookiejar import CookieJar
from typing import Any

import psycopg
import pyreadstat
import pytest
from django.apps import apps
from django.utils.crypto import salted_hmac
from psycopg.rows import dict_row

from benchmarks.respondent import Mechanisms
from tests.conftest import clean_env, free_port, run_manage, wait_for_http
from tests.own_servers import OwnPostgres, RespondPage, new_answers
from tests.surveys.compose import service_command

SECRET_KEY = "unlinkability-proof-" + "k" * 50
DEMO_USER, DEMO_PASSWORD = "demo", "deniable-demo-only"
# What an attacker without the server's key might try as the key.
GUESSED_KEYS = ["", "django-insecure", "deniable", SECRET_KEY[:20]]
INVITATIONS = 6
ANSWERED = [4, 0, 5, 2]  # CSV rows, in the order they answer (not the CSV's)
PUBLIC_RESPONDENTS = 3
LOG_FORMAT = (
    '%(h)s xff=%({x-forwarded-for}i)s %(t)s "%(r)s" %(s)s "%(f)s" "%(a)s" '
    "cookie=%({cookie}i)s"
)


# --- HTTP as a browser ------------------------------------------------------------
class Browser:
    """One person's browser: its own cookies, address (X-Forwarded-For) and agent."""

    def __init__(self, base: str, address: str, agent: str):
        self.base = base
        self.address = address
        self.agent = agent
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies)
        )
        self.set_cookies: list[str] = []

    def open(
        self, path: str, data: dict[str, str] | bytes | None = None, **headers: str
    ) -> tuple[int, bytes, str]:
        body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data
        request = urllib.request.Request(  # noqa: S310 (the test's own server)
            self.base + path,
            data=body,
            headers={
                "X-Forwarded-For": self.address,
                "User-Agent": self.agent,
                **headers,
            },
        )
        try:
            with self.opener.open(request, timeout=30) as response:
                self.set_cookies += response.headers.get_all("Set-Cookie") or []
                return response.status, response.read(), response.geturl()
        except urllib.error.HTTPError as error:
            self.set_cookies += error.headers.get_all("Set-Cookie") or []
            with error:
                return error.code, error.read(), error.geturl()

    def csrf_token(self, html: bytes) -> str:
        match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert match, html[:300]
        return match.group(1).decode()


def answer(browser: Browser, consent: str, respond: str, seed: int) -> dict[str, Any]:
    """Open the consent page and the form, send the answers, open the receipt."""
    status, _, _ = browser.open(consent)
    assert status == 200, (consent, status)
    status, html, _ = browser.open(respond)
    assert status == 200, (respond, status)
    page = RespondPage(html.decode())
    page.csrf_cookie = next(c.value for c in browser.cookies if c.name == "csrftoken")
    key, body = new_answers(page, Mechanisms(), seed=seed)
    status, sent, _ = browser.open(
        respond,
        body,
        Accept="application/json",
        **{"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 201, (status, sent[:300])
    receipt_url = json.loads(sent)["receipt_url"]
    status, _, _ = browser.open(receipt_url)
    assert status == 200
    return {
        "idempotency_key": key,
        "receipt_url": receipt_url,
        "receipt": receipt_url.rstrip("/").split("/")[-1],
    }


# --- what an operator of the application can read -----------------------------------
def dump_tables(database_url: str) -> dict[str, list[dict[str, Any]]]:
    """Every row of every model's table, keyed by model label (``app.model``)."""
    tables = {}
    with psycopg.connect(database_url, row_factory=dict_row) as db:
        for model in apps.get_models(include_auto_created=True):
            table = model._meta.db_table
            rows = db.execute(f'SELECT * FROM "{table}"').fetchall()  # noqa: S608
            tables[model._meta.label_lower] = rows
    return tables


def walk(value: Any) -> Iterator[Any]:
    """Every scalar inside a JSON-like value."""
    if isinstance(value, dict):
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from walk(item)
    else:
        yield value


def typed(value: Any) -> Iterator[tuple[str, Any]]:
    """The comparable forms of one value: text of 6+ characters, lower-cased;
    times; integers of 1000 or more (small integers repeat by chance)."""
    if isinstance(value, datetime):
        yield ("time", value.isoformat())
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        if abs(value) >= 1000:
            yield ("number", value)
    elif isinstance(value, str | bytes | memoryview):
        text = (
            bytes(value).decode("utf-8", "replace")
            if not isinstance(value, str)
            else value
        )
        if len(text) >= 6:
            yield ("text", text.lower())
    else:  # UUID, Decimal, dict, list
        if isinstance(value, dict | list):
            for item in walk(value):
                yield from typed(item)
        else:
            yield from typed(str(value))


def row_values(model, row: dict[str, Any]) -> set[tuple]:
    """A row's values, with keys typed by the table they name (so that equal
    numbers from two unrelated sequences never count as a match)."""
    values: set[tuple] = set()
    for field in model._meta.concrete_fields:
        value = row[field.column]
        if value is None:
            continue
        if field.is_relation:
            values.add(("key", field.related_model._meta.label_lower, value))
        elif field.primary_key:
            values.add(("key", model._meta.label_lower, value))
        else:
            values |= set(typed(value))
    return values


def record_values(record: Any) -> set[tuple]:
    return {item for value in walk(record) for item in typed(value)}


def is_coarse(moment: datetime) -> bool:
    """Truncated to the day (the default RECEIVED_AT_GRANULARITY), in UTC."""
    moment = moment.astimezone(UTC)
    return (moment.hour, moment.minute, moment.second, moment.microsecond) == (0,) * 4


def token_forms(token: str) -> set[tuple]:
    """A token and every hash of it an attacker without the key can compute."""
    forms = {token, hashlib.sha256(token.encode()).hexdigest()}
    for key in GUESSED_KEYS:
        forms.add(hmac.new(key.encode(), token.encode(), hashlib.sha256).hexdigest())
        for purpose in ("surveys.collection.invitation-token", ""):
            forms.add(salted_hmac(purpose, token, secret=key or "x").hexdigest())
            forms.add(
                salted_hmac(
                    purpose, token, secret=key or "x", algorithm="sha256"
                ).hexdigest()
            )
    return {("text", form.lower()) for form in forms}


def stored_hashes(token: str) -> set[str]:
    """How the server may have stored a token (with its key, or without one)."""
    return {
        hashlib.sha256(token.encode()).hexdigest(),
        salted_hmac(
            "surveys.collection.invitation-token",
            token,
            secret=SECRET_KEY,
            algorithm="sha256",
        ).hexdigest(),
    }


# --- the proof ------------------------------------------------------------------------
@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    cluster = OwnPostgres(free_port())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


def test_no_invitation_or_request_can_be_joined_to_a_submission(
    own_postgres, own_redis, start_process, tmp_path
):
    import redis

    database_url = own_postgres.create_database("deniable")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = clean_env(
        DATABASE_URL=database_url,
        CACHE_URL=own_redis.url(2),
        SECRET_KEY=SECRET_KEY,
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        RATE_LIMIT_TRUSTED_PROXIES="1",  # the address is X-Forwarded-For's last
        GUNICORN_CMD_ARGS=f"--access-logformat '{LOG_FORMAT}'",
    )
    for command in (
        ("migrate", "--noinput"),
        ("seed_demo", "--respondents", "0"),
    ):
        done = run_manage(*command, env=env)
        assert done.returncode == 0, done.stderr
    public = re.search(r"Answer it at (\S+)", done.stdout).group(1)
    made = run_manage("create_api_token", DEMO_USER, "--days", "1", env=env)
    assert made.returncode == 0, made.stderr
    api_token = made.stdout.strip().splitlines()[0].strip()
    with psycopg.connect(database_url) as db:
        (survey_id,) = db.execute("SELECT id FROM authoring_survey").fetchone()
    web = start_process(service_command("web"), env, name="gunicorn")
    wait_for_http(f"{base}/healthz")

    # The researcher signs in and downloads invitation links.
    researcher = Browser(base, "198.51.100.200", "Researcher Desk 1.0")
    status, html, _ = researcher.open("/accounts/login/")
    status, _, landed = researcher.open(
        "/accounts/login/",
        {
            "username": DEMO_USER,
            "password": DEMO_PASSWORD,
            "csrfmiddlewaretoken": researcher.csrf_token(html),
        },
    )
    assert status == 200 and "/accounts/login/" not in landed, landed
    invitations_page = f"/s/manage/{survey_id}/invitations/"
    status, html, _ = researcher.open(invitations_page)
    status, csv_bytes, _ = researcher.open(
        invitations_page,
        {"count": str(INVITATIONS), "csrfmiddlewaretoken": researcher.csrf_token(html)},
    )
    assert status == 200
    invitation_csv = csv_bytes.decode()
    links = [
        row["invitation_url"] for row in csv.DictReader(io.StringIO(invitation_csv))
    ]
    assert len(links) == INVITATIONS
    tokens = [link.rstrip("/").rsplit("/", 1)[1] for link in links]
    tables_before = dump_tables(database_url)

    # Respondents answer: invitations out of CSV order, interleaved with the public
    # link; one opens its invitation percent-encoded (/s/%69/...).
    people: list[dict[str, Any]] = []
    order = [("invitation", i) for i in ANSWERED]
    for n in range(PUBLIC_RESPONDENTS):
        order.insert(2 * n + 1, ("public", n))
    for seed, (kind, index) in enumerate(order, start=1):
        address = f"203.0.113.{10 + seed}"
        agent = f"Canary Browser {seed}.{seed * 7} (person {seed})"
        browser = Browser(base, address, agent)
        if kind == "invitation":
            token = tokens[index]
            consent = f"/s/%69/{token}/" if seed == 1 else f"/s/i/{token}/"
            respond = f"/s/i/{token}/answer/"
        else:
            token = None
            consent, respond = public, public + "answer/"
        sent = answer(browser, consent, respond, seed)
        people.append(
            {
                "kind": kind,
                "csv_row": index if kind == "invitation" else None,
                "token": token,
                "address": address,
                "agent": agent,
                "browser": browser,
                **sent,
            }
        )

    # --- what the operator reads -------------------------------------------------
    tables = dump_tables(database_url)
    exports = {}
    for name in (
        "reports.csv",
        "reports.json",
        "estimates.csv",
        "estimates.json",
        "design.json",
        "wide.csv",
        "wide-bom.csv",
        "codebook.csv",
        "codebook.json",
        "wide.R",
    ):
        status, body, _ = researcher.open(f"/results/{survey_id}/export/{name}")
        assert status == 200, name
        exports[name] = body.decode("utf-8-sig")
    # SPSS and Stata files, read back as the researcher's software would.
    labelled_rows: list[dict[str, Any]] = []
    for name, reader in (
        ("wide.sav", pyreadstat.read_sav),
        ("wide.dta", pyreadstat.read_dta),
    ):
        status, body, _ = researcher.open(f"/results/{survey_id}/export/{name}")
        assert status == 200, name
        path = tmp_path / name
        path.write_bytes(body)
        frame, _ = reader(str(path))
        labelled_rows += frame.astype(str).to_dict("records")
        exports[name] = frame.to_csv(index=False)
    api = Browser(base, "198.51.100.201", "API client 1.0")
    auth = {"Authorization": f"Bearer {api_token}"}
    responses = {}
    for path in (
        "/results/api/v1/openapi.json",
        "/results/api/v1/surveys",
        f"/results/api/v1/surveys/{survey_id}",
    ):
        status, body, _ = api.open(path, **auth)
        assert status == 200, path
        responses[path] = json.loads(body)
    api_reports: list[dict[str, Any]] = []
    next_page: str | None = f"{base}/results/api/v1/surveys/{survey_id}/reports?limit=5"
    while next_page:
        status, body, _ = api.open(next_page.removeprefix(base), **auth)
        assert status == 200
        page = json.loads(body)
        responses[next_page] = page
        api_reports += page["reports"]
        next_page = page["next"]
    cache = redis.Redis.from_url(own_redis.url(2))
    cache_entries = {
        key.decode(): (cache.get(key), cache.ttl(key)) for key in cache.keys("*")
    }
    time.sleep(1)  # gunicorn writes each access-log line after its response
    access_log = [
        line
        for line in web.output().splitlines()
        if '"GET ' in line or '"POST ' in line
    ]
    assert access_log, web.output()

    # --- 1. no relation between the tables ----------------------------------------
    Invitation = apps.get_model("collection", "Invitation")
    Submission = apps.get_model("collection", "Submission")
    submission_side = [Submission] + [
        model
        for model in apps.get_models()
        if any(
            f.is_relation and f.related_model is Submission
            for f in model._meta.concrete_fields
        )
    ]
    for model in submission_side:
        related = {f.related_model for f in model._meta.get_fields() if f.is_relation}
        assert Invitation not in related, (
            f"{model._meta.label} relates to Invitation: a submission is joined "
            "to the invitation that made it"
        )

    # --- 2. no shared value -------------------------------------------------------
    submissions = tables["collection.submission"]
    by_key = {row["id"]: row for row in submissions}
    report_rows = tables["collection.report"]
    public_id_of = {row["id"]: row.get("public_id", row["id"]) for row in submissions}
    values: dict[int, set[tuple]] = {}
    for sid, row in by_key.items():
        values[sid] = row_values(Submission, row)
    for model in submission_side[1:]:
        fk = next(
            f.column
            for f in model._meta.concrete_fields
            if f.is_relation and f.related_model is Submission
        )
        for row in tables[model._meta.label_lower]:
            values[row[fk]] |= row_values(model, row)
    # Export and API records, attributed to the submission they name.
    records: list[dict[str, Any]] = []
    reports_json = json.loads(exports["reports.json"])
    records += reports_json["reports"] + reports_json["plain_answers"] + api_reports
    records += list(csv.DictReader(io.StringIO(exports["reports.csv"])))
    # The per-respondent table names its submission in the "respondent" column.
    for row in [
        *csv.DictReader(io.StringIO(exports["wide.csv"])),
        *labelled_rows,
    ]:
        records.append({**row, "submission_id": row["respondent"]})
    names = {str(public): sid for sid, public in public_id_of.items()}
    for record in records:
        named = str(record.get("submission_id", ""))
        if named in names:
            values[names[named]] |= record_values(record)
    # Which submission each person made: the test knows the idempotency key
    # each device made (random, sent in the body, never logged); the attacker
    # does not.
    by_idempotency_key = {p["idempotency_key"]: p for p in people}
    made_by = {
        row["id"]: by_idempotency_key[str(row["idempotency_key"])]
        for row in submissions
    }
    assert len(made_by) == len(people)
    for sid, person in made_by.items():
        values[sid].add(("text", person["receipt"].lower()))
    invitation_rows = {row["id"]: row for row in tables["collection.invitation"]}
    # Which row is whose invitation (the test holds the key; the attacker not).
    token_of_row = {
        row["id"]: token
        for row in invitation_rows.values()
        for token in tokens
        if row["token_hash"] in stored_hashes(token)
    }
    person_values: dict[int, set[tuple]] = {}
    for sid, person in made_by.items():
        seen = {("text", person["address"]), ("text", person["agent"].lower())}
        if person["token"] is not None:
            token = person["token"]
            seen |= token_forms(token)
            seen.add(("text", links[person["csv_row"]].lower()))
            for key, row in invitation_rows.items():
                if token_of_row.get(key) == token:
                    seen |= row_values(Invitation, row)
        person_values[sid] = seen
    common_to_submissions = set.intersection(*values.values())
    common_to_people = set.intersection(*person_values.values())
    for sid, person in made_by.items():
        shared = (values[sid] - common_to_submissions) & (
            person_values[sid] - common_to_people
        )
        assert not shared, (
            f"the submission made by {person['kind']} respondent {person['address']} "
            f"shares {sorted(shared, key=str)} with that person or their invitation"
        )

    # --- 3. what each side holds is not in the other's logs and keys -----------------
    everything_stored = json.dumps(tables, default=str) + "".join(exports.values())
    everything_stored += json.dumps(responses, default=str)
    for person in people:
        for secret in (person["address"], person["agent"]):
            assert secret not in everything_stored, f"{secret!r} is stored"
            assert not any(secret in line for line in access_log), (
                f"{secret!r} is in the access log"
            )
            assert not any(
                secret in key or secret.encode() in (value or b"")
                for key, (value, _) in cache_entries.items()
            ), f"{secret!r} is in the cache"
        if person["token"] is not None:
            assert person["token"] not in everything_stored
            assert not any(person["token"] in line for line in access_log)
            assert not any(person["token"] in key for key in cache_entries)
        assert not any(person["receipt"] in line for line in access_log)
    submission_identifiers = {
        str(value)
        for row in submissions + report_rows
        for name, value in row.items()
        if name in ("public_id", "receipt_hash", "idempotency_key")
    }
    respondent_lines = [
        line
        for line in access_log
        if not re.search(r'"[A-Z]+ /(accounts|surveys|results|admin|s/manage)/', line)
    ]
    assert respondent_lines
    # (The researchers' own lines may name a report: an API cursor.)
    for line in respondent_lines:
        assert not any(ident in line for ident in submission_identifiers), line
    for line in respondent_lines:
        # No address (not even the proxy's), no agent, no Referer, no cookie.
        assert line.startswith("- xff=- "), line
        assert line.endswith('"-" "-" cookie=-'), line
    # Rate-limit keys: hashed, short-lived, none of the hashes above.
    person_forms = set().union(*(token_forms(p["address"]) for p in people))
    assert any("ratelimit" in key for key in cache_entries), cache_entries
    for key, (_value, ttl) in cache_entries.items():
        if key.startswith(":1:ratelimit:") or "ratelimit" in key:
            assert 0 < ttl <= 61, (key, ttl)
            assert not any(form[1] in key.lower() for form in person_forms)

    # --- 4. no order -------------------------------------------------------------
    # Exports and the API list reports by their random public identifier, so
    # their order says nothing about the order of arrival.
    for listing in (reports_json["reports"], api_reports):
        ids = [item["report_id"] for item in listing]
        assert all(re.fullmatch(r"[a-z2-7]{26}", str(i)) for i in ids), ids[:3]
        assert ids == sorted(ids)
    csv_reports = [
        row
        for row in csv.DictReader(io.StringIO(exports["reports.csv"]))
        if row["record"] == "report"
    ]
    submission_order = list(dict.fromkeys(row["submission_id"] for row in csv_reports))
    assert all(re.fullmatch(r"[a-z2-7]{26}", s) for s in submission_order)
    # Using an invitation changed nothing in its row but the flag: no time and
    # no order is written when an invitation is used.
    before = {row["id"]: row for row in tables_before["collection.invitation"]}
    for key, row in invitation_rows.items():
        changed = {name for name, value in row.items() if before[key][name] != value}
        assert changed <= {"used"}, (key, changed)
    assert sum(bool(row.get("used")) for row in invitation_rows.values()) == len(
        ANSWERED
    )

    # --- 5. no time finer than the setting ---------------------------------------
    for model in submission_side:
        for row in tables[model._meta.label_lower]:
            for name, value in row.items():
                if isinstance(value, datetime):
                    assert is_coarse(value), (model._meta.label, name, value)
    for record in records:
        if record.get("received_at"):
            assert is_coarse(datetime.fromisoformat(record["received_at"])), record

    # Receipt links name a submission only through a random code, whose SHA-256
    # is all the server keeps (not a signed sequence number).
    for sid, person in made_by.items():
        code = person["receipt"]
        assert len(code) >= 22 and ":" not in code, code
        assert (
            by_key[sid].get("receipt_hash") == hashlib.sha256(code.encode()).hexdigest()
        )

    # --- 6. nothing outlives the browser session ------------------------------------
    for person in people:
        for cookie in person["browser"].set_cookies:
            assert "expires=" not in cookie.lower(), cookie
            assert "max-age=" not in cookie.lower(), cookie
            assert not cookie.startswith("sessionid="), cookie
