"""Where the env keeps its bridges' dirs (config, tokens, log): one folder of its user in the temp dir,
`gcb-env-<uid>`, mode 0700; and the sweep of the dirs that processes killed without cleaning up left
there.

Another user of the machine can plant anything in the shared temp dir, and once hung every env's
reset() with a FIFO and exhausted its memory with a link to /dev/zero. So the folder is used only
when it is this user's alone, and the sweep reads nothing but this user's own small regular files,
never through a link and never blocking."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Optional

from ._http import BridgeError

__all__ = ["user_folder", "new_dir", "note_bridge", "remove_stale_dirs"]

_PREFIX = "env-"
_OWNER = "owner.pid"
_BRIDGE = "bridge.pid"
# A pid file holds a decimal pid: anything longer is not one of ours.
_MAX_PID_FILE = 64
# Opens that never follow a link at the last step, never wait for a FIFO's writer, and never leak
# into the bridge.
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def user_folder() -> Path:
    """This user's folder in the temp dir, made 0700 when missing. BridgeError naming it when it is a
    link, not a folder, owned by another user, or open to others: it holds the bridges' tokens."""
    uid = os.geteuid()
    folder = Path(tempfile.gettempdir()) / f"gcb-env-{uid}"
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as err:
        raise BridgeError(f"could not make {folder} for the env's bridge dirs: {err.strerror}; set TMPDIR to a folder of your own") from None
    info = os.lstat(folder)
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        why = "is a symbolic link"
    elif not stat.S_ISDIR(info.st_mode):
        why = "is not a folder"
    elif info.st_uid != uid:
        why = f"is owned by uid {info.st_uid}, not by you (uid {uid})"
    elif mode & 0o077:
        why = f"is open to other users (mode {mode:04o})"
    else:
        return folder
    raise BridgeError(
        f"{folder} {why}: the env keeps its bridges' config and tokens there, in a folder of yours alone (mode 0700); "
        "remove it, or set TMPDIR to a folder of your own"
    )


def _write_pid(path: Path, pid: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(str(pid))


def new_dir(folder: Path) -> Path:
    """A fresh dir for one bridge in `folder`, naming this process as its owner."""
    made = Path(tempfile.mkdtemp(prefix=_PREFIX, dir=folder))
    _write_pid(made / _OWNER, os.getpid())
    return made


def note_bridge(made: Path, pid: int) -> None:
    """Names the bridge of the dir: its dir is not stale while it runs, even with its owner gone."""
    _write_pid(made / _BRIDGE, pid)


def _read_pid(dir_fd: int, name: str) -> Optional[int]:
    """The pid in `name`, when it is a regular file of this user of at most 64 bytes; else None."""
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_size > _MAX_PID_FILE:
            return None
        text = os.read(fd, _MAX_PID_FILE)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        pid = int(text)
    except ValueError:
        return None
    # kill(0) and kill(-n) would ask about whole process groups.
    return pid if pid > 0 else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_dirs(folder: Optional[Path] = None) -> None:
    """Removes the dirs in this user's folder whose owner and bridge both died (a SIGKILLed Python
    process, say). A dir whose owner cannot be read is kept: not one of ours, or still being made."""
    folder = user_folder() if folder is None else folder
    uid = os.geteuid()
    try:
        folder_fd = os.open(folder, _DIR)
    except OSError:
        return
    try:
        for entry in os.scandir(folder_fd):
            if not entry.name.startswith(_PREFIX):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
                    continue
                dir_fd = os.open(entry.name, _DIR, dir_fd=folder_fd)
            except OSError:
                continue
            try:
                owner, bridge = _read_pid(dir_fd, _OWNER), _read_pid(dir_fd, _BRIDGE)
            finally:
                os.close(dir_fd)
            if owner is not None and not _alive(owner) and not (bridge is not None and _alive(bridge)):
                shutil.rmtree(folder / entry.name, ignore_errors=True)
    finally:
        os.close(folder_fd)
