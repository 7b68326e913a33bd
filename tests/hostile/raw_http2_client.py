#!/usr/bin/python3
"""raw_http2_client: sends deliberately broken gRPC traffic over raw HTTP/2 (h2c).

    raw_http2_client.py PORT CASE [CASE ARGUMENTS]

With RAW_HTTP2_TLS_CA=FILE in the environment it speaks TLS (ALPN h2) to a server
whose certificate FILE signs, checking the name localhost; h2c otherwise. With
RAW_HTTP2_SOURCE=ADDRESS it connects from that address (127.0.0.2: another client).

Speaks HTTP/2 itself (python3-h2), so it can send what no gRPC client would: a gRPC
frame shorter than its length prefix, the wrong content type, a compressed flag with
no encoding, a stream reset halfway through a request, a connection dropped while
responses are in flight. Prints one JSON object describing what came back; the C++
test (hostile_raw_http2_test.cc) judges it and checks the server afterwards.

The request it sends when it needs a valid one is fixed, so the test can compute the
expected reply: user_id "raw-client", item_count 5, TEXT_PROFILE_COMPACT, seed 9.

Only ever connects to 127.0.0.1.
"""
import json
import os
import socket
import ssl
import struct
import sys

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

PATH = "/reco.v1.Recommender/Recommend"


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def request_bytes(user=b"raw-client", items=5, profile=1, seed=9):
    # reco.v1.RecommendRequest by hand: 1 user_id, 2 item_count, 3 text_profile, 4 seed.
    return (b"\x0a" + varint(len(user)) + user + b"\x10" + varint(items) +
            b"\x18" + varint(profile) + b"\x20" + varint(seed))


def grpc_frame(message, compressed=0, claimed_length=None):
    length = len(message) if claimed_length is None else claimed_length
    return struct.pack(">BI", compressed, length) + message


TLS_CA = os.environ.get("RAW_HTTP2_TLS_CA")


def headers(content_type="application/grpc", path=PATH):
    return [(":method", "POST"), (":scheme", "https" if TLS_CA else "http"), (":path", path),
            (":authority", "127.0.0.1"), ("content-type", content_type), ("te", "trailers")]


def connect(port):
    # RAW_HTTP2_SOURCE=127.0.0.2: connect from that address, another client to the server.
    source = os.environ.get("RAW_HTTP2_SOURCE")
    sock = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0) if source else None)
    if not TLS_CA:
        return sock
    context = ssl.create_default_context(cafile=TLS_CA)
    context.set_alpn_protocols(["h2"])
    return context.wrap_socket(sock, server_hostname="localhost")


def without(name):
    return lambda hs: [(k, v) for k, v in hs if k != name]


def replaced(name, value):
    return lambda hs: [(k, value if k == name else v) for k, v in hs]


def added(*pairs):
    return lambda hs: hs + list(pairs)


# The header cases of the "headers" case: each changes the valid request's headers.
HEADER_CASES = {
    "no_te": without("te"),
    "no_content_type": without("content-type"),
    "get_method": replaced(":method", "GET"),
    "timeout_garbage": added(("grpc-timeout", "soon")),
    "timeout_1ns": added(("grpc-timeout", "1n")),
    "timeout_huge": added(("grpc-timeout", "99999999H")),  # the largest the spec allows
    "timeout_293_years": added(("grpc-timeout", "2566800H")),  # just past int64 nanoseconds
    # Sent with the compressed flag set: an encoding the server does not know.
    "unknown_encoding": added(("grpc-encoding", "br")),
    "accept_encoding_garbage": added(("grpc-accept-encoding", "\x01,,zz")),
    "metadata_7k": added(("x-big", "v" * 7000)),
    "metadata_10k": added(("x-big", "v" * 10000)),  # past gRPC's 8 KiB, within 16 KiB
    "metadata_16k": added(("x-big", "v" * 16000)),
    "metadata_64k": added(("x-big", "v" * 65000)),
    "metadata_500_headers": lambda hs: hs + [(f"x-m{i}", "v") for i in range(500)],
    "binary_metadata_not_base64": added(("x-trace-bin", "!!not base64!!")),
    "reserved_grpc_status": added(("grpc-status", "0")),
}


