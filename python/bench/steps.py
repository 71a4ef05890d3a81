"""AEC agent steps per second: PettingZoo's performance_benchmark loop (random legal actions, a reset
whenever every agent is done) on an env that starts its own bridge, with the time Python spent
waiting for the bridge (sending, and reading answers: the cycle's step, whose answer is read just
before the next request, counts only for the wait left then) summed apart from the rest, and the CPU
of each side: the bridge's main thread (HTTP, credentials, dispatch) and its other threads (the game
thread running the commands and ticks, and V8's helpers), and Python's in the HTTP client (socket
calls included), in decoding observations, and in the rest (the env's and PettingZoo's bookkeeping,
the random agent). Prints one JSON object.

    python python/bench/steps.py [--seconds 10] [--agents 2] [--ticks 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

import numpy as np

import gcb_env
from gcb_env._http import Connection
from gcb_env._session import Session


def cpu_seconds(pid: int, tid: int | None = None) -> float:
    """User and system CPU of a process and its threads so far, or of one thread (Linux), or NaN."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--ticks", type=int, default=1)
    args = parser.parse_args()

    waited = [0.0, 0]  # wall seconds in requests, requests
    spent = {"http": 0.0, "decode": 0.0}  # this thread's CPU seconds
    send, receive = Connection.send, Connection.receive
    view = Session._view

    def timed_send(self, *a, **kw):
        # An answer still unread (the cycle's step) is read first, and timed as the receive it is.
        self._order.settle()
        started, cpu_started = time.perf_counter(), time.thread_time()
        try:
            return send(self, *a, **kw)
        finally:
            waited[0] += time.perf_counter() - started
            spent["http"] += time.thread_time() - cpu_started

    def timed_receive(self, *a, **kw):
        started, cpu_started = time.perf_counter(), time.thread_time()
        try:
            return receive(self, *a, **kw)
        finally:
            waited[0] += time.perf_counter() - started
            waited[1] += 1
            spent["http"] += time.thread_time() - cpu_started

    def timed_view(self, *a, **kw):
        cpu_started = time.thread_time()
        try:
            return view(self, *a, **kw)
        finally:
            spent["decode"] += time.thread_time() - cpu_started

    env = gcb_env.env(seed=1, n_agents=args.agents, ticks_per_cycle=args.ticks)
    try:
        env.reset(seed=1)
        # The reference, on the same bridge and connection: sequential round trips of a command that
        # does no game work (whoami), so that a loaded machine can be told from a slow step.
        player = env.unwrapped._session._conns[env.possible_agents[0]]
        began = time.perf_counter()
        trips = 0
        while time.perf_counter() - began < min(2.0, args.seconds / 5):
            player.call("whoami")
            trips += 1
        reference = trips / (time.perf_counter() - began)
        # The bridge's start and first world are not steps.
        Connection.send, Connection.receive = timed_send, timed_receive
        Session._view = timed_view
        steps = resets = 0
        bridge_pid = env.unwrapped._session.bridge.process.pid
        bridge_cpu = cpu_seconds(bridge_pid)
        bridge_main_cpu = cpu_seconds(bridge_pid, bridge_pid)
        times = os.times()
        load_before = os.getloadavg()
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            for agent in env.agent_iter(env.num_agents):
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    action = random.choice(np.flatnonzero(obs["action_mask"]).tolist())
                env.step(action)
                steps += 1
                if all(env.terminations.values()) or all(env.truncations.values()):
                    env.reset()
                    resets += 1
        elapsed = time.perf_counter() - start
        ended = os.times()
        user, system = ended.user - times.user, ended.system - times.system
        bridge_cpu = cpu_seconds(bridge_pid) - bridge_cpu
        bridge_main_cpu = cpu_seconds(bridge_pid, bridge_pid) - bridge_main_cpu
    finally:
        Connection.send, Connection.receive = send, receive
        Session._view = view
        env.close()
    per_step = 1e6 / steps
    print(
        json.dumps(
            {
                "steps_per_s": steps / elapsed,
                "steps": steps,
                "seconds": elapsed,
                "resets": resets,
                "requests_per_step": waited[1] / steps,
                "bridge_share": waited[0] / elapsed,
                "python_share": 1 - waited[0] / elapsed,
                "bridge_us_per_step": waited[0] * per_step,
                "python_us_per_step": (elapsed - waited[0]) * per_step,
                "python_cpu_us_per_step": (user + system) * per_step,
                "python_sys_cpu_us_per_step": system * per_step,
                "python_http_cpu_us_per_step": spent["http"] * per_step,
                "python_decode_cpu_us_per_step": spent["decode"] * per_step,
                "bridge_cpu_us_per_step": bridge_cpu * per_step,
                "bridge_main_cpu_us_per_step": bridge_main_cpu * per_step,
                "whoami_round_trips_per_s": reference,
                "loadavg_before": load_before,
                "loadavg_after": os.getloadavg(),
                "load1": os.getloadavg()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
