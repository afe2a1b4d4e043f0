"""Worker processes: they import reader from where it is installed, never from the
working directory, and a worker that dies says why in a log the refusal names."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from reader.ingest.workers import (
    DOCUMENTS_PER_WORKER,
    WORKER_LOG_NAME,
    ExtractionPool,
    ocr_threads_per_worker,
    worker_log_path,
)
from reader.library.batch import ingest_paths
from tests.test_cli import run
from tests.test_ingest_command import many_pdfs

# The installed command, as a user runs it: unlike ``python -m``, it does not put the
# working directory on this process's sys.path, so only the workers could import from it.
READER_COMMAND = Path(sys.executable).with_name("reader")

HOSTILE_PACKAGES = {
    "an empty folder": None,
    "another package named reader": "NAME = 'not the reader you want'\n",
    "a package that fails on import": "raise RuntimeError('imported from the working dir')\n",
}


@pytest.mark.parametrize("hostile", list(HOSTILE_PACKAGES), ids=list(HOSTILE_PACKAGES))
def test_a_folder_ingests_from_a_working_directory_holding_a_folder_named_reader(
    tmp_path, reader_home, hostile
):
    assert READER_COMMAND.is_file(), f"the reader command is not installed at {READER_COMMAND}"
    papers = many_pdfs(tmp_path / "papers", 2, pages=2)
    here = tmp_path / "here"
    (here / "reader").mkdir(parents=True)
    if HOSTILE_PACKAGES[hostile] is not None:
        (here / "reader" / "__init__.py").write_text(HOSTILE_PACKAGES[hostile])

    completed = subprocess.run(
        [str(READER_COMMAND), "ingest", str(papers), "--workers", "2", "--json"],
        cwd=here,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert completed.returncode == 0, completed.stderr
    outcomes = [json.loads(line) for line in completed.stdout.splitlines()]
    assert sorted(Path(o["path"]).name for o in outcomes) == ["paper-00.pdf", "paper-01.pdf"]
    assert all(o["state"] == "added" and o["pages"] == 2 for o in outcomes)
    assert "Traceback" not in completed.stderr
    listed = json.loads(run("list", "--json").stdout)
    assert len(listed) == 2


def test_a_worker_that_fails_before_it_starts_says_why_in_the_log(tmp_path, reader_home):
    # A worker runs the program's main script again before it does anything else; this
    # one cannot be run twice, so every worker ends there.
    script = tmp_path / "ingest_once.py"
    script.write_text(
        "if __name__ != '__main__':\n"
        "    raise RuntimeError('this script runs only as the main program')\n"
        "from reader.cli import main\n"
        "main()\n"
    )
    papers = many_pdfs(tmp_path / "papers", 2, pages=1)
    completed = subprocess.run(
        [sys.executable, str(script), "ingest", str(papers), "--workers", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 2, completed.stderr
    log = reader_home / WORKER_LOG_NAME
    for outcome in map(json.loads, completed.stdout.splitlines()):
        assert outcome["state"] == "refused"
        assert outcome["error"].startswith(
            f"{Path(outcome['path']).name} was not read: the process reading it failed "
            f"(RuntimeError: this script runs only as the main program); what it printed is "
            f"in {log}"
        )
    assert "Traceback" not in completed.stderr  # the workers' tracebacks are in the log
    assert "RuntimeError: this script runs only as the main program" in log.read_text()


class DiesInTheWorker:
    """Passed to a worker as its OCR settings: it ends the worker as it arrives there."""

    def __init__(self, how: str) -> None:
        self.how = how

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (_die, (self.how,))


def _die(how: str) -> None:
    if how == "exception":
        raise RuntimeError("the worker could not go on")
    if how == "jam":
        _start_sending_and_die()
    os.kill(os.getpid(), signal.SIGKILL if how == "kill" else signal.SIGSEGV)


def lost_file(tmp_path: Path, how: str) -> tuple[str, str]:
    """The refusal of a file whose worker died ``how``, and the worker log after it."""
    path = many_pdfs(tmp_path / "papers", 1, pages=1) / "paper-00.pdf"
    pool = ExtractionPool(2)
    try:
        future = pool.submit(path, "0123456789abcdef", None, DiesInTheWorker(how))  # type: ignore[arg-type]
        with pytest.raises(Exception, match="terminated abruptly"):
            future.result(timeout=60)
        refusal = pool.died_reading(path, "0123456789abcdef").refusal
    finally:
        pool.stop()
    assert refusal is not None
    return refusal, pool.log.read_text(encoding="utf-8")


def test_a_worker_that_fails_says_why_in_a_log_the_refusal_names(tmp_path, reader_home):
    refusal, log = lost_file(tmp_path, "exception")
    assert worker_log_path() == reader_home / WORKER_LOG_NAME
    assert refusal == (
        "paper-00.pdf was not read: the process reading it failed (RuntimeError: the worker "
        f"could not go on); what it printed is in {reader_home / WORKER_LOG_NAME}; report it "
        "if it happens again."
    )
    assert "out of memory" not in refusal
    assert "Traceback (most recent call last)" in log
    assert "RuntimeError: the worker could not go on" in log
    assert log.rstrip().endswith("paper-00.pdf: the process reading it ended with status 1")


def test_a_worker_killed_by_a_signal_is_a_crash_and_the_refusal_names_the_log(
    tmp_path, reader_home
):
    refusal, log = lost_file(tmp_path, "kill")
    # The signal's name when the forkserver passes the worker's status on; when its
    # pipe closes first (under load) the status is lost, and the refusal still reads
    # as a crash.
    killed = "killed by SIGKILL: " if "SIGKILL" in refusal else ""
    assert refusal == (
        f"paper-00.pdf stopped the process reading it ({killed}out of memory, or a "
        "file damaged in a way that crashes PyMuPDF); ingest it alone, or re-save it; what "
        f"it printed is in {reader_home / WORKER_LOG_NAME}."
    )
    ending = "was killed by SIGKILL" if killed else "ended with status 255"
    assert log.rstrip().endswith(f"paper-00.pdf: the process reading it {ending}")


def test_a_worker_that_crashes_in_c_leaves_its_stack_in_the_log(tmp_path, reader_home):
    refusal, log = lost_file(tmp_path, "crash")
    # The signal's name unless the forkserver lost the status (see above).
    assert refusal.startswith("paper-00.pdf stopped the process reading it (")
    assert "SIGSEGV" in refusal or "status 255" in log
    assert "Fatal Python error: Segmentation fault" in log
    assert "_die" in log  # faulthandler's stack of the worker, down to where it crashed


def test_a_file_lost_twice_in_a_batch_is_refused_with_the_workers_error(
    tmp_path, library, reader_home
):
    papers = many_pdfs(tmp_path / "papers", 2, pages=1)
    report = ingest_paths(library, [papers], workers=2, ocr=DiesInTheWorker("exception"))  # type: ignore[arg-type]
    assert [outcome.state for outcome in report.outcomes] == ["refused", "refused"]
    for outcome in report.outcomes:
        assert "failed (RuntimeError: the worker could not go on)" in str(outcome.reason)
        assert str(reader_home / WORKER_LOG_NAME) in str(outcome.reason)


class PoolWithAKiller(ExtractionPool):
    """A pool whose worker is killed by SIGKILL whenever it reads ``killer.pdf``, as a
    file that takes down PyMuPDF, or the kernel's out-of-memory killer, would do."""

    def submit(self, path, doc_id, password, ocr=None):  # type: ignore[no-untyped-def]
        if path.name == "killer.pdf":
            ocr = DiesInTheWorker("kill")
        return super().submit(path, doc_id, password, ocr)


