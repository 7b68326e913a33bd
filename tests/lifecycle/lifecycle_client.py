#!/usr/bin/python3
"""lifecycle_client: drives reco_server (the binary) through its life-cycle cases.

    lifecycle_client.py inflight PORT SERVER_PID CALLS ITEMS CHANNELS SIGNAL_MS LATE_MS
        CALLS concurrent Recommend calls of ITEMS realistic items over CHANNELS
        connections; SIGTERM to SERVER_PID SIGNAL_MS after they were sent; one more
        call LATE_MS after the signal. Prints JSON: a count per status of the CALLS
        calls, how many were done before the signal, and the late call's status.
    lifecycle_client.py noread PORT CALLS ITEMS
        Raw HTTP/2: CALLS calls of ITEMS realistic items with a 64 KiB window, then
        never reads again. Prints "stuck" once reply bytes arrived, then sleeps until
        killed: the server's replies stay stuck behind flow control.
    lifecycle_client.py idle PORT WAIT_S
        Raw HTTP/2: the preface and SETTINGS, then silence. Prints JSON: whether the
        server sent GOAWAY and closed the connection within WAIT_S seconds.
    lifecycle_client.py silent PORT WAIT_S
        A TCP connection that never sends a byte (not even a TLS hello). Prints JSON:
        whether the server closed it within WAIT_S seconds.
    lifecycle_client.py gzip_bomb PORT MIB
        Raw HTTP/2: one request whose gzip body inflates to MIB MiB (a user_id of zero
        bytes), sent with grpc-encoding: gzip. Prints the raw client's JSON report.
    lifecycle_client.py hold PORT CONNS
        Opens CONNS idle TCP connections (as many as the system lets it), prints
        "held N", waits for a line on stdin, closes them, prints "closed".
    lifecycle_client.py call PORT ITEMS
        One Recommend call through gRPC; prints JSON with its status and reply size.

Only ever connects to 127.0.0.1. Every wait is bounded.
"""
import json
import os
import signal
import socket
import sys
import time
import zlib

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import raw_http2_client as raw  # noqa: E402

METHOD = "/reco.v1.Recommender/Recommend"


def channel(port):
    # A connection of its own: grpcio otherwise shares one between channels alike.
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=[
        ("grpc.max_receive_message_length", -1), ("grpc.enable_retries", 0),
        ("grpc.use_local_subchannel_pool", 1)])


def recommend(ch):
    return ch.unary_unary(METHOD, request_serializer=None, response_deserializer=None)


def status_name(fut):
    try:
        fut.result(timeout=0)
        return "OK"
    except grpc.FutureTimeoutError:
        return "PENDING"
    except grpc.RpcError as e:
        return e.code().name


def inflight(port, pid, calls, items, channels, signal_ms, late_ms):
    chs = [channel(port) for _ in range(channels)]
    for ch in chs:
        grpc.channel_ready_future(ch).result(timeout=10)
    stubs = [recommend(ch) for ch in chs]
    req = raw.request_bytes(user=b"drain", items=items, profile=0, seed=3)
    futs = [stubs[i % len(stubs)].future(req, timeout=60) for i in range(calls)]
    time.sleep(signal_ms / 1000)
    done_before = sum(f.done() for f in futs)
    os.kill(pid, signal.SIGTERM)
    time.sleep(late_ms / 1000)
    # A new client after the drain delay: its connection is refused (UNAVAILABLE). A
    # call on one of the old connections can instead be CANCELLED when its client has
    # not read the GOAWAY yet -- it waits behind the replies still being sent (drain.h).
    late = recommend(channel(port)).future(req, timeout=10)
    deadline = time.monotonic() + 60
    for f in futs + [late]:
        while not f.done() and time.monotonic() < deadline:
            time.sleep(0.01)
    names = [status_name(f) for f in futs]
    details = sorted({f.exception().details() for f in futs if f.done() and f.exception() is not None})
    print(json.dumps({"statuses": {n: names.count(n) for n in sorted(set(names))}, "done_before_signal": done_before,
                      "late": status_name(late), "errors": details}))


def noread(port, calls=8, items=10000):
    c = raw.Client(port)
    c.conn.update_settings({raw.h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 65535})
    big = raw.grpc_frame(raw.request_bytes(items=items, profile=0))
    for _ in range(calls):
        c.send(raw.headers(), big)
    deadline = time.monotonic() + 20
    while not any(st["data"] for st in c.streams.values()) and time.monotonic() < deadline:
        if c.read_once():
            break
    print("stuck", flush=True)
    time.sleep(120)  # never reads again; the test kills this process


def idle(port, wait_s):
    c = raw.Client(port)
    c.sock.settimeout(0.5)
    deadline, goaway, closed = time.monotonic() + wait_s, False, False
    while time.monotonic() < deadline and not closed:
        try:
            chunk = c.sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        for ev in c.conn.receive_data(chunk):
            if isinstance(ev, raw.h2.events.ConnectionTerminated):
                goaway = True
        # Acknowledge SETTINGS and PINGs like any peer, but start no call.
        c.flush()
    print(json.dumps({"goaway": goaway, "closed": closed}))


def silent(port, wait_s):
    s = socket.create_connection(("127.0.0.1", port), timeout=wait_s)
    try:
        closed = s.recv(1) == b""
    except ConnectionResetError:
        closed = True
    except socket.timeout:
        closed = False
    print(json.dumps({"closed": closed}))


def gzip_bomb(port, mib):
    # RecommendRequest.user_id (field 1) holding MIB MiB of zero bytes, gzip-compressed
    # piece by piece so that this client never holds the inflated form.
    n = mib << 20
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    body = bytearray(z.compress(b"\x0a" + raw.varint(n)))
    zeros = bytes(1 << 20)
    for _ in range(mib):
        body += z.compress(zeros)
    body += z.compress(b"\x10\x05") + z.flush()
    hdrs = raw.headers() + [("grpc-encoding", "gzip")]
    c = raw.Client(port)
    sid = c.send(hdrs, raw.grpc_frame(bytes(body), compressed=1))
    out = c.report(sid, c.wait([sid]))
    out["compressed_bytes"] = len(body)
    out.pop("message_hex")
    print(json.dumps(out))


def hold(port, conns, h2=0):
    """Opens CONNS connections and holds them until a line on stdin. With h2=1 each
    sends the HTTP/2 preface and an empty SETTINGS frame, so gRPC takes it as a
    connection that starts no call (held until --max_connection_idle)."""
    socks = []
    for _ in range(conns):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if h2:
                s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            socks.append(s)
        except OSError:
            break
    print(f"held {len(socks)}", flush=True)
    sys.stdin.readline()
    for s in socks:
        s.close()
    print("closed", flush=True)


def call(port, items):
    ch = channel(port)
    try:
        reply = recommend(ch)(raw.request_bytes(items=items, profile=1), timeout=10)
        print(json.dumps({"status": "OK", "bytes": len(reply)}))
    except grpc.RpcError as e:
        print(json.dumps({"status": e.code().name, "details": e.details()}))


def main():
    case, port, args = sys.argv[1], int(sys.argv[2]), [int(a) for a in sys.argv[3:]]
    {"inflight": inflight, "noread": noread, "idle": idle, "silent": silent, "gzip_bomb": gzip_bomb, "hold": hold,
     "call": call}[case](port, *args)


if __name__ == "__main__":
    main()
