"""One server for every worker of a pytest-xdist run.

The controller (the process that hands out the tests) makes a folder with a named pipe in it and
holds the pipe open for the whole run. The first worker that needs the server starts it, with
the pipe as its standard input (``serve --stop-on-stdin-close``) and its output in a file of the
folder, and writes where it listens; the others, under a lock, find that and speak to it. When
the controller ends, even killed, the pipe closes and the server stops as on SIGTERM; the
controller waits for it before the run ends, so a ``data`` file is written by then. Each worker
works in an account of its own (:func:`worker_account`).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Optional

from .server import FakeServer, _alive

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

#: The accounts of the workers: ``gw0`` works in ``100000000000``, ``gw1`` in
#: ``100000000001``, and so on.
FIRST_WORKER_ACCOUNT = 100_000_000_000

# The servers a worker started and left running for the others: kept referenced until the
# worker exits, when the controller's end of the pipe decides when they stop.
_LEFT_RUNNING: List[FakeServer] = []


def worker_account(worker_id: str) -> str:
    """The account of the pytest-xdist worker ``worker_id`` (``gw3``): twelve digits, one per
    worker."""
    digits = "".join(character for character in worker_id if character.isdigit())
    return str(FIRST_WORKER_ACCOUNT + int(digits or 0))


class Holder:
    """The controller's side: the folder, and the pipe held open while the run lasts."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="dynalease-fake-")
        pipe = os.path.join(self.folder, "stdin")
        os.mkfifo(pipe)
        # Open for reading and writing, so that opening it does not wait for the other end: the
        # server sees its end when this descriptor closes (there is no other writer).
        self._pipe: Optional[int] = os.open(pipe, os.O_RDWR)

    def close(self, timeout: float = 30.0) -> None:
        """Closes the pipe (the server stops as on SIGTERM), waits up to ``timeout`` seconds for
        the server to exit, and removes the folder. A server that printed an error on its way
        out is reported as a warning."""
        if self._pipe is None:
            return
        os.close(self._pipe)
        self._pipe = None
        state = _read_state(self.folder)
        if state is not None and state.get("Pid"):
            deadline = time.monotonic() + timeout
            while _alive(int(state["Pid"])) and time.monotonic() < deadline:
                time.sleep(0.005)
            log = os.path.join(self.folder, "server.log")
            printed = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
            if "dynalease-fake:" in printed:
                warnings.warn(f"the run's dynalease-fake server said: {printed.strip()}", RuntimeWarning, stacklevel=2)
        shutil.rmtree(self.folder, ignore_errors=True)


def server_for_worker(folder: str, options: Dict[str, Any]) -> FakeServer:
    """The run's server, started with ``options`` by the first worker that asks, found by the
    others."""
    with open(os.path.join(folder, "lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = _read_state(folder)
        if state is not None:
            start = state.get("StartMillis")
            return FakeServer.connect(
                state["Endpoint"],
                clock="manual" if state.get("Manual") else None,
                start_time=None if start is None else _EPOCH + timedelta(milliseconds=int(start)),
                pid=int(state["Pid"]),
            )
        server = FakeServer(**options)
        pipe = os.open(os.path.join(folder, "stdin"), os.O_RDONLY)
        try:
            server._start_with(pipe, log=os.path.join(folder, "server.log"))
        finally:
            os.close(pipe)
        _LEFT_RUNNING.append(server)
        start = server._start
        state = {
            "Endpoint": server.endpoint_url,
            "Pid": server.pid,
            "Manual": server._manual,
            "StartMillis": None if start is None else (start - _EPOCH) // timedelta(milliseconds=1),
        }
        with open(os.path.join(folder, "server.json.new"), "w") as file:
            json.dump(state, file)
        os.replace(os.path.join(folder, "server.json.new"), os.path.join(folder, "server.json"))
        return server


def _read_state(folder: str) -> Optional[Dict[str, Any]]:
    path = os.path.join(folder, "server.json")
    if not os.path.exists(path):
        return None
    with open(path) as file:
        return dict(json.load(file))
