"""A TCP proxy on loopback in front of a real redis-server that can be told to lie.

``honest``: bytes pass both ways. ``lying``: every command (counted by parsing the client's
RESP arrays) is answered with the same well-formed reply of the wrong shape (``+PONG``, ``:1``,
an array nested past any parser's depth), as a broken or hostile Redis would.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class LyingRedisProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.lie: bytes | None = None
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            self._sockets += [client, upstream]
            threading.Thread(target=self._from_client, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _from_client(self, client: socket.socket, upstream: socket.socket) -> None:
        pending = b""
        with contextlib.suppress(OSError):
            while chunk := client.recv(65536):
                if self.lie is None:
                    upstream.sendall(chunk)
                    continue
                pending += chunk
                commands, pending = _complete_commands(pending)
                client.sendall(self.lie * commands)

    @staticmethod
    def _pipe(source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                target.sendall(chunk)

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        for each in self._sockets:
            with contextlib.suppress(OSError):
                each.close()


def _complete_commands(buffer: bytes) -> tuple[int, bytes]:
    """How many whole RESP commands ``buffer`` starts with, and what is left after them."""
    count, position = 0, 0
    while True:
        end = buffer.find(b"\r\n", position)
        if end < 0 or buffer[position : position + 1] != b"*":
            return count, buffer[position:]
        items, cursor = int(buffer[position + 1 : end]), end + 2
        for _ in range(items):
            line = buffer.find(b"\r\n", cursor)
            if line < 0:
                return count, buffer[position:]
            length = int(buffer[cursor + 1 : line])
            cursor = line + 2 + length + 2
            if cursor > len(buffer):
                return count, buffer[position:]
        count, position = count + 1, cursor


NESTED = b"*1\r\n" * 5000 + b":1\r\n"
LIES = {"pong": b"+PONG\r\n", "integer": b":1\r\n", "array": b"*2\r\n:1\r\n:2\r\n", "nested": NESTED}
