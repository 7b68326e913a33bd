"""Prints scripts/http2_attacks.sh's table: one Markdown row per attack and memory mode.

    http2_attacks_table.py OUT_DIR ATTACK... -- MODE...

OUT_DIR holds, per run, MODE.ATTACK.json (tests/hostile/h2_attacks.py's result: what
was sent, the server's memory, the probes and the recovery after the attack) and
MODE.ATTACK.stop (how the server ended on SIGTERM). A run without its JSON prints
"(no result)"; a missing .stop file prints "?".
"""
import json
import os
import sys

HEADER = ("| attack | mode | sent | server CPU s | RSS MiB before / peak / after "
          "| leases acquired / created / unpooled / in use after | probes ok / timeout / error "
          "| first OK call after the attack | server's answer | SIGTERM after |")


def mib(size):
    return f"{size / 2**20:.0f}"


def sent(attack_name, a):
    """What the attack sent, and over how many connections when it reconnected."""
    if attack_name in ("rapid_reset", "unacked_streams"):
        text = f"{a['streams_sent']:,} streams ({a['streams_per_s']:,.0f}/s)"
    else:
        text = f"{a['bytes_sent'] / 1e6:.1f} MB ({a['mb_per_s']:.2f} MB/s)"
    if "connections" in a:  # through the edge, reconnecting
        text += f" over {a['connections']} connections"
    return text


def answer(a, after):
    """How the server (or the edge) answered: GOAWAYs, closes, resets, statuses, death."""
    parts = []
    if "goaways" in a:
        parts.append(f"{a['goaways']} GOAWAY, {a['connections_closed_by_server']} of {a['connections']} "
                     "connections closed")
    elif a["goaway"]:
        parts.append(f"GOAWAY x{a['goaway']} (error {a['goaway_error']}) at {a['goaway_at_s']:.2f} s")
    if a["closed_by_server"]:
        parts.append(f"closed at {a['closed_at_s']:.3f} s ({a['closed_how']})")
    if a["rst_stream_received"]:
        parts.append(f"{a['rst_stream_received']} RST_STREAM")
    for code, msg in a.get("first_grpc_statuses", [])[:2]:
        parts.append(f"status {code} '{msg}'")
    if not after.get("alive"):
        parts.append("SERVER DIED")
    return "; ".join(parts) or "none"


def row(out, attack_name, mode):
    try:
        d = json.load(open(os.path.join(out, f"{mode}.{attack_name}.json")))
    except (OSError, ValueError):
        return f"| {attack_name} | {mode} | (no result) |||||"
    a, s, af, p = d["attack"], d["server"], d["after"], d["probes"]
    st = af.get("stats", {})
    r = af.get("recovery", {})
    try:
        stop = open(os.path.join(out, f"{mode}.{attack_name}.stop")).read().strip()
    except OSError:
        stop = "?"
    recovered = ("never" if r.get("first_ok_after_s") is None
                 else f"{r['first_ok_after_s']:.1f} s ({r['failed_calls']} failed)")
    return (f"| {attack_name} | {mode} | {sent(attack_name, a)} | {af.get('cpu_seconds', float('nan')):.2f} | "
            f"{mib(s['rss_before_bytes'])} / {mib(max(s['rss_peak_sampled_bytes'], st.get('peak_rss_bytes', 0)))} / "
            f"{mib(af.get('rss_bytes', 0))} | {st.get('store_acquired', '-')} / {st.get('store_created', '-')} / "
            f"{st.get('store_unpooled', '-')} / {st.get('store_in_use', '-')} | "
            f"{p['ok']} / {p['timeouts']} / {p['errors'] + p['wrong_reply']} | {recovered} | "
            f"{answer(a, af)} | {stop} |")


def main():
    out = sys.argv[1]
    split = sys.argv.index("--")
    attacks, modes = sys.argv[2:split], sys.argv[split + 1:]
    print(HEADER)
    print("|---|---|---|---|---|---|---|---|---|---|")
    for attack_name in attacks:
        for mode in modes:
            print(row(out, attack_name, mode))


if __name__ == "__main__":
    main()
