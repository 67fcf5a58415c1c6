"""``cristal_events.cores``: the one rule by which the engine's parallel parts find an idle core."""

import os

from cristal_events import cores


def test_the_asking_process_does_not_count_against_itself(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(cores, "_runnable_now", lambda: 1)  # only the reader runs: the other core is idle
    assert (cores.busy(), cores.idle()) == (0, 1)
    monkeypatch.setattr(cores, "_runnable_now", lambda: 2)  # one other task runs: no core left
    assert (cores.busy(), cores.idle()) == (1, 0)
    monkeypatch.setattr(cores, "_runnable_now", lambda: 12)
    assert cores.idle() == 0


def test_a_short_task_does_not_hide_an_idle_core(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    reads = iter([3, 1, 2])  # a burst seen once among the reads: the fewest is taken
    monkeypatch.setattr(cores, "_runnable_now", lambda: next(reads))
    assert cores.idle() == 1


def test_off_linux_the_load_average_stands_in_less_this_process(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(cores, "_runnable_now", lambda: None)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.3, 1.0, 1.0))  # this process's own minute of work
    assert cores.idle() == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (2.4, 2.0, 2.0))
    assert cores.idle() == 0


def test_the_runnable_count_is_read_from_this_machine():
    n = cores._runnable_now()
    if os.path.exists("/proc/loadavg"):
        assert n is not None and n >= 1  # the reader itself is running
    assert 1 <= cores.usable() <= (os.cpu_count() or 1)
