"""A moto S3 server in its own process (so it does not share the benchmark's GIL).

``python tests/bench/s3_server.py`` prints its endpoint (``http://127.0.0.1:PORT``), then
serves until stdin closes.
"""

from __future__ import annotations

import logging
import sys

from moto.server import ThreadedMotoServer


def main() -> None:
    """Serve until stdin closes."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        print(f"http://{host}:{port}", flush=True)
        sys.stdin.read()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
