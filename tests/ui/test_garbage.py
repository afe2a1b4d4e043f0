"""Reference cycles made on a worker thread are collected on the GUI thread."""

from __future__ import annotations

import gc
import threading

from reader.ui.garbage import GuiThreadCollector, collect_on_gui_thread

# The threads that finalised each ``_Cycle``, in order.
FINALISED_ON: list[int] = []


class _Cycle:
    """An object in a cycle with itself, which records the thread that finalises it."""

    def __init__(self) -> None:
        self.itself = self

    def __del__(self) -> None:
        FINALISED_ON.append(threading.get_ident())


def test_cycles_a_worker_thread_leaves_are_collected_on_the_gui_thread(window, qtbot):
    # The window's workers installed the collector: automatic collection is off.
    assert not gc.isenabled()
    FINALISED_ON.clear()
    # Well past the first generation's threshold: left to itself, Python would
    # collect on the worker thread as it allocates.
    made = 20 * gc.get_threshold()[0]

    def leave_cycles() -> None:
        for _ in range(made):
            _Cycle()  # garbage at once, but only a collection can free it

    worker = threading.Thread(target=leave_cycles)
    worker.start()
    worker.join()

    qtbot.waitUntil(lambda: len(FINALISED_ON) >= made, timeout=5000)
    assert set(FINALISED_ON) == {threading.main_thread().ident}
    assert collect_on_gui_thread() is collect_on_gui_thread()  # one per application


def test_only_the_generations_past_their_thresholds_are_collected(window):
    collector = collect_on_gui_thread()
    assert isinstance(collector, GuiThreadCollector)
    gc.collect()
    assert collector.collect_due() == 0  # nothing is due right after a full collection
    FINALISED_ON.clear()
    for _ in range(collector.thresholds[0] + 10):
        _Cycle()
    assert collector.collect_due() > 0
    assert FINALISED_ON


def test_collection_is_automatic_again_once_the_workers_are_shut_down(qtbot, tmp_path):
    from reader.ui.workers import Workers

    assert gc.isenabled()
    first, second = Workers(tmp_path / "library.db"), Workers(tmp_path / "library.db")
    assert not gc.isenabled()
    first.shutdown()
    first.shutdown()  # a second shutdown releases nothing more
    assert not gc.isenabled()  # the other workers' threads still run
    second.shutdown()
    assert gc.isenabled()
