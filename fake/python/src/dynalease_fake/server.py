"""``FakeServer``: ``dynalease-fake serve`` in a child process, for as long as a ``with`` block
(or a pytest run) lasts, steered through its control API."""

from __future__ import annotations

import importlib
import json
import os
import selectors
import subprocess
import time
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Literal, Mapping, Optional, Tuple, Union
from urllib.parse import urlsplit

from .binary import binary_path
from .control import ControlConnection

StrPath = Union[str, "os.PathLike[str]"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ANNOUNCEMENT = "listening on "

#: The kinds of fault :meth:`FakeServer.add_fault` takes, and what the control API calls them.
FAULT_KINDS: Dict[str, str] = {
    "throttle": "Throttle",
    "throttling_exception": "ThrottlingException",
    "internal_error": "InternalServerError",
    "lost_response": "LostResponse",
    "resource_not_found": "ResourceNotFound",
    "latency": "Latency",
    "slow_response": "SlowResponse",
    "error": "Error",
    "unprocessed": "Unprocessed",
    "stale_read": "StaleRead",
}

# The details each kind takes: those it needs, and those it may have.
_DETAILS: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "latency": (("ms",), ()),
    "slow_response": (("ms",), ()),
    "error": (("code",), ("message", "status")),
    "unprocessed": (("processed",), ()),
    "stale_read": (("max_lag_ms",), ()),
}
_DETAIL_MEMBERS = {
    "ms": "DelayMs",
    "code": "Code",
    "message": "Message",
    "status": "Status",
    "processed": "Processed",
    "max_lag_ms": "MaxLagMs",
}


class ServerStartError(RuntimeError):
    """The server did not start: the command, its exit code (``None`` if it was still running
    when it was given up on) and everything it printed."""

    def __init__(self, reason: str, command: List[str], returncode: Optional[int], output: str) -> None:
        printed = output.strip() or "(nothing)"
        super().__init__(f"dynalease-fake serve did not start: {reason}\ncommand: {' '.join(command)}\nit printed: {printed}")
        self.command = command
        self.returncode = returncode
        self.output = output


class ServerError(RuntimeError):
    """The server stopped with an error (for example, its data file could not be written)."""

    def __init__(self, returncode: int, output: str) -> None:
        super().__init__(f"dynalease-fake serve exited with code {returncode}: {output.strip() or '(no output)'}")
        self.returncode = returncode
        self.output = output


