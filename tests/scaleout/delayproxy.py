"""A TCP proxy in front of PostgreSQL that can delay, on demand, every chunk the server sends back:
a slow database link. In a process of its own so the load generator's event loop does not add to
the delay. POST /delay {"seconds": s} on the control port sets the delay for chunks read from now
on (0: pass through). Chunks keep their order; the delay is latency, not a bandwidth limit.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from aiohttp import web

DELAY = {"seconds": 0.0}


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delayed: bool) -> None:
    queue: asyncio.Queue = asyncio.Queue()

    async def send() -> None:
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(send())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            await queue.put((time.monotonic() + (DELAY["seconds"] if delayed else 0.0), data))
        await queue.put((0, None))
        await sender
    except (ConnectionError, OSError):
        pass
    finally:
        sender.cancel()
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--target", type=int, required=True)
    parser.add_argument("--control", type=int, required=True)
    args = parser.parse_args()

    async def client(cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        try:
            sr, sw = await asyncio.open_connection("127.0.0.1", args.target)
        except OSError:
            cw.close()
            return
        await asyncio.gather(pipe(cr, sw, False), pipe(sr, cw, True), return_exceptions=True)

    server = await asyncio.start_server(client, "127.0.0.1", args.port, backlog=1024)

    async def set_delay(request: web.Request) -> web.Response:
        DELAY["seconds"] = float((await request.json())["seconds"])
        return web.json_response(DELAY)

    app = web.Application()
    app.router.add_post("/delay", set_delay)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", args.control).start()
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