def test_a_file_that_kills_its_worker_is_refused_and_no_other_file_is_blamed(
    tmp_path, library, monkeypatch
):
    # Files long enough to be in flight beside the killer when it strikes.
    papers = many_pdfs(tmp_path / "papers", 8, pages=200)
    (papers / "paper-02.pdf").rename(papers / "killer.pdf")
    monkeypatch.setattr("reader.library.batch.ExtractionPool", PoolWithAKiller)
    report = ingest_paths(library, [papers], workers=2)
    states = {outcome.path.name: outcome.state for outcome in report.outcomes}
    assert states.pop("killer.pdf") == "refused"
    assert set(states.values()) == {"added"} and len(states) == 7
    (refused,) = report.refused
    # A crash, with the signal's name when the forkserver passed the status on.
    assert str(refused.reason).startswith("killer.pdf stopped the process reading it (")
    assert len(library.documents()) == 7
    # A second run reads only the file that was refused, and refuses it again alone.
    again = ingest_paths(library, [papers], workers=2)
    assert [o.state for o in again.outcomes].count("refused") == 1
    assert len(library.documents()) == 7


def test_a_pool_met_while_its_wakeup_pipe_closes_is_broken_not_an_unexpected_error(tmp_path):
    # After a worker dies, the executor's manager thread closes the pipe that submit and
    # shutdown write to; a submit in between used to end the run with "reader failed
    # unexpectedly (OSError: handle is closed)". Closing the pipe's end is that moment.
    from concurrent.futures.process import BrokenProcessPool

    papers = many_pdfs(tmp_path / "papers", 1, pages=1)
    pool = ExtractionPool(1, log=tmp_path / "workers.log")
    pool._executor._executor_manager_thread_wakeup._writer.close()  # type: ignore[attr-defined]
    with pytest.raises(BrokenProcessPool):
        pool.submit(papers / "paper-00.pdf", "0" * 16, None)
    pool.stop()


