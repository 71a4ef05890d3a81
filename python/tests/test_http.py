"""The HTTP client against a small server that logs when each request arrives and when each answer
leaves. Its order: an answer left unread (the cycle's step) is read before any other request of the
same client (one RequestOrder) goes out, on whichever connection; its error is raised there. Its
resends: a request that changes the world goes out twice only on a connection that may have been
closed while idle, and then with an Idempotency-Key."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from gcb_env import _http
from gcb_env._http import BridgeCallError, BridgeError, BridgeUnreachable, Connection, RequestOrder

# How long the server holds the answer to a command named "slow": long enough that a request sent
# without waiting for it would surely arrive first.
SLOW_S = 0.3
# A command named "held" is answered once the test releases it (or after this, so nothing hangs).
HELD_S = 10.0


class LoggingServer:
    """HTTP/1.1 with keep-alive on loopback, a thread per connection: answers POST /cmd with
    {"ok":true,"result":{"name":...}}, or an error envelope for a command named "refused"; logs
    ("in"|"out", name) in order."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.release = threading.Event()
        # (name, its Idempotency-Key or None), in order of arrival.
        self.keys: list[tuple[str, object]] = []
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _note(self, what: str, name: str) -> None:
        with self._lock:
            self.log.append((what, name))

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            self._answer(conn)
        except OSError:
            pass  # the client went away
        finally:
            conn.close()

    def _answer(self, conn: socket.socket) -> None:
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            fields = {}
            for line in head.split(b"\r\n")[1:]:
                key, _, value = line.partition(b":")
                fields[key.strip().lower()] = value.strip().decode()
            length = int(fields.get(b"content-length", "0"))
            while len(buffer) < length:
                buffer += conn.recv(65536)
            body, buffer = buffer[:length], buffer[length:]
            name = json.loads(body)["name"]
            self._note("in", name)
            with self._lock:
                self.keys.append((name, fields.get(b"idempotency-key")))
            if name == "drop":
                return  # the connection closes without an answer
            if name == "slow":
                time.sleep(SLOW_S)
            if name == "held":
                self.release.wait(HELD_S)
            if name == "refused":
                answer = {"ok": False, "error": {"code": "GAME_REJECTED", "message": "not now"}}
                status = b"422 Unprocessable Entity"
            else:
                answer = {"ok": True, "result": {"name": name}}
                status = b"200 OK"
            data = json.dumps(answer).encode()
            self._note("out", name)
            conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)
            if name == "then_close":
                return  # answered, then closed as if idle too long

    def close(self) -> None:
        self._listener.close()


@pytest.fixture
def server():
    running = LoggingServer()
    yield running
    running.close()


def connections(server: LoggingServer, *agents: str) -> list[Connection]:
    order = RequestOrder()
    return [Connection("127.0.0.1", server.port, "token", agent, 5.0, None, order) for agent in agents]


def body(name: str) -> bytes:
    return json.dumps({"name": name}).encode()


def test_an_answer_left_unread_is_read_before_the_next_request_on_another_connection(server):
    first, second = connections(server, "kingdom_0", "kingdom_1")
    results = []
    first.call_later("slow", body("slow"), results.append, changes_world=True)
    assert results == [], "call_later returns before the answer"
    assert second.call("whoami") == {"name": "whoami"}
    assert results == [{"name": "slow"}], "the unread answer was handed on before the next request"
    assert server.log == [("in", "slow"), ("out", "slow"), ("in", "whoami"), ("out", "whoami")]


def test_the_same_connection_reads_its_own_unread_answer_first(server):
    (conn,) = connections(server, "kingdom_0")
    results = []
    conn.call_later("slow", body("slow"), results.append)
    assert conn.call("observe") == {"name": "observe"}
    assert results == [{"name": "slow"}]
    assert server.log == [("in", "slow"), ("out", "slow"), ("in", "observe"), ("out", "observe")]


def test_settle_reads_the_answer_without_sending_anything(server):
    (conn,) = connections(server, "kingdom_0")
    order = conn._order
    results = []
    conn.call_later("slow", body("slow"), results.append)
    order.settle()
    assert results == [{"name": "slow"}]
    order.settle()  # nothing left: nothing read, nothing sent
    assert results == [{"name": "slow"}]
    assert server.log == [("in", "slow"), ("out", "slow")]


def test_the_unread_answers_error_is_raised_by_the_next_call_which_is_then_sent(server):
    first, second = connections(server, "kingdom_0", "kingdom_1")
    results = []
    first.call_later("refused", body("refused"), results.append)
    with pytest.raises(BridgeCallError) as caught:
        second.call("whoami")
    assert caught.value.command == "refused" and caught.value.agent == "kingdom_0" and caught.value.code == "GAME_REJECTED"
    assert results == []
    assert ("in", "whoami") not in server.log, "the call that raised sent nothing"
    assert second.call("whoami") == {"name": "whoami"}, "the next call goes out as usual"


def test_two_clients_do_not_wait_for_each_other(server):
    (mine,) = connections(server, "kingdom_0")
    (theirs,) = connections(server, "kingdom_0")
    mine.call_later("held", body("held"), lambda _result: None)
    assert theirs.call("whoami") == {"name": "whoami"}
    assert ("out", "held") not in server.log, "another env's request went out while this env's answer was held"
    server.release.set()
    mine._order.settle()
    assert server.log[-1] == ("out", "held")


def test_a_connection_never_has_two_requests_in_flight(server):
    (conn,) = connections(server, "kingdom_0")
    conn.send("POST", "/cmd", body("slow"))
    with pytest.raises(BridgeError, match="before the answer to the last one was read"):
        conn.send("POST", "/cmd", body("observe"))
    assert conn.receive()[0] == 200


def test_a_recently_used_connection_sends_a_world_change_once_without_a_key(server):
    (conn,) = connections(server, "kingdom_0")
    conn.call("whoami")
    assert conn.call("spawn", changes_world=True) == {"name": "spawn"}
    assert server.keys[-1] == ("spawn", None), "no Idempotency-Key where nothing is sent twice"
    with pytest.raises(BridgeUnreachable):
        conn.call("drop", changes_world=True)
    assert server.keys.count(("drop", None)) == 1, "a world change without a key is never sent again"


def test_a_fresh_connection_needs_no_key(server):
    (conn,) = connections(server, "kingdom_0")
    assert conn.call("spawn", changes_world=True) == {"name": "spawn"}
    assert server.keys == [("spawn", None)]


def test_a_connection_closed_while_idle_is_reopened_and_the_change_sent_again_with_a_key(server, monkeypatch):
    monkeypatch.setattr(_http, "_RECENT_S", 0.05)
    (conn,) = connections(server, "kingdom_0")
    conn.call("then_close")
    time.sleep(0.1)  # idle longer than _RECENT_S: the bridge may have closed it, as this server did
    assert conn.call("spawn", changes_world=True) == {"name": "spawn"}
    name, key = server.keys[-1]
    assert name == "spawn" and isinstance(key, str) and key, "sent with an Idempotency-Key"
    assert [entry for entry in server.keys if entry[0] == "spawn"] == [("spawn", key)], "the bridge got it once, on the new connection"
    assert conn.call("whoami") == {"name": "whoami"}


def test_keys_differ_from_request_to_request(server, monkeypatch):
    monkeypatch.setattr(_http, "_RECENT_S", 0.0)
    first, second = connections(server, "kingdom_0", "kingdom_1")
    for conn in (first, second, first, second):
        conn.call("whoami")
        conn.call("spawn", changes_world=True)
    keys = [key for name, key in server.keys if name == "spawn"]
    assert all(keys) and len(set(keys)) == 4
