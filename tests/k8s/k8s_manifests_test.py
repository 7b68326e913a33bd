#!/usr/bin/python3
"""k8s_manifests_test: k8s/ rendered offline (`kubectl kustomize k8s/`), checked against
what it promises, and its commands run for real on loopback.

    k8s_manifests_test.py ROOT BUILD_DIR

What it asserts:
  - every object is in namespace reco-arena;
  - one Deployment and one headless Service (clusterIP: None) per mode of compose.yaml,
    the Service selecting exactly that Deployment's pods on the container's port;
  - every server container has compose's resources (x-server cpus, mem_limit) as
    requests and limits, readiness and liveness probes that run reco_probe against
    the port it listens on, and a termination grace period longer than its drain
    delay plus reco_server's hard shutdown deadline;
  - metrics, in both renders: every server pod serves --metrics_listen on 0.0.0.0 at a
    container port named `metrics`, and carries the prometheus.io/scrape "true",
    /port (that port) and /path (/metrics) annotations; every compose.yaml server
    command has --metrics_listen, and docker/prometheus/prometheus.yml scrapes it: a
    job named as the service, DNS service discovery of that name on that port;
  - the load Job is Indexed with parallelism == completions >= 2, targets every
    headless Service by dns:/// under its mode's name (as compose's load does), and its
    init container waits for every Service;
  - run for real: each Deployment's exact args start reco_server (only --listen and
    --metrics_listen moved to 127.0.0.1:0), both its probe commands exit 0 against it,
    GET at its prometheus.io/path answers its reco_server_info, and SIGTERM stops it
    with status 0 within the grace period; the Job's script runs twice at once (two
    "pods", JOB_COMPLETION_INDEX 0 and 1; dns:/// names mapped to those servers, the
    run shortened, ALIGN_SECONDS short), both start their first window on the same
    --align_start boundary, and k8s/collect.sh, reading those logs through a stand-in kubectl,
    merges them into one report whose calls are the two runs' sum. collect.sh refuses
    a log without the markers and a failed Job (exit 1);
  - Pod Security "restricted", as a cluster enforcing it admits pods: the namespace
    enforces it (pod-security.kubernetes.io/enforce), and every pod of both renders
    (servers, the load Job, the edge sidecar, init containers) runs as non-root with
    the RuntimeDefault seccomp profile, no privilege escalation, every capability
    dropped, no host namespaces, ports or paths;
  - k8s/production: the same servers without the Job, arena-pool with an edge
    sidecar (the image's edge/run_edge.sh: haproxy, then nghttpx) in front of a
    server listening on 127.0.0.1 only, its Service sending the port to the edge,
    the edge locked down; run for real, the edge's readiness probe passes through the
    edge to the server. Skipped,
    said so, where kubectl's kustomize predates Components (3.7).
"""
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml

ROOT, BUILD = sys.argv[1], sys.argv[2]
NAMESPACE = "reco-arena"
problems = []


def check(ok, message):
    if not ok:
        problems.append(message)
    return ok


def die_if_problems():
    if problems:
        for p in problems:
            print("FAIL: " + p, file=sys.stderr)
        sys.exit(1)


def served(args):
    """What a server's args serve, named as its load target: the --mode, with _async
    appended when it serves through the async API (--api async)."""
    return flag(args, "--mode") + ("_async" if flag(args, "--api") == "async" else "")


