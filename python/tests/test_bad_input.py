"""Bad actions change nothing and name the agent and the action; a dead bridge is reported, not waited
for; a bridge given by url is checked at construction."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import gcb_env
from gcb_env._bridge import remove_stale_dirs
from gcb_env._http import Connection


@pytest.fixture
def requests(monkeypatch):
    """How many HTTP requests the envs send from now on (every request goes out through send)."""
    sent = []
    real = Connection.send

    def counted(self, *args, **kwargs):
        sent.append(args[:2])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Connection, "send", counted)
    return sent


def test_bad_actions_raise_and_send_nothing(shared_bridge, requests):
    env = shared_bridge.env()
    env.reset(seed=8)
    agent = env.agent_selection
    mask = env.last()[0]["action_mask"]
    masked = int(np.flatnonzero(mask == 0)[0])  # a kingdom starts with one city: anchors 2..4 are empty
    before = env.unwrapped.world_hash()
    requests.clear()
    cases = [(masked, "masked out"), (13, "outside the action space"), (-1, "outside the action space"), (1.5, "not an integer"), ("2", "not an integer"), (True, "boolean"), (None, "no action")]
    for action, why in cases:
        with pytest.raises(gcb_env.InvalidAction) as caught:
            env.step(action)
        message = str(caught.value)
        assert agent in message and why in message, message
        if action is not None:
            assert repr(action) in message or str(action) in message, message
    assert requests == [], "nothing reaches the bridge"
    assert env.agent_selection == agent, "the turn did not move"
    assert env.unwrapped.world_hash() == before
    env.close()


def test_parallel_bad_action_sends_nothing_for_anyone(shared_bridge, requests):
    env = shared_bridge.parallel_env()
    try:
        obs, _ = env.reset(seed=8)
        masked = int(np.flatnonzero(obs["kingdom_1"]["action_mask"] == 0)[0])
        requests.clear()
        with pytest.raises(gcb_env.InvalidAction, match=f"kingdom_1: action {masked} .*masked out"):
            env.step({"kingdom_0": 0, "kingdom_1": masked})
        with pytest.raises(gcb_env.InvalidAction, match="no action for kingdom_1"):
            env.step({"kingdom_0": 0})
        with pytest.raises(gcb_env.InvalidAction, match="not live"):
            env.step({"kingdom_0": 0, "kingdom_1": 0, "kingdom_7": 0})
        assert requests == []
        assert env.num_cycles == 0
    finally:
        env.close()


def test_a_dead_bridge_is_named_within_5_s():
    env = gcb_env.env(seed=1)
    try:
        env.reset(seed=8)
        bridge = env.unwrapped._session.bridge
        os.kill(bridge.process.pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(gcb_env.BridgeExited) as caught:
            while time.monotonic() - started < 10:  # the kill lands at once; the loop only bounds the test
                env.step(0)
        assert time.monotonic() - started < 5
        message = str(caught.value)
        assert "killed by SIGKILL" in message and "last log line" in message, message
        assert "listening" in message or "{" in message, "the last line of the bridge's log is quoted"
    finally:
        env.close()
    assert not bridge.dir.exists()


def _thread_gone(native_id: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while os.path.exists(f"/proc/self/task/{native_id}") and time.monotonic() < deadline:
        time.sleep(0.01)
    return not os.path.exists(f"/proc/self/task/{native_id}")


def test_a_bridge_lives_as_long_as_its_process_not_its_thread_and_close_ends_it():
    # The kernel ends a child on its parent's death (PR_SET_PDEATHSIG), and counts as the parent the
    # thread that forked: an env reset in a worker thread lost its bridge when the thread ended.
    made = {}

    def start() -> None:
        env = gcb_env.parallel_env(seed=1, ticks_per_cycle=1)
        made["env"] = env
        made["thread"] = threading.get_native_id()
        env.reset(seed=8)

    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    env = made["env"]
    bridge = env.unwrapped._session.bridge
    try:
        assert _thread_gone(made["thread"], 10), "the worker thread is gone for the kernel too"
        # Steps for a second, long enough for a bridge sent SIGTERM to be gone.
        steps = 0
        started = time.monotonic()
        while time.monotonic() - started < 1.0:
            env.step({agent: 0 for agent in env.agents})
            steps += 1
        assert bridge.exit_description() is None
        assert env.num_cycles == steps
    finally:
        env.close()
    assert bridge.process.returncode is not None, "close() returned after the process exited"
    assert not bridge.dir.exists()
    with pytest.raises(ProcessLookupError):
        os.killpg(bridge.process.pid, 0)  # nothing of its process group is left


def test_url_and_tokens_are_checked_at_construction(shared_bridge):
    bridge = shared_bridge.process
    good = shared_bridge.tokens

    with pytest.raises(gcb_env.BridgeUnreachable, match="no bridge answers at http://127.0.0.1:9"):
        gcb_env.env(url="http://127.0.0.1:9", tokens=good)
    with pytest.raises(gcb_env.BridgeError, match="token given for kingdom_1 was refused: 401 UNAUTHORIZED"):
        gcb_env.env(url=bridge.url, tokens={**good, "kingdom_1": "x" * 48})
    with pytest.raises(gcb_env.BridgeError, match="token given for god belongs to 'kingdom_0', a faction_player"):
        gcb_env.parallel_env(url=bridge.url, tokens={**good, "god": good["kingdom_0"]})
    with pytest.raises(ValueError, match="missing: \\['god'\\]"):
        gcb_env.env(url=bridge.url, tokens=bridge.tokens)
    with pytest.raises(ValueError, match="url and tokens go together"):
        gcb_env.env(url=bridge.url)

    # The right ones: an env on a bridge it did not start, which close() leaves running.
    guest = gcb_env.parallel_env(url=bridge.url, tokens=good, ticks_per_cycle=1)
    obs, _ = guest.reset(seed=4)
    guest.step({agent: 0 for agent in guest.agents})
    assert guest.num_cycles == 1
    guest.close()
    bridge.check_alive()


CHILD = """
import sys, time, gcb_env
env = gcb_env.parallel_env(seed=1)
env.world_hash()  # starts the bridge
bridge = env.unwrapped._session.bridge
print(bridge.process.pid, bridge.dir, flush=True)
if sys.argv[1] == "wait":
    time.sleep(60)
"""
ENDINGS = ["exit", "sigkill"]


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def children():
    """A Python process for each ending, started together: each waits seconds for its bridge."""
    started = {
        ending: subprocess.Popen([sys.executable, "-c", CHILD, "wait" if ending == "sigkill" else "exit"], stdout=subprocess.PIPE, text=True)
        for ending in ENDINGS
    }
    yield started
    for child in started.values():
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.parametrize("ending", ENDINGS)
def test_no_bridge_outlives_its_python_process(children, ending):
    child = children[ending]
    pid, folder = child.stdout.readline().split()
    if ending == "sigkill":
        child.kill()  # no atexit, no close(): the bridge learns of it from the kernel
    child.wait(30)
    assert _gone(int(pid), 10), f"bridge {pid} still running after its Python process ended ({ending})"
    if ending == "exit":
        assert not Path(folder).exists(), "atexit removed the dir"
    else:
        assert Path(folder).exists()
        remove_stale_dirs()  # what the next env to start does first
        assert not Path(folder).exists(), "a dead owner's dir is removed"
