"""The pytest plugin of dynalease-fake, registered through the ``pytest11`` entry point.

Fixtures:

- ``dynalease_fake``: the test run's :class:`~dynalease_fake.FakeServer`, reset before the test
  (no table, no fault rule, an empty request log, a manual clock back where it started).
- ``dynalease_fake_server``: the run's server itself, not reset (one for the whole run).
- ``dynalease_fake_options``: the keyword arguments the run's server is started with
  (one for the whole run, ``{}`` by default); override it in a ``conftest.py`` for ``seed``,
  ``start_time``, ``data`` or any other option of ``serve``.

The clock: ``--dynalease-fake-clock=manual`` on the command line, or
``dynalease_fake_clock = manual`` in the pytest configuration, starts the run's server with
a clock that stands still until a test moves it (``real``, the default, runs with real time).

With pytest-xdist (``pytest -n 4``), the workers share one server, and each works in an account
of its own (``gw0`` in ``100000000000``, ``gw1`` in ``100000000001``, ...): its tables, fault
rules, request log and clock are its own, so tests that use the same table names, or move the
clock, run side by side. The first worker to need the server starts it with the options of its
``dynalease_fake_options``; the run's controller stops it when the run ends.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Optional

import pytest

from .server import FakeServer
from .shared import Holder, server_for_worker, worker_account

# Where the controller of a pytest-xdist run keeps the folder of the workers' shared server.
_FOLDER = "dynalease_fake_folder"
_HOLDER = pytest.StashKey[Holder]()

_CLOCKS = ("real", "manual")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dynalease-fake")
    group.addoption(
        "--dynalease-fake-clock",
        dest="dynalease_fake_clock",
        choices=_CLOCKS,
        default=None,
        help="the clock of the test run's dynalease-fake server: real (default) or manual (it stands "
        "still until a test moves it)",
    )
    parser.addini(
        "dynalease_fake_clock",
        "the clock of the test run's dynalease-fake server: real (default) or manual",
        default="real",
    )


def pytest_configure(config: pytest.Config) -> None:
    # The controller of a pytest-xdist run holds what lets its workers share one server.
    if _distributes(config) and not hasattr(config, "workerinput"):
        config.stash[_HOLDER] = Holder()


def pytest_unconfigure(config: pytest.Config) -> None:
    holder = config.stash.get(_HOLDER, None)
    if holder is not None:
        holder.close()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's hook, on the controller: each worker learns where the shared server is."""
    holder = node.config.stash.get(_HOLDER, None)
    if holder is not None:
        node.workerinput[_FOLDER] = holder.folder


def _distributes(config: pytest.Config) -> bool:
    """Whether this run hands its tests to pytest-xdist workers."""
    processes = getattr(config.option, "numprocesses", None)
    return bool(processes) and getattr(config.option, "dist", "no") != "no"


def _shared_folder(config: pytest.Config) -> Optional[str]:
    """On a pytest-xdist worker, the folder of the run's shared server."""
    workerinput = getattr(config, "workerinput", None)
    return None if workerinput is None else workerinput.get(_FOLDER)


def _configured_clock(config: pytest.Config) -> str:
    clock = config.getini("dynalease_fake_clock") or "real"
    if clock not in _CLOCKS:
        raise pytest.UsageError(f"dynalease_fake_clock is {clock!r} in the configuration; it is real or manual")
    return str(clock)


@pytest.fixture(scope="session")
def dynalease_fake_options() -> Dict[str, Any]:
    """The keyword arguments of the test run's FakeServer (override it in a conftest.py)."""
    return {}


@pytest.fixture(scope="session")
def dynalease_fake_server(
    request: pytest.FixtureRequest, dynalease_fake_options: Dict[str, Any]
) -> Iterator[FakeServer]:
    """The test run's dynalease-fake server, started at its first use, stopped at the end. On a
    pytest-xdist worker, the run's one server, seen from the worker's own account."""
    options = dict(dynalease_fake_options)
    # The command line wins, then the options fixture, then the configuration.
    command_line = request.config.getoption("dynalease_fake_clock")
    if command_line:
        options["clock"] = command_line
    else:
        options.setdefault("clock", _configured_clock(request.config))
    folder = _shared_folder(request.config)
    if folder is None:
        with FakeServer(**options) as server:
            yield server
        return
    shared = server_for_worker(folder, options)
    worker = request.config.workerinput["workerid"]  # type: ignore[attr-defined]
    view = shared.for_account(worker_account(worker))
    try:
        yield view
    finally:
        view.stop()


@pytest.fixture
def dynalease_fake(dynalease_fake_server: FakeServer) -> FakeServer:
    """The test run's dynalease-fake server, reset for this test."""
    dynalease_fake_server.reset()
    return dynalease_fake_server