def flag(args, name):
    """The value of --name in an argv list (either `--name v` or `--name=v`), or None."""
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def restricted_problems(name, pod):
    """What keeps a pod spec from Pod Security's "restricted" level (Kubernetes docs,
    "Pod Security Standards"), in words."""
    found = []
    psc = pod.get("securityContext", {})
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key):
            found.append(f"{key} is set")
    found += [f"volume {v.get('name')} is a hostPath" for v in pod.get("volumes", []) if "hostPath" in v]
    for c in pod.get("initContainers", []) + pod.get("containers", []):
        sc = c.get("securityContext", {})
        where = f"container {c['name']}"
        if sc.get("allowPrivilegeEscalation", True):
            found.append(f"{where}: allowPrivilegeEscalation is not false")
        if "ALL" not in sc.get("capabilities", {}).get("drop", []):
            found.append(f"{where}: does not drop ALL capabilities")
        if set(sc.get("capabilities", {}).get("add", [])) - {"NET_BIND_SERVICE"}:
            found.append(f"{where}: adds capabilities")
        if sc.get("privileged"):
            found.append(f"{where}: privileged")
        if not sc.get("runAsNonRoot", psc.get("runAsNonRoot")):
            found.append(f"{where}: runAsNonRoot is not true (pod or container)")
        if sc.get("runAsUser", psc.get("runAsUser")) == 0:
            found.append(f"{where}: runs as user 0")
        profile = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
        if profile not in ("RuntimeDefault", "Localhost"):
            found.append(f"{where}: seccompProfile is {profile}, not RuntimeDefault")
        found += [f"{where}: hostPort {p['hostPort']}" for p in c.get("ports", []) if p.get("hostPort")]
    return [f"{name}: {f}" for f in found]


def check_restricted(objects_by_key, render):
    for (kind, name), o in objects_by_key.items():
        if kind in ("Deployment", "Job"):
            for problem in restricted_problems(f"{render} {kind} {name}", o["spec"]["template"]["spec"]):
                check(False, f"Pod Security restricted: {problem}")


def local_args(args):
    """A server's args with --listen and --metrics_listen moved to 127.0.0.1:0 (free
    ports on loopback), whichever form (`--name v`, `--name=v`) they take, and the
    image's /etc/reco/ (docker/Dockerfile copies edge/ there) read from edge/."""
    out = [a.replace("/etc/reco/", os.path.join(ROOT, "edge") + "/") for a in args]
    for i, a in enumerate(out):
        for name in ("--listen", "--metrics_listen"):
            if a == name and i + 1 < len(out):
                out[i + 1] = "127.0.0.1:0"
            elif a.startswith(name + "="):
                out[i] = name + "=127.0.0.1:0"
    return out


def start_server(name, args):
    """reco_server with `args` (local_args applied); (Popen, gRPC port, metrics port or
    None), from its listening line. Exits the test if it does not start."""
    p = subprocess.Popen(["reco_server"] + local_args(args), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    seen = ""
    for _ in range(50):  # the listening line, after any warnings
        line = p.stdout.readline()
        seen += line
        m = re.match(r"reco_server: listening on 127\.0\.0\.1:(\d+) ", line)
        if m or not line:
            break
    if not m:
        p.kill()
        sys.exit(f"FAIL: {name}: reco_server with the manifest's args did not start: {seen}")
    metrics = re.search(r" metrics=127\.0\.0\.1:(\d+)", line)
    return p, m.group(1), metrics and metrics.group(1)


METRICS_ANNOTATIONS = ("prometheus.io/scrape", "prometheus.io/port", "prometheus.io/path")


def check_metrics(render, name, pod):
    """The pod's server container serves metrics where its annotations and its port
    named `metrics` say."""
    c = next((c for c in pod["spec"]["containers"] if c["name"] == "server"), {})
    listen = flag(c.get("args", []), "--metrics_listen")
    if not check(listen is not None, f"{render} {name}: the server has no --metrics_listen"):
        return
    host, port = listen.rsplit(":", 1)
    check(host in ("0.0.0.0", ""), f"{render} {name}: --metrics_listen {listen} is not on every interface: "
          "Prometheus scrapes the pod's address")
    ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
    check(ports.get("metrics") == int(port), f"{render} {name}: no container port `metrics` {port}: {ports}")
    notes = pod["metadata"].get("annotations", {})
    want = {"prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics"}
    for key in METRICS_ANNOTATIONS:
        check(notes.get(key) == want[key], f"{render} {name}: pod annotation {key} is {notes.get(key)!r}, "
              f"not {want[key]!r}")


def seconds(duration):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", duration)
    assert m, duration
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[m.group(2)]


def quantity_bytes(q):
    """Kubernetes (1Gi, 512Mi) and compose (1g, 512m) memory sizes, in bytes."""
    m = re.fullmatch(r"(\d+)([KMGkmg]i?|)([bB]?)", str(q))
    assert m, q
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2)[:1].lower()]


