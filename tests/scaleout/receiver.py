"""A partner's webhook receiver for the scale-out suite, in a process of its own.

POST /hook/<endpoint> verifies X-SVC-Signature (docs/webhooks.md) with the endpoint's secret and
answers by the endpoint's policy: a share of attempts fail with 500 at random, some of those stall
past pulse's answer time first, and from a given attempt on (the receiver counts the POSTs of each
delivery) every attempt succeeds, so a delivery that still ends DEAD was given up wrongly.
Every POST is recorded, one JSON line each, when it arrives.

Control routes (JSON): /_control/ping, /_control/endpoint {name, secret, ...policy}, /_control/flush,
/_control/held (the peer ports of the requests being held now).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import random
import time
from collections import defaultdict

from aiohttp import web

TOLERANCE_SECS = 300


def verify(raw_body: bytes, signature_header: str, secret: str) -> tuple[bool, str]:
    """docs/webhooks.md's verification; also returns t."""
    t, signatures = None, []
    for part in signature_header.split(","):
        scheme, _, value = part.strip().partition("=")
        if scheme == "t":
            t = value
        elif scheme == "v1":
            signatures.append(value)
    try:
        age = time.time() - int(t)
        received = [bytes.fromhex(s) for s in signatures]
    except (TypeError, ValueError, OverflowError):
        return False, t or ""
    if not received or abs(age) > TOLERANCE_SECS:
        return False, t
    expected = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).digest()
    return any(hmac.compare_digest(expected, s) for s in received), t


class Receiver:
    def __init__(self, records_path: str):
        self.endpoints: dict[str, dict] = {}
        self.seen: dict[tuple[str, str], int] = defaultdict(int)
        self.buffer: list[str] = []
        self.records = open(records_path, "a")
        self.rng = random.Random()
        self.held: dict[int, int] = {}  # requests being held: id -> peer port

    def flush(self) -> None:
        if self.buffer:
            self.records.write("".join(self.buffer))
            self.buffer.clear()
        self.records.flush()

    async def hook(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        policy = self.endpoints.get(name)
        raw = await request.read()
        h = request.headers
        delivery = h.get("X-SVC-Delivery", "")
        sig_ok, t = verify(raw, h.get("X-SVC-Signature", ""), policy["secret"]) if policy else (False, "")
        try:
            body_id = json.loads(raw).get("id", "")
        except ValueError:
            body_id = ""
        self.seen[(name, delivery)] += 1
        n = self.seen[(name, delivery)]
        peer = request.transport.get_extra_info("peername") if request.transport else None
        answer, stall = 204, 0.0
        if not policy or not sig_ok:
            answer = 401
        elif n < policy.get("succeed_from", 1 << 30):
            r = self.rng.random()
            if r < policy.get("stall_ratio", 0.0):
                answer, stall = 500, policy["stall_secs"]
            elif r < policy.get("fail_ratio", 0.0):
                answer = 500
        rec = {
            "endpoint": name, "delivery": delivery, "event": h.get("X-SVC-Event", ""),
            "type": h.get("X-SVC-Event-Type", ""), "t": t, "body_id": body_id, "sig_ok": sig_ok,
            "n": n, "answer": answer, "stall": stall, "arrived": time.time(),
            "peer_port": peer[1] if peer else None,
        }
        self.buffer.append(json.dumps(rec) + "\n")
        hold = stall or policy.get("hold_secs", 0.0) if policy else 0.0
        if hold:
            self.held[id(rec)] = rec["peer_port"]
            try:
                await asyncio.sleep(hold)
            finally:
                del self.held[id(rec)]
        return web.Response(status=answer)

    async def control(self, request: web.Request) -> web.Response:
        what = request.match_info["what"]
        body = await request.json() if request.can_read_body else {}
        if what == "endpoint":
            self.endpoints[body["name"]] = body
        elif what == "flush":
            self.flush()
        elif what == "held":
            return web.json_response({"ports": list(self.held.values())})
        return web.json_response({"ok": True})


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--records", required=True)
    args = parser.parse_args()
    rec = Receiver(args.records)
    app = web.Application(client_max_size=1 << 20)
    app.router.add_post("/hook/{name}", rec.hook)
    app.router.add_post("/_control/{what}", rec.control)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=False)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", args.port, backlog=4096).start()
    while True:
        await asyncio.sleep(1)
        rec.flush()


if __name__ == "__main__":
    asyncio.run(main())
