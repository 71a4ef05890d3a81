"""Child processes started from one thread that lives as long as the Python process.

On Linux the bridge asks the kernel for SIGTERM when its parent dies (PR_SET_PDEATHSIG), so that no
bridge outlives its Python process, even one killed by SIGKILL. But the kernel's "parent" is the
thread that forked, not the process: a bridge started by an env reset in a worker thread was ended
when that thread ended. So every bridge is started from this module's own thread, which ends only
with the process."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import Any

__all__ = ["popen"]

_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1

_lock = threading.Lock()
_requests: "queue.SimpleQueue[tuple[list[str], dict[str, Any], Future]]" = queue.SimpleQueue()
_thread: "threading.Thread | None" = None


def _die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:
        return
    # The process died between the fork and the prctl: no signal will come.
    if os.getppid() != parent:
        os._exit(1)


def _serve(requests: "queue.SimpleQueue[tuple[list[str], dict[str, Any], Future]]") -> None:
    while True:
        argv, options, done = requests.get()
        if not done.set_running_or_notify_cancel():
            continue
        try:
            done.set_result(subprocess.Popen(argv, **options))
        except BaseException as err:  # handed to the caller's thread, whatever it is
            done.set_exception(err)


def popen(argv: list[str], **options: Any) -> subprocess.Popen:
    """subprocess.Popen(argv, **options), forked from the process's spawning thread; on Linux the
    child gets SIGTERM when this process dies."""
    global _thread
    if _LINUX:
        options["preexec_fn"] = lambda parent=os.getpid(): _die_with_parent(parent)
    done: Future = Future()
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_serve, args=(_requests,), name="gcb-env-spawner", daemon=True)
            _thread.start()
        _requests.put((argv, options, done))
    return done.result()


def _after_fork_in_child() -> None:
    # Threads do not survive fork(): a forked child starts its own spawning thread when it needs one.
    global _lock, _requests, _thread
    _lock = threading.Lock()
    _requests = queue.SimpleQueue()
    _thread = None


os.register_at_fork(after_in_child=_after_fork_in_child)