class Client:
    def __init__(self, port, validate=True):
        # validate=False sends headers h2 would refuse to send (an empty :path).
        self.sock = connect(port)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=True, validate_outbound_headers=validate, normalize_outbound_headers=validate))
        self.conn.initiate_connection()
        # A large window, so that big replies are not stalled by flow control.
        self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 16 * 1024 * 1024})
        self.conn.increment_flow_control_window(64 * 1024 * 1024)
        self.flush()
        self.streams = {}

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            try:
                self.sock.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server closed the connection: the next read says so

    def send(self, hdrs, body, end=True):
        sid = self.conn.get_next_available_stream_id()
        self.streams[sid] = {"headers": {}, "data": b"", "ended": False, "reset": None}
        self.conn.send_headers(sid, hdrs, end_stream=(end and not body))
        self.flush()
        # DATA in pieces the peer's flow-control window and frame size allow; a body
        # larger than the window waits for WINDOW_UPDATEs (or for the server to give up
        # on the stream, which ends the sending).
        while body:
            window = min(self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
            if window == 0:
                if self.read_once() or self.streams[sid]["ended"] or self.streams[sid]["reset"] is not None:
                    return sid
                continue
            piece, body = body[:window], body[window:]
            self.conn.send_data(sid, piece, end_stream=(end and not body))
            self.flush()
        return sid

    def wait(self, sids):
        """Reads until every stream in sids ended or was reset, or the connection closed."""
        closed = None
        while not closed and any(not (self.streams[s]["ended"] or self.streams[s]["reset"] is not None) for s in sids):
            closed = self.read_once()
        return closed

    def read_once(self):
        """Reads and handles one chunk; returns why the connection ended, or None."""
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return "timeout"
        except (ConnectionResetError, BrokenPipeError):
            return "reset"
        if not chunk:
            return "eof"
        closed = None
        try:
            events = self.conn.receive_data(chunk)
        except h2.exceptions.StreamClosedError as e:
            # gRPC 1.51 sends a call's trailers-only HEADERS and RST_STREAM twice when
            # its deadline passes on arrival; h2 refuses the second HEADERS (and the
            # rest of the chunk). The first was recorded.
            st = self.streams.get(e.stream_id)
            if st is not None and not st["ended"] and st["reset"] is None:
                st["reset"] = 8
            events = []
        except h2.exceptions.ProtocolError:
            return "protocol_error"  # frames h2 cannot take on a connection it sees closed
        for ev in events:
            st = self.streams.get(getattr(ev, "stream_id", None))
            if isinstance(ev, (h2.events.ResponseReceived, h2.events.TrailersReceived)) and st is not None:
                for k, v in ev.headers:
                    st["headers"][k.decode() if isinstance(k, bytes) else k] = v.decode() if isinstance(v, bytes) else v
            elif isinstance(ev, h2.events.DataReceived) and st is not None:
                st["data"] += ev.data
                self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded) and st is not None:
                st["ended"] = True
            elif isinstance(ev, h2.events.StreamReset) and st is not None:
                st["reset"] = int(ev.error_code)
            elif isinstance(ev, h2.events.ConnectionTerminated):
                closed = "goaway"
        self.flush()
        return closed

    def report(self, sid, closed=None):
        st = self.streams[sid]
        h = st["headers"]
        data = st["data"]
        message = data[5:] if len(data) >= 5 else b""
        return {"http_status": h.get(":status"), "content_type": h.get("content-type"),
                "grpc_status": int(h["grpc-status"]) if "grpc-status" in h else None,
                "grpc_message": h.get("grpc-message"), "reset": st["reset"], "closed": closed,
                "message_hex": message.hex()}


