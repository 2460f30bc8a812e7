"""Requests to the control API of ``dynalease-fake serve`` (``/_dynalease/...``), on one
keep-alive connection."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from typing import Any, Dict, Optional, Tuple

PREFIX = "/_dynalease/"


class ControlError(Exception):
    """A control request the server refused: its HTTP status, the kind of error and the server's
    message (``ControlError(400, "BadRequest", "Seconds -5 is not a duration: ...")``)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(f"{status} {error}: {message}")
        self.status = status
        self.error = error
        self.message = message


class ControlConnection:
    """One keep-alive HTTP/1.1 connection to the control API at ``host:port``; opened again when
    the server has closed it (after its idle timeout). Threads take turns on it."""

    def __init__(self, host: str, port: int, timeout: float = 60.0) -> None:
        self._host = host
        self._port = port
        self._timeout = timeout
        self._connection: Optional[http.client.HTTPConnection] = None
        self._turn = threading.Lock()

    def request(self, method: str, path: str, body: Any = None, *, raw: Optional[bytes] = None) -> Any:
        """Sends ``method PREFIX+path`` with ``body`` as JSON (or the bytes ``raw``), returns the
        JSON answer; raises :class:`ControlError` with the server's message when it refuses."""
        data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json"}
        with self._turn:
            reused = self._connection is not None
            try:
                status, answer = self._exchange(method, PREFIX + path, data, headers)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if not reused:
                    raise
                # A kept connection the server closed while it was idle: the request never
                # reached it, so it is sent once more, on a new connection.
                status, answer = self._exchange(method, PREFIX + path, data, headers)
        try:
            document = json.loads(answer) if answer else None
        except ValueError:
            raise ControlError(status, "NotJson", answer.decode(errors="replace")) from None
        if status >= 400:
            document = document if isinstance(document, dict) else {}
            raise ControlError(status, str(document.get("Error", "")), str(document.get("Message", "")))
        return document

    def _exchange(self, method: str, path: str, data: bytes, headers: Dict[str, str]) -> Tuple[int, bytes]:
        if self._connection is None:
            connection = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
            connection.connect()
            # Each request goes out in one write; no waiting for the previous one's ack.
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._connection = connection
        try:
            self._connection.request(method, path, body=data, headers=headers)
            response = self._connection.getresponse()
            answer = response.read()
        except BaseException:
            self._drop()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self._drop()
        return response.status, answer

    def close(self) -> None:
        """Closes the connection, if one is open."""
        with self._turn:
            self._drop()

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
