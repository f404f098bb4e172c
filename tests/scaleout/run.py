#!/usr/bin/env python3
"""Pulse's scale-out suite: a private PostgreSQL cluster, three `pulse serve`
replicas and haproxy on loopback, and one function per scenario that proves a multi-replica claim
through the balancer. See README.md beside this file.

    python3 tests/scaleout/run.py [--pulse target/debug/pulse] [--only quota,webhooks] [--events 10000]

Exits 0 when every scenario held, 1 otherwise; prints each scenario's figures either way.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the work tree

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import shutil
import signal
import tempfile
import time
import traceback
import uuid
from collections import Counter, defaultdict
from pathlib import Path

import aiohttp

import harness
from harness import (DelayProxy, Failure, HAProxy, Outcome, Partner, Postgres, Receiver, Recorder, Replica,
                     Stack, check, client, expect, headers, is_lost, log, master_key, run)

# Webhook timing, shortened so retries and a dead replica's lease fall inside the run. The lease
# is the answer time plus 60 s (docs/webhooks.md), which is what the kill scenario waits out.
WEBHOOK_TIMEOUT = 2
RETRY_DELAYS = "1,1,2,2,2,2,2"
MAX_ATTEMPTS = 8
LEASE = WEBHOOK_TIMEOUT + 60
# The receiver fails attempts at random only before this one; attempts 5 to 8 are spare for
# timeouts the loaded machine causes, so a delivery that ends DEAD was given up wrongly.
SUCCEED_FROM = 5
QUOTA_N = 240  # the identity quota (GET /whoami) the quota scenario spends
POOL_SIZE = 16
REPLICAS = 3
ACQUIRE_TIMEOUT = 5  # pulse's pool: waiting for, or making, a connection
# PULSE_REQUEST_TIMEOUT_SECS of the replicas: work running longer is answered with the envelope.
REQUEST_TIMEOUT = 5
# How long after SIGKILL a request may still have been handed to the dying replica.
KILL_WINDOW = 0.25
# The kill scenario's receiver answers every attempt after this long, so some are always in flight.
HOLD = 1.0

SCOPES = "channel:workspaces,channel:provision,channel:audience,channel:results,sessions:launch,channel:webhooks"

ANSWERS = {"answers": [{"questionId": "q1", "value": 4},
                       {"questionId": "q2", "value": "The courier was early and very friendly"}]}


def replica_env(pg_url: str, base_url: str, key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULSE_") and k != "DATABASE_URL"}
    env.update({
        "DATABASE_URL": pg_url,
        "PULSE_BASE_URL": base_url,
        "PULSE_MASTER_KEY": key,
        "PULSE_STUDIO_JWT_SECRET": secrets.token_urlsafe(32),
        "PULSE_WEBHOOK_ALLOW_PRIVATE": "true",
        "PULSE_TRUSTED_PROXIES": "127.0.0.1",
        "PULSE_LOG_FORMAT": "json",
        "PULSE_LOG": "info",
        "PULSE_DB_POOL_SIZE": str(POOL_SIZE),
        "PULSE_REQUEST_TIMEOUT_SECS": str(REQUEST_TIMEOUT),
        # The quota scenario spends `identity`; every family the other scenarios load is raised
        # out of their way (quotas are per key or network, and every load here is one network).
        "PULSE_QUOTAS": f"identity={QUOTA_N},campaign_read=1000000,launch=1000000,start_attempt=1000000,"
                        "session_write=1000000,webhook=1000000,provision=100000,workspace_create=10000",
        # Every start here comes from one network: no start challenge for the load's pressure.
        "PULSE_CHALLENGE_NETWORK_STARTS": "off",
        "PULSE_CHALLENGE_CAMPAIGN_STARTS": "off",
        "PULSE_WEBHOOK_TIMEOUT_SECS": str(WEBHOOK_TIMEOUT),
        "PULSE_WEBHOOK_RETRY_DELAYS": RETRY_DELAYS,
        "PULSE_WEBHOOK_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
        "PULSE_ANALYSIS_POLL_MS": "250",
    })
    return env


async def bring_up(binary: Path, dir: Path) -> Stack:
    """The whole stack; whatever was started is stopped again when a step fails."""
    t0 = time.monotonic()
    pg = Postgres(dir / "pg", max_connections=REPLICAS * POOL_SIZE * 2 + 20)
    haproxy = HAProxy(dir)
    env = replica_env(pg.url, haproxy.url, master_key())
    st = Stack(binary=binary, dir=dir, pg=pg, env=env, haproxy=haproxy)
    try:
        await pg.init()
        log("pulse migrate:", (await run(str(binary), "migrate", env=env)).strip()[:80], "…")
        st.replicas = [Replica(f"r{i + 1}", binary, env, dir) for i in range(REPLICAS)]
        haproxy.replicas = st.replicas
        await asyncio.gather(*(r.start() for r in st.replicas))
        await asyncio.gather(*(r.wait_ready() for r in st.replicas))
        await haproxy.start()
        await haproxy.wait_up([r.name for r in st.replicas])
        st.receiver = Receiver(dir)
        await st.receiver.start()
        await st.receiver.wait_ready()
    except BaseException:
        st.close()
        raise
    log(f"stack up in {time.monotonic() - t0:.1f} s: PostgreSQL :{pg.port}, replicas "
        + ", ".join(f"{r.name} :{r.port}" for r in st.replicas) + f", haproxy :{haproxy.port}, "
        f"receiver :{st.receiver.port}")
    return st


# --------------------------------------------------------------------------------------------
# shared steps


async def campaign(st: Stack, p: Partner, http: aiohttp.ClientSession, name: str) -> tuple[str, str]:
    """A launched open campaign with a rating and a text question: (id, code)."""
    async with http.post(f"{st.api}/campaigns", headers=headers(p), json={
        "name": name,
        "brief": {"intentText": "How was the delivery of your last order?",
                  "constraints": {"questionCount": 2, "languages": ["en"]}},
    }) as r:
        body = await r.json()
        check(r.status == 201, f"POST /campaigns answered {r.status}: {body}")
    cid = body["campaign"]["id"]
    async with http.post(f"{st.api}/campaigns/{cid}/launch", headers=headers(p)) as r:
        body = await r.json()
        check(r.status == 200 and body["status"] == "ACTIVE", f"launch answered {r.status}: {body}")
    return cid, body["code"]


async def endpoint(st: Stack, p: Partner, http: aiohttp.ClientSession, name: str, **policy) -> str:
    """A webhook endpoint for every event type at the receiver's /hook/<name>; returns its id."""
    async with http.post(f"{st.api}/webhooks", headers=headers(p),
                         json={"url": st.receiver.url(name), "description": f"scale-out {name}"}) as r:
        body = await r.json()
        check(r.status == 201, f"POST /webhooks answered {r.status}: {body}")
    await st.receiver.control("endpoint", {"name": name, "secret": body["secret"], **policy})
    return body["subscription"]["id"]


