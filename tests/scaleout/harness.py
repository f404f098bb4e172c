"""The processes of the scale-out suite: a private PostgreSQL cluster, `pulse serve` replicas,
haproxy in front of them, a delaying TCP proxy and a webhook receiver (both in processes of their
own, so their latency does not depend on the load generator's event loop), and a load generator
that classifies every answer.

Everything listens on 127.0.0.1 on ports the kernel hands out; everything is stopped by `Stack.close`.
"""

from __future__ import annotations

import asyncio
import base64
import glob
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import aiohttp

HERE = Path(__file__).resolve().parent


def log(*parts: Any) -> None:
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


class Failure(AssertionError):
    """A scenario's finding: the service did not do what it promises."""


def check(condition: bool, message: str) -> None:
    """A claim the rest of the scenario depends on: stops the scenario when it does not hold."""
    if not condition:
        raise Failure(message)


FINDINGS: list[str] = []


def expect(condition: bool, message: str) -> None:
    """A claim that fails the scenario without stopping it, so the checks after it still run."""
    if not condition:
        log("FINDING:", message[:3000])
        FINDINGS.append(message)


def _die_with_parent() -> None:
    # prctl(PR_SET_PDEATHSIG, SIGKILL): a child dies with the suite, even when the suite is killed.
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except OSError:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def run(*argv: str, env: dict[str, str] | None = None, check_rc: bool = True, timeout: float = 60) -> str:
    proc = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    if check_rc and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])}… exited {proc.returncode}: {err.decode(errors='replace').strip()}")
    return out.decode()


# --------------------------------------------------------------------------------------------
# PostgreSQL


class Postgres:
    """A private cluster in `dir`, run as the postgres user when we are root (initdb refuses root)."""

    def __init__(self, dir: Path, max_connections: int = 200):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
        if not bins:
            raise RuntimeError("no PostgreSQL under /usr/lib/postgresql/*/bin")
        self.bin = Path(bins[-1])
        self.dir = dir
        self.data = dir / "pgdata"
        self.port = free_port()
        self.max_connections = max_connections
        self.as_user: list[str] = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/pulse"

    async def init(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        if self.as_user:
            shutil.chown(self.dir, "postgres")
        await run(*self.as_user, str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                  "--auth=trust", "-E", "UTF8", "--no-instructions")
        # Durability is not under test (PostgreSQL is stopped cleanly, never crashed): fsync off
        # keeps a 2-core machine's disk out of the figures.
        with open(self.data / "postgresql.auto.conf", "a") as f:
            f.write(
                f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.dir}'\nmax_connections = {self.max_connections}\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "shared_buffers = '256MB'\n"
            )
        await self.start()
        await self.psql("CREATE DATABASE pulse", db="postgres")

    async def start(self) -> None:
        await run(*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "postgres.log"),
                  "-w", "-t", "60", "start")

    async def stop(self, mode: str = "fast") -> None:
        await run(*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def stop_now(self) -> None:
        subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True)

    async def psql(self, sql: str, db: str = "pulse") -> list[list[str]]:
        out = await run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", db,
                        "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql)
        return [line.split("\t") for line in out.splitlines() if line]

    async def scalar(self, sql: str) -> str:
        rows = await self.psql(sql)
        return rows[0][0] if rows else ""


# --------------------------------------------------------------------------------------------
# pulse


class Replica:
    def __init__(self, name: str, binary: Path, env: dict[str, str], dir: Path):
        self.name = name
        self.binary = binary
        self.port = free_port()
        self.env = dict(env)
        self.env["PULSE_BIND"] = f"127.0.0.1:{self.port}"
        self.log_path = dir / f"{name}.log"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        logf = open(self.log_path, "ab")
        self.proc = await asyncio.create_subprocess_exec(
            str(self.binary), "serve", env=self.env, stdout=logf, stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent)
        logf.close()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                if not self.running:
                    raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see {self.log_path}")
                try:
                    async with http.get(f"http://127.0.0.1:{self.port}/readyz",
                                        timeout=aiohttp.ClientTimeout(total=2)) as r:
                        if r.status == 200:
                            return
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    pass
                await asyncio.sleep(0.2)
        raise RuntimeError(f"{self.name} not ready within {timeout} s; see {self.log_path}")

    def signal(self, sig: int) -> None:
        if self.running:
            self.proc.send_signal(sig)

    async def wait_exit(self, timeout: float) -> int | None:
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            return None

    def log_lines(self, message: str) -> list[dict]:
        """This replica's JSON log lines whose message is `message`."""
        found = []
        with open(self.log_path, "rb") as f:
            for raw in f:
                if message.encode() not in raw:
                    continue
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue
                if line.get("message") == message:
                    found.append(line)
        return found


