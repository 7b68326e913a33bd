#!/usr/bin/python3
"""preface_only: holds connections that send the HTTP/2 preface and nothing else.

    preface_only.py PORT COUNT SECONDS STATUS_FILE

Opens COUNT connections to 127.0.0.1:PORT from RAW_HTTP2_SOURCE (default 127.0.0.2,
another host to the server), each sending the client preface and an empty SETTINGS
frame, reads whatever comes back, and keeps them for SECONDS. Every 100 ms it rewrites
STATUS_FILE (atomically) with one JSON object, and prints the last one at the end:
  opened         connections made
  closed_at_once closed by the server within 0.5 s of their connect (refused)
  closed_later   closed by the server after that (shut down while held)
  open           still open
"""
import json
import os
import resource
import select
import socket
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    port, count, seconds, status_file = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    source = os.environ.get("RAW_HTTP2_SOURCE", "127.0.0.2")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    poller = select.epoll()
    opened_at = {}  # fd -> (socket, time of connect)
    status = {"opened": 0, "closed_at_once": 0, "closed_later": 0, "open": 0}

    def write_status():
        status["open"] = len(opened_at)
        with open(status_file + ".tmp", "w") as f:
            json.dump(status, f)
        os.replace(status_file + ".tmp", status_file)

    def drain(timeout):
        for fd, _ in poller.poll(timeout):
            sock, since = opened_at[fd]
            try:
                data = sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            except BlockingIOError:
                continue
            if data:
                continue
            poller.unregister(fd)
            del opened_at[fd]
            sock.close()
            status["closed_at_once" if time.monotonic() - since < 0.5 else "closed_later"] += 1

    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
        try:
            sock.send(PREFACE)
        except OSError:
            pass  # closed already: counted when read
        opened_at[sock.fileno()] = (sock, time.monotonic())
        poller.register(sock.fileno(), select.EPOLLIN)
        status["opened"] += 1
        drain(0)
    end = time.monotonic() + seconds
    next_status = 0.0
    while time.monotonic() < end:
        drain(0.05)
        if time.monotonic() >= next_status:
            write_status()
            next_status = time.monotonic() + 0.1
    write_status()
    print(json.dumps(status))


if __name__ == "__main__":
    main()
