# shellcheck shell=bash
# Source this file (after scripts/lib/reco_servers.sh and reco_test_dir tmp) in a test
# that runs an attacker writing $tmp/status.json (preface_only.py, held_streams.py)
# beside another client. Uses $tmp, $load (reco_load) and $SERVER_PORT.
#   status KEY            the attacker's last count of KEY (-1 before its first write)
#   wait_status KEY MIN   until the attacker counts at least MIN of KEY (10 s), else 1
#   probe NAME [PORT]     1 s of another client's 200-item calls, byte-checked, from
#                         127.0.0.1 to PORT (default SERVER_PORT): at least 95 % OK and
#                         none wrong, else the test fails

status() {
  /usr/bin/python3 -c 'import json, sys
try: print(json.load(open(sys.argv[1]))[sys.argv[2]])
except (OSError, ValueError): print(-1)' "$tmp/status.json" "$1"
}

wait_status() {
  for _ in $(seq 200); do [ "$(status "$1")" -ge "$2" ] && return 0; sleep 0.05; done
  return 1
}

probe() {
  timeout 60 "$load" --target "probe=127.0.0.1:${2:-$SERVER_PORT}" --duration 1s --warmup 0s --rounds 1 \
    --connections 1 --concurrency 1 --verify_every 1 --max_error_rate 1 --quiet --json "$tmp/$1.json" \
    >"$tmp/$1.out" 2>&1 || fail "$1: reco_load: $(cat "$tmp/$1.out")"
  read -r ok completed wrong < <(/usr/bin/python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["targets"][0]["rounds"][0]["client"]
print(c["ok"], c["completed"], c["wrong_content"] + c["wrong_item_count"])' "$tmp/$1.json")
  echo "$1: the other client's calls: $ok OK of $completed, $wrong wrong"
  [ "$wrong" = 0 ] && [ "$completed" -ge 5 ] && [ $((ok * 100)) -ge $((completed * 95)) ] ||
    fail "$1: $ok OK of $completed, $wrong wrong"
}
