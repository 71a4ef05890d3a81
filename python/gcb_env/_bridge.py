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
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

from . import _research
from ._http import BridgeError

__all__ = ["BridgeExited", "BridgeNotFound", "BridgeProcess", "find_bridge_command"]

_ALPHANUMERIC = string.ascii_letters + string.digits
# A faction player, plus what the macro actions need: paint_tile and invoke_power are action_global.
PLAYER_PERMISSIONS = ["read_own_faction", "action_faction", "action_global", "advance_time"]


class BridgeNotFound(BridgeError):
    """No bridge to start was found."""


class BridgeExited(BridgeError):
    """The bridge process is gone."""


def _token(length: int = 48) -> str:
    return "".join(secrets.choice(_ALPHANUMERIC) for _ in range(length))


def _repo_holding(start: Path) -> Optional[Path]:
    """The checkout of the bridge holding `start`, if any."""
    for folder in (start, *start.parents):
        package = folder / "package.json"
        if (folder / "bin" / "gcb.js").is_file() and package.is_file():
            try:
                if json.loads(package.read_text()).get("name") == "game-control-bridge":
                    return folder
            except (OSError, ValueError):
                continue
    return None


def find_bridge_command() -> tuple[list[str], Optional[Path]]:
    """The command that starts a bridge (before `serve`'s own flags) and the dir to run it in.

    In this order: the GCB_BRIDGE environment variable (a command, split like a shell would); the
    checkout holding the current directory (`node bin/gcb.js`); an installed `gcb`.
    """
    configured = os.environ.get("GCB_BRIDGE", "").strip()
    if configured:
        return shlex.split(configured), None
    repo = _repo_holding(Path.cwd().resolve())
    if repo is not None:
        node = shutil.which("node")
        if node is None:
            raise BridgeNotFound(f"found the bridge's checkout at {repo}, but no `node` on PATH to run it")
        return [node, str(repo / "bin" / "gcb.js")], repo
    installed = shutil.which("gcb")
    if installed is not None:
        return [installed], None
    raise BridgeNotFound(
        "no bridge to start: set GCB_BRIDGE to a command (e.g. 'node /path/to/bin/gcb.js'), run from inside "
        "the bridge's checkout, or install the `gcb` command; or pass url= and tokens= for a running bridge"
    )


# Bridges still running in this process, stopped at exit whatever happened.
_LIVE: "set[BridgeProcess]" = set()
_LIVE_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
    for bridge in live:
        bridge.stop()


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    # Linux: the bridge gets SIGTERM when this process dies, even by SIGKILL, so no bridge outlives a
    # crashed test. Elsewhere atexit and the process group are what there is.
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


_DIR_PREFIX = "gcb-env-"
_OWNER = "owner.pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_dirs() -> None:
    """Removes the dirs of envs whose Python process died without cleaning up (SIGKILL, say): each dir
    names its owner, and one whose owner and bridge are both gone is left over."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_DIR_PREFIX}*"):
        try:
            owner = int((folder / _OWNER).read_text())
            runtime = json.loads((folder / "bridge.runtime.json").read_text()).get("pid") if (folder / "bridge.runtime.json").exists() else None
        except (OSError, ValueError):
            continue  # not one of ours, or still being written
        if not _alive(owner) and not (isinstance(runtime, int) and _alive(runtime)):
            shutil.rmtree(folder, ignore_errors=True)


class BridgeProcess:
    """One bridge child: its dir (bridge.toml, agents.json, log) and its process group."""

    def __init__(self, agents: list[str], seed: int, start_timeout: float = 90.0):
        command, cwd = find_bridge_command()
        remove_stale_dirs()
        self.dir = Path(tempfile.mkdtemp(prefix=_DIR_PREFIX))
        (self.dir / _OWNER).write_text(str(os.getpid()))
        self.tokens = {agent: _token() for agent in agents}
        self.god_token = _token()
        self.log_path = self.dir / "bridge.log"
        self._write_config(agents, seed)
        argv = [*command, "serve", "--config-dir", str(self.dir), "--port", "0", *_research.SERVE_FLAGS]
        self._log = open(self.log_path, "wb")
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=str(cwd) if cwd is not None else None,
                stdin=subprocess.DEVNULL,
                # One log line a request would grow the log without bound over a long training run,
                # and cost the bridge a write each: warnings and errors only, unless asked otherwise.
                env={**os.environ, "GCB_LOG_LEVEL": os.environ.get("GCB_LOG_LEVEL", "warn")},
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so stop() reaches every child it starts
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        except OSError as err:
            self._log.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            raise BridgeNotFound(f"could not start the bridge with {shlex.join(argv)}: {err}") from err
        with _LIVE_LOCK:
            _LIVE.add(self)
        self.command = argv
        try:
            self.url, self.port = self._wait_listening(start_timeout)
        except BaseException:
            self.stop()
            raise

    def _write_config(self, agents: list[str], seed: int) -> None:
        toml = f'enabled = true\n[Bridge]\ntoken = "{_token()}"\n[Game]\nsuppress_startup_window = true\nseed = {seed}\n'
        players = [
            {
                "id": agent,
                "token": self.tokens[agent],
                "role": "faction_player",
                "kingdom_claim": f"auto:{n}",
                "permissions": PLAYER_PERMISSIONS,
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