# --- render ----------------------------------------------------------------------------
render = subprocess.run(["kubectl", "kustomize", os.path.join(ROOT, "k8s")], capture_output=True, text=True)
if render.returncode != 0:
    sys.exit(f"FAIL: kubectl kustomize k8s/ exited {render.returncode}: {render.stderr}")
objects = [d for d in yaml.safe_load_all(render.stdout) if d]
by_kind = {}
for o in objects:
    by_kind.setdefault(o["kind"], {})[o["metadata"]["name"]] = o
    if o["kind"] != "Namespace":
        check(o["metadata"].get("namespace") == NAMESPACE, f"{o['kind']} {o['metadata']['name']} is not in {NAMESPACE}")
check(NAMESPACE in by_kind.get("Namespace", {}), f"no Namespace {NAMESPACE}")
ns_labels = by_kind.get("Namespace", {}).get(NAMESPACE, {}).get("metadata", {}).get("labels", {})
check(ns_labels.get("pod-security.kubernetes.io/enforce") == "restricted",
      f"Namespace {NAMESPACE} does not enforce Pod Security restricted: labels {ns_labels}")
check_restricted({(o["kind"], o["metadata"]["name"]): o for o in objects}, "k8s/")

compose = yaml.safe_load(open(os.path.join(ROOT, "compose.yaml")))
x_server = compose["x-server"]
compose_modes = {served(s["command"]) for n, s in compose["services"].items()
                 if n != "load" and "--mode" in s.get("command", [])}
compose_targets = [a.split("=", 1)[0] for a in compose["services"]["load"]["entrypoint"][1:]
                   if "=" in a and not a.startswith("-")]

# --- compose's metrics and the monitoring profile's Prometheus --------------------------
prometheus_yml = yaml.safe_load(open(os.path.join(ROOT, "docker", "prometheus", "prometheus.yml")))
scrape_jobs = {j["job_name"]: j for j in prometheus_yml.get("scrape_configs", [])}
for n, s in compose["services"].items():
    if "--mode" not in s.get("command", []):
        continue
    listen = flag(s["command"], "--metrics_listen")
    if not check(listen is not None, f"compose.yaml {n}: its command has no --metrics_listen"):
        continue
    port = int(listen.rsplit(":", 1)[1])
    sd = scrape_jobs.get(n, {}).get("dns_sd_configs", [{}])
    check(n in scrape_jobs and len(sd) == 1 and sd[0].get("names") == [n] and sd[0].get("port") == port
          and sd[0].get("type", "SRV") == "A",
          f"docker/prometheus/prometheus.yml: no job {n} discovering {n} (type A) on port {port}: {scrape_jobs.get(n)}")

