"""Which bridge an env starts: only one it can trust.

In this order: the GCB_BRIDGE environment variable (a command); the bridge's checkout holding the
current directory; an installed `gcb`. A checkout is found from the current directory upward, and
trusted only when every folder on the way, the checkout and its bin/ are owned by the user (or root)
and not writable by group or others, as git's safe.directory trusts a repository: a package.json and
a bin/gcb.js planted in a shared parent folder were once run, and read the bridge's tokens."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from pathlib import Path
from typing import Optional

from ._http import BridgeError

__all__ = ["BridgeNotFound", "find_bridge_command"]

_PACKAGE_NAME = "game-control-bridge"
# The bridge's package.json is a few KiB; a planted one may be anything.
_MAX_PACKAGE_JSON = 1 << 20


class BridgeNotFound(BridgeError):
    """No bridge to start was found, or the one found is not to be trusted."""


def _package_name(path: Path) -> Optional[str]:
    """The "name" of a package.json: read without blocking (a FIFO) and within a bound."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_PACKAGE_JSON:
            return None
        package = json.loads(os.read(fd, _MAX_PACKAGE_JSON))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return package.get("name") if isinstance(package, dict) else None


def _is_checkout(folder: Path) -> bool:
    return (folder / "bin" / "gcb.js").is_file() and _package_name(folder / "package.json") == _PACKAGE_NAME


def _why_untrusted(folder: Path) -> Optional[str]:
    """What makes `folder` one that others can change, or None."""
    try:
        info = os.stat(folder)
    except OSError as err:
        return f"cannot be checked ({err.strerror})"
    uid = os.geteuid()
    if info.st_uid not in (uid, 0):
        return f"is owned by uid {info.st_uid}, neither you (uid {uid}) nor root"
    if info.st_mode & 0o022:
        return f"is writable by group or others (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def _checkout_holding(start: Path) -> Optional[Path]:
    """The nearest checkout of the bridge from `start` upward, or None; BridgeNotFound naming the first
    folder on the way (the checkout and its bin/ included) that others can change."""
    walked = []
    for folder in (start, *start.parents):
        walked.append(folder)
        if not _is_checkout(folder):
            continue
        for each in (*walked, folder / "bin"):
            why = _why_untrusted(each)
            if why is not None:
                raise BridgeNotFound(
                    f"{each} {why}, so the bridge's checkout found at {folder} is not run: "
                    "fix that folder (chmod go-w, or chown it), run from a folder of your own, or set GCB_BRIDGE "
                    "to the bridge's command (e.g. 'node /path/to/bin/gcb.js')"
                )
        return folder
    return None


def find_bridge_command() -> tuple[list[str], Optional[Path]]:
    """The command that starts a bridge (before `serve`'s own flags) and the dir to run it in.

    In this order: the GCB_BRIDGE environment variable (a command, split like a shell would); the
    trusted checkout holding the current directory (`node bin/gcb.js`); an installed `gcb`.
    """
    configured = os.environ.get("GCB_BRIDGE", "").strip()
    if configured:
        return shlex.split(configured), None
    repo = _checkout_holding(Path.cwd().resolve())
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
