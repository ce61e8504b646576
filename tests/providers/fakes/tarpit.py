"""A provider that hangs: a loopback server that accepts every connection, reads what it is sent, and never
answers until it is stopped (what a wedged or overloaded provider looks like from the hub)."""

from __future__ import annotations

import socket
import threading


class Tarpit:
    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        self._listener.settimeout(0.1)
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self._held.append(conn)  # kept open, never written to

    def stop(self) -> None:
        self._stopped.set()
        for conn in self._held:
            conn.close()
        self._listener.close()
