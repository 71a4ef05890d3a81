"""Another user of the same machine against the env: what it plants in the shared temp dir or in a
parent folder must neither hang nor exhaust an env, nor be run. We are root here, so "another user"
is uid 65534 (nobody): folders are chowned to it.

The env keeps its bridges' dirs in one folder of its user, `gcb-env-<uid>` in the temp dir, mode 0700.
No test here starts a bridge: GCB_BRIDGE names a command that does not exist, so reset() sweeps and
makes its dir, then raises BridgeNotFound."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import gcb_env

NOBODY = 65534


@pytest.fixture
def temp_root(tmp_path, monkeypatch):
    """The temp dir of this test alone, as open as /tmp (1777)."""
    root = tmp_path / "tmp"
    root.mkdir()
    root.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))
    return root


@pytest.fixture
def no_bridge(monkeypatch):
    monkeypatch.setenv("GCB_BRIDGE", "/nonexistent/gcb")


def user_folder(root: Path) -> Path:
    return root / f"gcb-env-{os.geteuid()}"


def planted_dirs(root: Path) -> list[Path]:
    """Where a planted owner.pid is read: beside the env's dirs, as the shared temp dir held them,
    and (could anyone but the user write there) in the env's own folder."""
    mine = user_folder(root)
    os.mkdir(mine, 0o700)
    dirs = [root / "gcb-env-planted", mine / "env-planted"]
    for folder in dirs:
        folder.mkdir()
    return dirs


def test_a_fifo_for_owner_pid_does_not_hang_reset(temp_root, no_bridge):
    fifos = [folder / "owner.pid" for folder in planted_dirs(temp_root)]
    for fifo in fifos:
        os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def reset() -> None:
        try:
            gcb_env.env(seed=1).reset(seed=1)
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread
            outcome.append(err)

    worker = threading.Thread(target=reset, daemon=True)
    worker.start()
    worker.join(5)
    hung = worker.is_alive()
    for fifo in fifos:  # a reader blocked on a FIFO goes on once a writer comes and goes
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    worker.join(5)
    assert not hung, "reset() hung on a FIFO planted for owner.pid"
    assert len(outcome) == 1 and isinstance(outcome[0], gcb_env.BridgeNotFound), outcome


def test_a_link_to_dev_zero_for_owner_pid_grows_nothing(temp_root):
    for folder in planted_dirs(temp_root):
        os.symlink("/dev/zero", folder / "owner.pid")
    limit = 1 << 30
    sweep = (
        "import resource\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
        "from gcb_env._bridge import remove_stale_dirs\n"
        "remove_stale_dirs()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", sweep],
        env={**os.environ, "TMPDIR": str(temp_root), "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the sweep failed within {limit >> 20} MiB of address space: {done.stderr[-600:]}"


def test_the_sweep_reads_no_file_of_another_user(temp_root, no_bridge):
    # A stale-looking dir whose owner.pid names a dead process, but written by someone else: kept.
    (folder,) = planted_dirs(temp_root)[1:]
    (folder / "owner.pid").write_text("999999999")
    os.chown(folder / "owner.pid", NOBODY, NOBODY)
    with pytest.raises(gcb_env.BridgeNotFound):
        gcb_env.env(seed=1).reset(seed=1)
    assert folder.exists()


@pytest.mark.parametrize("how", ["owned by another user", "a link", "open to others"])
def test_a_user_folder_that_is_not_private_is_refused(temp_root, no_bridge, how):
    folder = user_folder(temp_root)
    if how == "a link":
        target = temp_root / "elsewhere"
        os.mkdir(target, 0o700)
        os.chown(target, NOBODY, NOBODY)
        folder.symlink_to(target)
        expected = "is a symbolic link"
    else:
        target = folder
        os.mkdir(folder, 0o700)
        if how == "owned by another user":
            os.chown(folder, NOBODY, NOBODY)
            expected = f"is owned by uid {NOBODY}"
        else:
            folder.chmod(0o777)
            expected = r"is open to other users \(mode 0777\)"
    with pytest.raises(gcb_env.BridgeError, match=re.escape(str(folder)) + " " + expected):
        gcb_env.env(seed=1).reset(seed=1)
    assert list(target.iterdir()) == [], "nothing was written into it"


PLANTED_PACKAGE = {"name": "game-control-bridge", "version": "9.9.9"}


def plant_checkout(folder: Path, marker: Path) -> None:
    """A package.json with the bridge's name and a bin/gcb.js that writes `marker` when run."""
    folder.mkdir(exist_ok=True)
    (folder / "package.json").write_text(json.dumps(PLANTED_PACKAGE))
    (folder / "bin").mkdir()
    (folder / "bin" / "gcb.js").write_text(f"require('fs').writeFileSync({json.dumps(str(marker))}, 'ran');\n")


@pytest.mark.parametrize("how", ["writable by others", "writable by group", "owned by another user", "its bin writable by others"])
def test_a_checkout_planted_in_a_parent_folder_is_never_run(tmp_path, monkeypatch, how):
    marker = tmp_path / "planted-code-ran"
    parent = tmp_path / "shared"
    plant_checkout(parent, marker)
    work = parent / "work"
    os.mkdir(work, 0o700)
    unsafe = parent
    if how == "writable by others":
        parent.chmod(0o1777)
    elif how == "writable by group":
        parent.chmod(0o775)
    elif how == "owned by another user":
        for path in (parent, parent / "package.json", parent / "bin", parent / "bin" / "gcb.js"):
            os.chown(path, NOBODY, NOBODY)
    else:
        (parent / "bin").chmod(0o777)
        unsafe = parent / "bin"
    monkeypatch.chdir(work)
    monkeypatch.delenv("GCB_BRIDGE", raising=False)
    with pytest.raises(gcb_env.BridgeNotFound, match=re.escape(str(unsafe)) + " is"):
        gcb_env.env(seed=1, start_timeout=5).reset(seed=1)
    assert not marker.exists(), "the planted bin/gcb.js ran"


def test_a_checkout_reached_through_folders_of_ones_own_is_found(tmp_path, monkeypatch):
    checkout = tmp_path / "mine"
    plant_checkout(checkout, tmp_path / "unused")
    work = checkout / "notebooks" / "week1"
    work.mkdir(parents=True)
    for folder in (checkout, checkout / "bin", checkout / "notebooks", work):
        folder.chmod(0o755)
    monkeypatch.chdir(work)
    monkeypatch.delenv("GCB_BRIDGE", raising=False)
    command, cwd = gcb_env.find_bridge_command()
    assert command[1:] == [str(checkout / "bin" / "gcb.js")] and cwd == checkout
