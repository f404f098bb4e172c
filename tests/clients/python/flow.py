"""A partner's whole flow through a client that openapi-python-client generated from the served
OpenAPI document, against a real `pulse serve` (.ci/contract runs it). Every call goes through
the generated client, and every answer is checked against what the contract says; a status the
document does not list makes the client raise.

Environment: PULSE_BASE_URL (the server), PULSE_FLOW_KEY (an API key of a business, with every
scope, that reaches no workspace yet), PULSE_BIN (the `pulse` binary, for the operator's approval
of the workspace; its database and master key come from the environment too). The server runs
with PULSE_WEBHOOK_ALLOW_PRIVATE=true so the loopback receiver below is a valid endpoint.
"""

import hashlib
import hmac
import http.server
import importlib
import json
import os
import pkgutil
import re
import subprocess
import threading
import time
import urllib.parse

from pulse_client import AuthenticatedClient, Client, api
from pulse_client.api.campaigns import (
    attach_respondents,
    get_campaign,
    get_campaign_results,
    launch_campaign,
    provision_campaign,
)
from pulse_client.api.exports import download_export, get_export, request_export
from pulse_client.api.identity import create_org, get_open_api_document, whoami
from pulse_client.api.public import answer_questions, check_session_access, complete_session, start_session
from pulse_client.api.sessions import mint_launch_link
from pulse_client.api.webhooks import (
    create_webhook,
    delete_webhook,
    get_webhook,
    list_webhook_deliveries,
    simulate_webhook,
    update_webhook,
)
from pulse_client.models import (
    AccessBody,
    AnswerRequest,
    AnswersRequest,
    AudienceRequest,
    AudienceResponse,
    AudienceRowRequest,
    BriefConstraints,
    BriefRequest,
    CampaignBody,
    CompletedBody,
    CreatedSubscriptionBody,
    CreateSubscriptionRequest,
    CreateWorkspaceRequest,
    CreateWorkspaceResponse,
    DeliveryBody,
    DeliveryPage,
    ErrorBody,
    ExportBody,
    ExportRequestBody,
    ExportStatusBody,
    FormatBody,
    LaunchLinkRequest,
    LaunchLinkResponse,
    NotStartedBody,
    ProgressBody,
    ProvisionRequest,
    ProvisionResponse,
    ResultsBody,
    StartedBody,
    StartRequest,
    SubscriptionBody,
    UpdateSubscriptionRequest,
    WhoamiBody,
)

BASE_URL = os.environ["PULSE_BASE_URL"]
KEY = os.environ["PULSE_FLOW_KEY"]
PULSE_BIN = os.environ["PULSE_BIN"]

# Five respondents lift the anonymity floor (five accepted sessions), a sixth answers through
# an audience invitation.
ANSWERS = [
    (5, "The courier was early and very friendly"),
    (4.0, "Fast delivery, the box was a little dented"),  # an integer, to JSON Schema
    (5, "Great service and a friendly courier"),
    (2, "The delivery was late and the food was cold"),
    (4, "Good delivery, on time"),
]


def step(text):
    print(f"-- {text}", flush=True)


def call(operation, status, expected_type, **kwargs):
    """One call of a generated operation: the status must be `status` and the generated client
    must have read the body as `expected_type`."""
    response = operation.sync_detailed(**kwargs)
    assert response.status_code == status, (
        f"{operation.__name__}: {response.status_code} instead of {status}: {response.content[:500]!r}"
    )
    if expected_type is not None:
        assert isinstance(response.parsed, expected_type), (
            f"{operation.__name__}: read as {type(response.parsed).__name__}, not {expected_type.__name__}"
        )
    return response.parsed


def refused(operation, status, error_code, **kwargs):
    """A refusal: the documented status and the envelope with its code."""
    error = call(operation, status, ErrorBody, **kwargs)
    assert error.code == error_code, f"{operation.__name__}: {error.code} instead of {error_code}"
    return error