def main():
    port, case = int(sys.argv[1]), sys.argv[2]
    c = Client(port, validate=(case != "path"))
    good = grpc_frame(request_bytes())
    if case == "valid":
        sid = c.send(headers(), good)
        out = c.report(sid, c.wait([sid]))
    elif case == "wrong_content_type":
        sid = c.send(headers("text/plain"), good)
        out = c.report(sid, c.wait([sid]))
    elif case == "truncated_frame":
        # The prefix promises 1000 bytes; the stream ends after 14.
        sid = c.send(headers(), grpc_frame(request_bytes(), claimed_length=1000))
        out = c.report(sid, c.wait([sid]))
    elif case == "malformed_protobuf":
        # A well-formed gRPC frame whose message is not a RecommendRequest (field 1
        # claims 100 bytes that are not there).
        sid = c.send(headers(), grpc_frame(b"\x0a\x64abc"))
        out = c.report(sid, c.wait([sid]))
    elif case == "compressed_without_encoding":
        sid = c.send(headers(), grpc_frame(request_bytes(), compressed=1))
        out = c.report(sid, c.wait([sid]))
    elif case == "oversized":
        # 100,000 bytes of user_id: over the server's 64 KiB receive cap.
        sid = c.send(headers(), grpc_frame(request_bytes(user=b"u" * 100000)))
        out = c.report(sid, c.wait([sid]))
    elif case == "reset_mid_request":
        # Half a request, then RST_STREAM(CANCEL); then a valid call on the same connection.
        sid = c.send(headers(), good[: len(good) // 2], end=False)
        c.conn.reset_stream(sid, error_code=8)
        c.flush()
        sid2 = c.send(headers(), good)
        out = c.report(sid2, c.wait([sid2]))
    elif case == "abrupt_close_mid_request":
        # Headers and half the data, then the socket goes away: no END_STREAM, no GOAWAY.
        c.send(headers(), good[: len(good) // 2], end=False)
        c.sock.close()
        out = {"closed": "client"}
    elif case == "abrupt_close_mid_response":
        # 200 streams asking for 2,000 realistic items (~1 MB each), with the
        # default 64 KiB stream window, then the process exits without reading:
        # the server is left with responses built, half-sent and blocked.
        c.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 65535})
        big = grpc_frame(request_bytes(items=2000, profile=0))
        for _ in range(200):
            c.send(headers(), big)
        while not any(st["data"] for st in c.streams.values()):  # replies are flowing
            if c.read_once():
                break
        os._exit(0)  # no close(), no GOAWAY: the kernel resets the connection
    elif case == "send_and_leave":
        # raw_http2_client.py PORT send_and_leave CALLS ITEMS: CALLS calls of ITEMS
        # realistic items, then the socket closed at once, nothing read and no GOAWAY:
        # a client that left. A peer that refuses streams past its limit (the edge's
        # 100) leaves those unsent.
        big = grpc_frame(request_bytes(items=int(sys.argv[4]), profile=0))
        sent = 0
        for _ in range(int(sys.argv[3])):
            try:
                c.send(headers(), big)
                sent += 1
            except h2.exceptions.TooManyStreamsError:
                break
        c.sock.close()
        out = {"sent": sent, "closed": "client"}
    elif case in ("never_read_flood", "never_read_mix"):
        # raw_http2_client.py PORT never_read_flood STREAMS ITEMS HOLD_SECONDS
        # raw_http2_client.py PORT never_read_mix COUNTxITEMS[,COUNTxITEMS...] HOLD_SECONDS
        # Calls of realistic items with a stream window of 0: the server can send
        # headers and trailers (not flow-controlled) but no reply byte. never_read_mix
        # sends its groups in order (16x10000,64x100: the large ones first, then small
        # ones to fill what is left). Holds the connection HOLD_SECONDS, then drops it
        # without a GOAWAY. Reports how the calls were answered meanwhile: statuses
        # (trailers), streams the server reset, and calls with no answer at all.
        if case == "never_read_flood":
            groups, hold = [(int(sys.argv[3]), int(sys.argv[4]))], float(sys.argv[5])
        else:
            groups = [tuple(int(n) for n in g.split("x")) for g in sys.argv[3].split(",")]
            hold = float(sys.argv[4])
        c.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        c.flush()
        sids = []
        for count, items in groups:
            big = grpc_frame(request_bytes(items=items, profile=0))
            sids += [c.send(headers(), big) for _ in range(count)]
        c.sock.settimeout(0.2)
        import time
        end = time.monotonic() + hold
        closed = None
        while time.monotonic() < end and not closed:
            closed = c.read_once()
            if closed == "timeout":
                closed = None
        statuses = {}
        messages = set()
        unanswered = 0
        resets = 0
        for sid in sids:
            h = c.streams[sid]["headers"]
            if "grpc-status" in h:
                statuses[h["grpc-status"]] = statuses.get(h["grpc-status"], 0) + 1
                if h.get("grpc-message"):
                    messages.add(h["grpc-message"])
            elif c.streams[sid]["reset"] is not None:
                resets += 1
            else:
                unanswered += 1
        out = {"statuses": statuses, "unanswered": unanswered, "resets": resets, "closed": closed,
               "messages": sorted(messages)[:3]}
        print(json.dumps(out), flush=True)
        os._exit(0)  # no close(), no GOAWAY
    elif case == "path":
        # raw_http2_client.py PORT path PATH_HEX [MESSAGE_HEX]
        # One call to any :path, given in hex so that it can be empty or hold any byte,
        # with MESSAGE_HEX as its one gRPC message (default: the fixed valid request);
        # then the fixed valid call on the same connection. Reports the first call, and
        # the second under "after": a server that died answers neither.
        path = bytes.fromhex(sys.argv[3])
        message = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else request_bytes()
        sid = c.send(headers(path=path), grpc_frame(message))
        out = c.report(sid, c.wait([sid]))
        if not out["closed"]:
            sid2 = c.send(headers(), good)
            out["after"] = c.report(sid2, c.wait([sid2]))
    elif case == "headers":
        # raw_http2_client.py PORT headers NAME: the fixed valid request with one
        # header changed as HEADER_CASES[NAME] says; then the valid call, reported
        # under "after".
        name = sys.argv[3]
        change = HEADER_CASES[name]
        body = grpc_frame(request_bytes(), compressed=1) if name == "unknown_encoding" else good
        sid = c.send(change(headers()), body)
        out = c.report(sid, c.wait([sid]))
        # On the same connection; on a new one when the server closed it, or when h2
        # gave up on it (gRPC's duplicate trailers after a deadline, see read_once).
        if not out["closed"] and c.conn.state_machine.state != h2.connection.ConnectionState.CLOSED:
            sid2 = c.send(headers(), good)
            out["after"] = c.report(sid2, c.wait([sid2]))
        if "after" not in out or out["after"]["grpc_status"] is None:
            out["after_on_new_connection"] = True
            fresh = Client(port)
            sid2 = fresh.send(headers(), good)
            out["after"] = fresh.report(sid2, fresh.wait([sid2]))
    elif case == "ping_flood":
        # raw_http2_client.py PORT ping_flood COUNT: COUNT PINGs with no call at all,
        # then reads for up to 5 s. Reports whether the server sent GOAWAY, and its
        # error code (ENHANCE_YOUR_CALM is 11).
        count = int(sys.argv[3])
        for i in range(count):
            c.conn.ping(struct.pack(">Q", i))
        c.flush()
        # The server's frames are read raw: h2 stops at the first frame after a
        # GOAWAY (and drops the rest of the chunk).
        c.sock.settimeout(5)
        goaway = None
        closed = None
        pending = b""
        while goaway is None and closed is None:
            try:
                chunk = c.sock.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                closed = "eof"
            pending += chunk
            while len(pending) >= 9 and len(pending) >= 9 + int.from_bytes(pending[:3], "big"):
                length, kind = int.from_bytes(pending[:3], "big"), pending[3]
                if kind == 7 and length >= 8:  # GOAWAY: last stream id, error code
                    goaway = int.from_bytes(pending[13:17], "big")
                pending = pending[9 + length:]
        out = {"goaway_error_code": goaway, "closed": closed}
    elif case == "garbage_preface":
        s = connect(port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + bytes(range(256)) * 4)
        try:
            rest = s.recv(65536)
            while s.recv(65536):
                pass
        except (socket.timeout, ConnectionResetError):
            rest = b""
        out = {"closed": "server", "bytes_before_close": len(rest)}
    else:
        print(f"raw_http2_client: unknown case '{case}'", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
