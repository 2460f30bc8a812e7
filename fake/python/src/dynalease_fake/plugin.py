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
"""

from __future__ import annotations

from typing import Any, Dict, Iterator

import pytest

from .server import FakeServer

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
    """The test run's dynalease-fake server, started at its first use, stopped at the end."""
    options = dict(dynalease_fake_options)
    # The command line wins, then the options fixture, then the configuration.
    command_line = request.config.getoption("dynalease_fake_clock")
    if command_line:
        options["clock"] = command_line
    else:
        options.setdefault("clock", _configured_clock(request.config))
    with FakeServer(**options) as server:
        yield server


@pytest.fixture
def dynalease_fake(dynalease_fake_server: FakeServer) -> FakeServer:
    """The test run's dynalease-fake server, reset for this test."""
    dynalease_fake_server.reset()
    return dynalease_fake_server