# --- servers ---------------------------------------------------------------------------
deployments = by_kind.get("Deployment", {})
services = by_kind.get("Service", {})
mode_of = {}  # Deployment name -> what it serves (--mode, _async on the async API)
for name, d in deployments.items():
    pod = d["spec"]["template"]
    (c,) = pod["spec"]["containers"]
    args = c.get("args", [])
    mode_of[name] = served(args)
    listen_port = int(flag(args, "--listen").rsplit(":", 1)[1])
    check(c["ports"][0]["containerPort"] == listen_port, f"{name}: containerPort is not the --listen port")
    labels = pod["metadata"]["labels"]
    check(d["spec"]["selector"]["matchLabels"] == labels, f"{name}: selector is not the pod's labels")
    # Resources: compose's, as requests and limits.
    want_cpu, want_mem = float(x_server["cpus"]), quantity_bytes(x_server["mem_limit"])
    for kind in ("requests", "limits"):
        r = c.get("resources", {}).get(kind, {})
        check(float(r.get("cpu", "nan")) == want_cpu,
              f"{name}: {kind}.cpu {r.get('cpu')} is not compose's cpus {want_cpu}")
        check(quantity_bytes(r.get("memory", "0")) == want_mem,
              f"{name}: {kind}.memory {r.get('memory')} is not compose's mem_limit {x_server['mem_limit']}")
    # Probes: reco_probe against the port it listens on.
    for probe in ("readinessProbe", "livenessProbe"):
        cmd = c.get(probe, {}).get("exec", {}).get("command", [])
        check(cmd[:1] == ["reco_probe"] and flag(cmd, "--target") == f"127.0.0.1:{listen_port}",
              f"{name}: {probe} is not reco_probe --target 127.0.0.1:{listen_port}: {cmd}")
        p = c.get(probe, {})
        check(seconds(flag(cmd, "--deadline") or "2s") < p.get("timeoutSeconds", 1),
              f"{name}: {probe}: reco_probe's --deadline must end before the probe's timeoutSeconds")
    check_metrics("k8s/", name, pod)
    drain = seconds(flag(args, "--shutdown_drain_delay") or "1s")
    hard = seconds(flag(args, "--shutdown_hard_deadline") or "10s")
    grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
    check(grace > max(drain, hard),
          f"{name}: terminationGracePeriodSeconds {grace} <= drain {drain} s / hard deadline {hard} s")
    # Its headless Service.
    svc = services.get(name)
    if check(svc is not None, f"Deployment {name} has no Service of its name"):
        check(svc["spec"].get("clusterIP") == "None", f"Service {name} is not headless (clusterIP: None)")
        check(svc["spec"]["selector"] == labels, f"Service {name} does not select Deployment {name}'s pods exactly")
        check(svc["spec"]["ports"][0]["port"] == listen_port, f"Service {name}: port is not {listen_port}")
check(set(mode_of.values()) == compose_modes,
      f"modes {sorted(mode_of.values())} are not compose's {sorted(compose_modes)}")
check(set(services) == set(deployments), f"Services {sorted(services)} != Deployments {sorted(deployments)}")

# --- the load Job ----------------------------------------------------------------------
jobs = by_kind.get("Job", {})
check(list(jobs) == ["reco-load"], f"want one Job, reco-load: {list(jobs)}")
job = jobs["reco-load"]
spec = job["spec"]
check(spec.get("completionMode") == "Indexed", "Job: not Indexed (each pod needs JOB_COMPLETION_INDEX)")
check(spec.get("parallelism") == spec.get("completions") and spec.get("parallelism", 0) >= 2,
      f"Job: parallelism {spec.get('parallelism')} and completions {spec.get('completions')} must be equal and >= 2")
check(spec.get("activeDeadlineSeconds", 0) > 0, "Job: no activeDeadlineSeconds (unbounded)")
(load,) = spec["template"]["spec"]["containers"]
check(load["name"] == "load", "Job: the container collect.sh reads is named load")
script = load["args"][0]
targets = dict(re.findall(r"--target (\w+)=dns:///([a-z0-9-]+):50051", script))
check(sorted(targets) == sorted(compose_targets), f"Job targets {sorted(targets)} are not compose's {compose_targets}")
for target, svc in targets.items():
    check(mode_of.get(svc) == target,
          f"Job target {target} points at Service {svc}, whose --mode is {mode_of.get(svc)}")
(init,) = spec["template"]["spec"]["initContainers"]
waits_for = re.search(r"for service in ([a-z0-9 -]+); do", init["args"][0])
check(waits_for and set(waits_for.group(1).split()) == set(services),
      f"init container does not wait for every Service: {waits_for and waits_for.group(1)}")
die_if_problems()

