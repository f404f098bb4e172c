#!/usr/bin/env python3
"""A soak of the scale-out stack (not run in CI): the same private PostgreSQL,
three `pulse serve` replicas and haproxy as run.py, driven at half the rate the stack reaches
closed loop (the benchmark's rule, docs/performance.md), open loop, for ten minutes by default.

    python3 tests/scaleout/soak.py [--pulse target/release/pulse] [--duration 600] [--rate R]

The workload is the benchmark's two single-request write paths through the balancer, alternately:
minting a respondent link (POST /api/v1/channel/launch) and starting a session on an open campaign
(POST /api/v1/public/pulse/{code}/start). First `--probe` seconds closed loop with `--connections`
clients measure the maximum rate; then request i is due at start + i / (max / 2) and is sent then
whether or not earlier ones were answered; its latency runs from when it was due (no coordinated
omission). Prints a line per minute and the totals: requests, 2xx, errors (non-2xx answers),
lost (no answer), error rate, p50, p99, p99.9 and max. Exits 1 when the error rate exceeds
--max-error-rate or a request was lost, 2 when the stack could not be set up.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse
import asyncio
import shutil
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

from harness import log, percentile
from run import SCOPES, bring_up, campaign, headers

IN_FLIGHT = 512  # requests outstanding at most; a due request waits for a slot, and that wait counts
TIMEOUT = 10  # a request not answered within this is lost


class Sample:
    __slots__ = ("due", "latency", "status")

    def __init__(self, due: float, latency: float, status: int | None):
        self.due, self.latency, self.status = due, latency, status


def figures(samples: list[Sample]) -> dict:
    lat = sorted(s.latency for s in samples)
    ok = sum(1 for s in samples if s.status is not None and 200 <= s.status < 300)
    lost = sum(1 for s in samples if s.status is None)
    errors = len(samples) - ok - lost
    return {
        "requests": len(samples), "2xx": ok, "errors": errors, "lost": lost,
        "error_rate": (errors + lost) / len(samples) if samples else 0.0,
        "p50_ms": percentile(lat, 50) * 1000, "p99_ms": percentile(lat, 99) * 1000,
        "p999_ms": percentile(lat, 99.9) * 1000, "max_ms": (lat[-1] if lat else 0) * 1000,
        "statuses": dict(Counter(str(s.status) for s in samples)),
    }


def line(label: str, f: dict) -> str:
    return (f"{label:>10} {f['requests']:>8} {f['2xx']:>8} {f['errors']:>7} {f['lost']:>5} "
            f"{f['error_rate'] * 100:>8.3f}% {f['p50_ms']:>8.2f} {f['p99_ms']:>8.2f} {f['p999_ms']:>8.2f} "
            f"{f['max_ms']:>9.2f}")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pulse", default="target/release/pulse",
                        help="the pulse binary (copied before use); falls back to target/debug/pulse")
    parser.add_argument("--duration", type=float, default=600, help="seconds of paced load")
    parser.add_argument("--probe", type=float, default=15, help="seconds of the closed-loop run")
    parser.add_argument("--connections", type=int, default=32, help="clients of the closed-loop run")
    parser.add_argument("--rate", type=float, default=0, help="requests per second; default half the probe's")
    parser.add_argument("--max-error-rate", type=float, default=0.001)
    args = parser.parse_args()
    # SIGTERM (a CI timeout) ends the run as Ctrl-C does: through the clean-up below.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, asyncio.current_task().cancel)
    source = Path(args.pulse)
    if not source.is_file() and args.pulse == parser.get_default("pulse"):
        source = Path("target/debug/pulse")
    if not source.is_file():
        print(f"no pulse binary at {source}", file=sys.stderr)
        return 2
    dir = Path(tempfile.mkdtemp(prefix="pulse-soak-"))
    dir.chmod(0o755)
    binary = dir / "pulse"
    shutil.copy2(source, binary)
    st = None
    try:
        try:
            st = await bring_up(binary, dir)
        except Exception as e:
            print(f"the stack did not come up: {type(e).__name__}: {e}", file=sys.stderr)
            return 2
        p = await st.partner("soak", SCOPES)
        connector = aiohttp.TCPConnector(limit=IN_FLIGHT)
        async with aiohttp.ClientSession(connector=connector) as http:
            cid, code = await campaign(st, p, http, "soak")
            mint = (f"{st.api}/launch", {"campaignId": cid, "language": "en"}, headers(p))
            start = (f"{st.url}/api/v1/public/pulse/{code}/start", {"consentGiven": True}, {})
            ops = (mint, start)
            timeout = aiohttp.ClientTimeout(total=TIMEOUT)

            async def send(i: int) -> int | None:
                url, body, hdrs = ops[i % 2]
                try:
                    async with http.post(url, json=body, headers=hdrs, timeout=timeout) as r:
                        await r.read()
                        return r.status
                except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                    return None

            # Closed loop: the maximum rate.
            log(f"soak: {args.probe:.0f} s closed loop with {args.connections} clients")
            done = 0
            end = time.monotonic() + args.probe

            async def closed(c: int) -> None:
                nonlocal done
                i = c
                while time.monotonic() < end:
                    if await send(i) is not None:
                        done += 1
                    i += args.connections

            t0 = time.monotonic()
            await asyncio.gather(*(closed(c) for c in range(args.connections)))
            maximum = done / (time.monotonic() - t0)
            rate = args.rate or maximum / 2
            log(f"soak: closed loop reached {maximum:.0f} req/s; paced at {rate:.0f} req/s for {args.duration:.0f} s")

            # Open loop at `rate`.
            samples: list[Sample] = []
            slots = asyncio.Semaphore(IN_FLIGHT)
            loop = asyncio.get_running_loop()
            begin = loop.time()
            pending: set[asyncio.Task] = set()

            async def one(i: int, due: float) -> None:
                try:
                    status = await send(i)
                    samples.append(Sample(due - begin, loop.time() - due, status))
                finally:
                    slots.release()

            print(f"\n{'minute':>10} {'requests':>8} {'2xx':>8} {'errors':>7} {'lost':>5} {'err rate':>9} "
                  f"{'p50 ms':>8} {'p99 ms':>8} {'p99.9 ms':>8} {'max ms':>9}", flush=True)
            i, minute = 0, 0
            while True:
                due = begin + i / rate
                if due - begin >= args.duration:
                    break
                now = loop.time()
                if due > now:
                    await asyncio.sleep(due - now)
                await slots.acquire()
                task = asyncio.create_task(one(i, due))
                pending.add(task)
                task.add_done_callback(pending.discard)
                i += 1
                if due - begin >= (minute + 1) * 60:
                    chunk = [s for s in samples if minute * 60 <= s.due < (minute + 1) * 60]
                    print(line(str(minute + 1), figures(chunk)), flush=True)
                    minute += 1
            await asyncio.gather(*pending)
        while minute * 60 < args.duration:  # the minutes whose requests were still out
            chunk = [s for s in samples if minute * 60 <= s.due < (minute + 1) * 60]
            label = str(minute + 1) if (minute + 1) * 60 <= args.duration else f"{minute + 1} (part)"
            print(line(label, figures(chunk)), flush=True)
            minute += 1
        total = figures(samples)
        print(line("total", total))
        print(f"\nsoak: {rate:.0f} req/s asked (half of {maximum:.0f} closed loop), {total['requests'] / args.duration:.0f} "
              f"sent per second; p99 {total['p99_ms']:.2f} ms, error rate {total['error_rate'] * 100:.3f}% "
              f"({total['errors']} errors, {total['lost']} lost), statuses {total['statuses']}")
        return 0 if total["lost"] == 0 and total["error_rate"] <= args.max_error_rate else 1
    finally:
        if st:
            st.close()
        await asyncio.sleep(0.5)
        shutil.rmtree(dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
