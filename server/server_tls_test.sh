#!/usr/bin/env bash
# reco_server with TLS, as a user meets it: --tls_cert/--tls_key both or neither
# (exit 2 naming the flag), an unreadable file named with its path (exit 2), a file
# that is not a certificate or key, a key of another certificate and an expired
# certificate named with the reason (exit 2), the
# listening line says tls=on, reco_probe --tls_ca reaches it (and without --tls_ca,
# or trusting another CA, does not), and no key material reaches the logs.
# The certificates are made here, with openssl, in a temporary directory.
#   server_tls_test.sh RECO_SERVER RECO_PROBE
set -uo pipefail
server=$1 probe=$2
. "$(dirname "$0")/../scripts/lib/reco_servers.sh"
reco_test_dir tmp
make_cert "$tmp" good other

expect_bad_flag() {  # TEXT FLAGS...: exit 2 and TEXT on stderr
  local text=$1
  shift
  "$server" --listen 127.0.0.1:0 "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
  local rc=$?
  [ "$rc" = 2 ] || fail "reco_server $* exited $rc, want 2"
  grep -q -- "$text" "$tmp/bad.err" || fail "reco_server $*: stderr lacks '$text': $(cat "$tmp/bad.err")"
  grep -q "PRIVATE KEY" "$tmp/bad.err" "$tmp/bad.out" && fail "reco_server $* printed key material"
  return 0
}
expect_bad_flag "--tls_cert needs --tls_key" --tls_cert "$tmp/good.crt"
expect_bad_flag "--tls_key needs --tls_cert" --tls_key "$tmp/good.key"
expect_bad_flag "--tls_key $tmp/missing.key: cannot read" --tls_cert "$tmp/good.crt" --tls_key "$tmp/missing.key"
expect_bad_flag "--tls_cert $tmp/missing.crt: cannot read" --tls_cert "$tmp/missing.crt" --tls_key "$tmp/good.key"
# Files that are read but wrong: each named, with the reason (gRPC alone says only
# "Invalid private key." and exits 1).
echo "not a certificate" >"$tmp/junk.pem"
expect_bad_flag "--tls_cert $tmp/junk.pem: no PEM certificate in it" --tls_cert "$tmp/junk.pem" --tls_key "$tmp/good.key"
expect_bad_flag "--tls_key $tmp/junk.pem: not a PEM private key" --tls_cert "$tmp/good.crt" --tls_key "$tmp/junk.pem"
expect_bad_flag "--tls_key $tmp/good.crt: not a PEM private key" --tls_cert "$tmp/good.crt" --tls_key "$tmp/good.crt"
expect_bad_flag "--tls_key $tmp/other.key is not the key of the certificate in --tls_cert $tmp/good.crt" \
  --tls_cert "$tmp/good.crt" --tls_key "$tmp/other.key"
expect_bad_flag "--tls_client_ca $tmp/junk.pem: no PEM certificate in it" \
  --tls_cert "$tmp/good.crt" --tls_key "$tmp/good.key" --tls_client_ca "$tmp/junk.pem"
# An expired certificate: self-signed by `openssl ca`, the one command of OpenSSL 3.0
# that takes an end date in the past.
mkdir "$tmp/ca" && touch "$tmp/ca/index.txt" && echo 01 >"$tmp/ca/serial"
printf '%s\n' "[ca]" "default_ca = d" "[d]" "database = $tmp/ca/index.txt" "serial = $tmp/ca/serial" \
  "new_certs_dir = $tmp/ca" "default_md = sha256" "policy = p" "[p]" "commonName = supplied" >"$tmp/ca/ca.cnf"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
  -keyout "$tmp/old.key" -out "$tmp/old.csr" >/dev/null 2>&1 &&
  openssl ca -batch -config "$tmp/ca/ca.cnf" -selfsign -keyfile "$tmp/old.key" -in "$tmp/old.csr" \
    -out "$tmp/old.crt" -startdate 20200101000000Z -enddate 20200102000000Z >/dev/null 2>&1 ||
  fail "openssl could not make an expired certificate"
expect_bad_flag "--tls_cert $tmp/old.crt: the certificate expired on" --tls_cert "$tmp/old.crt" --tls_key "$tmp/old.key"
"$server" --help >"$tmp/help.out" 2>&1
grep -q -- "--tls_cert " "$tmp/help.out" && grep -q -- "--tls-cert" "$tmp/help.out" || fail "--help lacks --tls_cert"
"$probe" --tls_ca "$tmp/missing.pem" >"$tmp/p.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--tls_ca $tmp/missing.pem: cannot read" "$tmp/p.out" || fail "probe --tls_ca missing: $rc $(cat "$tmp/p.out")"
# Roots that are not PEM (gRPC took them; every handshake then failed, exit 1), and a
# directory (it read as "the file is empty").
"$probe" --tls_ca "$tmp/junk.pem" >"$tmp/p.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--tls_ca $tmp/junk.pem: no PEM certificate in it" "$tmp/p.out" ||
  fail "probe --tls_ca junk: $rc $(cat "$tmp/p.out")"
"$probe" --tls_ca "$tmp" >"$tmp/p.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--tls_ca $tmp: a directory, not a file" "$tmp/p.out" ||
  fail "probe --tls_ca DIR: $rc $(cat "$tmp/p.out")"
echo "ok: bad TLS flags"

start_reco_server --stderr "$tmp/s.err" "$tmp/s.out" "$server" --tls_cert "$tmp/good.crt" --tls_key "$tmp/good.key" ||
  fail "reco_server did not start"
grep -q "mode=arena_pool tls=on$" "$tmp/s.out" || fail "listening line lacks tls=on: $(cat "$tmp/s.out")"
grep -q "the TLS port is gRPC's own listener: no connection cap" "$tmp/s.err" ||
  fail "the TLS port does not say what it is: $(cat "$tmp/s.err")"
"$probe" --target "127.0.0.1:$SERVER_PORT" --tls_ca "$tmp/good.crt" >"$tmp/p.out" 2>&1 \
  || fail "probe --tls_ca of a TLS server: $(cat "$tmp/p.out")"
grep -q "is SERVING" "$tmp/p.out" || fail "probe output: $(cat "$tmp/p.out")"
"$probe" --target "127.0.0.1:$SERVER_PORT" --deadline 3s >"$tmp/p.out" 2>&1 && fail "insecure probe of a TLS server exited 0"
"$probe" --target "127.0.0.1:$SERVER_PORT" --deadline 3s --tls_ca "$tmp/other.crt" >"$tmp/p.out" 2>&1 \
  && fail "probe trusting another CA exited 0"
grep -q "(TLS) failed" "$tmp/p.out" || fail "wrong-CA probe message lacks TLS: $(cat "$tmp/p.out")"
echo "ok: probe over TLS; without --tls_ca or with another CA it fails"
stop_reco_server
[ "$SERVER_RC" = 0 ] || fail "reco_server exited $SERVER_RC on SIGTERM"
grep -q "PRIVATE KEY" "$tmp/s.out" "$tmp/s.err" && fail "the server log holds key material"
grep -qF "$(sed -n 2p "$tmp/good.key")" "$tmp/s.out" "$tmp/s.err" && fail "the server log holds a line of the key"
echo "ok: no key material in the server's output"
echo PASS
