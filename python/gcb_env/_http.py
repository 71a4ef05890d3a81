"""One kept-alive HTTP/1.1 connection to the bridge per credential, and its error types.

The HTTP client is a small one on a standard-library socket (one sendall per request, a response read
by Content-Length or chunks). Measured on this bridge, for one request: http.client spent about
180 microseconds of Python CPU, urllib3 350, this one about 60 (most of http.client's goes to
parsing headers with the email package). It adds no dependency, and it speaks only to the bridge.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import socket
import time
from typing import Any, Callable, Optional

__all__ = ["BridgeError", "BridgeCallError", "BridgeUnreachable", "Connection", "RequestOrder"]


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


class _NotABridge(Exception):
    """An answer no bridge sends: not HTTP, a head that never ends, or too large."""


_MAX_HEAD = 64 * 1024
# An answer's body: the bridge's largest (a screenshot, a world listing) are a few MiB. The bound keeps
# a url that floods the client from growing its memory.
MAX_ANSWER = 64 * 1024 * 1024
# A chunk-size line: a few hex digits and perhaps an extension.
_MAX_CHUNK_LINE = 1024
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
# A connection sent on this recently is one the bridge has not closed for idleness (its keep-alive
# timeout is 5 s, counted from its answer, which came after the send): a request that changes the
# world is then never sent twice, and needs no Idempotency-Key, which costs the bridge a fingerprint
# and a stored answer.
_RECENT_S = 1.0
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


class RequestOrder:
    """One client's requests over several connections (one per credential), one after another.

    One answer at a time may be left unread (call_later): it is read before any other request of the
    client goes out, so the bridge gets every request after the one before has been answered,
    whichever connection carries it. Nothing relies on the bridge keeping the order of requests in
    flight together, which HTTP does not promise.
    """

    def __init__(self) -> None:
        self._waiting: Optional[tuple["Connection", str, Callable[[Any], None], Optional[str]]] = None

    def wait_for(self, connection: "Connection", name: str, then: Callable[[Any], None], failure: Optional[str] = None) -> None:
        """`connection` has just sent `name`, whose answer is left unread (its send() settled the last).
        `failure` names the request in the message of its error, which a later call raises."""
        self._waiting = (connection, name, then, failure)

    def settle(self) -> None:
        """Reads the answer left unread, if any, and hands its result on; its error is raised here,
        as "<failure> failed: ..." when the request was given a `failure` name."""
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            connection, name, then, failure = waiting
            try:
                status, data = connection.receive()
                then(connection._result(name, status, data))
            except BridgeError as err:
                if failure is not None:
                    # Raised from an unrelated call: say what failed. The class (and a
                    # BridgeCallError's code and status) stays, so handlers still match.
                    err.args = (f"{failure} failed: {err}",)
                raise

    def drop(self) -> None:
        """Forgets the answer left unread (its connection is being closed)."""
        self._waiting = None


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
        order: Optional["RequestOrder"] = None,
    ):
        self.host = host
        self.port = port
        self.agent = agent
        self.timeout = timeout
        self._on_failure = on_failure
        self._head = f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n".encode()
        self._sock: Optional[socket.socket] = None
        self._buffer = bytearray()
        # The deadline of the answer being read; whether its first read is still to come (that one has
        # the socket's own timeout, the whole of it); whether a later one cut the socket's timeout.
        self._deadline = 0.0
        self._first_read = True
        self._timeout_cut = False
        self._order = order if order is not None else RequestOrder()
        # The request sent whose answer is not read yet (kept to send it again), and how sending went.
        self._sent: Optional[bytes] = None
        self._send_error: Optional[OSError] = None
        self._reused = False
        self._resendable = True
        self._sent_at = float("-inf")
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

    def request(self, method: str, path: str, body: Optional[bytes] = None, changes_world: bool = False) -> tuple[int, bytes]:
        """One request, its status and body (see send() for when it is sent twice)."""
        self.send(method, path, body, changes_world)
        return self.receive()

    def send(self, method: str, path: str, body: Optional[bytes] = None, changes_world: bool = False) -> None:
        """The first half of request(): the request goes out, and receive() reads its answer. Any answer
        still awaited on a connection of the same RequestOrder is read first.

        A request that changes the world is sent again on a new connection only when this one may have
        been closed while idle, and then with an Idempotency-Key, so the bridge never runs it twice."""
        self._order.settle()
        if self._sent is not None:
            raise BridgeError(f"a request as {self.agent} was sent before the answer to the last one was read")
        now = time.monotonic()
        self._reused = self._sock is not None
        self._resendable = not changes_world or (self._reused and now - self._sent_at >= _RECENT_S)
        extra = f"Idempotency-Key: {self._key_prefix}-{next(self._keys)}\r\n".encode() if changes_world and self._resendable else b""
        self._sent_at = now
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
        self._sent = message
        try:
            if self._sock is None:
                self._sock = self._connect()
            self._sock.sendall(message)
        except OSError as err:
            # receive() tells a connection closed while idle (sent again) from a dead bridge.
            self._send_error = err

    def receive(self) -> tuple[int, bytes]:
        """The answer to the request send() sent."""
        message, self._sent = self._sent, None
        if message is None:
            raise BridgeError(f"no request as {self.agent} awaits an answer")
        send_error, self._send_error = self._send_error, None
        for attempt in (0, 1):
            try:
                if send_error is not None:
                    raise send_error
                return self._response()
            except _NotABridge as err:
                self.close()
                raise BridgeError(f"{self.url} does not answer as a bridge: {err}") from None
            except (_Dropped, ConnectionError) as err:
                self.close()
                if attempt == 0 and self._reused and self._resendable:
                    try:
                        self._sock = self._connect()
                        self._sock.sendall(message)
                    except OSError as again:
                        send_error = again
                    else:
                        send_error = None
                    continue
                self._fail(err)
            except OSError as err:
                self.close()
                self._fail(err)
        raise AssertionError("unreachable")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _fill(self) -> None:
        sock = self._sock
        assert sock is not None
        # One deadline for the whole answer, not one per read: a server sending a byte a second
        # would otherwise hold the client for as long as it liked.
        if self._first_read:
            self._first_read = False
        else:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("the answer's deadline passed")
            sock.settimeout(left)
            self._timeout_cut = True
        chunk = sock.recv(_RECV)
        if not chunk:
            raise _Dropped("the bridge closed the connection")
        self._buffer += chunk

    def _response(self) -> tuple[int, bytes]:
        self._deadline = time.monotonic() + self.timeout
        self._first_read = True
        try:
            return self._answer()
        finally:
            if self._timeout_cut:
                self._timeout_cut = False
                if self._sock is not None:
                    self._sock.settimeout(self.timeout)

    def _answer(self) -> tuple[int, bytes]:
        buffer = self._buffer
        end = buffer.find(b"\r\n\r\n")
        while end < 0:
            if len(buffer) > _MAX_HEAD:
                raise _NotABridge(f"an answer whose head is over {_MAX_HEAD} bytes")
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
            raise _NotABridge(f"not an HTTP answer: {head[:80]!r}") from None
        if _field(head, b"transfer-encoding") == b"chunked":
            data = self._chunked()
        else:
            field = _field(head, b"content-length") or b"0"
            length = int(field) if field.isdigit() else -1
            if length < 0:
                raise _NotABridge(f"an answer whose Content-Length is {field[:40]!r}")
            if length > MAX_ANSWER:
                raise _NotABridge(f"an answer of {length} bytes, larger than {MAX_ANSWER >> 20} MiB")
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
                if len(buffer) > _MAX_CHUNK_LINE:
                    raise _NotABridge("a chunked answer whose chunk size never ends")
                self._fill()
                end = buffer.find(b"\r\n")
            line = bytes(buffer[:end]).split(b";")[0].strip()
            if _HEX.fullmatch(line) is None:
                raise _NotABridge(f"a chunked answer with a chunk size of {line[:40]!r}")
            size = int(line, 16)
            if len(data) + size > MAX_ANSWER:
                raise _NotABridge(f"a chunked answer larger than {MAX_ANSWER >> 20} MiB")
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
            raise BridgeUnreachable(f"no whole answer from the bridge at {self.url} within {self.timeout:g} s") from err
        raise BridgeUnreachable(f"no answer from the bridge at {self.url}: {err}") from err

    def call(self, name: str, args: Optional[dict] = None, *, changes_world: bool = False) -> Any:
        """Run one command; its result, or BridgeCallError."""
        payload: dict = {"name": name} if args is None else {"name": name, "args": args}
        return self.call_body(name, json.dumps(payload, separators=(",", ":")).encode(), changes_world=changes_world)

    def call_body(self, name: str, body: bytes, *, changes_world: bool = False) -> Any:
        """call() with the request body already encoded (`name` is for error messages)."""
        status, data = self.request("POST", "/cmd", body, changes_world)
        return self._result(name, status, data)

    def call_later(
        self, name: str, body: bytes, then: Callable[[Any], None], *, changes_world: bool = False, failure: Optional[str] = None
    ) -> None:
        """call_body() whose answer is read just before the client's next request (or by its settle()):
        `then` gets the result, and an error is raised from there (see RequestOrder.settle)."""
        self.send("POST", "/cmd", body, changes_world)
        self._order.wait_for(self, name, then, failure)

    def _not_a_bridge(self, what: str, status: int, why: str, data: bytes) -> BridgeError:
        return BridgeError(f"{self.url} does not answer as a bridge: {what}: HTTP {status} with a body that is {why}: {data[:200]!r}")

    def _result(self, name: str, status: int, data: bytes) -> Any:
        try:
            envelope = json.loads(data)
        except ValueError:
            raise self._not_a_bridge(f"{name} as {self.agent}", status, "not JSON", data) from None
        if not isinstance(envelope, dict) or not isinstance(envelope.get("ok"), bool):
            raise self._not_a_bridge(f"{name} as {self.agent}", status, "not a JSON object with the bridge's \"ok\"", data)
        if envelope["ok"]:
            return envelope.get("result")
        error = envelope.get("error")
        error = error if isinstance(error, dict) else {}
        raise BridgeCallError(name, self.agent, status, str(error.get("code", "?")), str(error.get("message", data[:200])))

    def get_json(self, path: str) -> dict:
        """A GET's JSON object; BridgeError for another status or anything but a JSON object."""
        status, data = self.request("GET", path)
        if status != 200:
            raise BridgeError(f"GET {path}: HTTP {status}: {data[:200]!r}")
        try:
            answer = json.loads(data)
        except ValueError:
            raise self._not_a_bridge(f"GET {path}", status, "not JSON", data) from None
        if not isinstance(answer, dict):
            raise self._not_a_bridge(f"GET {path}", status, "not a JSON object", data)
        return answer
