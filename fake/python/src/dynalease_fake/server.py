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
    "stall_replication": "StallReplication",
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
        # The account this object speaks for (None: the default account, and the whole server
        # for the control API), and whether it runs the process or only speaks to it.
        self._account: Optional[str] = None
        self._pid: Optional[int] = None
        self._borrowed = False
        self._owns_connection = True

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
        return self._start_with(subprocess.PIPE)

    def _start_with(self, stdin: Any, log: Optional[StrPath] = None) -> "FakeServer":
        """Starts the server with ``stdin`` as its standard input and its output to a pipe, or
        to the file ``log``."""
        if self._process is not None or self._borrowed:
            raise RuntimeError("this FakeServer is already running")
        command = self.command()
        output = open(log, "wb") if log is not None else subprocess.PIPE
        try:
            process = subprocess.Popen(
                command,
                stdin=stdin,
                stdout=output,
                stderr=subprocess.STDOUT,
                # A process group of its own: a Ctrl-C in the terminal reaches the test run, which
                # stops the server in order, instead of the server first.
                start_new_session=True,
            )
        finally:
            if log is not None:
                output.close()
        try:
            if log is None:
                line, reason = _first_line(process, self._start_timeout)
            else:
                line, reason = _first_line_of_file(process, log, self._start_timeout)
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
        self._pid = process.pid
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
        :class:`ServerError` if it exited with an error. Does nothing if it is not running. A
        :class:`FakeServer` of :meth:`for_account` or :meth:`connect` stops nothing: it only
        forgets its connection."""
        if self._borrowed:
            self._forget()
            return 0
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
        where = self._endpoint if self._control is not None else "not running"
        account = f" account {self._account}" if self._account is not None else ""
        return f"<FakeServer {where}{account}>"

    def _forget(self) -> None:
        if self._control is not None and self._owns_connection:
            self._control.close()
        self._process = None
        self._control = None
        self._endpoint = None

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
        self._running()
        assert self._pid is not None
        return self._pid

    def is_running(self) -> bool:
        """Whether the server process is alive."""
        if self._process is not None:
            return self._process.poll() is None
        return self._control is not None and self._pid is not None and _alive(self._pid)

    # Accounts.

    @property
    def account(self) -> Optional[str]:
        """The account this object speaks for, twelve digits; ``None`` for the default account
        (``000000000000``), whose control requests are for the whole server."""
        return self._account

    @property
    def access_key_id(self) -> str:
        """The access key id of this object's account, for code under test that builds its own
        clients (``AWS_ACCESS_KEY_ID``): the account itself, or ``"fake"`` for the default one."""
        return self._account or "fake"

    def for_account(self, account: str) -> "FakeServer":
        """The same server, seen from the account ``account`` (twelve digits): its clients sign
        with that account as their access key id, so their tables are that account's alone, and
        its clock, fault rules, reset, snapshots and request log are that account's (its clock
        moves apart from the others' once this object moves it). Stopping it stops nothing."""
        if not (isinstance(account, str) and len(account) == 12 and account.isascii() and account.isdigit()):
            raise ValueError(f"an account is twelve digits, not {account!r}")
        self._running()
        view = FakeServer.__new__(FakeServer)
        view.__dict__.update(self.__dict__)
        view._account = account
        view._borrowed = True
        view._owns_connection = False
        view._process = None
        return view

    @classmethod
    def connect(
        cls,
        endpoint_url: str,
        *,
        account: Optional[str] = None,
        clock: Optional[Literal["real", "manual"]] = None,
        start_time: Optional[datetime] = None,
        pid: Optional[int] = None,
    ) -> "FakeServer":
        """A :class:`FakeServer` for a server that another process started, at ``endpoint_url``:
        the same methods, for the account ``account`` if given. ``clock="manual"`` and
        ``start_time`` tell :meth:`reset` where to put the clock back. Stopping it stops nothing."""
        server = cls(clock=clock)
        address = urlsplit(endpoint_url)
        server._endpoint = endpoint_url
        server._control = ControlConnection(address.hostname or "127.0.0.1", address.port or 0)
        server._borrowed = True
        server._pid = pid
        if account is not None:
            server._account = server.for_account(account)._account
        if server._manual:
            server._start = start_time if start_time is not None else server.now()
        return server

    # boto3.

    def client(self, **arguments: Any) -> Any:
        """A boto3 DynamoDB client for this server, with dummy credentials (the access key id is
        :attr:`access_key_id`) and region ``us-east-1``; ``arguments`` go to ``boto3.client`` and
        win (``config=...``, ``region_name=...``)."""
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
            "aws_access_key_id": self.access_key_id,
            "aws_secret_access_key": "fake",
        }
        base.update(arguments)
        return base

    # The clock.

    def now(self) -> datetime:
        """The fake's time, in UTC."""
        return _reading(self._request("GET", self._scoped("clock")))

    def is_frozen(self) -> bool:
        """Whether the fake's clock stands still."""
        return bool(self._request("GET", self._scoped("clock"))["Frozen"])

    def advance(
        self, seconds: Union[float, timedelta] = 0, *, minutes: float = 0, hours: float = 0, days: float = 0
    ) -> datetime:
        """Moves the fake's clock forward (``advance(90)``, ``advance(days=2)``,
        ``advance(timedelta(hours=1))``); what fell due in between (time-to-live deletions with
        their stream records) is done before it returns. Returns the new time."""
        by = seconds if isinstance(seconds, timedelta) else timedelta(seconds=seconds)
        by += timedelta(minutes=minutes, hours=hours, days=days)
        return _reading(self._request("POST", self._scoped("clock/advance"), {"Seconds": by.total_seconds()}))

    def set_time(self, when: datetime) -> datetime:
        """Sets the fake's clock to ``when``, a timezone-aware ``datetime`` not before its time
        (the clock only moves forward), doing what fell due in between. Returns the new time."""
        return _reading(self._request("POST", self._scoped("clock/set"), {"EpochSeconds": _epoch_seconds(when)}))

    def freeze(self) -> datetime:
        """Stops the fake's clock where it is; returns that time."""
        return _reading(self._request("POST", self._scoped("clock/freeze")))

    def run(self) -> datetime:
        """Lets the fake's clock run with real time from where it stands; returns that time."""
        return _reading(self._request("POST", self._scoped("clock/resume")))

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
        (``ms=``), ``error`` (``code=``, and ``message=`` and ``status=``, 400 by default),
        ``unprocessed`` (``processed=``: how many requests of a batch are processed),
        ``stall_replication`` (the writes of a global table stop reaching the replicas in
        ``region``, of ``table``, until the rule is removed) or ``stale_read`` (``max_lag_ms=``,
        up to an hour: each eventually consistent read it meets sees the tables as they were at
        one instant up to that long ago). The rule is narrowed to an
        ``operation`` (``"PutItem"``), a ``table`` and a ``region`` (of the request's signature), drawn with a
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
            ("Account", account if account is not None else self._account),
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
        """Removes every fault rule (of this object's account, for one of :meth:`for_account`);
        returns their ids."""
        return list(self._request("DELETE", self._scoped("faults"))["Removed"])

    def faults(self) -> List[Dict[str, Any]]:
        """The fault rules, as the control API shows them: ``Id``, ``Fault``, ``Operation``,
        ``Table``, ``Probability``, ``Times``, ``Remaining``, ``After``, ``Matched`` (requests it
        matched) and ``Fired`` (faults it gave), used-up rules too."""
        return list(self._request("GET", self._scoped("faults"))["Rules"])

    # Tables.

    def reset(self) -> None:
        """Everything back to how a test wants to find it: every table gone, every fault rule
        removed, the request log emptied, and a manual clock back at the time it started,
        standing still. A real clock runs on. For an object of :meth:`for_account`, all of
        that of its account alone."""
        if self._manual and self._start is not None:
            at = {"EpochSeconds": _epoch_seconds(self._start), "Frozen": True}
            self._request("POST", self._scoped("reset"), at)
        else:
            self._request("POST", self._scoped("reset"))
        self._request("DELETE", self._scoped("faults"))
        self._request("DELETE", self._scoped("requests"))

    def snapshot(self) -> Dict[str, Any]:
        """Every table, with its indexes, settings and items, as a dict (the JSON of the control
        API's snapshot, which :meth:`load` and the ``data`` file take); of this object's account
        alone for one of :meth:`for_account`."""
        return dict(self._request("GET", self._scoped("snapshot")))

    def load(self, snapshot: Union[Mapping[str, Any], StrPath]) -> List[str]:
        """Replaces every table with those of ``snapshot``, a dict or the path of a JSON file, all
        at once; returns their names. A snapshot that does not load changes nothing and raises
        :class:`ControlError` with the line, column and fault."""
        if isinstance(snapshot, Mapping):
            raw = json.dumps(snapshot).encode()
        else:
            with open(os.fspath(snapshot), "rb") as file:
                raw = file.read()
        return list(self._request("PUT", self._scoped("snapshot"), raw=raw)["Tables"])

    def save(self) -> None:
        """Writes the tables to the ``data`` file now (:class:`ControlError` 409 without one)."""
        self._request("POST", "save")

    # The request log.

    def requests(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The request log, oldest first (the latest ``limit`` requests if given): each with
        ``Time``, ``Operation``, ``Table``, ``Outcome`` (``OK`` or the error code) and ``Fault``."""
        path = self._scoped("requests")
        if limit is not None:
            path += ("&" if "?" in path else "?") + f"limit={int(limit)}"
        return list(self._request("GET", path)["Requests"])

    def clear_requests(self) -> None:
        """Empties the request log (of this object's account's requests, for one of
        :meth:`for_account`)."""
        self._request("DELETE", self._scoped("requests"))

    def _scoped(self, path: str) -> str:
        """A control path, narrowed to this object's account if it has one."""
        return path if self._account is None else f"{path}?account={self._account}"

    def _running(self) -> None:
        if self._control is None:
            raise RuntimeError("the server is not running: use `with FakeServer() as fake:` or call start()")

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


def _first_line_of_file(process: subprocess.Popen[bytes], log: StrPath, timeout: float) -> Tuple[str, Optional[str]]:
    """As :func:`_first_line`, for a server whose output goes to the file ``log``."""
    deadline = time.monotonic() + timeout
    while True:
        with open(log, "rb") as file:
            text = file.read().decode(errors="replace")
        if "\n" in text:
            if not text.startswith(_ANNOUNCEMENT):
                return text, "its first line does not name an address"
            return text, None
        if process.poll() is not None:
            return text, "it exited before naming its address"
        if time.monotonic() >= deadline:
            return text, f"it named no address within {timeout:g} s"
        time.sleep(0.001)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (it may be another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