# --- run it ----------------------------------------------------------------------------
tmp = tempfile.mkdtemp(prefix="k8s_manifests_test.")
bin_dir = os.path.join(tmp, "bin")
os.mkdir(bin_dir)
for tool, sub in (("reco_server", "server"), ("reco_probe", "server"), ("reco_load", "client")):
    os.symlink(os.path.join(BUILD, sub, tool), os.path.join(bin_dir, tool))
env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"])
servers = {}  # Deployment name -> (Popen, port)
try:
    for name, d in deployments.items():
        pod = d["spec"]["template"]
        (c,) = pod["spec"]["containers"]
        p, port, metrics_port = start_server(name, c["args"])
        servers[name] = (p, port)
        for probe in ("readinessProbe", "livenessProbe"):
            cmd = [a.replace("127.0.0.1:50051", f"127.0.0.1:{port}") for a in c[probe]["exec"]["command"]]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
            check(r.returncode == 0, f"{name}: {probe} {cmd} exited {r.returncode}: {r.stderr}")
        # What Prometheus would scrape: the annotation's path on the metrics port.
        path = pod["metadata"].get("annotations", {}).get("prometheus.io/path", "/metrics")
        if check(metrics_port is not None, f"{name}: reco_server's listening line names no metrics port"):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}{path}", timeout=10) as r:
                    text = r.read().decode()
            except OSError as e:
                text = f"({e})"
            mode = flag(c["args"], "--mode")
            check(re.search(r'^reco_server_info\{[^}]*mode="%s"' % mode, text, re.M),
                  f"{name}: GET {path} on its metrics port has no reco_server_info for mode {mode}: {text[:300]}")
    print(f"ok: {len(servers)} servers started with the manifests' args; their probes pass, their metrics answer")

    # Two "pods" of the Job at once; their logs as kubectl logs would give them.
    local = script
    for svc, (_, port) in servers.items():
        local = local.replace(f"dns:///{svc}:50051", f"127.0.0.1:{port}")
    local = local.replace("/results/", tmp + "/results-$JOB_COMPLETION_INDEX/")
    local = re.sub(r"^(\s*)reco_load ", r"\1reco_load --duration 500ms --warmup 100ms --rounds 1 ", local, count=1,
                   flags=re.M)
    check("dns:///" not in local and "--duration 500ms" in local, "the Job's script did not take the local servers")
    job_env = {e["name"]: e.get("value") for e in load.get("env", [])}
    check(int(job_env.get("ALIGN_SECONDS", 0)) > 0, "the load pods do not align their start (ALIGN_SECONDS)")
    check('--align_start "${ALIGN_SECONDS}s"' in script,
          "the Job's reco_load does not take --align_start from ALIGN_SECONDS")
    die_if_problems()
    # The pods start together here, just after a multiple of ALIGN seconds, so each has
    # nearly ALIGN seconds for its probes before the boundary both must wait for.
    ALIGN = 5  # reco_load needs 0.3 s for its probes here, 0.6 s under ASan
    time.sleep(ALIGN - time.time() % ALIGN)
    boundary_ms = (int(time.time()) // ALIGN + 1) * ALIGN * 1000
    pods = []
    for index in (0, 1):
        os.mkdir(f"{tmp}/results-{index}")
        log = open(f"{tmp}/pod-{index}.log", "w")
        pods.append((subprocess.Popen(["/bin/sh", "-c", local],
                                      env=dict(env, JOB_COMPLETION_INDEX=str(index), ALIGN_SECONDS=str(ALIGN)),
                                      stdout=log, stderr=subprocess.STDOUT), log))
    for p, log in pods:
        rc = p.wait(timeout=120)
        log.close()
        check(rc == 0, f"the Job's script exited {rc}: {open(log.name).read()[-2000:]}")
    die_if_problems()

    # A stand-in kubectl: the Job's status, its pods and their logs, from files.
    fake = os.path.join(bin_dir, "kubectl-fake")
    with open(fake, "w") as f:
        f.write("""#!/bin/sh
# kubectl -n NS get job NAME -o jsonpath=... | get pods -l ... -o jsonpath=... | logs POD -c load [--tail N]
shift 2
case "$1 $2" in
  "get job") echo "2,${FAKE_SUCCEEDED-2},${FAKE_FAILED:-}" ;;
  "get pods") echo "reco-load-0-abcde reco-load-1-fghij" ;;
  logs*) case $2 in reco-load-0-abcde) cat "$FAKE_DIR/pod-0.log" ;; *) cat "$FAKE_DIR/pod-1.log" ;; esac ;;
  *) echo "kubectl-fake: unexpected: $*" >&2; exit 1 ;;
esac
""")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
    collect = os.path.join(ROOT, "k8s", "collect.sh")
    out_dir = os.path.join(tmp, "merged")
    fake_env = dict(env, KUBECTL=fake, FAKE_DIR=tmp, RECO_LOAD=os.path.join(BUILD, "client", "reco_load"))
    r = subprocess.run([collect, "--out", out_dir], env=fake_env, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"collect.sh exited {r.returncode}: {r.stderr}")
    die_if_problems()
    merged = json.load(open(os.path.join(out_dir, "report.json")))
    parts = [json.load(open(os.path.join(out_dir, f"part-reco-load-{i}.json"))) for i in ("0-abcde", "1-fghij")]
    check(os.path.getsize(os.path.join(out_dir, "report.html")) > 0, "collect.sh wrote no report.html")
    for part in parts:
        first = part["targets"][0]["rounds"][0]["window_start_unix_ms"]
        check(first >= boundary_ms + 100, f"a pod's first window began at {first} ms, before the --align_start "
              f"boundary {boundary_ms} ms plus its 100 ms warm-up: it did not wait")
    names = [t["name"] for t in merged["targets"]]
    check(sorted(names) == sorted(compose_targets), f"merged targets {names}")
    for i, t in enumerate(merged["targets"]):
        want = sum(p["targets"][i]["client"]["ok"] for p in parts)
        check(t["client"]["ok"] == want and want > 0,
              f"merged {t['name']}: {t['client']['ok']} calls, the parts' sum is {want}")
    print(f"ok: the Job's script ran as two pods; collect.sh merged their reports ({', '.join(names)})")

    # collect.sh refuses a log without the markers, and a failed Job.
    open(f"{tmp}/pod-1.log", "w").write("reco_load: something went wrong\n")
    r = subprocess.run([collect, "--out", out_dir], env=fake_env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "reco-load-1-fghij" in r.stderr,
          f"collect.sh on a log without markers: {r.returncode} {r.stderr}")
    r = subprocess.run([collect, "--out", out_dir], env=dict(fake_env, FAKE_SUCCEEDED="", FAKE_FAILED="1"),
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "failed" in r.stderr, f"collect.sh on a failed Job: {r.returncode} {r.stderr}")

    # SIGTERM: each server drains and exits 0 within the pod's grace period.
    for p, _ in servers.values():
        p.send_signal(signal.SIGTERM)
    start = time.monotonic()
    for name, (p, _) in servers.items():
        grace = deployments[name]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        try:
            rc = p.wait(timeout=max(0.1, grace - (time.monotonic() - start)))
            check(rc == 0, f"{name}: exited {rc} on SIGTERM")
        except subprocess.TimeoutExpired:
            check(False, f"{name}: still running {grace} s after SIGTERM (terminationGracePeriodSeconds)")
finally:
    for p, _ in servers.values():
        if p.poll() is None:
            p.kill()
die_if_problems()


# --- production: the servers with the edge sidecar in front of arena-pool -------------
def production():
    r = subprocess.run(["kubectl", "kustomize", os.path.join(ROOT, "k8s", "production")],
                       capture_output=True, text=True)
    if r.returncode != 0 and "Component" in r.stderr:
        print("skip: k8s/production needs kustomize >= 3.7 (Components); this kubectl's is older")
        return
    if not check(r.returncode == 0, f"kubectl kustomize k8s/production exited {r.returncode}: {r.stderr}"):
        return
    prod = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(r.stdout) if o}
    check_restricted(prod, "k8s/production")
    for (kind, name), o in prod.items():
        if kind == "Deployment":
            check_metrics("k8s/production", name, o["spec"]["template"])
    check(not any(kind == "Job" for kind, _ in prod), "production renders a Job: the load Job is the benchmark's")
    bench_names = {(k, n) for k, kinds in by_kind.items() for n in kinds if k != "Job"}
    check(set(prod) == bench_names,
          f"production's objects {sorted(prod)} are not the benchmark's servers {sorted(bench_names)}")
    pod = prod[("Deployment", "arena-pool")]["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    if not check(set(containers) == {"server", "edge"}, f"arena-pool's containers: {sorted(containers)}"):
        return
    server, edge = containers["server"], containers["edge"]
    check(flag(server["args"], "--listen") == "127.0.0.1:50051",
          "behind the edge, reco_server must listen on 127.0.0.1 only")
    check("--flagfile=/etc/reco/reco_server.flags" in server["args"],
          f"behind the edge, reco_server must read edge/reco_server.flags: {server['args']}")
    check(edge["command"] == ["run_edge.sh"] and len(edge["args"]) == 2,
          f"the edge is not the image's edge/run_edge.sh: {edge.get('command')} {edge.get('args')}")
    check(edge["args"][1] == "127.0.0.1,50051;;proto=h2", f"the edge's backend is not its pod's server: {edge['args']}")
    check(edge["ports"][0]["name"] == "edge" and edge["args"][0] == "0.0.0.0:%d" % edge["ports"][0]["containerPort"],
          f"the edge's port is not where it listens: {edge['ports']} {edge['args']}")
    svc = prod[("Service", "arena-pool")]["spec"]["ports"][0]
    check(svc["targetPort"] == "edge", f"the arena-pool Service sends its port to {svc['targetPort']}, not the edge")
    sc = edge.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") and not sc.get("allowPrivilegeEscalation", True) and
          sc.get("capabilities", {}).get("drop") == ["ALL"], f"the edge is not locked down as the server is: {sc}")
    others = [n for (k, n) in prod if k == "Deployment" and n != "arena-pool"]
    for name in others:
        check(len(prod[("Deployment", name)]["spec"]["template"]["spec"]["containers"]) == 1, f"{name} got a sidecar")
    die_if_problems()
    # Run the pod: reco_server with its args (port moved), the repository's
    # edge/run_edge.sh with the edge's args (ports moved), then the edge's readiness
    # probe, through the edge to the server's health.
    srv, port, _ = start_server("production arena-pool", server["args"])
    nx = None
    try:
        import socket as sk
        socks = [sk.socket(), sk.socket()]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        edge_port, h2_port = (s.getsockname()[1] for s in socks)
        for s in socks:
            s.close()
        eargs = [a.replace("127.0.0.1,50051", f"127.0.0.1,{port}").replace("0.0.0.0:8080", f"127.0.0.1:{edge_port}")
                 for a in edge["args"]]
        edge_env = dict(env, EDGE_CONF_DIR=os.path.join(ROOT, "edge"), EDGE_H2_PORT=str(h2_port))
        nx = subprocess.Popen([os.path.join(ROOT, "edge", "run_edge.sh")] + eargs, env=edge_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cmd = [a.replace("127.0.0.1:8080", f"127.0.0.1:{edge_port}") for a in edge["readinessProbe"]["exec"]["command"]]
        ok = False
        for _ in range(50):  # haproxy and nghttpx bind within a second
            if subprocess.run(cmd, env=env, capture_output=True, timeout=30).returncode == 0:
                ok = True
                break
            time.sleep(0.1)
        check(ok, f"production: the edge's readiness probe {cmd} never passed through the edge to the server")
        print("ok: k8s/production renders the edge sidecar in front of arena-pool; its probe passes through it")
    finally:
        for p in (nx, srv):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()


try:
    production()
finally:
    subprocess.run(["rm", "-rf", tmp])
die_if_problems()
print("PASS")
