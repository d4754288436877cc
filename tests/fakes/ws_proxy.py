"""A TCP proxy in front of the control plane that can refuse or cut the browser's live socket alone, as mobile
links and some carriers' proxies do, while page loads and API calls still pass.

Each connection's first request line tells a socket (`GET /ws`) from the rest. `block()`: new socket connections
are dropped at once (no answer), and the open ones are cut; `drop()`: the open ones are cut; `hold()`: what the
server sends on sockets stays in the proxy (the link stalls one way, as a half-dead one does: the browser's side
still looks open), so a push sent after it never reaches the browser if the socket is then cut; `unblock()`:
sockets pass again, held data included. A small HTTP control server (`control_url`: POST /block, /unblock, /drop,
/hold) lets the browser tests drive it. Runs in threads.
"""

from __future__ import annotations

import contextlib
import socket
import threading

from tests.fakes.control import ControlServer


class WsProxy:
    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        family = socket.AF_INET6 if ":" in listen[0] else socket.AF_INET
        self._listener = socket.create_server(listen, family=family)
        self._target = target
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._blocked = False
        # Cleared by hold(): the server-to-browser side of sockets waits for it before writing what it read.
        self._flowing = threading.Event()
        self._flowing.set()
        self._stopped = False
        threading.Thread(target=self._accept_forever, daemon=True).start()
        self._control = ControlServer(self._on_control)
        self.control_url = self._control.url

    def _on_control(self, path: str, _body: object) -> bool:
        action = {"/block": self.block, "/unblock": self.unblock, "/drop": self.drop, "/hold": self.hold}.get(path)
        if action is None:
            return False
        action()
        return True

    def block(self) -> None:
        with self._lock:
            self._blocked = True
        self.drop()

    def unblock(self) -> None:
        with self._lock:
            self._blocked = False
        self._flowing.set()

    def hold(self) -> None:
        self._flowing.clear()

    def drop(self) -> None:
        with self._lock:
            cut, self._sockets = self._sockets, set()
        for conn in cut:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def close(self) -> None:
        self._stopped = True
        self.drop()
        self._listener.close()
        self._control.shutdown()

    def _accept_forever(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        first = b""
        with contextlib.suppress(OSError):
            while b"\r\n" not in first and len(first) < 8192:
                chunk = client.recv(4096)
                if not chunk:
                    break
                first += chunk
        is_socket = first.startswith(b"GET /ws")
        with self._lock:
            refused = is_socket and self._blocked
        if refused or not first:
            client.close()
            return
        try:
            upstream = socket.create_connection(self._target)
        except OSError:
            client.close()
            return
        if is_socket:
            with self._lock:
                self._sockets.update((client, upstream))
        upstream.sendall(first)
        flowing = self._flowing if is_socket else None
        threading.Thread(target=_pipe, args=(upstream, client, flowing), daemon=True).start()
        _pipe(client, upstream)


def _pipe(source: socket.socket, sink: socket.socket, flowing: threading.Event | None = None) -> None:
    """Copies `source` to `sink` until either ends; with `flowing`, what was read waits while it is cleared (the
    check comes after the read, so bytes read at the moment of a hold are held too) and is lost if `sink` is cut."""
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            while flowing is not None and not flowing.wait(0.1):
                if sink.fileno() < 0:  # cut while held
                    return
            sink.sendall(data)
    for conn in (source, sink):
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)
