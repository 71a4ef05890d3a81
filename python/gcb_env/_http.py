"""One kept-alive HTTP/1.1 connection to the bridge per credential, and its error types.

The HTTP client is a small one on a standard-library socket (one sendall per request, a response read
by Content-Length or chunks). Measured on this bridge, for one request: http.client spent about
180 microseconds of Python CPU, urllib3 350, this one about 60 (most of http.client's goes to
parsing headers with the email package). It adds no dependency, and it speaks only to the bridge.
"""

from __future__ import annotations

import itertools
import json
import secrets
import socket
from typing import Any, Callable, Optional

__all__ = ["BridgeError", "BridgeCallError", "BridgeUnreachable", "Connection"]


class BridgeError(RuntimeError):
    """Something went wrong talking to the bridge."""


class BridgeCallError(BridgeError):
    """The bridge answered with an error envelope."""

    def __init__(self, command: str, agent: str, status: int, code: str, message: str):
        super().__init__(f"{command} as {agent}: {status} {code}: {message}")
        self.command = command
        self.agent = agent
        self.status = status
        self.code = code
        self.bridge_message = message


class BridgeUnreachable(BridgeError):
    """No HTTP answer: nothing listening, the connection dropped, or no answer in time."""


class _Dropped(Exception):
    """The connection closed or broke before a whole answer came."""


_MAX_HEAD = 64 * 1024
# What one recv asks for. Not more: CPython allocates the whole size for every recv, and past 128 KB
# glibc maps and unmaps it each time (measured: 60 microseconds a recv at 256 KB, 5 at 64 KB).
_RECV = 64 * 1024


def _field(head: bytes, name: bytes) -> Optional[bytes]:
    """A header's value in a lowercased head that ends with CRLF, or None."""
    at = head.find(b"\r\n" + name + b":")
    if at < 0:
        return None
    start = at + len(name) + 3
    return head[start : head.index(b"\r\n", start)].strip()


class Connection:
    """POST /cmd as one agent over one kept-alive connection.

    `on_failure` is called with the exception when no answer came; it may raise a better error
    (the env's bridge process names its exit and last log line there).
    """

    def __init__(
        self,
        host: str,
        port: int,
        token: str,
        agent: str,
        timeout: float,
        on_failure: Optional[Callable[[BaseException], None]] = None,
    ):
        self.host = host
        self.port = port
        self.agent = agent
        self.timeout = timeout
        self._on_failure = on_failure
        self._head = f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n".encode()
        self._sock: Optional[socket.socket] = None
        self._buffer = bytearray()
        # Idempotency keys: unique to this connection by a random prefix, then counted (a fresh random
        # key a request cost a getrandom call).
        self._key_prefix = secrets.token_hex(12)
        self._keys = itertools.count()

    def _connect(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        # Small requests, one at a time: Nagle would hold each one back waiting for an ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._buffer.clear()

    def request(self, method: str, path: str, body: Optional[bytes] = None, headers: Optional[dict] = None) -> tuple[int, bytes]:
        """One request. A connection the bridge closed while idle is reopened and the request sent once
        more: the caller gives state-changing requests an Idempotency-Key, so the bridge never runs
        one twice."""
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items()).encode()
        if body is None:
            message = f"{method} {path} HTTP/1.1\r\n".encode() + self._head + extra + b"\r\n"
        else:
            message = (
                f"{method} {path} HTTP/1.1\r\n".encode()
                + self._head
                + extra
                + b"Content-Type: application/json\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
        for attempt in (0, 1):
            fresh = self._sock is None
            try:
                if self._sock is None:
                    self._sock = self._connect()
                self._sock.sendall(message)
                return self._response()
            except (_Dropped, ConnectionError) as err:
                self.close()
                if attempt == 0 and not fresh:
                    continue
                self._fail(err)
            except OSError as err:
                self.close()
                self._fail(err)
        raise AssertionError("unreachable")

    def _fill(self) -> None:
        assert self._sock is not None
        chunk = self._sock.recv(_RECV)
        if not chunk:
            raise _Dropped("the bridge closed the connection")
        self._buffer += chunk

    def _response(self) -> tuple[int, bytes]:
        buffer = self._buffer
        end = buffer.find(b"\r\n\r\n")
        while end < 0:
            if len(buffer) > _MAX_HEAD:
                raise _Dropped("an answer whose headers never end")
            self._fill()
            end = buffer.find(b"\r\n\r\n")
        # Only four things matter here: the status, and how the body ends (length or chunks) and
        # whether the connection stays open. Header names are case-insensitive.
        head = bytes(buffer[: end + 2]).lower()
        del buffer[: end + 4]
        try:
            if not head.startswith(b"http/1."):
                raise ValueError
            status = int(head[9:12])
        except ValueError:
            raise _Dropped(f"not an HTTP answer: {head[:80]!r}") from None
        if _field(head, b"transfer-encoding") == b"chunked":
            data = self._chunked()
        else:
            length = int(_field(head, b"content-length") or b"0")
            while len(buffer) < length:
                self._fill()
            data = bytes(buffer[:length])
            del buffer[:length]
        if _field(head, b"connection") == b"close":
            self.close()
        return status, data

    def _chunked(self) -> bytes:
        buffer = self._buffer
        data = bytearray()
        while True:
            end = buffer.find(b"\r\n")
            while end < 0:
                self._fill()
                end = buffer.find(b"\r\n")
            size = int(bytes(buffer[:end]).split(b";")[0], 16)
            del buffer[: end + 2]
            while len(buffer) < size + 2:
                self._fill()
            data += buffer[:size]
            del buffer[: size + 2]
            if size == 0:
                return bytes(data)

    def _fail(self, err: BaseException) -> None:
        if self._on_failure is not None:
            self._on_failure(err)
        if isinstance(err, socket.timeout):
            raise BridgeUnreachable(f"no answer from the bridge at http://{self.host}:{self.port} within {self.timeout:g} s") from err
        raise BridgeUnreachable(f"no answer from the bridge at http://{self.host}:{self.port}: {err}") from err

    def call(self, name: str, args: Optional[dict] = None, *, changes_world: bool = False) -> Any:
        """Run one command; its result, or BridgeCallError."""
        payload: dict = {"name": name} if args is None else {"name": name, "args": args}
        return self.call_body(name, json.dumps(payload, separators=(",", ":")).encode(), changes_world=changes_world)

    def call_body(self, name: str, body: bytes, *, changes_world: bool = False) -> Any:
        """call() with the request body already encoded (`name` is for error messages)."""
        headers = {"Idempotency-Key": f"{self._key_prefix}-{next(self._keys)}"} if changes_world else None
        status, data = self.request("POST", "/cmd", body, headers)
        return self._result(name, status, data)

    def _result(self, name: str, status: int, data: bytes) -> Any:
        try:
            envelope = json.loads(data)
        except ValueError:
            raise BridgeError(f"{name} as {self.agent}: HTTP {status} with a body that is not JSON: {data[:200]!r}") from None
        if envelope.get("ok") is True:
            return envelope.get("result")
        error = envelope.get("error") or {}
        raise BridgeCallError(name, self.agent, status, str(error.get("code", "?")), str(error.get("message", data[:200])))

    def get_json(self, path: str) -> Any:
        status, data = self.request("GET", path)
        if status != 200:
            raise BridgeError(f"GET {path}: HTTP {status}: {data[:200]!r}")
        return json.loads(data)