async def session_flow(st: Stack, http: aiohttp.ClientSession, rec: Recorder, code: str,
                       sessions: list[dict], patience: float = 30) -> None:
    """One respondent: start, answers, complete. A refused or unanswered answers/complete is
    retried, as a respondent's page would, for up to `patience` seconds."""
    pub = f"{st.url}/api/v1/public/pulse/{code}"
    o, body = await rec.request(http, "start", "POST", f"{pub}/start", json={"consentGiven": True})
    if o.status != 201:
        return
    s = {"id": body["sessionId"], "completed": False}
    sessions.append(s)
    auth = {"Authorization": f"Bearer {body['sessionToken']}"}
    for op, path, payload in (("answers", "answers", ANSWERS), ("complete", "complete", None)):
        deadline = time.monotonic() + patience
        while True:
            o, _ = await rec.request(http, op, "POST", f"{pub}/sessions/{s['id']}/{path}", headers=auth,
                                     json=payload)
            if o.status == 200:
                break
            if time.monotonic() > deadline or (o.status is not None and o.status < 500):
                return
            await asyncio.sleep(0.3)
    s["completed"] = True


async def wait_for(what: str, probe, timeout: float, every: float = 1.0):
    """Polls `probe()` until it returns a truthy value; returns it, or fails after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = await probe()
        if last and last[0]:
            return last
        await asyncio.sleep(every)
    raise Failure(f"{what}: not within {timeout:.0f} s (last seen: {last[1] if last else None})")


async def delivery_state(st: Stack, sub: str) -> dict[str, int]:
    rows = await st.pg.psql(f"SELECT status, count(*) FROM webhook_deliveries WHERE subscription_id = '{sub}' "
                            "GROUP BY status")
    return {s: int(n) for s, n in rows}


async def settled(st: Stack, sub: str, expected: int):
    """(done, state) for the deliveries of `sub`: done once `expected` exist and none is due."""
    state = await delivery_state(st, sub)
    total = sum(state.values())
    return (total >= expected and state.get("PENDING", 0) + state.get("FAILED", 0) == 0), state


async def events_since_registered(st: Stack, sub: str) -> int:
    """The events of the endpoint's workspace since it was registered (the workspace's approval
    came before), each of which it receives once."""
    return int(await st.pg.scalar(
        "SELECT count(*) FROM webhook_events e JOIN webhook_subscriptions s ON s.workspace_id = e.workspace_id "
        f"WHERE s.id = '{sub}' AND e.occurred_at >= s.created_at"))


async def settle_deliveries(st: Stack, sub: str, expected: int, fig: dict) -> None:
    """Waits for every delivery of `sub` to be DELIVERED or DEAD: quickly unless an attempt went
    unrecorded, whose delivery comes back when its lease runs out (LEASE s)."""
    t0 = time.monotonic()
    try:
        await wait_for("every delivery DELIVERED", lambda: settled(st, sub, expected), 20)
    except Failure:
        leased = int(await st.pg.scalar(
            f"SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '{sub}' "
            "AND status IN ('PENDING', 'FAILED') AND next_attempt_at > now() + interval '5 seconds'"))
        fig["deliveries_waiting_for_a_lease"] = leased
        log(f"{leased} deliveries wait for their lease to run out ({LEASE} s)")
        await wait_for("every delivery DELIVERED after the leases", lambda: settled(st, sub, expected), LEASE + 10)
    fig["deliveries_settled_s"] = round(time.monotonic() - t0, 1)


async def attempts_of(st: Stack, sub: str) -> dict[str, list[tuple[int, int | None, float]]]:
    """delivery id -> [(attempt, status code, attempted_at epoch)] in attempt order."""
    rows = await st.pg.psql(
        "SELECT a.delivery_id, a.attempt, coalesce(a.status_code::text, ''), extract(epoch FROM a.attempted_at) "
        f"FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = '{sub}' "
        "ORDER BY a.delivery_id, a.attempt")
    out: dict[str, list] = defaultdict(list)
    for d, n, code, at in rows:
        out[d].append((int(n), int(code) if code else None, float(at)))
    return out


async def check_trail(st: Stack, sub: str, name: str, fig: dict, allow_extra: set[str] = frozenset(),
                      unrecorded_window: tuple[float, float] | None = None) -> dict:
    """Compares what the receiver took with what pulse recorded, delivery by delivery: every
    delivery DELIVERED, each attempt sent once (as many POSTs as recorded attempts; `allow_extra`
    lists deliveries that may have been sent once more, by a replica that died before recording),
    the same event id on every POST and in the database, every signature valid, and a recorded
    status code equal to what the receiver answered."""
    posts = await st.receiver.read(name)
    attempts = await attempts_of(st, sub)
    rows = await st.pg.psql(f"SELECT id, event_id, status FROM webhook_deliveries WHERE subscription_id = '{sub}'")
    deliveries = {d: (e, s) for d, e, s in rows}
    by_delivery: dict[str, list[dict]] = defaultdict(list)
    for p in posts:
        by_delivery[p["delivery"]].append(p)
    if unrecorded_window:
        # A POST sent while the database was unreachable may have had its attempt go unrecorded.
        lo, hi = unrecorded_window
        allow_extra = set(allow_extra) | {
            d for d, ps in by_delivery.items()
            if len(ps) - len(attempts.get(d, [])) <= sum(1 for p in ps if lo <= p["arrived"] <= hi)}
        fig["deliveries_sent_during_fault"] = sum(
            1 for ps in by_delivery.values() if any(lo <= p["arrived"] <= hi for p in ps))
    problems: list[str] = []
    bad_sig = [p for p in posts if not p["sig_ok"]]
    if bad_sig:
        problems.append(f"{len(bad_sig)} POSTs failed signature verification, e.g. {bad_sig[0]}")
    unknown = set(by_delivery) - set(deliveries)
    if unknown:
        problems.append(f"{len(unknown)} deliveries POSTed that the database does not hold, e.g. {sorted(unknown)[:3]}")
    not_delivered = {d: s for d, (e, s) in deliveries.items() if s != "DELIVERED"}
    if not_delivered:
        sample = list(not_delivered.items())[:3]
        problems.append(f"{len(not_delivered)} deliveries not DELIVERED: {dict(Counter(not_delivered.values()))}; "
                        f"e.g. {[(d, s, attempts.get(d)) for d, s in sample]}")
    extra_sends, mismatched_codes, load_timeouts, never_posted = [], [], 0, []
    for d, (event, status) in deliveries.items():
        got = by_delivery.get(d, [])
        recorded = attempts.get(d, [])
        if not got:
            never_posted.append(d)
            continue
        ids = {p["event"] for p in got} | {p["body_id"] for p in got}
        if ids != {event}:
            problems.append(f"delivery {d}: event ids {sorted(ids)} on its POSTs, {event} in webhook_deliveries")
        if len(got) != len(recorded):
            if d not in allow_extra or len(got) < len(recorded):
                extra_sends.append((d, len(got), len(recorded)))
        ts = [p["t"] for p in got]
        if len(set(ts)) != len(ts) and d not in allow_extra:
            extra_sends.append((d, f"t repeated: {ts}", len(recorded)))
        if d in allow_extra:
            continue
        for p, (n, code, _) in zip(got, recorded):
            if code is None:
                load_timeouts += 0 if p["stall"] else 1
            elif p["stall"] or code != p["answer"]:
                mismatched_codes.append((d, n, p["answer"], p["stall"], code))
    if never_posted:
        problems.append(f"{len(never_posted)} deliveries never reached the receiver, e.g. {never_posted[:3]}")
    if extra_sends:
        problems.append(f"{len(extra_sends)} deliveries sent more or less often than their recorded attempts "
                        f"(delivery, POSTs, attempts rows): {extra_sends[:5]}")
    if mismatched_codes:
        problems.append(f"{len(mismatched_codes)} attempts recorded with another status than the receiver answered "
                        f"(delivery, attempt, answered, stalled, recorded): {mismatched_codes[:5]}")
    total_attempts = sum(len(v) for v in attempts.values())
    fig.update({
        "deliveries": len(deliveries),
        "delivery_status": dict(Counter(s for _, s in deliveries.values())),
        "posts_received": len(posts),
        "attempts_recorded": total_attempts,
        "receiver_500s": sum(1 for p in posts if p["answer"] == 500 and not p["stall"]),
        "receiver_stalls": sum(1 for p in posts if p["stall"]),
        "timeouts_not_stalled": load_timeouts,
        "max_attempts_used": max((len(v) for v in attempts.values()), default=0),
    })
    fig["deliveries_sent_again_unrecorded"] = sum(
        1 for d in allow_extra if len(by_delivery.get(d, [])) > len(attempts.get(d, [])))
    check(not problems, "; ".join(problems))
    return {"posts": by_delivery, "attempts": attempts, "deliveries": deliveries}


async def check_sessions(st: Stack, cid: str, sessions: list[dict], fig: dict, lost_starts: int = 0,
                         analyses: bool = True) -> None:
    """Every session the client started exists once, every one it completed is COMPLETED with one
    feedback.received, and (when `analyses`) one analysis and one feedback.analyzed."""
    started = {s["id"] for s in sessions}
    completed = {s["id"] for s in sessions if s["completed"]}
    rows = await st.pg.psql(f"SELECT id, status FROM sessions WHERE campaign_id = '{cid}'")
    db = dict(rows)
    missing = started - set(db)
    check(not missing, f"{len(missing)} sessions answered 201 are not in the database, e.g. {sorted(missing)[:3]}")
    phantom = set(db) - started
    check(len(phantom) <= lost_starts,
          f"{len(phantom)} sessions in the database that no start answered 201 for (at most {lost_starts} starts "
          f"went unanswered), e.g. {sorted(phantom)[:3]}")
    not_done = [s for s in completed if db.get(s) != "COMPLETED"]
    check(not not_done, f"{len(not_done)} sessions answered 200 on complete are not COMPLETED: {not_done[:3]}")
    db_completed = {s for s, status in db.items() if status == "COMPLETED"}
    ev = await st.pg.psql(
        "SELECT e.event_type, e.aggregate_id, count(*) FROM webhook_events e JOIN sessions s ON s.id = e.aggregate_id "
        f"WHERE s.campaign_id = '{cid}' GROUP BY 1, 2")
    received = {a: int(n) for t, a, n in ev if t == "feedback.received"}
    analyzed = {a: int(n) for t, a, n in ev if t == "feedback.analyzed"}
    dup = {a: n for a, n in {**received, **analyzed}.items() if n > 1}
    check(not dup, f"sessions with an event twice: {list(dup.items())[:3]}")
    check(set(received) == db_completed,
          f"feedback.received for {len(received)} sessions, {len(db_completed)} COMPLETED; "
          f"without: {sorted(db_completed - set(received))[:3]}, extra: {sorted(set(received) - db_completed)[:3]}")
    fig.update({"sessions_started": len(started), "sessions_completed": len(completed),
                "sessions_in_db": len(db), "feedback_received": len(received)})
    if analyses:
        # An analysis not made yet is not lost while its job is still due; whether it came in
        # time is the caller's `settle_analyses`.
        an = await st.pg.psql(f"SELECT session_id FROM session_analyses WHERE campaign_id = '{cid}'")
        an_ids = {r[0] for r in an}
        due = {r[0] for r in await st.pg.psql(
            f"SELECT session_id FROM analysis_jobs WHERE campaign_id = '{cid}' AND due_at IS NOT NULL")}
        check(an_ids <= db_completed, f"analyses of sessions not completed: {sorted(an_ids - db_completed)[:3]}")
        lost = db_completed - an_ids - due
        check(not lost, f"{len(lost)} completed sessions with no analysis and no job due: {sorted(lost)[:3]}")
        check(set(analyzed) == an_ids,
              f"feedback.analyzed for {len(analyzed)} sessions, {len(an_ids)} analyses recorded")
        fig.update({"analyses": len(an_ids), "feedback_analyzed": len(analyzed),
                    "analyses_still_due": len(db_completed - an_ids)})


async def settle_analyses(st: Stack, cid: str, within: float, fig: dict) -> None:
    """Waits up to `within` s for every analysis of the campaign; a finding, with the jobs' state,
    when some are still due then."""
    t0 = time.monotonic()
    try:
        await wait_for("analysis of every session", lambda: analyses_done(st, cid), within)
        fig["analyses_settled_s"] = round(time.monotonic() - t0, 1)
    except Failure:
        rows = await st.pg.psql(
            "SELECT attempts, claim_token IS NOT NULL, round(extract(epoch FROM due_at - now())), count(*) "
            f"FROM analysis_jobs WHERE campaign_id = '{cid}' AND due_at IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 3")
        expect(False, f"analyses still due {within:.0f} s after the load ended (attempts, claimed, due in s, jobs): "
                      f"{[tuple(r) for r in rows]}")


async def analyses_done(st: Stack, cid: str):
    n = int(await st.pg.scalar(f"SELECT count(*) FROM analysis_jobs WHERE campaign_id = '{cid}' AND due_at IS NOT NULL"))
    return n == 0, f"{n} analyses due"


# --------------------------------------------------------------------------------------------
# scenarios


async def scenario_quota(st: Stack, fig: dict) -> None:
    """A quota of N admits exactly N under parallel load spread over the replicas."""
    # Windows are clock hours: start well inside one so the burst is counted in a single window.
    if (left := 3600 - time.time() % 3600) < 30:
        log(f"waiting {left:.0f} s for the next quota window")
        await asyncio.sleep(left + 1)
    p = await st.partner("quota", "channel:workspaces")
    rec = Recorder()
    n = QUOTA_N
    t0 = time.monotonic()
    async with client(limit=48) as http:
        await asyncio.gather(*(rec.request(http, "whoami", "GET", f"{st.api}/whoami", headers=headers(key=p.key))
                               for _ in range(3 * n)))
    fig["seconds"] = round(time.monotonic() - t0, 2)
    fig.update(rec.summary())
    statuses = Counter(o.status for o in rec.outcomes)
    per_backend = Counter((o.backend, o.status) for o in rec.outcomes)
    fig["admitted_by_replica"] = {r.name: per_backend[(r.name, 200)] for r in st.replicas}
    fig["refused_by_replica"] = {r.name: per_backend[(r.name, 429)] for r in st.replicas}
    check(statuses == Counter({200: n, 429: 2 * n}),
          f"quota {n} with {3 * n} parallel calls: expected {n} x 200 and {2 * n} x 429, got {dict(statuses)}")
    served = Counter(o.backend for o in rec.outcomes)
    check(all(served[r.name] >= n // 3 for r in st.replicas), f"load not spread over the replicas: {dict(served)}")
    remaining = sorted(int(o.headers["RateLimit-Remaining"]) for o in rec.outcomes if o.status == 200)
    check(remaining == list(range(n)), f"RateLimit-Remaining of the admitted calls is not 0..{n - 1} once each: "
                                       f"{Counter(remaining).most_common(3)}")
    counted = int(await st.pg.scalar("SELECT coalesce(sum(count), 0) FROM quota_windows WHERE family = 'identity'"))
    fig["quota_windows_count"] = counted
    check(counted == 3 * n, f"quota_windows counts {counted} identity calls, {3 * n} were made")


async def scenario_idempotency(st: Stack, fig: dict) -> None:
    """50 parallel duplicates of an idempotent POST give one effect."""
    p = await st.partner("idem", SCOPES)
    rec = Recorder()
    name = f"idem-{secrets.token_hex(4)}"
    body = {"name": name, "brief": {"intentText": "How was the delivery of your last order?",
                                    "constraints": {"questionCount": 2, "languages": ["en"]}}}
    key = str(uuid.uuid4())
    t0 = time.monotonic()
    async with client(limit=50) as http:
        results = await asyncio.gather(*(
            rec.request(http, "campaign", "POST", f"{st.api}/campaigns", json=body,
                        headers=headers(p, **{"Idempotency-Key": key})) for _ in range(50)))
        # The same externalRef is the workspace route's own idempotency.
        ref = f"ref-{secrets.token_hex(4)}"
        orgs = await asyncio.gather(*(
            rec.request(http, "org", "POST", f"{st.api}/orgs", json={"externalRef": ref, "name": "Idem"},
                        headers=headers(key=p.key)) for _ in range(50)))
        replay, replay_body = await rec.request(http, "campaign", "POST", f"{st.api}/campaigns", json=body,
                                                headers=headers(p, **{"Idempotency-Key": key}))
    fig["seconds"] = round(time.monotonic() - t0, 2)
    fig.update(rec.summary())
    statuses = Counter(o.status for o, _ in results)
    fig["campaign_answers"] = dict(statuses)
    fig["campaign_answers_by_replica"] = dict(Counter(f"{o.backend}:{o.status}" for o, _ in results))
    check(statuses[201] == 1, f"50 duplicates: {statuses[201]} answered 201 (one expected): {dict(statuses)}")
    check(set(statuses) <= {200, 201, 409}, f"unexpected answers to duplicates: {dict(statuses)}")
    ids = {b["campaign"]["id"] for o, b in results if o.status in (200, 201)}
    check(len(ids) == 1, f"duplicates answered with {len(ids)} campaign ids: {ids}")
    for o, b in results:
        if o.status == 200:
            check(o.headers.get("Idempotency-Replayed") == "true" and b.get("created") is False,
                  f"a 200 duplicate is not a replay: {dict(o.headers)} {b}")
        if o.status == 409:
            check(o.pulse and o.code == "CONFLICT", f"a 409 without the CONFLICT envelope: {o}")
    check(replay.status == 200 and replay_body["campaign"]["id"] in ids,
          f"the replay after all finished answered {replay.status}: {replay_body}")
    in_db = int(await st.pg.scalar(f"SELECT count(*) FROM campaigns WHERE name = '{name}'"))
    fig["campaigns_in_db"] = in_db
    check(in_db == 1, f"{in_db} campaigns named {name} in the database after 50 duplicates")
    ostat = Counter(o.status for o, _ in orgs)
    fig["org_answers"] = dict(ostat)
    check(ostat[201] == 1 and ostat[200] == 49, f"50 POST /orgs with one externalRef: {dict(ostat)}")
    wids = {b["workspace"]["id"] for o, b in orgs}
    ws_in_db = int(await st.pg.scalar(f"SELECT count(*) FROM workspaces WHERE external_ref = '{ref}'"))
    fig["workspaces_in_db"] = ws_in_db
    check(len(wids) == 1 and ws_in_db == 1, f"one externalRef gave {len(wids)} ids, {ws_in_db} rows")


async def scenario_webhooks(st: Stack, fig: dict, events: int) -> None:
    """`events` webhook events to a receiver that fails a third of attempts at random and sometimes
    stalls past the timeout: every event delivered, each attempt sent once, stable event ids,
    nothing DEAD."""
    p = await st.partner("hooks", SCOPES)
    sessions_n = events // 10  # a fifth of the events come from sessions (received + analyzed)
    simulated_n = events - 2 * sessions_n
    rec = Recorder()
    sessions: list[dict] = []
    async with client(limit=64) as http:
        cid, code = await campaign(st, p, http, "hooks")
        sub = await endpoint(st, p, http, "hooks", fail_ratio=1 / 3, stall_ratio=0.03,
                             stall_secs=WEBHOOK_TIMEOUT + 1, succeed_from=SUCCEED_FROM)
        t0 = time.monotonic()
        todo = ["s"] * sessions_n + ["w"] * simulated_n
        random.shuffle(todo)
        it = iter(todo)

        async def worker() -> None:
            for kind in it:
                if kind == "s":
                    await session_flow(st, http, rec, code, sessions)
                else:
                    await rec.request(http, "simulate", "POST", f"{st.api}/webhooks/{sub}/simulate", headers=headers(p))

        await asyncio.gather(*(worker() for _ in range(32)))
        fig["produce_seconds"] = round(time.monotonic() - t0, 1)
        fig.update(rec.summary())
        log(f"webhooks: {events} events produced in {fig['produce_seconds']} s; waiting for delivery")
        check(all(o.status in (200, 201) for o in rec.outcomes),
              f"producing events: {rec.summary()['by_status']}")
        await settle_analyses(st, cid, 120, fig)
        _, state = await wait_for("every delivery DELIVERED or DEAD", lambda: settled(st, sub, events), 240)
    fig["deliver_seconds"] = round(time.monotonic() - t0, 1)
    n_events = await events_since_registered(st, sub)
    fig["events"] = n_events
    check(n_events == events, f"{n_events} events in webhook_events, {events} expected "
                              f"({sessions_n} sessions x 2 + {simulated_n} simulated)")
    await check_sessions(st, cid, sessions, fig)
    await check_trail(st, sub, "hooks", fig)
    first, last = (await st.pg.psql(
        "SELECT extract(epoch FROM min(e.occurred_at)), extract(epoch FROM max(d.delivered_at)) FROM webhook_deliveries d "
        f"JOIN webhook_events e ON e.id = d.event_id WHERE d.subscription_id = '{sub}'"))[0]
    fig["first_event_to_last_delivery_s"] = round(float(last) - float(first), 1)
    fig["attempt_log_lines_by_replica"] = {r.name: len(r.log_lines("webhook attempt")) for r in st.replicas}


def logged_causes(st: Stack, request_ids: list[str]) -> dict[str, int]:
    """What the replicas logged as the cause of these requests' errors."""
    wanted = set(request_ids)
    found: Counter = Counter()
    for r in st.replicas:
        for line in r.log_lines("internal error"):
            if line.get("span", {}).get("request_id") in wanted:
                found[line.get("cause", "?")] += 1
    return dict(found)