class FakeServer:
    """``dynalease-fake serve`` on a free loopback port, started by ``with`` (or :meth:`start`)
    and stopped at the end of the block, whatever ends it.

    ::

        with FakeServer(clock="manual", start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)) as fake:
            dynamodb = fake.client()
            ...
            fake.advance(days=2)

    Keyword arguments are the options of ``serve``: ``data`` (a file the tables are loaded from
    and saved to), ``clock`` (``"real"``, the default, or ``"manual"``: standing still until
    the test moves it), ``start_time`` (a timezone-aware ``datetime`` or RFC 3339 text),
    ``seed``, and any other flag of ``dynalease-fake serve --help`` with ``_`` for ``-``
    (``request_log=5000``, ``table_creation_ms=200``, ``throttle_rate=0.05``). A flag that
    takes no value is given as ``True``. ``binary`` names another executable than the
    installed one; ``start_timeout`` is how long to wait, in seconds, for the server to say
    where it listens.

    The server's stdin is a pipe from this process: when this process exits, even killed, the
    server sees the pipe close and stops, so no server outlives the program that started it.
    """

    def __init__(
        self,
        *,
        data: Optional[StrPath] = None,
        clock: Optional[Literal["real", "manual"]] = None,
        start_time: Union[datetime, str, None] = None,
        seed: Optional[int] = None,
        host: str = "127.0.0.1",
        port: int = 0,
        binary: Optional[StrPath] = None,
        start_timeout: float = 30.0,
        **options: Any,
    ) -> None:
        if clock not in (None, "real", "manual"):
            raise ValueError(f"clock must be 'real' or 'manual', not {clock!r}")
        self._options: Dict[str, Any] = {"data": data, "clock": clock, "start_time": start_time, "seed": seed}
        self._options.update(options)
        self._host = host
        self._port = port
        self._binary = binary
        self._start_timeout = start_timeout
        self._manual = clock == "manual"
        self._process: Optional[subprocess.Popen[bytes]] = None
        self._endpoint: Optional[str] = None
        self._control: Optional[ControlConnection] = None
        self._start: Optional[datetime] = None

    # Starting and stopping.

    def command(self) -> List[str]:
        """The command line this server runs (or would run)."""
        executable = os.fspath(self._binary) if self._binary is not None else binary_path()
        command = [executable, "serve", "--host", self._host, "--port", str(self._port), "--stop-on-stdin-close"]
        for name, value in self._options.items():
            if value is None or value is False:
                continue
            flag = "--" + name.replace("_", "-")
            command.extend([flag] if value is True else [flag, _option_text(value)])
        return command

    def start(self) -> "FakeServer":
        """Starts the server and waits until it listens; raises :class:`ServerStartError`, with
        what it printed, if it does not. Returns the server."""
        if self._process is not None:
            raise RuntimeError("this FakeServer is already running")
        command = self.command()
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            # A process group of its own: a Ctrl-C in the terminal reaches the test run, which
            # stops the server in order, instead of the server first.
            start_new_session=True,
        )
        try:
            line, reason = _first_line(process, self._start_timeout)
        except BaseException:
            _kill(process)
            raise
        if reason is not None:
            # A server that refuses its options says why and exits at once: its exit code and
            # its last words are part of the error.
            try:
                returncode: Optional[int] = process.wait(5.0)
                reason += f" (exit code {returncode})"
            except subprocess.TimeoutExpired:
                returncode = None
                reason += " (killed)"
            output = line + _kill(process)
            raise ServerStartError(reason, command, returncode, output)
        endpoint = line.splitlines()[0].strip()[len(_ANNOUNCEMENT) :]
        address = urlsplit(endpoint)
        self._process = process
        self._endpoint = endpoint
        self._control = ControlConnection(address.hostname or self._host, address.port or 0)
        if self._manual:
            try:
                self._start = self.now()
            except BaseException:
                self._abandon()
                raise
        return self

    def stop(self, timeout: float = 10.0) -> int:
        """Stops the server as SIGTERM does (requests in flight are answered, the data file is
        written) and returns its exit code; after ``timeout`` seconds, kills it. Raises
        :class:`ServerError` if it exited with an error. Does nothing if it is not running."""
        process = self._process
        if process is None:
            return 0
        self._forget()
        try:
            if process.stdin is not None:
                process.stdin.close()
            try:
                returncode = process.wait(timeout)
            except subprocess.TimeoutExpired:
                _kill(process)
                return process.returncode
        except BaseException:
            _kill(process)
            raise
        output = _rest(process)
        if returncode != 0:
            raise ServerError(returncode, output)
        return returncode

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if error is None:
            self.stop()
            return
        try:
            self.stop()
        except ServerError as stopped:
            warnings.warn(str(stopped), RuntimeWarning, stacklevel=2)

    def __repr__(self) -> str:
        where = self._endpoint if self._process is not None else "not running"
        return f"<FakeServer {where}>"

    def _forget(self) -> None:
        if self._control is not None:
            self._control.close()
        self._process = None
        self._control = None

    def _abandon(self) -> None:
        process = self._process
        self._forget()
        if process is not None:
            _kill(process)

    # Where it is.

    @property
    def endpoint_url(self) -> str:
        """The server's URL, such as ``http://127.0.0.1:40123``, for any AWS SDK's endpoint."""
        self._running()
        assert self._endpoint is not None
        return self._endpoint

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self._running().pid

    def is_running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    # boto3.

    def client(self, **arguments: Any) -> Any:
        """A boto3 DynamoDB client for this server, with dummy credentials and region
        ``us-east-1``; ``arguments`` go to ``boto3.client`` and win (``config=...``)."""
        return _boto3("client").client("dynamodb", **self._client_arguments(arguments))

    def streams_client(self, **arguments: Any) -> Any:
        """A boto3 DynamoDB Streams client for this server (which answers on the same port)."""
        return _boto3("streams_client").client("dynamodbstreams", **self._client_arguments(arguments))

    def resource(self, **arguments: Any) -> Any:
        """A boto3 DynamoDB service resource for this server."""
        return _boto3("resource").resource("dynamodb", **self._client_arguments(arguments))

    def _client_arguments(self, arguments: Mapping[str, Any]) -> Dict[str, Any]:
        base: Dict[str, Any] = {
            "endpoint_url": self.endpoint_url,
            "region_name": "us-east-1",
            "aws_access_key_id": "fake",
            "aws_secret_access_key": "fake",
        }
        base.update(arguments)
        return base

    # The clock.

    def now(self) -> datetime:
        """The fake's time, in UTC."""
        return _reading(self._request("GET", "clock"))

    def is_frozen(self) -> bool:
        """Whether the fake's clock stands still."""
        return bool(self._request("GET", "clock")["Frozen"])

    def advance(
        self, seconds: Union[float, timedelta] = 0, *, minutes: float = 0, hours: float = 0, days: float = 0
    ) -> datetime:
        """Moves the fake's clock forward (``advance(90)``, ``advance(days=2)``,
        ``advance(timedelta(hours=1))``); what fell due in between (time-to-live deletions with
        their stream records) is done before it returns. Returns the new time."""
        by = seconds if isinstance(seconds, timedelta) else timedelta(seconds=seconds)
        by += timedelta(minutes=minutes, hours=hours, days=days)
        return _reading(self._request("POST", "clock/advance", {"Seconds": by.total_seconds()}))

    def set_time(self, when: datetime) -> datetime:
        """Sets the fake's clock to ``when``, a timezone-aware ``datetime`` not before its time
        (the clock only moves forward), doing what fell due in between. Returns the new time."""
        return _reading(self._request("POST", "clock/set", {"EpochSeconds": _epoch_seconds(when)}))

    def freeze(self) -> datetime:
        """Stops the fake's clock where it is; returns that time."""
        return _reading(self._request("POST", "clock/freeze"))

    def run(self) -> datetime:
        """Lets the fake's clock run with real time from where it stands; returns that time."""
        return _reading(self._request("POST", "clock/resume"))

    # Faults.

    def add_fault(
        self,
        kind: str,
        operation: Optional[str] = None,
        table: Optional[str] = None,
        probability: Optional[float] = None,
        times: Optional[int] = None,
        after: Optional[int] = None,
        *,
        account: Optional[str] = None,
        region: Optional[str] = None,
        **details: Any,
    ) -> int:
        """Adds a fault rule and returns its id.

        ``kind`` is one of ``throttle`` (ProvisionedThroughputExceededException),
        ``throttling_exception``, ``internal_error`` (500), ``lost_response`` (the request is
        applied, its answer lost), ``resource_not_found``, ``latency`` or ``slow_response``
        (``ms=``), ``error`` (``code=``, and ``message=`` and ``status=``, 400 by default) or
        ``unprocessed`` (``processed=``: how many requests of a batch are processed) or
        ``stale_read`` (``max_lag_ms=``, up to an hour: each eventually consistent read it meets
        sees the tables as they were at one instant up to that long ago). The rule
        is narrowed to an ``operation`` (``"PutItem"``) and a ``table``, drawn with a
        ``probability`` (from the server's seed), used up after ``times`` faults, and lets
        ``after`` matching requests through first; ``account`` (twelve digits) and ``region``
        narrow it to the requests signed for them.
        """
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; the kinds are {', '.join(FAULT_KINDS)}")
        needed, allowed = _DETAILS.get(kind, ((), ()))
        stray = sorted(set(details) - set(needed) - set(allowed))
        if stray:
            takes = ", ".join(f"{name}=" for name in needed + allowed) or "no details"
            raise TypeError(f"a {kind} fault does not take {', '.join(stray)}; it takes {takes}")
        missing = [name for name in needed if details.get(name) is None]
        if missing:
            raise TypeError(f"a {kind} fault needs {', '.join(f'{name}=' for name in missing)}")
        rule: Dict[str, Any] = {"Fault": FAULT_KINDS[kind]}
        for member, value in (
            ("Operation", operation),
            ("Table", table),
            ("Account", account),
            ("Region", region),
            ("Probability", probability),
            ("Times", times),
            ("After", after),
        ):
            if value is not None:
                rule[member] = value
        for name, value in details.items():
            if value is not None:
                rule[_DETAIL_MEMBERS[name]] = value
        return int(self._request("POST", "faults", rule)["Id"])

    def remove_fault(self, fault_id: int) -> None:
        """Removes one fault rule; :class:`ControlError` (404) if there is none of that id."""
        self._request("DELETE", f"faults/{int(fault_id)}")

    def clear_faults(self) -> List[int]:
        """Removes every fault rule; returns their ids."""
        return list(self._request("DELETE", "faults")["Removed"])

    def faults(self) -> List[Dict[str, Any]]:
        """The fault rules, as the control API shows them: ``Id``, ``Fault``, ``Operation``,
        ``Table``, ``Probability``, ``Times``, ``Remaining``, ``After``, ``Matched`` (requests it
        matched) and ``Fired`` (faults it gave), used-up rules too."""
        return list(self._request("GET", "faults")["Rules"])

    # Tables.

    def reset(self) -> None:
        """Everything back to how a test wants to find it: every table gone, every fault rule
        removed, the request log emptied, and a manual clock back at the time it started,
        standing still. A real clock runs on."""
        if self._manual and self._start is not None:
            start = {"EpochSeconds": _epoch_seconds(self._start)}
            answer = self._request("POST", "reset", start)
            if not answer["Clock"]["Frozen"]:
                # The test let the clock run: stopped, then put back, so that it stands at its start.
                self._request("POST", "clock/freeze")
                self._request("POST", "reset", start)
        else:
            self._request("POST", "reset")
        self._request("DELETE", "faults")
        self._request("DELETE", "requests")

    def snapshot(self) -> Dict[str, Any]:
        """Every table, with its indexes, settings and items, as a dict (the JSON of the control
        API's snapshot, which :meth:`load` and the ``data`` file take)."""
        return dict(self._request("GET", "snapshot"))

    def load(self, snapshot: Union[Mapping[str, Any], StrPath]) -> List[str]:
        """Replaces every table with those of ``snapshot``, a dict or the path of a JSON file, all
        at once; returns their names. A snapshot that does not load changes nothing and raises
        :class:`ControlError` with the line, column and fault."""
        if isinstance(snapshot, Mapping):
            raw = json.dumps(snapshot).encode()
        else:
            with open(os.fspath(snapshot), "rb") as file:
                raw = file.read()
        return list(self._request("PUT", "snapshot", raw=raw)["Tables"])

    def save(self) -> None:
        """Writes the tables to the ``data`` file now (:class:`ControlError` 409 without one)."""
        self._request("POST", "save")

    # The request log.

    def requests(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The request log, oldest first (the latest ``limit`` requests if given): each with
        ``Time``, ``Operation``, ``Table``, ``Outcome`` (``OK`` or the error code) and ``Fault``."""
        path = "requests" if limit is None else f"requests?limit={int(limit)}"
        return list(self._request("GET", path)["Requests"])

    def clear_requests(self) -> None:
        """Empties the request log."""
        self._request("DELETE", "requests")

    def _running(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            raise RuntimeError("the server is not running: use `with FakeServer() as fake:` or call start()")
        return self._process

    def _request(self, method: str, path: str, body: Any = None, *, raw: Optional[bytes] = None) -> Any:
        self._running()
        assert self._control is not None
        return self._control.request(method, path, body, raw=raw)


def _boto3(method: str) -> Any:
    try:
        boto3 = importlib.import_module("boto3")
    except ImportError:
        raise ModuleNotFoundError(
            f"FakeServer.{method}() builds a boto3 client, and boto3 is not installed: "
            "pip install boto3 (or dynalease-fake[boto3])"
        ) from None
    return boto3


def _option_text(value: Any) -> str:
    if isinstance(value, datetime):
        return _rfc3339(value)
    if isinstance(value, os.PathLike):
        return str(os.fspath(value))
    return str(value)


def _utc(when: datetime) -> datetime:
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"{when!r} has no time zone: give it one, such as tzinfo=timezone.utc")
    return when.astimezone(timezone.utc)


def _rfc3339(when: datetime) -> str:
    return _utc(when).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_utc(when).microsecond // 1000:03d}Z"


def _epoch_seconds(when: datetime) -> float:
    """Seconds since the epoch, to the millisecond, as the control API takes a time."""
    return ((_utc(when) - _EPOCH) // timedelta(milliseconds=1)) / 1000


def _reading(clock: Mapping[str, Any]) -> datetime:
    """A reading of the control API's clock as a timezone-aware ``datetime``."""
    return _EPOCH + timedelta(milliseconds=int(clock["EpochMillis"]))


def _first_line(process: subprocess.Popen[bytes], timeout: float) -> Tuple[str, Optional[str]]:
    """The server's first line, and ``None``; or what it printed so far and why it is not the
    line that names its address."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    received = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while b"\n" not in received:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return received.decode(errors="replace"), f"it named no address within {timeout:g} s"
            chunk = os.read(descriptor, 4096)
            if not chunk:
                return received.decode(errors="replace"), "it exited before naming its address"
            received += chunk
    text = received.decode(errors="replace")
    if not text.startswith(_ANNOUNCEMENT):
        return text, "its first line does not name an address"
    return text, None


def _rest(process: subprocess.Popen[bytes]) -> str:
    """What the server printed after its first line, once it has exited."""
    if process.stdout is None or process.stdout.closed:
        return ""
    try:
        return process.stdout.read().decode(errors="replace")
    finally:
        process.stdout.close()


def _kill(process: subprocess.Popen[bytes]) -> str:
    """Kills the server (if it still runs), waits for it, and returns the rest of its output."""
    if process.poll() is None:
        process.kill()
    process.wait()
    if process.stdin is not None:
        process.stdin.close()
    return _rest(process)