def every_operation_is_generated(anonymous):
    """openapi-python-client must not drop a route: one module per operationId of the document."""
    response = get_open_api_document.sync_detailed(client=anonymous)
    assert response.status_code == 200
    document = json.loads(response.content)
    snake = lambda name: re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()  # noqa: E731
    documented = {
        snake(operation["operationId"])
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in ("get", "put", "post", "delete", "patch")
    }
    generated = {
        module.name
        for tag in pkgutil.iter_modules(api.__path__)
        for module in pkgutil.iter_modules(importlib.import_module(f"pulse_client.api.{tag.name}").__path__)
    }
    assert documented == generated, f"not generated: {documented - generated}; extra: {generated - documented}"
    return len(documented)


class Receiver(http.server.BaseHTTPRequestHandler):
    """A partner's webhook endpoint: it verifies every delivery as docs/webhooks.md says."""

    secret = None
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        ok = verify(body, self.headers.get("X-SVC-Signature", ""), Receiver.secret)
        envelope = json.loads(body)
        assert envelope["id"] == self.headers["X-SVC-Event"]
        assert envelope["type"] == self.headers["X-SVC-Event-Type"]
        Receiver.received.append((envelope, ok))
        self.send_response(204 if ok else 401)
        self.end_headers()

    def log_message(self, *args):
        pass


def verify(raw_body, signature_header, secret):
    parts = dict(part.strip().partition("=")[::2] for part in signature_header.split(","))
    if abs(time.time() - int(parts.get("t", "0"))) > 300:
        return False
    expected = hmac.new(secret.encode(), parts["t"].encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", ""))


def wait_for(what, fetch, done, seconds=30):
    """`fetch()` again until `done` holds for its value, which is returned."""
    deadline = time.monotonic() + seconds
    while True:
        value = fetch()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.2)


def answer(anonymous, code, start_body, rating, text):
    """A respondent: start with consent, answer the rating and the open question, complete."""
    started = call(start_session, 201, StartedBody, code=code, client=anonymous, body=start_body)
    kinds = {question.id: question.type_ for question in started.questions}
    assert kinds["q1"] == "rating" and kinds["q2"] == "text", kinds
    assert started.questions[0].scale.min_ == 1 and started.questions[0].scale.max_ == 5
    session = AuthenticatedClient(base_url=BASE_URL, token=started.session_token, raise_on_unexpected_status=True)
    answers = AnswersRequest(
        answers=[AnswerRequest(question_id="q1", value=rating), AnswerRequest(question_id="q2", value=text)]
    )
    progress = call(
        answer_questions, 200, ProgressBody, code=code, session_id=started.session_id, client=session, body=answers
    )
    assert (progress.answered, progress.total) == (2, len(started.questions)), progress
    done = call(complete_session, 200, CompletedBody, code=code, session_id=started.session_id, client=session)
    assert done.status == "COMPLETED" and done.answered == 2, done