class ConnectionWatch:
    """Which process owns each TCP connection to the receiver, from `ss` every 50 ms, so each POST
    the receiver took (it records the peer port) can be put down to the replica that sent it. A
    port outlives its connection: once a killed replica's socket is reset, the kernel may hand the
    same port to another replica, so each port keeps every owner it had, from when it was first
    seen."""

    POLL = 0.05

    def __init__(self, port: int):
        self.port = port
        self.owners: dict[int, list[tuple[float, int]]] = defaultdict(list)  # local port -> [(first seen, pid)]
        self.task: asyncio.Task | None = None

    async def poll(self) -> None:
        out = await run("ss", "-tnpH", "state", "established", f"( dport = :{self.port} )")
        seen = time.time()
        for line in out.splitlines():
            m = re.search(r"pid=(\d+),", line)
            if m:
                history = self.owners[int(line.split()[2].rsplit(":", 1)[1])]
                pid = int(m.group(1))
                if not history or history[-1][1] != pid:
                    history.append((seen, pid))

    def owner_at(self, port: int, arrived: float, within: float) -> int | None:
        """The process whose connection on `port` carried a POST the receiver took at `arrived`: the
        last owner first seen by `arrived + within`. A connection opens before its request arrives
        but may be seen a poll (or a slow `ss`) later; it stays open while the receiver holds the
        request, so a later owner of the port is first seen after that."""
        owner = None
        for first_seen, pid in self.owners.get(port, []):
            if first_seen <= arrived + within:
                owner = pid
        return owner

    def owned_by(self, port: int) -> list[int]:
        return [pid for _, pid in self.owners.get(port, [])]

    async def watch(self) -> None:
        while True:
            await self.poll()
            await asyncio.sleep(self.POLL)

    def start(self) -> None:
        self.task = asyncio.create_task(self.watch())

    async def stop(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def scenario_kill(st: Stack, fig: dict) -> None:
    """One replica killed with SIGKILL and one stopped with SIGTERM mid-load: nothing lost but what
    was in flight on the killed one, the survivor takes over its webhook leases, the drain ends in
    time."""
    p = await st.partner("kill", SCOPES)
    victim, drained = st.replicas[0], st.replicas[1]
    rec = Recorder()
    sessions: list[dict] = []
    stop = asyncio.Event()
    async with client(limit=64) as http:
        cid, code = await campaign(st, p, http, "kill")
        # Every attempt is held 0.5 s, so attempts are in flight on every replica at any moment.
        sub = await endpoint(st, p, http, "kill", hold_secs=HOLD)
        start = time.monotonic()

        async def loop(step) -> None:
            while not stop.is_set():
                await step()

        steps = (
            [lambda: rec.request(http, "read", "GET", f"{st.api}/campaigns/{cid}", headers=headers(p))] * 8
            + [lambda: rec.request(http, "mint", "POST", f"{st.api}/launch", headers=headers(p),
                                   json={"campaignId": cid, "language": "en"})] * 5
            + [lambda: session_flow(st, http, rec, code, sessions)] * 6
            + [lambda: rec.request(http, "simulate", "POST", f"{st.api}/webhooks/{sub}/simulate",
                                   headers=headers(p))] * 5
        )
        watch = ConnectionWatch(st.receiver.port)
        watch.start()
        pids = {r.proc.pid: r.name for r in st.replicas}
        tasks = [asyncio.create_task(loop(s)) for s in steps]
        await asyncio.sleep(5)
        # Kill when the victim has webhook attempts in flight (its worker claims in bursts).
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            await watch.poll()
            held = (await st.receiver.control("held"))["ports"]
            if sum(1 for port in held if watch.owner_at(port, time.time(), 0) == victim.proc.pid) >= 3:
                break
            await asyncio.sleep(0.02)
        kill_at, kill_wall = time.monotonic(), time.time()
        victim.signal(signal.SIGKILL)
        log(f"kill: SIGKILL {victim.name} (pid {victim.proc.pid})")
        await asyncio.sleep(3)
        term_at = time.monotonic()
        drained.signal(signal.SIGTERM)
        log(f"kill: SIGTERM {drained.name}")
        rc = await drained.wait_exit(30)
        fig["drain_seconds"] = round(time.monotonic() - term_at, 2)
        fig["drain_exit_code"] = rc
        await asyncio.sleep(max(0, 20 - (time.monotonic() - start)))
        stop.set()
        await asyncio.gather(*tasks)
        await watch.stop()
        load_end = time.monotonic()
        await victim.wait_exit(5)
        fig["load_seconds"] = round(load_end - start, 1)
        fig.update(rec.summary())
        fig["by_op"] = {op: rec.summary([o for o in rec.outcomes if o.op == op])["by_status"]
                        for op in sorted({o.op for o in rec.outcomes})}
        # Requests the victim had when it died; only those may be lost.
        in_flight = [o for o in rec.outcomes if o.started <= kill_at <= o.ended]
        lost = [o for o in rec.outcomes if is_lost(o)]
        # A request haproxy dropped without an answer names no replica to the client: its log does.
        logged = st.haproxy.requests()
        for o in lost:
            if not o.backend:
                o.backend = logged.get(o.rid, {}).get("srv", "?")
        fig["in_flight_at_kill"] = len(in_flight)
        fig["lost_detail"] = dict(Counter(f"{o.op}:{o.status}:{o.backend}:{logged.get(o.rid, {}).get('term', '?')}"
                                          for o in lost))
        # In flight on the killed replica: sent to it before it was gone (its listener still took
        # connections while the kernel tore the process down) and ended right after the kill.
        # haproxy names the replica when it answered 502 itself; when it closed the client's
        # connection without an answer (what it does for a request it may not replay), it logs
        # nothing, and the timing is all there is.
        def on_victim(o: Outcome) -> bool:
            return (o.started <= kill_at + KILL_WINDOW and kill_at <= o.ended <= kill_at + 2
                    and o.backend in (victim.name, "?"))

        # Requests dropped at the instant of SIGTERM: the draining replica closed their connection
        # without an answer (haproxy logs no replica for them, and may not replay a plain POST).
        at_term = [o for o in lost if not on_victim(o) and abs(o.started - term_at) <= 0.1 and o.ended - term_at <= 0.5]
        expect(not at_term,
               f"{len(at_term)} request(s) sent just as {drained.name} got SIGTERM were dropped without an answer "
               f"(the connection closed with no response {[round((o.ended - term_at) * 1000) for o in at_term]} ms "
               f"after SIGTERM; ops {[o.op for o in at_term]}): the graceful shutdown closes connections whose "
               f"request it has not begun to read, instead of first reporting not ready and serving on until the "
               f"balancer has taken the replica out")
        wrong = [o for o in lost if not on_victim(o) and o not in at_term]
        fig["lost_in_flight_on_killed"] = len(lost) - len(wrong) - len(at_term)
        fig["lost_other"] = len(wrong) + len(at_term)
        expect(not wrong, f"{len(wrong)} requests lost that were not in flight on the killed replica: "
                         f"{[dict(op=o.op, status=o.status, replica=o.backend, error=o.error, rid=o.rid, sent_after_kill_s=round(o.started - kill_at, 3), sent_after_term_s=round(o.started - term_at, 3), ended_after_term_s=round(o.ended - term_at, 3)) for o in wrong[:5]]}")
        lost_reads = [o for o in lost if o.op == "read"]
        expect(not lost_reads, f"{len(lost_reads)} GETs lost although haproxy may replay them")
        other = [o for o in rec.outcomes if o.status is not None and not is_lost(o)
                 and o.status not in (200, 201)]
        expect(not other, f"unexpected answers: {Counter((o.op, o.status, o.code) for o in other)}")
        expect(rc == 0, f"{drained.name} exited {rc} after SIGTERM (None: still running after 30 s)")
        expect(fig["drain_seconds"] <= 10 + WEBHOOK_TIMEOUT + 3,
              f"{drained.name} took {fig['drain_seconds']} s to drain (10 s for requests + {WEBHOOK_TIMEOUT} s "
              f"for webhook attempts)")
        log(f"kill: load done; waiting for the killed replica's webhook leases ({LEASE} s) to run out")
        total = int(await st.pg.scalar(f"SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '{sub}'"))
        await wait_for("every delivery DELIVERED after the lease", lambda: settled(st, sub, total),
                       LEASE + 60 - (time.monotonic() - kill_at))
        fig["takeover_done_after_kill_s"] = round(time.monotonic() - kill_at, 1)
    posts = await st.receiver.read("kill")
    sender = {id(p_): pids.get(watch.owner_at(p_["peer_port"], p_["arrived"], HOLD / 2), "?") for p_ in posts}
    fig["posts_by_replica"] = dict(Counter(sender.values()))
    # Attempts the killed replica sent before it died and could not record: their deliveries come
    # back when the lease runs out, and are sent once more (at least once). Any other delivery sent
    # more often than its recorded attempts is a duplicate.
    counts = Counter(p_["delivery"] for p_ in posts)
    rows = await attempts_of(st, sub)
    resent = {d for d, n in counts.items() if n > len(rows.get(d, []))}
    # A POST the victim wrote just before SIGKILL can reach the receiver a moment after it: the
    # sender is known by its connection, the time only bounds it.
    from_victim = {p_["delivery"] for p_ in posts if sender[id(p_)] == victim.name and p_["arrived"] <= kill_wall + 1.0}
    orphaned = resent & from_victim
    fig["deliveries_in_flight_on_killed"] = len(orphaned)
    check(orphaned, "no webhook attempt of the killed replica went unrecorded: the scenario proved nothing")
    unexplained = resent - from_victim
    # What the survivors logged of those deliveries: a send of theirs that went unrecorded says why.
    said = {d: [(r.name, line.get("recorded", line.get("error")))
                for r in st.replicas if r is not victim
                for message in ("webhook attempt", "recording a webhook attempt failed")
                for line in r.log_lines(message) if line.get("delivery") == d]
            for d in unexplained}
    expect(not unexplained, f"{len(unexplained)} deliveries sent more often than their recorded attempts, not by "
                            f"the killed replica: {[(d, counts[d], len(rows.get(d, [])), [(sender[id(p_)], round(p_['arrived'] - kill_wall, 2), [pids.get(pid, pid) for pid in watch.owned_by(p_['peer_port'])]) for p_ in posts if p_['delivery'] == d], said[d]) for d in sorted(unexplained)[:4]]}")
    trail = await check_trail(st, sub, "kill", fig, allow_extra=resent)
    late = []
    for d in orphaned:
        final = trail["attempts"][d][-1]
        if final[2] < kill_wall + LEASE - 5:
            late.append((d, round(final[2] - kill_wall, 1)))
        sent = len(trail["posts"][d])
        expect(sent == len(trail["attempts"][d]) + 1,
               f"delivery {d} in flight on the killed replica: {sent} POSTs for {len(trail['attempts'][d])} attempts")
    expect(not late, f"deliveries of the killed replica recorded before its lease ran out: {late[:3]}")
    finals = [trail["attempts"][d][-1][2] - kill_wall for d in orphaned]
    fig["killed_deliveries_resent_after_kill_s"] = [round(min(finals), 1), round(max(finals), 1)]
    # The killed replica's analysis claims have a 5-minute lease (docs/operations.md): they are
    # counted, not waited for.
    held, due_in = (await st.pg.psql(
        f"SELECT count(*), coalesce(round(extract(epoch FROM max(due_at) - now())), 0) FROM analysis_jobs "
        f"WHERE campaign_id = '{cid}' AND due_at > now() + interval '60 seconds'"))[0]
    fig["analyses_under_killed_lease"] = int(held)
    fig["analyses_under_killed_lease_due_in_s"] = int(float(due_in))
    lost_starts = sum(1 for o in rec.outcomes if o.op == "start" and is_lost(o))
    await check_sessions(st, cid, sessions, fig, lost_starts=lost_starts, analyses=False)
    # Back to three replicas for what follows.
    for r in (victim, drained):
        await r.start()
    await asyncio.gather(*(r.wait_ready() for r in (victim, drained)))
    await st.haproxy.wait_up([r.name for r in st.replicas])


async def scenario_pg_restart(st: Stack, fig: dict) -> None:
    """PostgreSQL stopped and started mid-load: only 503 envelopes, recovery within 10 s, no lost
    or duplicated sessions, events or analyses."""
    p = await st.partner("pgrestart", SCOPES)
    rec = Recorder()
    sessions: list[dict] = []
    stop = asyncio.Event()
    async with client(limit=64) as http:
        cid, code = await campaign(st, p, http, "pgrestart")
        sub = await endpoint(st, p, http, "pgrestart")

        async def loop(step) -> None:
            while not stop.is_set():
                await step()

        steps = (
            [lambda: rec.request(http, "read", "GET", f"{st.api}/campaigns/{cid}", headers=headers(p))] * 5
            + [lambda: rec.request(http, "mint", "POST", f"{st.api}/launch", headers=headers(p),
                                   json={"campaignId": cid, "language": "en"})] * 4
            + [lambda: session_flow(st, http, rec, code, sessions)] * 7
        )
        start = time.monotonic()
        tasks = [asyncio.create_task(loop(s)) for s in steps]
        await asyncio.sleep(5)
        down_at, down_wall = time.monotonic(), time.time()
        await st.pg.stop("fast")
        log("pg restart: PostgreSQL stopped")
        await asyncio.sleep(5)
        await st.pg.start()
        up_at, up_wall = time.monotonic(), time.time()
        log(f"pg restart: PostgreSQL started again after {up_at - down_at:.1f} s")
        await asyncio.sleep(max(0, 22 - (time.monotonic() - start)))
        stop.set()
        await asyncio.gather(*tasks)
        fig["load_seconds"] = round(time.monotonic() - start, 1)
        fig["db_down_seconds"] = round(up_at - down_at, 1)
        fig.update(rec.summary())
        fig["by_op"] = {op: rec.summary([o for o in rec.outcomes if o.op == op])["by_status"]
                        for op in sorted({o.op for o in rec.outcomes})}
        bad = [o for o in rec.outcomes if not (o.status in (200, 201) or (o.pulse and o.status == 503 and o.code))]
        expect(not bad, f"{len(bad)} answers other than success or a 503 envelope while PostgreSQL stopped and "
                        f"started: {Counter((o.op, o.status, o.code, o.pulse, o.error[:40]) for o in bad).most_common(5)}"
                        f"; the causes pulse logged: {logged_causes(st, [o.headers.get('X-Request-Id') for o in bad if o.pulse])}"
                        f"; request ids {[o.headers.get('X-Request-Id') for o in bad if o.pulse][:4]}")
        refused = [o for o in rec.outcomes if o.status == 503]
        fig["refusal_codes"] = dict(Counter(o.code for o in refused))
        last_refusal = max((o.ended for o in refused), default=up_at)
        fig["recovered_after_db_start_s"] = round(max(0.0, last_refusal - up_at), 2)
        first_refusal = min((o.started for o in refused), default=down_at)
        fig["refusals_from_db_stop_s"] = round(first_refusal - down_at, 2)
        expect(last_refusal - up_at <= 10, f"503s went on {last_refusal - up_at:.1f} s after PostgreSQL was back")
        check(refused, "no request was refused while PostgreSQL was down: the scenario proved nothing")
        await settle_analyses(st, cid, 30, fig)
        await settle_deliveries(st, sub, await events_since_registered(st, sub), fig)
    await check_sessions(st, cid, sessions, fig)
    # An attempt whose record the outage refused is sent again after its lease (at least once).
    await check_trail(st, sub, "pgrestart", fig, unrecorded_window=(down_wall, up_wall + 2))


async def scenario_slow_link(st: Stack, fig: dict) -> None:
    """A slow database link: requests end with the envelope instead of hanging, no worker hangs,
    and the pool recovers once the link is fast again."""
    st.proxy = DelayProxy(st.dir, st.pg.port)
    await st.proxy.start()
    await st.proxy.set_delay(0)
    # The replicas reach PostgreSQL through the proxy from now on.
    url = f"postgres://postgres@127.0.0.1:{st.proxy.port}/pulse"
    for r in st.replicas:
        r.signal(signal.SIGTERM)
        await r.wait_exit(30)
        r.env["DATABASE_URL"] = url
        await r.start()
    await asyncio.gather(*(r.wait_ready() for r in st.replicas))
    await st.haproxy.wait_up([r.name for r in st.replicas])
    p = await st.partner("slowlink", SCOPES)
    rec = Recorder()
    sessions: list[dict] = []
    stop = asyncio.Event()
    delay = 2.0
    async with client(limit=256) as http:  # more than the loops: no request waits in the client
        cid, code = await campaign(st, p, http, "slowlink")
        sub = await endpoint(st, p, http, "slowlink")

        async def loop(step) -> None:
            while not stop.is_set():
                await step()

        steps = (
            [lambda: rec.request(http, "read", "GET", f"{st.api}/campaigns/{cid}", headers=headers(p))] * 4
            + [lambda: rec.request(http, "mint", "POST", f"{st.api}/launch", headers=headers(p),
                                   json={"campaignId": cid, "language": "en"})] * 3
            + [lambda: session_flow(st, http, rec, code, sessions, patience=60)] * 5
        )
        start = time.monotonic()
        tasks = [asyncio.create_task(loop(s)) for s in steps]
        await asyncio.sleep(4)
        slow_at, slow_wall = time.monotonic(), time.time()
        await st.proxy.set_delay(delay)
        log(f"slow link: {delay} s added to every chunk PostgreSQL sends")
        # More requests than the replicas have connections (3 x POOL_SIZE), so some must wait
        # for one: those are the requests the pool's acquire timeout should end.
        tasks += [asyncio.create_task(loop(lambda: rec.request(http, "read", "GET", f"{st.api}/campaigns/{cid}",
                                                               headers=headers(p))))
                  for _ in range(REPLICAS * POOL_SIZE + 12)]
        await asyncio.sleep(12)
        fast_at, fast_wall = time.monotonic(), time.time()
        await st.proxy.set_delay(0)
        log("slow link: fast again")
        await asyncio.sleep(14)
        stop.set()
        await asyncio.gather(*tasks)
        fig["load_seconds"] = round(time.monotonic() - start, 1)
        fig.update(rec.summary())
        slow = [o for o in rec.outcomes if o.started >= slow_at and o.started < fast_at]
        after = [o for o in rec.outcomes if o.started >= fast_at]
        fig["while_slow"] = rec.summary(slow)
        fig["while_slow_codes"] = dict(Counter(o.code for o in slow if o.status and o.status >= 300))
        fig["after"] = rec.summary(after)
        bad = [o for o in rec.outcomes if not (o.status in (200, 201) or (o.pulse and o.status == 503 and o.code))]
        expect(not bad, f"{len(bad)} answers other than success or a 503 envelope on the slow link: "
                        f"{Counter((o.op, o.status, o.code, o.pulse, o.error[:60]) for o in bad).most_common(5)}")
        failed_after = [o for o in after if o.status not in (200, 201)]
        last_fail = max((o.ended for o in failed_after), default=fast_at)
        fig["recovered_after_fast_s"] = round(last_fail - fast_at, 2)
        expect(last_fail - fast_at <= 10, f"requests still failing {last_fail - fast_at:.1f} s after the link was fast")
        # Workers: the sessions of this run are analyzed and every event delivered.
        await settle_analyses(st, cid, 30, fig)
        await settle_deliveries(st, sub, await events_since_registered(st, sub), fig)
        pool = {}
        for r in st.replicas:
            async with http.get(f"http://127.0.0.1:{r.port}/metrics") as resp:
                text = await resp.text()
            pool[r.name] = {m: float(re.search(rf"^{m} (\S+)$", text, re.M).group(1))
                            for m in ("pulse_db_pool_connections", "pulse_db_pool_in_use", "pulse_db_pool_waiting")}
        fig["pool_after"] = pool
        expect(all(v["pulse_db_pool_waiting"] == 0 for v in pool.values()), f"callers still waiting for a connection: {pool}")
    # A start answered 503 because its work ran past the deadline still finishes in the background
    # (docs/errors.md, "Slow database"): its session exists though no start answered 201 for it.
    timed_out_starts = sum(1 for o in rec.outcomes if o.op == "start" and o.status == 503)
    fig["starts_answered_503"] = timed_out_starts
    await check_sessions(st, cid, sessions, fig, lost_starts=timed_out_starts)
    await check_trail(st, sub, "slowlink", fig, unrecorded_window=(slow_wall, fast_wall + 2))
    # No request should hang on a slow link: each ends, with its answer or the 503 envelope, within
    # the replicas' request deadline (PULSE_REQUEST_TIMEOUT_SECS; the pool's acquire timeout is the
    # same 5 s) plus a second of slack.
    limit = max(ACQUIRE_TIMEOUT, REQUEST_TIMEOUT) + 1
    slowest = sorted(slow, key=lambda o: o.seconds, reverse=True)
    fig["slowest_while_slow_s"] = round(slowest[0].seconds, 2) if slowest else 0
    fig["while_slow_over_deadline"] = dict(Counter(f"{o.op}:{o.status}" for o in slow if o.seconds > limit))
    expect(fig["slowest_while_slow_s"] <= limit,
           f"on a link adding {delay} s to each chunk from PostgreSQL, requests ran past the "
           f"{REQUEST_TIMEOUT} s request deadline instead of ending with the 503 envelope: "
           f"{sum(fig['while_slow_over_deadline'].values())} of {len(slow)} took longer than "
           f"{limit} s (by op and status: {fig['while_slow_over_deadline']}); the slowest: "
           f"{[(o.op, o.status, round(o.seconds, 1), o.headers.get('X-Request-Id') if o.status else None, o.rid) for o in slowest[:3]]}")


SCENARIOS = {
    "quota": scenario_quota,
    "idempotency": scenario_idempotency,
    "webhooks": scenario_webhooks,
    "kill": scenario_kill,
    "pgrestart": scenario_pg_restart,
    "slowlink": scenario_slow_link,
}


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pulse", default="target/debug/pulse", help="the pulse binary (copied before use)")
    parser.add_argument("--only", default="", help="comma-separated scenarios: " + ",".join(SCENARIOS))
    parser.add_argument("--events", type=int, default=10_000, help="webhook events of the webhook scenario")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs) after the run")
    args = parser.parse_args()
    # SIGTERM (a CI timeout) ends the run as Ctrl-C does: through the clean-up below.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, asyncio.current_task().cancel)
    only = [s for s in args.only.split(",") if s] or list(SCENARIOS)
    unknown = set(only) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {sorted(unknown)}")
    source = Path(args.pulse)
    if not source.is_file():
        print(f"no pulse binary at {source}: build it first (cargo build -p pulse)", file=sys.stderr)
        return 2
    dir = Path(tempfile.mkdtemp(prefix="pulse-scaleout-"))
    dir.chmod(0o755)  # PostgreSQL runs as its own user and keeps its data below
    # The binary may be rebuilt while the suite runs: run a copy.
    binary = dir / "pulse"
    shutil.copy2(source, binary)
    started = time.monotonic()
    results: dict[str, tuple[str, dict, float]] = {}
    st = None
    try:
        try:
            st = await bring_up(binary, dir)
        except Exception:
            traceback.print_exc()
            log(f"the stack did not come up; logs in {dir}")
            only = []
        for name in only:
            fig: dict = {}
            t0 = time.monotonic()
            log(f"== {name}")
            harness.FINDINGS.clear()
            try:
                if name == "webhooks":
                    await SCENARIOS[name](st, fig, args.events)
                else:
                    await SCENARIOS[name](st, fig)
                check(not harness.FINDINGS, " | ".join(harness.FINDINGS))
                outcome = "PASS"
            except Failure as e:
                earlier = [f for f in harness.FINDINGS if f != str(e) and f not in str(e)]
                outcome = "FAIL: " + " | ".join(earlier + [str(e)])
            except Exception as e:  # a harness error fails the scenario too, with its trace
                outcome = f"ERROR: {type(e).__name__}: {e}\n{traceback.format_exc()}"
            results[name] = (outcome, fig, time.monotonic() - t0)
            log(f"{name}: {outcome.splitlines()[0][:2000]} ({time.monotonic() - t0:.1f} s)")
            log(f"{name} figures: {json.dumps(fig, default=str)}")
            if outcome.startswith("ERROR") and name in ("kill", "pgrestart", "slowlink"):
                # The stack may be in no state for the rest.
                break
    finally:
        if st:
            st.close()
        await asyncio.sleep(0.5)
        if args.keep or any(not r[0].startswith("PASS") for r in results.values()):
            log(f"logs kept in {dir}")
        else:
            shutil.rmtree(dir, ignore_errors=True)
    total = time.monotonic() - started
    print("\n== scale-out summary")
    for name in only:
        if name not in results:
            print(f"{name:12} NOT RUN")
            continue
        outcome, fig, secs = results[name]
        lost = fig.get("lost", "-")
        if "lost_other" in fig:
            lost = f"{lost} ({fig['lost_in_flight_on_killed']} in flight on the killed replica, {fig['lost_other']} other)"
        print(f"{name:12} {'PASS' if outcome == 'PASS' else 'FAIL'} {secs:6.1f} s  tried={fig.get('tried', '-')} "
              f"refused={fig.get('refused', '-')} lost={lost} statuses={fig.get('by_status', '-')}")
        if outcome != "PASS":
            print(f"{'':12} {outcome}")
    passed = sum(1 for r in results.values() if r[0] == "PASS")
    failed = len(only) - passed if only else 1
    print(f"total {total:.1f} s")
    print(f"scaleout: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
