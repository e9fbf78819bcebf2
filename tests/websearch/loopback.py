"""Loopback test servers, and a guard that lets only them through."""

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator

from steward_websearch.net.guard import Guard

TEST_ADDRESS = "127.0.0.2"


def guard_for(
    port: int, answers: dict[str, list[str]] | None = None, networks: tuple[str, ...] = ("127.0.0.2/32",)
) -> Guard:
    """A guard that lets only 127.0.0.2 through (the test servers bind there), on ``port``."""

    async def resolver(host: str, port_: int) -> list[str]:
        return list((answers or {}).get(host, []))

    return Guard.configured(allowed_ports=[80, 443, port], allowed_networks=networks, resolver=resolver)


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.contextmanager
def raw_server(handler: Handler, host: str = TEST_ADDRESS, ssl=None) -> Iterator[int]:
    """A bare asyncio TCP server in a thread, for behaviours no framework would produce."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    holder: dict[str, object] = {}

    async def main() -> None:
        server = await asyncio.start_server(handler, host, 0, ssl=ssl)
        holder["task"] = asyncio.current_task()
        holder["port"] = server.sockets[0].getsockname()[1]
        started.set()
        async with server:
            await server.serve_forever()

    def run() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(5)
    try:
        yield holder["port"]  # type: ignore[misc]
    finally:
        loop.call_soon_threadsafe(holder["task"].cancel)  # type: ignore[union-attr]
        thread.join(timeout=5)
