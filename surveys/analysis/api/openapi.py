"""The OpenAPI 3.1 document of the research API (checked against the URLconf)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

ERROR = {"$ref": "#/components/schemas/Error"}
# Public identifiers of reports and submissions: 128 random bits in lower-case
# base32 (surveys.collection.tokens.new_public_id), never a sequence number.
PUBLIC_ID_PATTERN = "^[a-z2-7]{26}$"
PUBLIC_ID = {"type": "string", "pattern": PUBLIC_ID_PATTERN}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }


UNAUTHORIZED = _json(ERROR, "No valid API token was sent.")
BAD_QUERY = _json(ERROR, "A query parameter this operation does not read.")
NOT_FOUND = _json(ERROR, "No survey with this id among the token owner's surveys.")
SURVEY_ID = {
    "name": "pk",
    "in": "path",
    "required": True,
    "description": "The survey's id.",
    "schema": {"type": "integer", "minimum": 1},
}

SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "string"}},
    },
    "Interval": {
        "type": "object",
        "properties": {"low": {"type": "number"}, "high": {"type": "number"}},
    },
    "SurveySummary": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "title": {"type": "string"},
            "status": {"type": "string", "enum": ["draft", "open", "closed"]},
            "epsilon_budget": {"type": "number"},
            "responses": {
                "type": "integer",
                "description": "Submissions released to researchers: the n "
                "of the latest results, as every export and page shows it "
                "(released in batches of at least k; fewer are held back).",
            },
            "questions": {"type": "integer"},
            "published_at": {"type": ["string", "null"], "format": "date-time"},
            "estimates_url": {"type": "string", "format": "uri"},
            "reports_url": {"type": "string", "format": "uri"},
        },
    },
    "ItemCounts": {
        "type": ["object", "null"],
        "description": (
            "How the submissions these results cover met the question: each is "
            "in exactly one of answered, not_shown (hidden by display logic; "
            "nothing is stored for it), left_blank, declined (\u201cPrefer not "
            "to answer\u201d) or unknown (declined or left blank, sent before "
            "the two were told apart). Null while an older snapshot is shown."
        ),
        "properties": {
            "answered": {"type": "integer"},
            "not_shown": {"type": "integer"},
            "left_blank": {"type": "integer"},
            "declined": {"type": "integer"},
            "unknown": {"type": "integer"},
        },
    },
    "QuestionEstimate": {
        "type": "object",
        "description": (
            "Unbiased estimates of one randomized question under its current "
            "spec revision. Shares may fall outside [0, 1]; 'consistent' is a "
            "distribution made from them by the method 'consistent_method' names."
        ),
        "properties": {
            "question_id": {"type": "integer"},
            "position": {"type": "integer"},
            "text": {"type": "string"},
            "kind": {"type": "string"},
            "spec_revision": {"type": "integer"},
            "mechanism": {"type": "string"},
            "mechanism_label": {"type": "string"},
            "epsilon": {"type": "number", "description": "Delivered ε, rounded up."},
            "n": {"type": "integer"},
            "labels": {"type": "array", "items": {"type": "string"}},
            "estimate": {"type": "array", "items": {"type": "number"}},
            "standard_error": {"type": "array", "items": {"type": "number"}},
            "intervals": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/Interval"},
            },
            "interval_method": {"type": "string"},
            "consistent": {"type": ["array", "null"], "items": {"type": "number"}},
            "consistent_method": {
                "type": ["string", "null"],
                "enum": ["norm-sub", "mle", None],
                "description": (
                    "How 'consistent' was made: 'norm-sub' (Euclidean projection "
                    "onto the simplex) or 'mle' (maximum likelihood through the "
                    "randomization channel, by EM); null without 'consistent'."
                ),
            },
            "mean": {"type": ["number", "null"]},
            "mean_standard_error": {"type": ["number", "null"]},
            "mean_interval": {
                "oneOf": [{"$ref": "#/components/schemas/Interval"}, {"type": "null"}]
            },
            "margin_of_error": {"type": "number"},
            "target_margin": {"type": "number"},
            "responses_needed": {"type": "integer"},
            "influence_factor": {"type": "number"},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "item_counts": {"$ref": "#/components/schemas/ItemCounts"},
            "estimate_kind": {
                "type": "string",
                "description": (
                    "What 'estimate' holds: 'share', or for scales and numbers "
                    "'raw per-level inversion (unbiased; can be negative; not a "
                    "distribution)'."
                ),
            },
            "distribution": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Distribution"},
                    {"type": "null"},
                ]
            },
        },
    },
    "Distribution": {
        "type": "object",
        "description": (
            "Scales and numbers: the constrained maximum-likelihood answer "
            "distribution (EM) summed into bins, with 95% Wald intervals, and "
            "the median with its Woodruff interval."
        ),
        "properties": {
            "labels": {"type": "array", "items": {"type": "string"}},
            "shares": {"type": "array", "items": {"type": "number"}},
            "intervals": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/Interval"},
            },
            "median": {"type": "number"},
            "median_interval": {"$ref": "#/components/schemas/Interval"},
            "method": {"type": "string"},
            "cuts": {
                "type": "array",
                "items": {"type": "number"},
                "description": "The researcher's cut points ([]: default bins).",
            },
        },
    },
    "SurveyEstimates": {
        "type": "object",
        "properties": {
            "survey_id": {"type": "integer"},
            "title": {"type": "string"},
            "total_epsilon": {"type": "number"},
            "refreshed_at": {"type": ["string", "null"], "format": "date-time"},
            "pending_reports": {
                "type": "integer",
                "description": "Reports stored after these results were computed "
                "(counted up to 10,001).",
            },
            "computed_at": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "When a worker computed these results (the "
                "snapshot); they advance in batches of submissions.",
            },
            "responses": {
                "type": ["integer", "null"],
                "description": "Submissions whose reports these results include.",
            },
            "pending_responses": {
                "type": ["integer", "null"],
                "description": "Submissions stored after these results: "
                "held back while fewer than the release batch k, being added "
                "once k or more (counted up to 10,001); no export or page "
                "includes them before their release.",
            },
            "snapshot_version": {"type": ["integer", "null"]},
            "confidence_level": {"type": "number"},
            "method": {"type": "string"},
            "questions": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/QuestionEstimate"},
            },
            "not_protected": {
                "type": "array",
                "items": {
                    "type": "object",
                    "description": (
                        "An unprotected question's answers, sent as given: counts "
                        "per option (choice kinds; a multi-select counts each "
                        "ticked option) or mean, median, lowest and highest "
                        "(numbers), of the same submissions as the estimates."
                    ),
                    "properties": {
                        "question_id": {"type": "integer"},
                        "text": {"type": "string"},
                        "kind": {"type": "string"},
                        "n": {"type": "integer"},
                        "labels": {"type": "array", "items": {"type": "string"}},
                        "counts": {"type": "array", "items": {"type": "integer"}},
                        "mean": {"type": ["number", "null"]},
                        "median": {"type": ["number", "null"]},
                        "lowest": {"type": ["number", "null"]},
                        "highest": {"type": ["number", "null"]},
                        "item_counts": {"$ref": "#/components/schemas/ItemCounts"},
                    },
                },
            },
        },
    },
    "Question": {
        "type": "object",
        "description": (
            "A question with every compiled spec its reports were made under "
            "('spec_revisions', keyed by revision): ldp.build(spec) re-estimates."
        ),
        "properties": {
            "question_id": {"type": "integer"},
            "position": {"type": "integer"},
            "text": {"type": "string"},
            "kind": {"type": "string"},
            "labels": {"type": "array", "items": {"type": "string"}},
            "is_private": {"type": "boolean"},
            "mechanism": {"type": "string"},
            "epsilon": {"type": "number"},
            "spec_revision": {"type": "integer"},
            "spec": {"type": "object"},
            "spec_revisions": {"type": "object"},
        },
    },
    "Report": {
        "type": "object",
        "description": "One randomized report, exactly as the device sent it.",
        "properties": {
            "report_id": {
                **PUBLIC_ID,
                "description": "The report's random public identifier.",
            },
            "submission_id": {
                **PUBLIC_ID,
                "description": (
                    "The random public identifier of the submission the report "
                    "came in (one respondent's reports share it)."
                ),
            },
            "received_at": {
                "type": "string",
                "format": "date-time",
                "description": (
                    "When the submission arrived, truncated to the server's "
                    "RECEIVED_AT_GRANULARITY (the start of its UTC day, or hour)."
                ),
            },
            "question_id": {"type": "integer"},
            "spec_revision": {"type": "integer"},
            "report": {"description": "An integer or a list of integers."},
        },
    },
    "ReportPage": {
        "type": "object",
        "properties": {
            "survey_id": {"type": "integer"},
            "questions": {
                "type": ["array", "null"],
                "description": "On the first page (no 'after') only.",
                "items": {"$ref": "#/components/schemas/Question"},
            },
            "reports": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/Report"},
            },
            "next": {
                "type": ["string", "null"],
                "format": "uri",
                "description": "The next page, or null on the last one.",
            },
        },
    },
}


# Who may call, and what the document says of the API.
SECURED = [{"bearerAuth": []}]
INFO = {
    "title": "Deniable research API",
    "version": "1",
    "description": (
        "Read-only access to your surveys' debiased estimates and "
        "randomized reports. Every report was randomized on the "
        "respondent's device; nothing here is a true answer."
    ),
}
SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "A personal API token.",
    }
}

# The operations, one per path.
OPENAPI_OPERATION = {
    "operationId": "openapi",
    "summary": "This document.",
    "security": [],
    "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1.")},
}
LIST_SURVEYS = {
    "operationId": "listSurveys",
    "summary": "Your surveys.",
    "security": SECURED,
    "responses": {
        "200": _json(
            {
                "type": "object",
                "properties": {
                    "surveys": {
                        "type": "array",
                        "items": {"$ref": "#/components/schemas/SurveySummary"},
                    }
                },
            },
            "Your surveys, newest first.",
        ),
        "400": BAD_QUERY,
        "401": UNAUTHORIZED,
    },
}
SURVEY_ESTIMATES = {
    "operationId": "getSurveyEstimates",
    "summary": "One survey's estimates with 95% intervals.",
    "security": SECURED,
    "parameters": [SURVEY_ID],
    "responses": {
        "200": _json(
            {"$ref": "#/components/schemas/SurveyEstimates"},
            "Estimates from the latest tallies.",
        ),
        "400": BAD_QUERY,
        "401": UNAUTHORIZED,
        "404": NOT_FOUND,
    },
}
SURVEY_REPORTS = {
    "operationId": "listSurveyReports",
    "summary": "One survey's randomized reports, page by page.",
    "security": SECURED,
    "parameters": [
        SURVEY_ID,
        {
            "name": "after",
            "in": "query",
            "description": (
                "Return reports whose report_id sorts after this "
                "one (the last report_id of the previous page). "
                "Reports come in report_id order, which is random: "
                "it says nothing about when they arrived."
            ),
            "schema": PUBLIC_ID,
        },
        {
            "name": "limit",
            "in": "query",
            "description": "Page size.",
            "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10000,
                "default": 1000,
            },
        },
    ],
    "responses": {
        "200": _json(
            {"$ref": "#/components/schemas/ReportPage"},
            "A page of reports in report_id order.",
        ),
        "400": _json(
            ERROR,
            "'after' or 'limit' is invalid, or another query parameter was sent.",
        ),
        "401": UNAUTHORIZED,
        "404": NOT_FOUND,
    },
}


def openapi_document(request) -> dict[str, Any]:
    """The document, with this site's address and its URLconf's paths."""

    def url(name: str, **kwargs: Any) -> str:
        return reverse(f"analysis:{name}", kwargs=kwargs or None)

    def templated(name: str) -> str:
        sentinel = 987654321  # any id: only the shape of the path is wanted
        return url(name, pk=sentinel).replace(str(sentinel), "{pk}")

    return {
        "openapi": "3.1.0",
        "info": INFO,
        "servers": [{"url": request.build_absolute_uri("/").rstrip("/")}],
        "components": {"securitySchemes": SECURITY_SCHEMES, "schemas": SCHEMAS},
        "paths": {
            url("api_openapi"): {"get": OPENAPI_OPERATION},
            url("api_surveys"): {"get": LIST_SURVEYS},
            templated("api_survey"): {"get": SURVEY_ESTIMATES},
            templated("api_reports"): {"get": SURVEY_REPORTS},
        },
    }