def master_key() -> str:
    return base64.b64encode(os.urandom(32)).decode()


# --------------------------------------------------------------------------------------------
# haproxy

HAPROXY_CFG = """\
global
    maxconn 4096
    log stdout format raw local0 info
    stats socket {dir}/haproxy.sock mode 600 level admin
    tune.bufsize 65536

defaults
    mode http
    log global
    # One line per request: the suite's request id, the replica, the status, how it ended.
    log-format "rid=%[capture.req.hdr(0)] srv=%s status=%ST term=%tsc retries=%rc Tw=%Tw Tc=%Tc Tr=%Tr Ta=%Ta"
    timeout connect 1s
    timeout client 120s
    # Longer than anything pulse may take (the slow-link scenario measures pulse's own limits).
    timeout server 120s
    timeout check 2s
    timeout http-request 30s
    option redispatch 1
    retries 3
    # Replaying a request whose connection died before any answer is safe only for idempotent
    # requests; the rule in the frontend turns it off for the others.
    retry-on conn-failure empty-response
    # A connection to a replica serves one request: an idle keep-alive connection that a draining
    # replica closes while haproxy reuses it would lose a request that no replica ever ran.
    option http-server-close

frontend api
    bind 127.0.0.1:{port}
    option forwardfor
    http-request capture req.hdr(X-Test-Id) len 32
    # GET, HEAD, and POSTs that carry an Idempotency-Key (pulse replays them) may be retried on
    # another replica; a plain POST only when its connection failed before it was sent.
    acl replayable method GET HEAD
    acl replayable req.hdr(Idempotency-Key) -m found
    http-request disable-l7-retry if !replayable
    # When no replica is ready (the database is down for all of them) the request still goes to a
    # live replica, which answers its own 503 envelope rather than haproxy's bare page.
    use_backend live if {{ nbsrv(ready) eq 0 }}
    default_backend ready
    # Which replica answered; for haproxy's own errors, which one failed.
    http-after-response set-header X-Backend %[srv_name]

backend ready
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
{ready_servers}

backend live
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 500ms fall 2 rise 1
{live_servers}
"""


