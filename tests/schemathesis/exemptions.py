"""What schemathesis reports that no OpenAPI document can rule out, dropped here for the exact
refusal the server gives and nothing else: the same request refused for any other reason still
fails the run. docs/openapi.md lists these exemptions and why."""

import json
import re

import schemathesis

# 400 refusals, as (code, description), of requests whose every value has the documented type,
# format and pattern, but which the server cannot accept.
EXEMPT_REFUSALS = [
    # A cursor is opaque and signed by the server for one list: the document says it is a
    # non-empty string, and no schema can say "one the server issued" (its MAC).
    (
        "VALIDATION_FAILED",
        re.compile(r"`cursor`: is not a cursor of this list; pass `nextCursor` back as it was given"),
    ),
    # A webhook URL must resolve, and only to public addresses: a fact of DNS when the call is
    # made, not of the URL's text.
    (
        "VALIDATION_FAILED",
        re.compile(r"`url`: .* (does not resolve|resolves to .*; webhooks go to public addresses only)"),
    ),
    # An audience's rows have distinct externalRefs: JSON Schema's uniqueItems compares whole
    # rows, and nothing compares one property across the items of an array.
    ("VALIDATION_FAILED", re.compile(r"`rows\[[0-9]+\]\.externalRef`: repeats rows\[[0-9]+\]")),
    # Results filters: one attribute name given two values cannot hold at once (the same pair
    # twice counts once); as above, nothing compares a part of one item with the others.
    ("VALIDATION_FAILED", re.compile(r"`attribute`: names an attribute already given another value")),
    # A redelivery range runs forward and spans at most 31 days: JSON Schema compares a value with
    # constants only.
    ("VALIDATION_FAILED", re.compile(r"`to`: must be (later than `from`|at most 31 days after `from`)")),
    # A brief's languages are distinct as tags (`en-gb` repeats `en-GB`): uniqueItems compares
    # the strings as sent.
    ("VALIDATION_FAILED", re.compile(r"`brief\.constraints\.languages\[[0-9]+\]`: repeats a language")),
    # A time zone name must be one the tz database built into Pulse knows: a list of names that
    # changes with the database, which the document gives as a pattern of their characters.
    (
        "VALIDATION_FAILED",
        re.compile(r"`(rows\[[0-9]+\]\.)?timeZone`: must be an IANA time zone name, such as Europe/Paris"),
    ),
    # A trend's range runs forward and spans at most 3660 days: JSON Schema compares a value with
    # constants only.
    (
        "VALIDATION_FAILED",
        re.compile(r"`(from`: must not be after `to`|to`: must be within 3660 days of `from`)"),
    ),
    # One number bounded by another: JSON Schema compares a value with constants only.
    ("VALIDATION_FAILED", re.compile(r"`quality\.targetCount`: must not exceed quality\.maxResponses")),
    # Whether banned topics leave enough questions depends on the texts the generator would
    # write, not on the shape of the topics.
    (
        "VALIDATION_FAILED",
        re.compile(r"`brief\.constraints\.bannedTopics`: the banned topics leave too few questions .*"),
    ),
    # The specification answers a campaign that cannot launch yet with 400, though nothing in the
    # request is wrong: whether it can launch is the campaign's state (its workspace, its
    # channels and audience).
    ("NOT_LAUNCH_READY", re.compile(r"the campaign cannot launch yet: .*")),
]


def _refusal(response):
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _ignored_idempotency_key(failure, case):
    """A start whose only invalid part is its Idempotency-Key, with no launchToken or invitation
    in the body: the server then ignores the key (docs/respondents.md: a key without a secret of
    the respondent's could replay someone else's session), and a header's schema cannot depend
    on the body."""
    body = case.body if isinstance(case.body, dict) else {}
    return (
        failure.code == "ST201"
        and case.operation.label == "POST /api/v1/public/pulse/{code}/start"
        and "Invalid component: parameter `Idempotency-Key` in header" in failure.message
        and body.get("launchToken") is None
        and body.get("invitation") is None
    )


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep every failure but the ones described above."""
    if _ignored_idempotency_key(failure, case):
        return False
    if failure.code != "ST202" or response.status_code != 400:
        return True
    body = _refusal(response) or {}
    code, description = body.get("code"), body.get("description", "")
    return not any(code == exempt and refusal.fullmatch(description) for exempt, refusal in EXEMPT_REFUSALS)
