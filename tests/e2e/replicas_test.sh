#!/usr/bin/env bash
# Replicas: three reco_server --mode arena_pool processes driven as ONE reco_load
# target (the same name given three times). check_replicas_report.py checks the JSON:
# three replicas, each served RPCs under round_robin, their RPCs add up to the
# target's, and every OK reply the client counted was served (no reply counted twice);
# the table and the HTML report carry the line of each replica's share.
# Then with --lb_policy pick_first every channel stays on one backend: exactly one
# replica serves. Last, a dead backend fails the probe (exit 3) naming its address.
#   tests/e2e/replicas_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
here=$(dirname "$0")
. "$here/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

targets=()
for i in 1 2 3; do
  start_reco_server "$tmp/s$i.out" "$server" --mode arena_pool || fail "reco_server $i did not start"
  targets+=(--target "arena_pool=127.0.0.1:$SERVER_PORT")
done
short=(--rounds 1 --duration 1s --warmup 0.2s --concurrency 6 --connections 1 --quiet)

timeout 60 "$load" "${targets[@]}" "${short[@]}" --json "$tmp/rr.json" --html "$tmp/rr.html" >"$tmp/rr.out" 2>&1 ||
  fail "reco_load (round_robin) exited $?: $(cat "$tmp/rr.out")"
grep -q "^arena_pool replicas: 127.0.0.1:" "$tmp/rr.out" || fail "no replica line in the table: $(cat "$tmp/rr.out")"
grep -q '<p class="replicas">arena_pool replicas: 127.0.0.1:' "$tmp/rr.html" || fail "no replica line in the HTML report"
/usr/bin/python3 "$here/check_replicas_report.py" "$tmp/rr.json" round_robin 3 || fail "round_robin report: see above"
echo "ok: round_robin spread the calls over three replicas, counted once each"

timeout 60 "$load" "${targets[@]}" "${short[@]}" --lb_policy pick_first --json "$tmp/pf.json" >"$tmp/pf.out" 2>&1 ||
  fail "reco_load (pick_first) exited $?: $(cat "$tmp/pf.out")"
/usr/bin/python3 "$here/check_replicas_report.py" "$tmp/pf.json" pick_first 3 || fail "pick_first report: see above"
grep -q "under half its fair share" "$tmp/pf.out" || fail "no uneven-spread warning: $(cat "$tmp/pf.out")"
echo "ok: pick_first kept the one channel on one replica, and the table warns"

# dns:/// goes to gRPC's resolver as it is; an IP literal resolves to itself (a name
# like localhost may also give ::1, where these servers do not listen).
first=${targets[1]#arena_pool=}
timeout 60 "$load" --target "arena_pool=dns:///$first" "${short[@]}" --json "$tmp/dns.json" >"$tmp/dns.out" 2>&1 ||
  fail "reco_load with dns:/// exited $?: $(cat "$tmp/dns.out")"
/usr/bin/python3 "$here/check_dns_report.py" "$tmp/dns.json" "dns:///$first" || fail "dns:/// report: see above"
echo "ok: a dns:/// target runs, its one address read for the server figures"

"$load" --target arena_pool=127.0.0.1:1 --target arena_pool=127.0.0.1:2 --lb_policy random >"$tmp/x.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--lb_policy" "$tmp/x.out" || fail "--lb_policy random: exit $rc: $(cat "$tmp/x.out")"

# The second replica stopped: the target as a whole still answers (round_robin skips
# it), but the probe of each backend must name the dead one.
dead=${targets[3]#arena_pool=}
stop_reco_server "${RECO_SERVER_PIDS[1]}"
timeout 60 "$load" "${targets[@]}" "${short[@]}" >"$tmp/d.out" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "with a dead replica reco_load exited $rc, want 3: $(cat "$tmp/d.out")"
grep -qF "backend $dead is unreachable" "$tmp/d.out" || fail "the probe does not name $dead: $(cat "$tmp/d.out")"
echo "ok: a dead replica fails the probe, named"
stop_reco_servers || fail "a reco_server ignored SIGTERM"
echo PASS