def main():
    anonymous = Client(base_url=BASE_URL, raise_on_unexpected_status=True)
    partner = AuthenticatedClient(base_url=BASE_URL, token=KEY, raise_on_unexpected_status=True)

    step("the generated client has every operation of the document")
    count = every_operation_is_generated(anonymous)
    print(f"   {count} operations")

    step("whoami: every scope, no workspace yet")
    me = call(whoami, 200, WhoamiBody, client=partner)
    assert "channel:workspaces" in me.scopes and "sessions:launch" in me.scopes, me.scopes
    assert me.workspace_allowlist == [], me.workspace_allowlist

    step("a workspace (POST /orgs), approved by the operator")
    ref = f"client-{int(time.time() * 1000)}"
    made = call(
        create_org,
        201,
        CreateWorkspaceResponse,
        client=partner,
        body=CreateWorkspaceRequest(external_ref=ref, name="Client One"),
    )
    assert made.created and made.workspace.status == "PENDING_APPROVAL", made
    workspace = str(made.workspace.id)
    again = call(
        create_org,
        200,
        CreateWorkspaceResponse,
        client=partner,
        body=CreateWorkspaceRequest(external_ref=ref, name="Client One"),
    )
    assert not again.created and str(again.workspace.id) == workspace
    subprocess.run([PULSE_BIN, "admin", "workspace", "approve", workspace], check=True, capture_output=True)

    step("a webhook endpoint, on a receiver that verifies signatures")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}/pulse"
    hook = call(
        create_webhook,
        201,
        CreatedSubscriptionBody,
        client=partner,
        x_svc_workspace=workspace,
        body=CreateSubscriptionRequest(url=hook_url, description="contract flow"),
    )
    assert re.fullmatch(r"whsec_[0-9A-Za-z]{43}", hook.secret), "the secret's shape"
    assert hook.subscription.url == hook_url and hook.subscription.is_active and hook.subscription.event_types == []
    Receiver.secret = hook.secret
    endpoint = hook.subscription.id

    step("provision a campaign from a brief (Idempotency-Key replayed)")
    brief = ProvisionRequest(
        name="Delivery pulse",
        brief=BriefRequest(
            intent_text="How was the delivery of your last order?",
            constraints=BriefConstraints(question_count=3, languages=["en", "fr"]),
        ),
    )
    provisioned = call(
        provision_campaign,
        201,
        ProvisionResponse,
        client=partner,
        body=brief,
        x_svc_workspace=workspace,
        idempotency_key=f"provision-{ref}",
    )
    campaign = provisioned.campaign
    assert provisioned.created and campaign.status == "DRAFT" and campaign.audience == "OPEN", campaign
    assert campaign.readiness.launch_ready and campaign.readiness.blockers == [], campaign.readiness
    assert [q.id for q in campaign.survey.questions] == ["q1", "q2", "q3"]
    assert campaign.survey.languages == ["en", "fr"] and campaign.survey.default_language == "en"
    replay = call(
        provision_campaign,
        200,
        ProvisionResponse,
        client=partner,
        body=brief,
        x_svc_workspace=workspace,
        idempotency_key=f"provision-{ref}",
    )
    assert not replay.created and replay.campaign.id == campaign.id

    step("launch")
    launched = call(launch_campaign, 200, CampaignBody, id=campaign.id, client=partner, x_svc_workspace=workspace)
    assert launched.status == "ACTIVE" and launched.launched_at is not None, launched

    step(f"{len(ANSWERS)} respondents: mint a link, check access, start with consent, answer, complete")
    for i, (rating, text) in enumerate(ANSWERS):
        link = call(
            mint_launch_link,
            201,
            LaunchLinkResponse,
            client=partner,
            x_svc_workspace=workspace,
            body=LaunchLinkRequest(campaign_id=campaign.id, language="en", external_user_ref=f"user-{i}"),
        )
        seconds_left = link.expires_at.timestamp() - time.time()
        assert 500 < seconds_left <= 600, f"a link lives ten minutes ({seconds_left:.0f} s left)"
        url = urllib.parse.urlsplit(link.url)
        code = url.path.rsplit("/p/", 1)[1]
        token = urllib.parse.parse_qs(url.query)["lt"][0]
        assert code == campaign.code
        access = call(check_session_access, 200, AccessBody, code=code, client=anonymous, lt=token)
        assert access.state == "VALID" and access.language == "en", access
        if i == 0:
            no_consent = call(
                start_session,
                200,
                NotStartedBody,
                code=code,
                client=anonymous,
                body=StartRequest(consent_given=False, launch_token=token),
            )
            assert no_consent.reason == "CONSENT_REQUIRED" and not no_consent.started
        answer(anonymous, code, StartRequest(consent_given=True, launch_token=token), rating, text)
        if i == 0:
            refused(
                start_session,
                403,
                "LAUNCH_TOKEN_INVALID",
                code=code,
                client=anonymous,
                body=StartRequest(consent_given=True, launch_token=token),
            )

    step("an audience: one respondent attached, answering through the invitation")
    audience = call(
        attach_respondents,
        200,
        AudienceResponse,
        id=campaign.id,
        client=partner,
        x_svc_workspace=workspace,
        body=AudienceRequest(
            rows=[AudienceRowRequest(external_ref="cust-1001", name="Asha", email="asha@example.com")]
        ),
    )
    row = audience.rows[0]
    assert (row.index, row.external_ref, row.outcome, row.responded) == (0, "cust-1001", "CREATED", False), row
    code, nonce = urllib.parse.urlsplit(row.invitation_url).path.split("/s/", 1)[1].split("/")
    answer(anonymous, code, StartRequest(consent_given=True, invitation=nonce), 3, "It was fine, nothing special")
    counts = call(get_campaign, 200, CampaignBody, id=campaign.id, client=partner, x_svc_workspace=workspace).counts
    assert (counts.invited, counts.responded, counts.started, counts.completed) == (1, 1, 6, 6), counts

    step("results, once the analysis has read every finished session")
    results = wait_for(
        "the analysis of six sessions",
        lambda: call(get_campaign_results, 200, ResultsBody, id=campaign.id, client=partner, x_svc_workspace=workspace),
        lambda results: results.metrics.pending_analysis == 0,
    )
    assert results.metrics.completed == 6 and results.anonymity_floor == 5, results.metrics
    assert results.accepted_count >= 5 and not results.floor_applied, (results.accepted_count, results.floor_applied)
    assert results.csat is not None and results.csat.rated == results.accepted_count, results.csat
    assert 0 <= results.csat.score <= 1 and results.sentiment, results.csat
    print(f"   {results.accepted_count} accepted, CSAT {results.csat.score:.2f}")

    step("the results exported as JSON, fetched through the signed link")
    export = call(
        request_export,
        202,
        ExportBody,
        id=campaign.id,
        client=partner,
        x_svc_workspace=workspace,
        body=ExportRequestBody(format_=FormatBody.JSON),
    )
    assert export.status == ExportStatusBody.QUEUED and export.campaign_id == campaign.id, export
    ready = wait_for(
        "the export",
        lambda: call(get_export, 200, ExportBody, id=export.id, client=partner, x_svc_workspace=workspace),
        lambda export: export.status == ExportStatusBody.READY,
    )
    token, filename = urllib.parse.urlsplit(ready.download.url).path.split("/downloads/", 1)[1].split("/")
    assert filename == f"pulse-{campaign.code}-{export.id}.json", filename
    file = download_export.sync_detailed(token=token, filename=filename, client=anonymous)
    assert file.status_code == 200 and file.headers["content-type"].startswith("application/json")
    exported = json.loads(file.content)
    assert exported["schema"] == "svc.partner-export.v1.2" and exported["campaign"]["id"] == str(campaign.id)
    assert file.parsed["schema"] == exported["schema"], "the generated client reads the file as an object"

    step("webhooks: every event arrived signed; a simulated one is delivered")
    arrived = wait_for(
        "feedback.received and feedback.analyzed for six sessions, and export.ready",
        lambda: [envelope["type"] for envelope, _ in Receiver.received],
        lambda types: [types.count(t) for t in ("feedback.received", "feedback.analyzed", "export.ready")] == [6, 6, 1],
    )
    assert all(ok for _, ok in Receiver.received), "every delivery verifies"
    assert all(e["orgId"] == workspace for e, _ in Receiver.received), "events name the workspace"
    test = call(simulate_webhook, 201, DeliveryBody, id=endpoint, client=partner, x_svc_workspace=workspace)
    assert test.event_type == "webhook.test" and test.status == "PENDING", test
    trail = wait_for(
        "the test delivery",
        lambda: (
            call(
                list_webhook_deliveries,
                200,
                DeliveryPage,
                id=endpoint,
                client=partner,
                x_svc_workspace=workspace,
                limit=50,
            ).items
        ),
        lambda items: any(d.id == test.id and d.status == "DELIVERED" for d in items),
    )
    delivered = next(d for d in trail if d.id == test.id)
    assert delivered.attempts == 1 and delivered.last_status_code == 204, delivered
    paused = call(
        update_webhook,
        200,
        SubscriptionBody,
        id=endpoint,
        client=partner,
        x_svc_workspace=workspace,
        body=UpdateSubscriptionRequest(is_active=False),
    )
    assert not paused.is_active
    shown = call(get_webhook, 200, SubscriptionBody, id=endpoint, client=partner, x_svc_workspace=workspace)
    assert not shown.is_active and shown.url == hook_url
    call(delete_webhook, 204, None, id=endpoint, client=partner, x_svc_workspace=workspace)
    refused(get_webhook, 404, "NOT_FOUND", id=endpoint, client=partner, x_svc_workspace=workspace)
    receiver.shutdown()
    print(f"   {len(arrived)} events received and verified")

    step("the flow ran through the generated client")


if __name__ == "__main__":
    main()
