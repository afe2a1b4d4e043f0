"""A worker, or the server that forks workers, killed from outside during `reader
ingest FOLDER` (as the out-of-memory killer would) never ends the run as if the user had
pressed Ctrl+C."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

from tests.test_ingest_command import many_pdfs

RUNS = 4
FILES = 60


def _children() -> tuple[dict[int, list[tuple[int, str]]], dict[int, str]]:
    """Each process's children and command line, read from /proc: ``ps`` cuts its
    output to $COLUMNS where that is set, which can cut "forkserver" off."""
    children: dict[int, list[tuple[int, str]]] = {}
    arguments: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # The parent is the second field after the command name in brackets,
                # which may itself hold spaces or brackets.
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                args = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):  # it ended while being read
            continue
        children.setdefault(parent, []).append((int(entry), args))
        arguments[int(entry)] = args
    return children, arguments


def _workers(pid: int) -> list[int]:
    """The extraction workers under ``pid``: the children of its forkserver or, without
    one, its own children that are not the forkserver or the resource tracker (nor a
    child not yet running what it was started for: it still shows ``pid``'s command)."""
    children, arguments = _children()
    found = []
    for child, args in children.get(pid, []):
        if "forkserver" in args:
            found.extend(grandchild for grandchild, _ in children.get(child, []))
        elif "resource_tracker" not in args and args != arguments.get(pid):
            found.append(child)
    return found


def _forkserver(pid: int) -> list[int]:
    children, _ = _children()
    return [child for child, args in children.get(pid, []) if "forkserver" in args]


def _kill_one_of(find, process: subprocess.Popen, chance: random.Random) -> list[int] | None:
    """Kill one of the processes ``find`` lists under ``process`` as soon as there
    are any; the processes the kill was chosen from, or None if the run ended first.

    At once, not after some time or some files: the pool reads these 60 files
    in about 0.1 s (timed here: all 60 lines of stdout within 0.1 s, 4 s after
    the start), so a kill that waits, for a clock or for files to be reported,
    may find the pool gone. Killed at once, the worker or the server dies with
    the folder still to read."""
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        found = find(process.pid)
        if found:
            try:
                os.kill(chance.choice(found), signal.SIGKILL)
            except ProcessLookupError:  # it ended on its own meanwhile
                continue
            return found
        time.sleep(0.005)
    return None


def test_killing_a_worker_mid_ingest_refuses_at_most_its_file_and_a_rerun_adds_it(tmp_path):
    folder = many_pdfs(tmp_path / "papers", FILES, pages=12)
    chance = random.Random(20261207)
    for run in range(RUNS):
        env = {**os.environ, "READER_HOME": str(tmp_path / f"home-{run}")}
        command = [sys.executable, "-m", "reader.cli", "ingest", str(folder), "--workers", "2"]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        killed = _kill_one_of(_workers, process, chance)
        _, err = process.communicate(timeout=300)
        assert killed is not None, "no worker was seen to kill"
        assert "Aborted." not in err, err
        assert process.returncode in (0, 2), (process.returncode, err)
        if process.returncode == 2:
            # The file the worker held is refused, and the refusal names the worker log.
            assert "ingest-workers.log" in err, err
        again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert again.returncode == 0, again.stderr
        listed = subprocess.run(
            [sys.executable, "-m", "reader.cli", "list", "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        assert len(json.loads(listed.stdout)) == FILES


def test_killing_the_server_that_forks_workers_loses_nothing(tmp_path):
    """Workers are forked by a server process; killed, it is started again with a new
    pool, and every file is read (before, the run ended "Aborted.", status 1)."""
    folder = many_pdfs(tmp_path / "papers", FILES, pages=12)
    chance = random.Random(7)
    for run in range(2):
        env = {**os.environ, "READER_HOME": str(tmp_path / f"home-{run}")}
        command = [sys.executable, "-m", "reader.cli", "ingest", str(folder), "--workers", "2"]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        killed = _kill_one_of(_forkserver, process, chance)
        _, err = process.communicate(timeout=300)
        assert killed, "the forkserver was never seen"
        assert "Aborted." not in err and "Traceback" not in err, err
        assert process.returncode == 0, (process.returncode, err)
        assert f"{FILES} added, 0 unchanged, 0 refused" in err, err