class HAProxy:
    def __init__(self, dir: Path):
        self.dir = dir
        self.port = free_port()
        self.replicas: list[Replica] = []
        self.proc: asyncio.subprocess.Process | None = None
        self.cfg = dir / "haproxy.cfg"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.port} check" for r in self.replicas)
        self.cfg.write_text(HAPROXY_CFG.format(dir=self.dir, port=self.port, ready_servers=servers,
                                               live_servers=servers))
        await run("haproxy", "-c", "-q", "-f", str(self.cfg))
        logf = open(self.dir / "haproxy.log", "ab")
        self.proc = await asyncio.create_subprocess_exec("haproxy", "-db", "-f", str(self.cfg), stdout=logf,
                                                         stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        logf.close()

    async def command(self, cmd: str) -> str:
        reader, writer = await asyncio.open_unix_connection(str(self.dir / "haproxy.sock"))
        writer.write((cmd + "\n").encode())
        await writer.drain()
        data = await reader.read()
        writer.close()
        return data.decode()

    async def states(self, backend: str = "ready") -> dict[str, str]:
        """Server name -> UP/DOWN/... as haproxy's health checks see it."""
        out = await self.command("show stat")
        header, *rows = [line for line in out.splitlines() if line]
        cols = header.lstrip("# ").split(",")
        states = {}
        for row in rows:
            values = dict(zip(cols, row.split(",")))
            if values["pxname"] == backend and values["svname"] not in ("BACKEND", "FRONTEND"):
                states[values["svname"]] = values["status"]
        return states

    async def wait_up(self, names: list[str], timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                states = await self.states()
                if all(states.get(n, "").startswith("UP") for n in names):
                    return
            except (OSError, ValueError, KeyError):
                pass
            await asyncio.sleep(0.2)
        raise RuntimeError(f"haproxy does not see {names} UP within {timeout} s: {await self.states()}")

    def stop(self) -> None:
        if self.proc and self.proc.returncode is None:
            self.proc.terminate()

    def requests(self) -> dict[str, dict[str, str]]:
        """The suite's request id -> haproxy's log fields (srv, status, term, retries)."""
        out = {}
        with open(self.dir / "haproxy.log", errors="replace") as f:
            for line in f:
                if not line.startswith("rid="):
                    continue
                fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
                out[fields.get("rid", "")] = fields
        return out


# --------------------------------------------------------------------------------------------
# helper processes: the webhook receiver and the delaying proxy


class Helper:
    """A Python helper in its own process, driven over a small HTTP control API."""

    def __init__(self, script: str, dir: Path, *args: str):
        self.script = script
        self.dir = dir
        self.args = args
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        logf = open(self.dir / f"{Path(self.script).stem}.log", "ab")
        self.proc = await asyncio.create_subprocess_exec(sys.executable, str(HERE / self.script), *self.args,
                                                         stdout=logf, stderr=subprocess.STDOUT,
                                                         preexec_fn=_die_with_parent)
        logf.close()

    def stop(self) -> None:
        if self.proc and self.proc.returncode is None:
            self.proc.terminate()


class Receiver(Helper):
    """receiver.py: takes webhooks on /hook/<name>, verifies them, answers by a policy, records
    every POST to a JSON-lines file."""

    def __init__(self, dir: Path):
        self.port = free_port()
        self.records = dir / "receiver.jsonl"
        super().__init__("receiver.py", dir, "--port", str(self.port), "--records", str(self.records))

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/hook/{name}"

    async def control(self, path: str, body: dict | None = None) -> dict:
        async with aiohttp.ClientSession() as http:
            async with http.post(f"http://127.0.0.1:{self.port}/_control/{path}", json=body or {}) as r:
                r.raise_for_status()
                return await r.json()

    async def wait_ready(self) -> None:
        for _ in range(100):
            try:
                await self.control("ping")
                return
            except (aiohttp.ClientError, OSError):
                await asyncio.sleep(0.1)
        raise RuntimeError("the webhook receiver did not start")

    async def read(self, endpoint: str) -> list[dict]:
        """Every POST the receiver took for `endpoint`, in arrival order."""
        await self.control("flush")
        out = []
        with open(self.records) as f:
            for line in f:
                rec = json.loads(line)
                if rec["endpoint"] == endpoint:
                    out.append(rec)
        return out


class DelayProxy(Helper):
    """delayproxy.py: a TCP proxy in front of PostgreSQL that can delay what the server sends."""

    def __init__(self, dir: Path, target_port: int):
        self.port = free_port()
        self.control_port = free_port()
        super().__init__("delayproxy.py", dir, "--port", str(self.port), "--target", str(target_port),
                         "--control", str(self.control_port))

    async def set_delay(self, seconds: float) -> None:
        async with aiohttp.ClientSession() as http:
            for _ in range(100):
                try:
                    async with http.post(f"http://127.0.0.1:{self.control_port}/delay",
                                         json={"seconds": seconds}) as r:
                        r.raise_for_status()
                        return
                except (aiohttp.ClientError, OSError):
                    await asyncio.sleep(0.1)
        raise RuntimeError("the delaying proxy does not answer")


# --------------------------------------------------------------------------------------------
# load


@dataclass
class Outcome:
    op: str
    started: float
    ended: float
    status: int | None  # None: no HTTP answer at all
    backend: str = ""
    code: str = ""  # the envelope's code, for non-2xx
    pulse: bool = False  # answered by pulse (it sets X-Request-Id), not by haproxy
    error: str = ""
    rid: str = ""  # sent as X-Test-Id; haproxy logs it with the replica it chose

    @property
    def seconds(self) -> float:
        return self.ended - self.started


class Recorder:
    """Every request a scenario sends, with what came back."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []
        self.seq = 0
        self.prefix = secrets.token_hex(3) + "-"

    async def request(self, http: aiohttp.ClientSession, op: str, method: str, url: str,
                      timeout: float = 60, **kw: Any) -> tuple[Outcome, Any]:
        started = time.monotonic()
        self.seq += 1
        rid = f"{self.prefix}{self.seq}"
        kw["headers"] = {**kw.get("headers", {}), "X-Test-Id": rid}
        try:
            async with http.request(method, url, timeout=aiohttp.ClientTimeout(total=timeout), **kw) as r:
                raw = await r.read()
                body: Any = None
                if raw:
                    try:
                        body = json.loads(raw)
                    except ValueError:
                        body = raw.decode(errors="replace")
                code = body.get("code", "") if isinstance(body, dict) and r.status >= 300 else ""
                out = Outcome(op, started, time.monotonic(), r.status, r.headers.get("X-Backend", ""), code,
                              "X-Request-Id" in r.headers)
                out.headers = r.headers  # type: ignore[attr-defined]
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            out, body = Outcome(op, started, time.monotonic(), None, error=type(e).__name__ + ": " + str(e)[:120]), None
        out.rid = rid
        self.outcomes.append(out)
        return out, body

    def between(self, t0: float, t1: float) -> list[Outcome]:
        return [o for o in self.outcomes if o.ended >= t0 and o.started <= t1]

    def summary(self, outcomes: list[Outcome] | None = None) -> dict:
        """tried, answered by status, refused (pulse's 429 and 503 envelopes), lost (no answer, or
        an error page haproxy made because no replica answered)."""
        outs = self.outcomes if outcomes is None else outcomes
        by_status = Counter(str(o.status) if o.status is not None else "none" for o in outs)
        refused = sum(1 for o in outs if o.pulse and o.status in (429, 503))
        lost = [o for o in outs if is_lost(o)]
        lat = sorted(o.seconds for o in outs)
        return {
            "tried": len(outs),
            "by_status": dict(sorted(by_status.items())),
            "refused": refused,
            "lost": len(lost),
            "p50_ms": round(percentile(lat, 50) * 1000, 1),
            "p99_ms": round(percentile(lat, 99) * 1000, 1),
            "max_ms": round((lat[-1] if lat else 0) * 1000, 1),
        }


def is_lost(o: Outcome) -> bool:
    return o.status is None or (not o.pulse and o.status >= 500)


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, int(round(p / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


async def drive(concurrency: int, until: Callable[[], bool], step: Callable[[aiohttp.ClientSession, int], Awaitable[None]],
                http: aiohttp.ClientSession) -> None:
    """Runs `step` in `concurrency` loops until `until()` holds."""

    async def loop(i: int) -> None:
        n = 0
        while not until():
            await step(http, i * 1_000_000 + n)
            n += 1

    await asyncio.gather(*(loop(i) for i in range(concurrency)))


def client(limit: int = 100) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit, force_close=False))


# --------------------------------------------------------------------------------------------
# the whole stack


@dataclass
class Partner:
    business: str
    key: str
    workspace: str


@dataclass
class Stack:
    binary: Path
    dir: Path
    pg: Postgres
    env: dict[str, str]
    replicas: list[Replica] = field(default_factory=list)
    haproxy: HAProxy | None = None
    receiver: Receiver | None = None
    proxy: DelayProxy | None = None

    @property
    def url(self) -> str:
        return self.haproxy.url

    @property
    def api(self) -> str:
        return self.haproxy.url + "/api/v1/channel"

    async def admin(self, *args: str) -> dict:
        env = dict(self.env)
        return json.loads(await run(str(self.binary), "admin", *args, env=env))

    async def partner(self, name: str, scopes: str) -> Partner:
        """A business, a key with `scopes`, and an approved workspace it created (README's flow)."""
        biz = (await self.admin("business", "create", "--name", name))["id"]
        key = (await self.admin("key", "create", "--business", biz, "--scopes", scopes))["key"]
        async with client() as http:
            async with http.post(f"{self.api}/orgs", headers={"Authorization": f"Bearer {key}"},
                                 json={"externalRef": f"{name}-{secrets.token_hex(4)}", "name": name}) as r:
                body = await r.json()
                check(r.status == 201, f"POST /orgs answered {r.status}: {body}")
        ws = body["workspace"]["id"]
        await self.admin("workspace", "approve", ws)
        return Partner(biz, key, ws)

    async def key(self, partner: Partner, scopes: str) -> str:
        """Another key of the partner's business that reaches its workspace."""
        return (await self.admin("key", "create", "--business", partner.business, "--scopes", scopes,
                                 "--workspace", partner.workspace))["key"]

    def close(self) -> None:
        for r in self.replicas:
            if r.running:
                r.signal(signal.SIGKILL)
        if self.haproxy:
            self.haproxy.stop()
        if self.receiver:
            self.receiver.stop()
        if self.proxy:
            self.proxy.stop()
        self.pg.stop_now()


def headers(partner: Partner | None = None, key: str | None = None, **extra: str) -> dict[str, str]:
    h = {}
    if partner or key:
        h["Authorization"] = f"Bearer {key or partner.key}"
    if partner:
        h["X-SVC-Workspace"] = partner.workspace
    h.update(extra)
    return h
