"""The verdict of scripts/soak.sh on one mode's samples: does the server keep growing?

    soak_judge.py CSV MAX_GROWTH

CSV is scripts/soak_stats.py's samples. On the samples after warm-up (the first
quarter): the least-squares slope of RSS over the second half, times the half's
length, relative to the half's mean RSS; the run fails when that growth is above
MAX_GROWTH (e.g. 0.05) AND above 4 MiB absolute, when the server counted an RPC error,
or when there are fewer than 6 samples. Prints the figures in one line; exits 1 on
failure.
"""
import csv
import sys


def slope_of(t, y):
    """The least-squares slope of y over t."""
    mt, my = sum(t) / len(t), sum(y) / len(y)
    return sum((a - mt) * (b - my) for a, b in zip(t, y)) / max(1e-9, sum((a - mt) ** 2 for a in t))


def main():
    path, max_growth = sys.argv[1], float(sys.argv[2])
    rows = list(csv.DictReader(open(path)))
    if len(rows) < 6:
        print(f"only {len(rows)} samples")
        sys.exit(1)
    steady = rows[len(rows) // 4:]          # after warm-up
    half = steady[len(steady) // 2:]        # the second half of the steady part
    t = [float(r["t_s"]) for r in half]
    rss = [int(r["rss_bytes"]) for r in half]
    slope = slope_of(t, rss)
    span = t[-1] - t[0]
    growth = slope * span
    rel = growth / (sum(rss) / len(rss))
    errors = int(rows[-1]["errors"])
    rate = sum(float(r["rpcs_per_s"]) for r in steady) / len(steady)
    free = [int(r["heap_free_bytes"]) for r in steady]
    allocs = sum(float(r["allocs_per_s"]) for r in steady) / len(steady)
    ok = errors == 0 and not (rel > max_growth and growth > 4 * 1024 * 1024)
    print(f"{rate:.0f} rpc/s, RSS {rss[0] / 2**20:.1f} -> {rss[-1] / 2**20:.1f} MiB, second-half slope "
          f"{slope / 1024:.1f} KiB/s = {growth / 2**20:+.2f} MiB ({rel * 100:+.2f} %) over {span:.0f} s, "
          f"malloc free {min(free) / 2**20:.1f}-{max(free) / 2**20:.1f} MiB, {allocs:.0f} allocs/s, errors {errors}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
