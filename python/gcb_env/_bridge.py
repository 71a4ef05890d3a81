"""The bridge an env starts for itself: found, configured in a fresh dir, started in its own process
group under the lockstep clock, and stopped for good (close(), atexit, or the parent's death)."""

from __future__ import annotations

import atexit
import json
import os
import secrets
import shlex
import shutil
import signal
import string
import subprocess
import threading
import time
from pathlib import Path
from typing import Optional

from . import _research, _spawn
from ._dirs import new_dir, note_bridge, remove_stale_dirs, user_folder
from ._http import BridgeError
from ._search import BridgeNotFound, find_bridge_command

__all__ = ["BridgeExited", "BridgeNotFound", "BridgeProcess", "find_bridge_command", "remove_stale_dirs"]

_ALPHANUMERIC = string.ascii_letters + string.digits
# A faction player, plus what the macro actions need: paint_tile and invoke_power are action_global.
PLAYER_PERMISSIONS = ["read_own_faction", "action_faction", "action_global", "advance_time"]


class BridgeExited(BridgeError):
    """The bridge process is gone."""


def _token(length: int = 48) -> str:
    return "".join(secrets.choice(_ALPHANUMERIC) for _ in range(length))


# Bridges still running in this process, stopped at exit whatever happened.
_LIVE: "set[BridgeProcess]" = set()
_LIVE_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
    for bridge in live:
        bridge.stop()


class BridgeProcess:
    """One bridge child: its dir (bridge.toml, agents.json, log) and its process group."""

    def __init__(self, agents: list[str], seed: int, start_timeout: float = 90.0, full_intel: bool = False):
        command, cwd = find_bridge_command()
        folder = user_folder()
        remove_stale_dirs(folder)
        self.dir = new_dir(folder)
        self.tokens = {agent: _token() for agent in agents}
        self.god_token = _token()
        self.log_path = self.dir / "bridge.log"
        self._write_config(agents, seed, full_intel)
        argv = [*command, "serve", "--config-dir", str(self.dir), "--port", "0", *_research.SERVE_FLAGS]
        self._log = open(self.log_path, "wb")
        try:
            self.process = _spawn.popen(
                argv,
                cwd=str(cwd) if cwd is not None else None,
                stdin=subprocess.DEVNULL,
                # One log line a request would grow the log without bound over a long training run,
                # and cost the bridge a write each: warnings and errors only, unless asked otherwise.
                env={**os.environ, "GCB_LOG_LEVEL": os.environ.get("GCB_LOG_LEVEL", "warn")},
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so stop() reaches every child it starts
            )
        except OSError as err:
            self._log.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            raise BridgeNotFound(f"could not start the bridge with {shlex.join(argv)}: {err}") from err
        with _LIVE_LOCK:
            _LIVE.add(self)
        note_bridge(self.dir, self.process.pid)
        self.command = argv
        try:
            self.url, self.port = self._wait_listening(start_timeout)
        except BaseException:
            self.stop()
            raise

    def _write_config(self, agents: list[str], seed: int, full_intel: bool) -> None:
        toml = f'enabled = true\n[Bridge]\ntoken = "{_token()}"\n[Game]\nsuppress_startup_window = true\nseed = {seed}\n'
        players = [
            {
                "id": agent,
                "token": self.tokens[agent],
                "role": "faction_player",
                "kingdom_claim": f"auto:{n}",
                # full_intel: each player also sees every kingdom (observe's others, wild and rival parts).
                "permissions": PLAYER_PERMISSIONS + (["read_all"] if full_intel else []),
            }
            for n, agent in enumerate(agents)
        ]
        roster = {
            "scenario": "pvp",
            "partial_intel": True,
            "agents": [*players, {"id": "env", "token": self.god_token, "role": "god"}],
        }
        for name, text in (("bridge.toml", toml), ("agents.json", json.dumps(roster, indent=1))):
            path = self.dir / name
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(text)

    def _wait_listening(self, timeout: float) -> tuple[str, int]:
        runtime = self.dir / "bridge.runtime.json"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                info = json.loads(runtime.read_text())
                if info.get("url") and info.get("pid") == self.process.pid:
                    return str(info["url"]), int(info["port"])
            except (OSError, ValueError):
                pass  # not written yet, or being replaced
            time.sleep(0.02)
        raise BridgeError(f"the bridge did not listen within {timeout:g} s; its last log line: {self.last_log_line()}")

    def last_log_line(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 8192))
                lines = [line.strip() for line in f.read().decode("utf-8", "replace").splitlines() if line.strip()]
        except OSError:
            return "(no log)"
        return lines[-1][:500] if lines else "(the log is empty)"

    def exit_description(self) -> Optional[str]:
        """How the bridge ended, or None while it runs. It is not reaped here (see stop())."""
        if self.process.returncode is not None:
            code = self.process.returncode
            killed = code < 0
            code = -code if killed else code
        else:
            try:
                status = os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                status = None
            if status is None:
                return None
            killed = status.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            code = status.si_status
        if killed:
            try:
                return f"was killed by {signal.Signals(code).name}"
            except ValueError:
                return f"was killed by signal {code}"
        return f"exited with code {code}"

    def check_alive(self) -> None:
        """Raises BridgeExited, naming the exit and the last log line, when the process is gone."""
        gone = self.exit_description()
        if gone is not None:
            raise BridgeExited(f"the bridge (pid {self.process.pid}) {gone}; its last log line: {self.last_log_line()}")

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the process group and waits for the bridge to exit, then removes its dir."""
        with _LIVE_LOCK:
            _LIVE.discard(self)
        if self.process.returncode is None:
            self._signal(signal.SIGTERM)
            if not self.exited_unreaped(timeout):
                self._signal(signal.SIGKILL)
            # Whatever the bridge started and left behind goes with its group. Sent while the exited
            # bridge is not reaped yet, so the group id cannot belong to anyone else.
            self._signal(signal.SIGKILL)
            self.process.wait()
        if not self._log.closed:
            self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def exited_unreaped(self, timeout: float) -> bool:
        """Waits for the bridge to exit without reaping it; False when it did not within `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    return True
            except ChildProcessError:
                return True  # already reaped elsewhere
            time.sleep(0.01)
        return False

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
