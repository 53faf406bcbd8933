"""The tests' own fixture for child processes: a port counts as a process's only when that
process listens on it, not when another test worker bound it between free_port and its bind."""

from __future__ import annotations

import socket
import subprocess
import sys

from tests.fixtures.processes import end, free_port, listening

LISTEN = (
    "import socket, sys, time\n"
    "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); time.sleep(60)"
)


def test_a_port_another_process_listens_on_is_not_the_processs() -> None:
    with socket.socket() as intruder:
        intruder.bind(("127.0.0.1", 0))
        intruder.listen()
        port = intruder.getsockname()[1]
        idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            assert not listening(port, idle, within_s=1)
        finally:
            end(idle)


def test_a_port_the_process_listens_on_is_its() -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", LISTEN, str(port)])
    try:
        assert listening(port, server, within_s=30)
    finally:
        end(server)
