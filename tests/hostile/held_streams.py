#!/usr/bin/python3
"""held_streams: holds connections full of calls whose message never comes.

    held_streams.py PORT CONNECTIONS STREAMS SECONDS STATUS_FILE

Opens CONNECTIONS connections to 127.0.0.1:PORT from RAW_HTTP2_SOURCE (default
127.0.0.2, another host to the server). Each acknowledges the server's SETTINGS (so
its SETTINGS_MAX_CONCURRENT_STREAMS binds), then opens STREAMS Recommend calls with
HEADERS alone -- a request whose message never comes -- answers PINGs, and is held
for SECONDS. HELD_STREAMS_METADATA=N adds a header of N bytes to every stream. Every
100 ms it rewrites STATUS_FILE (atomically) with one JSON object, and prints the last
one at the end:
  opened            connections made
  streams_sent      HEADERS frames written
  streams_reset     RST_STREAM frames received (streams the server refused)
  closed_at_once    connections the server closed within 0.5 s of their connect
  closed_later      connections the server closed after that
  open              still open

Bounded by SECONDS (at most 120) and connects only to 127.0.0.1.
"""
import json
import os
import resource
import select
import socket
import sys
import time

sys.dont_write_bytecode = True
from h2_attacks import (  # noqa: E402
    END_HEADERS, HEADERS, PING, PREFACE, RST_STREAM, SETTINGS, frame, literal, request_headers_block)

ACK = 0x1


class Held:
    """One connection: bytes not yet parsed, and whether its streams went out."""

    def __init__(self, sock):
        self.sock, self.buf, self.sent_streams, self.since = sock, b"", False, time.monotonic()


def answer(conn, streams, block, status):
    """Parses what came; acknowledges SETTINGS (then opens the streams) and PINGs."""
    out = b""
    while len(conn.buf) >= 9:
        length = int.from_bytes(conn.buf[0:3], "big")
        if len(conn.buf) < 9 + length:
            break
        kind, flags = conn.buf[3], conn.buf[4]
        payload, conn.buf = conn.buf[9:9 + length], conn.buf[9 + length:]
        if kind == SETTINGS and not flags & ACK:
            out += frame(SETTINGS, ACK, 0)
            if not conn.sent_streams:
                out += b"".join(frame(HEADERS, END_HEADERS, 1 + 2 * i, block) for i in range(streams))
                conn.sent_streams = True
                status["streams_sent"] += streams
        elif kind == PING and not flags & ACK:
            out += frame(PING, ACK, 0, payload)
        elif kind == RST_STREAM:
            status["streams_reset"] += 1
    if out:
        conn.sock.setblocking(True)
        try:
            conn.sock.sendall(out)
        except OSError:
            pass
        conn.sock.setblocking(False)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    port, count, streams = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    seconds, status_file = min(float(sys.argv[4]), 120.0), sys.argv[5]
    source = os.environ.get("RAW_HTTP2_SOURCE", "127.0.0.2")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    block = request_headers_block()
    pad = int(os.environ.get("HELD_STREAMS_METADATA", "0"))
    if pad:  # one more header of that many bytes on every stream, as a literal never indexed
        block += literal(0, b"p" * pad, b"x-pad")
    poller = select.epoll()
    held = {}  # fd -> Held
    status = {"opened": 0, "streams_sent": 0, "streams_reset": 0, "closed_at_once": 0, "closed_later": 0, "open": 0}

    def write_status():
        status["open"] = len(held)
        with open(status_file + ".tmp", "w") as f:
            json.dump(status, f)
        os.replace(status_file + ".tmp", status_file)

    def drain(timeout):
        for fd, _ in poller.poll(timeout):
            conn = held[fd]
            try:
                data = conn.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            except BlockingIOError:
                continue
            if data:
                conn.buf += data
                answer(conn, streams, block, status)
                continue
            poller.unregister(fd)
            del held[fd]
            conn.sock.close()
            status["closed_at_once" if time.monotonic() - conn.since < 0.5 else "closed_later"] += 1

    end = time.monotonic() + seconds
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
        sock.setblocking(False)
        held[sock.fileno()] = Held(sock)
        poller.register(sock.fileno(), select.EPOLLIN)
        status["opened"] += 1
        drain(0)
    last = 0.0
    while time.monotonic() < end:
        drain(0.05)
        if time.monotonic() - last >= 0.1:
            write_status()
            last = time.monotonic()
    write_status()
    print(json.dumps(status))
    for conn in held.values():
        conn.sock.close()


if __name__ == "__main__":
    main()