@pytest.mark.parametrize(
    ("cores", "workers", "threads"), [(2, 1, 2), (2, 2, 1), (4, 2, 2), (8, 3, 2), (1, 4, 1)]
)
def test_workers_share_the_cores_among_their_tesseracts(monkeypatch, cores, workers, threads):
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert ocr_threads_per_worker(workers) == threads


def test_each_worker_runs_its_share_of_tesseracts(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    pool = ExtractionPool(2, log=tmp_path / "workers.log")
    try:
        # What the worker's OCR uses, read in the worker (eval pickles; a lambda would not).
        asked = "__import__('reader.ingest.ocr', fromlist=['ocr']).OCR_WORKERS"
        assert pool._executor.submit(eval, asked).result(timeout=60) == 2  # type: ignore[attr-defined]
    finally:
        pool.close()


def test_stopping_a_pool_ends_a_manager_thread_left_with_half_a_result(tmp_path):
    # A worker stopped while it sent its result leaves half a message in the results
    # pipe: the pool's manager thread waited for the rest for ever, and a Ctrl+C'd
    # folder ingest hung at exit, joining it. Half a message written here is that moment.
    import struct
    import time

    pool = ExtractionPool(1, log=tmp_path / "workers.log")
    executor = pool._executor  # type: ignore[attr-defined]
    executor.submit(time.sleep, 60)
    manager = executor._executor_manager_thread
    writer = executor._result_queue._writer
    os.write(writer.fileno(), struct.pack("!i", 1000) + b"half")
    time.sleep(0.5)  # the manager thread reads the length and waits for the rest
    processes = list(executor._processes.values())
    try:
        pool.stop()
        assert not manager.is_alive()
        assert not any(process.is_alive() for process in processes)
    finally:
        if manager.is_alive():  # the rest of the message, so a failure does not hang the run
            os.write(writer.fileno(), b"\0" * 996)
            manager.join(10)


MAIN_SCRIPT = """\
import sys
from pathlib import Path

from reader.library import Library
from reader.library.batch import ingest_paths

if __name__ == "__main__":
    with Library(Path(sys.argv[2])) as library:
        report = ingest_paths(library, [Path(sys.argv[1])], workers=2)
    print(report.count("added"))
"""


def test_workers_do_not_import_again_what_the_main_script_imports(tmp_path, reader_home):
    # Each worker runs the main script again before its first file, as spawn does. The
    # reader modules that script imports are loaded once, in the forkserver, so a worker
    # finds them loaded: Python's import-time report (written to the workers' log, as
    # all they print) lists them for the server alone, not for each of the four
    # workers that 2 workers and DOCUMENTS_PER_WORKER start here.
    papers = many_pdfs(tmp_path / "papers", 2 * DOCUMENTS_PER_WORKER + 2, pages=1)
    script = tmp_path / "ingest_folder.py"
    script.write_text(MAIN_SCRIPT)
    completed = subprocess.run(
        [sys.executable, str(script), str(papers), str(tmp_path / "library.db")],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.split() == [str(2 * DOCUMENTS_PER_WORKER + 2)]
    # reader.library.batch_report is not among what the forkserver loads for reading
    # files: each process that imports the library reports it once.
    log = (reader_home / WORKER_LOG_NAME).read_text()
    imported = re.findall(r"\|\s+reader\.library\.batch_report$", log, re.MULTILINE)
    assert len(imported) == 1, f"imported by {len(imported)} processes"


def _start_sending_and_die() -> None:
    """End this worker in the middle of sending a result, as a worker killed at that
    moment ends: it holds the results pipe's lock (a worker that finished its own file
    waits for it for ever) and has written half a message (the pool's manager thread
    waits for the rest for ever, and so sends no further file to any worker)."""
    frame = sys._getframe()
    while frame is not None and "result_queue" not in frame.f_locals:
        frame = frame.f_back  # up to the executor's worker loop, which holds the queue
    assert frame is not None, "not called in a pool's worker"
    results = frame.f_locals["result_queue"]
    results._wlock.acquire()
    os.write(results._writer.fileno(), (1000).to_bytes(4, "big") + b"half")
    os.kill(os.getpid(), signal.SIGKILL)


class PoolThatJams(ExtractionPool):
    """A pool whose worker reading ``jammer.pdf`` dies in the middle of sending a
    result. Every pool made is kept, so a test that fails can still stop them (the
    interpreter would otherwise wait for a jammed pool for ever as it exits)."""

    made: ClassVar[list[ExtractionPool]] = []

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        PoolThatJams.made.append(self)

    def submit(self, path, doc_id, password, ocr=None):  # type: ignore[no-untyped-def]
        if path.name == "jammer.pdf":
            ocr = DiesInTheWorker("jam")
        return super().submit(path, doc_id, password, ocr)


def test_a_worker_that_dies_sending_its_result_does_not_hang_the_ingest(
    tmp_path, library, monkeypatch
):
    import threading

    papers = many_pdfs(tmp_path / "papers", 6, pages=40)
    (papers / "paper-03.pdf").rename(papers / "jammer.pdf")
    monkeypatch.setattr("reader.library.batch.ExtractionPool", PoolThatJams)
    from reader.library import Library

    reports = []

    def run_ingest() -> None:
        # In a thread of its own, so a hang fails the test instead of stopping it.
        with Library(library.path) as opened:
            reports.append(ingest_paths(opened, [papers], workers=2))

    ingest = threading.Thread(target=run_ingest, daemon=True)
    ingest.start()
    ingest.join(120)
    if ingest.is_alive():
        for pool in PoolThatJams.made:
            pool.stop()
    PoolThatJams.made.clear()
    assert not ingest.is_alive(), "the ingest hung after its worker died"
    states = {outcome.path.name: outcome.state for outcome in reports[0].outcomes}
    # The file whose worker was lost is read again alone (and kills its worker again).
    assert states.pop("jammer.pdf") == "refused"
    assert set(states.values()) == {"added"} and len(states) == 5
