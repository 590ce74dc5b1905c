"""A TCP proxy on 127.0.0.1 in front of the test PostgreSQL server that can refuse or freeze.

The shared server itself is never stopped or frozen: tests point the bot at the proxy and
break the proxy. ``refuse`` is a server that went away (connections are dropped, new ones
closed at once); ``freeze`` is one that hangs (connections are accepted and kept, and no
byte goes either way), which no server-side timeout can end.
"""

from __future__ import annotations

import socket
import threading

from sqlalchemy.engine import make_url

FORWARD, REFUSE, FREEZE = "forward", "refuse", "freeze"


class PostgresProxy:
    def __init__(self, database_url: str) -> None:
        url = make_url(database_url)
        self._upstream = (url.host or "127.0.0.1", url.port or 5432)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = url.set(host="127.0.0.1", port=self._listener.getsockname()[1]).render_as_string(
            hide_password=False
        )
        """The database URL through the proxy."""
        self._mode = FORWARD
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="pg-proxy", daemon=True).start()

    def refuse(self) -> None:
        """Drop every connection and close new ones at once."""
        self._mode = REFUSE
        self._drop_all()
        self._flowing.set()

    def freeze(self) -> None:
        """Keep every connection open and forward nothing, either way."""
        self._mode = FREEZE
        self._flowing.clear()

    def close(self) -> None:
        """Stop: every connection is closed, so work stuck on a frozen one ends."""
        self._closed = True
        self._listener.close()
        self._drop_all()
        self._flowing.set()

    def _drop_all(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _address = self._listener.accept()
            except OSError:
                return
            if self._mode == REFUSE:
                client.close()
                continue
            with self._lock:
                self._sockets.append(client)
            if self._mode == FREEZE:
                continue
            try:
                upstream = socket.create_connection(self._upstream)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.append(upstream)
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(
                    target=self._pump, args=(source, target), name="pg-proxy-pump", daemon=True
                ).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self._flowing.wait()
                if self._closed or self._mode == REFUSE:
                    return
                target.sendall(data)
        except OSError:
            return
        finally:
            source.close()
            target.close()
