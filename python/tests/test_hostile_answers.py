"""A url that does not answer as a bridge: whatever it sends, the env raises BridgeError in bounded
time and memory. Each answer has a deadline for the whole answer (`timeout`, not per read) and a
bound on its size (64 MiB). Each test runs a small hostile server on 127.0.0.1 (threads and sockets)."""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
from typing import Callable

import pytest

import gcb_env
from gcb_env._http import BridgeUnreachable

TOKENS = {"kingdom_0": "a" * 48, "kingdom_1": "b" * 48, "god": "c" * 48}
MIB = 1 << 20
# A drip or a flood ends by itself after this, so a client that waits for the whole of it fails its
# test in bounded time instead of hanging the run.
SERVER_GIVES_UP_S = 30.0


class HostileServer:
    """Answers every request on its connections with `behave(conn, request_head)`."""

    def __init__(self, behave: Callable[[socket.socket, bytes], None]) -> None:
        self._behave = behave
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                length = next((int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")), 0)
                while len(buffer) < length:
                    buffer += conn.recv(65536)
                buffer = buffer[length:]
                self._behave(conn, head)
        except OSError:
            pass  # the client gave up
        finally:
            conn.close()

    def close(self) -> None:
        self._listener.close()


def answer(status: bytes, content_type: bytes, body: bytes) -> bytes:
    return b"HTTP/1.1 " + status + b"\r\nContent-Type: " + content_type + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


HEALTH = json.dumps({"ok": True, "status": "ok", "clock": "lockstep"}).encode()


@pytest.fixture
def serve():
    servers = []

    def start(behave):
        servers.append(HostileServer(behave))
        return servers[-1].url

    yield start
    for server in servers:
        server.close()


def test_an_html_page_is_not_a_bridge(serve):
    url = serve(lambda conn, head: conn.sendall(answer(b"200 OK", b"text/html", b"<!doctype html><html><body>It works!</body></html>")))
    with pytest.raises(gcb_env.BridgeError, match=f"{url} does not answer as a bridge: .*not JSON.*doctype"):
        gcb_env.env(url=url, tokens=TOKENS, timeout=5)


def test_json_that_is_no_envelope_is_not_a_bridge(serve):
    def behave(conn, head):
        body = HEALTH if head.startswith(b"GET /health") else b"[1, 2, 3]"
        conn.sendall(answer(b"200 OK", b"application/json", body))

    url = serve(behave)
    with pytest.raises(gcb_env.BridgeError, match=f"{url} does not answer as a bridge: whoami as .*not a JSON object"):
        gcb_env.parallel_env(url=url, tokens=TOKENS, timeout=5)


def test_an_answer_dripped_a_byte_at_a_time_ends_at_the_timeout(serve):
    # Longer than the server drips (it gives up at SERVER_GIVES_UP_S), so only a deadline ends it sooner.
    whole = answer(b"200 OK", b"application/json", HEALTH + b" " * 1000)

    def drip(conn, head):
        started = time.monotonic()
        for byte in whole:
            if time.monotonic() - started > SERVER_GIVES_UP_S:
                return
            conn.sendall(bytes([byte]))
            time.sleep(0.05)

    url = serve(drip)
    started = time.monotonic()
    with pytest.raises(BridgeUnreachable, match="no whole answer from the bridge at .* within 0.5 s"):
        gcb_env.env(url=url, tokens=TOKENS, timeout=0.5)
    assert time.monotonic() - started < 10, "the whole answer has one deadline, not one per read"


def flood(conn: socket.socket, head: bytes, total: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n" % MIB + b" " * MIB + b"\r\n"
    started = time.monotonic()
    for _ in range(total // MIB):
        if time.monotonic() - started > SERVER_GIVES_UP_S:
            return
        conn.sendall(chunk)
    conn.sendall(b"0\r\n\r\n")


def test_a_chunked_flood_is_cut_at_64_mib(serve):
    url = serve(lambda conn, head: flood(conn, head, 160 * MIB))
    tracemalloc.start()
    try:
        with pytest.raises(gcb_env.BridgeError, match=f"{url} does not answer as a bridge: .*larger than 64 MiB"):
            gcb_env.env(url=url, tokens=TOKENS, timeout=30)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 96 * MIB, f"{peak / MIB:.0f} MiB held for an answer bounded at 64 MiB"


def test_a_length_over_64_mib_is_refused_from_the_head(serve):
    def behave(conn, head):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1099511627776\r\n\r\n{")
        time.sleep(SERVER_GIVES_UP_S)

    url = serve(behave)
    started = time.monotonic()
    with pytest.raises(gcb_env.BridgeError, match=f"{url} does not answer as a bridge: .*1099511627776 bytes, larger than 64 MiB"):
        gcb_env.env(url=url, tokens=TOKENS, timeout=20)
    assert time.monotonic() - started < 10, "refused from the head, not after reading or waiting"
