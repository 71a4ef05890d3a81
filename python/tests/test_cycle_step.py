"""The cycle's step: a step the bridge yields (`stopped: "yielded"`, fewer ticks than asked, because
another agent's command was waiting) is stepped again for the rest, so episodes and hashes are the
same; a step cut short by the bridge's deadline is an error, as before; and a failed step is raised
by the env's next call as what it is, "the previous cycle's step failed: ...".

The yields are made on this side: a canned server for the client's loop, and for whole episodes a
connection that asks the bridge for part of each step and marks the answer yielded, as the bridge
does when another agent's command waits."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any, Optional

import numpy as np
import pytest

import gcb_env
from conftest import legal_action
from gcb_env import _research
from gcb_env._http import BridgeCallError, BridgeError, Connection, RequestOrder


class CannedStepServer:
    """Answers each POST /cmd `step` with the next of `answers` (a result, or None for a 422) and
    logs the ticks asked."""

    def __init__(self, answers: list[Optional[dict]]) -> None:
        self.answers = list(answers)
        self.asked: list[int] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return
        with conn:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                length = next(int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:"))
                while len(buffer) < length:
                    buffer += conn.recv(65536)
                request, buffer = json.loads(buffer[:length]), buffer[length:]
                self.asked.append(request["args"]["ticks"])
                result = self.answers.pop(0)
                if result is None:
                    envelope, status = {"ok": False, "error": {"code": "GAME_REJECTED", "message": "not now"}}, b"422 Unprocessable Entity"
                else:
                    envelope, status = {"ok": True, "result": result}, b"200 OK"
                data = json.dumps(envelope).encode()
                conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)

    def close(self) -> None:
        self._listener.close()


def stepped(tick_before: int, ticks: int, stopped: Optional[str] = None, **more: Any) -> dict:
    result = {"tick_before": tick_before, "tick": tick_before + ticks, "ticks": ticks, **more}
    if stopped is not None:
        result["stopped"] = stopped
    return result


def step_through(answers: list[Optional[dict]], ticks: int) -> tuple[list[dict], CannedStepServer, RequestOrder]:
    server = CannedStepServer(answers)
    order = RequestOrder()
    conn = Connection("127.0.0.1", server.port, "token", "kingdom_0", 5.0, None, order)
    results: list[dict] = []
    _research.step_later(conn, ticks, results.append, failure="the previous cycle's step")
    return results, server, order


def test_a_yielded_step_is_stepped_again_for_the_rest():
    answers = [stepped(0, 3, "yielded"), stepped(3, 4, "yielded"), stepped(7, 3, hash="00000000000000ab")]
    results, server, order = step_through(answers, 10)
    try:
        order.settle()
    finally:
        server.close()
    assert server.asked == [10, 7, 3], "the rest each time, until the asked ticks are done"
    assert results == [{"tick_before": 0, "tick": 10, "ticks": 10, "hash": "00000000000000ab"}]


def test_a_step_yielded_after_its_last_tick_needs_no_more():
    results, server, order = step_through([stepped(5, 4, "yielded")], 4)
    try:
        order.settle()
    finally:
        server.close()
    assert server.asked == [4]
    assert results[0]["tick"] == 9 and results[0]["ticks"] == 4


def test_a_step_cut_by_the_deadline_is_still_an_error():
    results, server, order = step_through([stepped(0, 2, "yielded"), stepped(2, 5, "deadline")], 10)
    try:
        with pytest.raises(BridgeError, match=r"^the previous cycle's step failed: step 8 stopped after 5 ticks \(deadline\): lower ticks_per_cycle"):
            order.settle()
    finally:
        server.close()
    assert server.asked == [10, 8] and results == []


@pytest.mark.parametrize("ran", [0, 11, None, 2.0, True])
def test_a_yield_that_ran_no_tick_or_more_than_asked_is_an_error(ran):
    results, server, order = step_through([{"tick_before": 0, "tick": 0, "ticks": ran, "stopped": "yielded"}], 10)
    try:
        with pytest.raises(BridgeError, match="yielded after .* ticks; a bridge yields after 1 to 10"):
            order.settle()
    finally:
        server.close()
    assert server.asked == [10], "nothing stepped again: no endless loop"


def test_a_refused_rest_is_raised_as_the_previous_steps_failure():
    results, server, order = step_through([stepped(0, 6, "yielded"), None], 10)
    try:
        with pytest.raises(BridgeCallError, match="^the previous cycle's step failed: step as kingdom_0: 422 GAME_REJECTED") as caught:
            order.settle()
    finally:
        server.close()
    assert caught.value.code == "GAME_REJECTED", "the error keeps its class and code"


class Yielding:
    """Makes a connection's steps of more than one tick yield: the bridge is asked for part of the ticks
    (a seeded share, at least one), and its answer is marked stopped "yielded"."""

    def __init__(self, conn: Connection, rng: np.random.Generator) -> None:
        self.yields = 0
        self._rng = rng
        self._shortened = False
        send, result = conn.send, conn._result

        def short_send(method, path, body=None, changes_world=False):
            request = json.loads(body) if body else {}
            self._shortened = False
            if request.get("name") == "step" and request["args"]["ticks"] > 1:
                part = int(self._rng.integers(1, request["args"]["ticks"]))
                body = json.dumps({"name": "step", "args": {"ticks": part}}).encode()
                self._shortened = True
            return send(method, path, body, changes_world)

        def marked_result(name, status, data):
            answer = result(name, status, data)
            if self._shortened:
                self._shortened = False
                self.yields += 1
                answer = {**answer, "stopped": "yielded"}
            return answer

        conn.send = short_send
        conn._result = marked_result


@pytest.mark.parametrize("hash_each_cycle", [True, False], ids=["as the god", "as the first agent"])
def test_yielded_steps_leave_episodes_and_hashes_the_same(shared_bridge, hash_each_cycle):
    cycles, seed = 25, 31

    def run(yielding: bool) -> tuple[list, int]:
        env = shared_bridge.parallel_env(ticks_per_cycle=6, hash_each_cycle=hash_each_cycle)
        yields = []
        try:
            obs, _ = env.reset(seed=seed)
            if yielding:
                rng = np.random.default_rng(0)
                yields = [Yielding(conn, rng) for conn in env.unwrapped._session._conns.values()]
            rng = np.random.default_rng(1)
            history = []
            for _ in range(cycles):
                actions = {agent: legal_action(rng, obs[agent]["action_mask"]) for agent in env.agents}
                obs, rewards, _terms, _truncs, infos = env.step(actions)
                history.append((actions, rewards, infos, env.last_hash, env.unwrapped._session.last_tick))
            history.append(env.world_hash())
        finally:
            env.close()
        return history, sum(y.yields for y in yields)

    plain, _ = run(yielding=False)
    yielded, yields = run(yielding=True)
    assert yields >= cycles, "each cycle's step yielded at least once"
    assert yielded == plain


def test_a_failed_step_is_raised_by_the_next_call_as_the_previous_cycles_step(shared_bridge, monkeypatch):
    # A step of 0 ticks is 400 BAD_ARGS: the cycle's step fails, and its answer is read by the next call.
    monkeypatch.setattr(_research, "_step_body", lambda ticks: b'{"name":"step","args":{"ticks":0}}')
    env = shared_bridge.env()
    try:
        env.reset(seed=12)
        for _ in env.possible_agents:
            env.step(0)
        with pytest.raises(BridgeCallError, match=r"^the previous cycle's step failed: step as kingdom_0: 400 BAD_ARGS") as caught:
            env.step(0)
        assert caught.value.code == "BAD_ARGS"
        env.step(0)  # the failure was raised once; the env goes on
    finally:
        env.close()

    penv = shared_bridge.parallel_env()
    try:
        penv.reset(seed=12)
        penv.step({agent: 0 for agent in penv.agents})
        with pytest.raises(BridgeCallError, match="^the previous cycle's step failed: "):
            penv.world_hash()
    finally:
        penv.close()
