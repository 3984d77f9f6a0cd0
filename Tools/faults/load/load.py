#!/usr/bin/env python3
"""`suite serve` under wrk at rising concurrency until throughput stops growing, then a soak at the knee.

Starts a release `suite serve` on a fresh data directory (a developer token from --dev-user), seeds documents, and
for each route (a GET of a random document; a PATCH incrementing a random counter) runs wrk at 1, 2, 4, … up to
--max-connections open connections, --step-seconds each, until two doublings in a row add less than 5 % throughput.
The knee is the fewest connections reaching 95 % of the best throughput measured. Then it soaks the server at the
GET route's knee with a mix of reads and writes for --soak-seconds, sampling the server's resident memory
(/proc/PID/status) every second.

Fails (exit 1) on any socket error or error status (none is expected on either route), or when resident memory grows
over the soak's second half by more than --rss-growth-bound percent of its value at the half-way point
(README.md says why that bound). Python 3's standard library and wrk only; see README.md.
"""

import argparse
import json
import os
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

USER = "load"
DOCUMENTS = 1000
COUNTERS = 64
START_TIMEOUT = 60  # seconds for the server to print its JSON line
GROWTH = 1.05  # two doublings adding less than this factor stop the ramp
KNEE_SHARE = 0.95  # the knee: the fewest connections reaching this share of the best throughput

# wrk's Lua: the bearer token, a random document or counter per request, and one JSON line of figures at the end.
# errors.status counts answers with a status of 400 or more (wrk's rule); these routes never answer 1xx or 3xx.
LUA = r"""
local token = os.getenv("LOAD_TOKEN")
local route = os.getenv("LOAD_ROUTE")
local documents = tonumber(os.getenv("LOAD_DOCUMENTS"))
local counters = tonumber(os.getenv("LOAD_COUNTERS"))
local write_percent = tonumber(os.getenv("LOAD_WRITE_PERCENT"))
local body = '{"transforms":{"n":{"increment":1}}}'
local headers = {["Authorization"] = "Bearer " .. token}
local write_headers = {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}
local next_seed = 1

function setup(thread)
  thread:set("seed", next_seed)
  next_seed = next_seed + 1
end

function init(args)
  math.randomseed(os.time() * 100 + (seed or 0))
end

local function read()
  return wrk.format("GET", "/v1/docs/users/load/items/i" .. math.random(0, documents - 1), headers)
end

local function write()
  return wrk.format("PATCH", "/v1/docs/users/load/counters/c" .. math.random(0, counters - 1), write_headers, body)
end

request = function()
  if route == "get" then return read() end
  if route == "write" then return write() end
  if math.random(100) <= write_percent then return write() end
  return read()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'LOADJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
"""


def fail(message):
    print(f"load: {message}", file=sys.stderr)
    sys.exit(2)


def log(message):
    print(message, file=sys.stderr, flush=True)


# --- the server ----------------------------------------------------------------------------------------------------


class Server:
    """A `suite serve` on a data directory of its own, started with a developer token; stop() ends it."""

    def __init__(self, binary, work_dir):
        self.data_dir = os.path.join(work_dir, "data")
        os.mkdir(self.data_dir)
        self.stderr_path = os.path.join(work_dir, "serve.err")
        argv = [binary, "--data-dir", self.data_dir, "--log-level", "warning", "serve", "--port", "0",
                "--dev-user", USER, "--json"]
        with open(self.stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        info = json.loads(self._read_line())
        self.url = info["url"]
        self.token = info["token"]
        self.pid = self.proc.pid

    def _read_line(self):
        """The first line of stdout (the JSON object `suite serve --json` prints once it listens)."""
        deadline = time.monotonic() + START_TIMEOUT
        buffer = b""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while b"\n" not in buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(remaining):
                    self.stop()
                    fail(f"suite serve printed nothing in {START_TIMEOUT} s; its stderr:\n{self.stderr_tail()}")
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    fail(f"suite serve exited ({self.proc.wait()}) before listening; its stderr:\n"
                         f"{self.stderr_tail()}")
                buffer += chunk
        threading.Thread(target=self._drain, daemon=True).start()
        return buffer.split(b"\n", 1)[0].decode()

    def _drain(self):
        while self.proc.stdout.read(65536):
            pass

    def stderr_tail(self, lines=20):
        with open(self.stderr_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def rss_kib(self):
        """The server's resident set (VmRSS) in KiB, or None once it has exited."""
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except FileNotFoundError:
            return None
        return None

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")

    def stop(self):
        """SIGTERM (a graceful stop), then SIGKILL after 30 s; the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.wait()


def seed(server):
    """DOCUMENTS documents to read and COUNTERS counters to increment, in commits of 100 writes."""
    writes = [{"op": "set", "path": f"users/{USER}/items/i{i}",
               "data": {"title": f"item {i}", "price": i % 97, "tags": ["a", "b"], "note": "x" * 200}}
              for i in range(DOCUMENTS)]
    writes += [{"op": "set", "path": f"users/{USER}/counters/c{i}", "data": {"n": 0}} for i in range(COUNTERS)]
    for start in range(0, len(writes), 100):
        status, _ = server.request("POST", "/v1/commit", {"writes": writes[start:start + 100]})
        if status != 200:
            fail(f"seeding answered {status}")


# --- wrk -----------------------------------------------------------------------------------------------------------


def wrk_argv(server, script, connections, seconds):
    threads = min(2, connections)  # two cores: more wrk threads only compete with the server
    return ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "10s", "--latency",
            "-s", script, server.url + "/v1/docs"]


def wrk_env(server, route, write_percent):
    return dict(os.environ, LOAD_TOKEN=server.token, LOAD_ROUTE=route, LOAD_DOCUMENTS=str(DOCUMENTS),
                LOAD_COUNTERS=str(COUNTERS), LOAD_WRITE_PERCENT=str(write_percent))


def parse_wrk(output):
    """The figures of wrk's run from the script's LOADJSON line."""
    for line in output.splitlines():
        if line.startswith("LOADJSON "):
            raw = json.loads(line[len("LOADJSON "):])
            seconds = raw["duration_us"] / 1e6
            errors = {k: raw[k] for k in ("connect", "read", "write", "status", "timeout")}
            return {"requests": raw["requests"], "seconds": round(seconds, 2),
                    "rps": round(raw["requests"] / seconds, 1) if seconds else 0.0,
                    "p50_ms": raw["p50_us"] / 1000, "p90_ms": raw["p90_us"] / 1000, "p99_ms": raw["p99_us"] / 1000,
                    "max_ms": raw["max_us"] / 1000, "errors": errors, "error_total": sum(errors.values())}
    fail(f"wrk printed no figures:\n{output}")


def run_wrk(server, script, route, connections, seconds, write_percent=0):
    result = subprocess.run(wrk_argv(server, script, connections, seconds), env=wrk_env(server, route, write_percent),
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"wrk failed ({result.returncode}): {result.stderr}{result.stdout}")
    return parse_wrk(result.stdout)


def ramp(server, script, route, step_seconds, max_connections):
    """Steps at 1, 2, 4, … connections until two doublings add less than 5 %; the steps and the knee."""
    run_wrk(server, script, route, 8, 2)  # warm-up: connections, caches, the allocator; not reported
    steps = []
    connections = 1
    while connections <= max_connections:
        step = run_wrk(server, script, route, connections, step_seconds)
        step["connections"] = connections
        steps.append(step)
        log(f"  {route:5} c={connections:<4} {step['rps']:>9.0f} req/s  p50 {step['p50_ms']:7.2f} ms  "
            f"p99 {step['p99_ms']:7.2f} ms  errors {step['error_total']}")
        # Two doublings added less than 5 %: neither of the last two steps beat the one before them by that much.
        if len(steps) >= 3 and max(steps[-1]["rps"], steps[-2]["rps"]) < GROWTH * steps[-3]["rps"]:
            break
        connections *= 2
    best = max(s["rps"] for s in steps)
    knee = next(s for s in steps if s["rps"] >= KNEE_SHARE * best)
    return {"steps": steps, "knee": knee, "best_rps": best}


# --- the soak ------------------------------------------------------------------------------------------------------


def soak(server, script, connections, seconds, write_percent, bound_percent):
    """wrk for `seconds` at `connections` (reads with write_percent % writes) while sampling the server's RSS."""
    proc = subprocess.Popen(wrk_argv(server, script, connections, seconds),
                            env=wrk_env(server, "mix", write_percent), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    samples = []  # (seconds since the start, RSS in KiB)
    start = time.monotonic()
    while proc.poll() is None:
        rss = server.rss_kib()
        if rss is None:
            break
        samples.append((time.monotonic() - start, rss))
        time.sleep(1)  # a sampling period, not a wait for an outcome
    output, errors = proc.communicate()
    if proc.returncode != 0:
        fail(f"wrk failed ({proc.returncode}): {errors}{output}")
    result = parse_wrk(output)
    if len(samples) < 4:
        fail(f"only {len(samples)} RSS samples during the soak (did the server exit?)\n{server.stderr_tail()}")
    rss = [kib for _, kib in samples]
    half = len(rss) // 2
    window = max(1, min(10, len(rss) // 10))  # medians of up to 10 samples: one sample's noise is not growth
    at_half = statistics.median(rss[half - window // 2: half - window // 2 + window])
    at_end = statistics.median(rss[-window:])
    growth = at_end - at_half
    bound = at_half * bound_percent / 100
    slope = slope_kib_per_minute(samples[half:])
    return {"connections": connections, "seconds": seconds, "write_percent": write_percent, "load": result,
            "rss_kib": {"start": rss[0], "half": at_half, "peak": max(rss), "end": rss[-1], "end_median": at_end,
                        "growth_second_half": growth, "bound": round(bound), "bound_percent": bound_percent,
                        "slope_second_half_kib_per_min": round(slope, 1), "samples": len(rss)},
            "within_bound": growth <= bound}


def slope_kib_per_minute(samples):
    """The least-squares slope of RSS over time, KiB per minute."""
    if len(samples) < 2:
        return 0.0
    xs = [t for t, _ in samples]
    ys = [r for _, r in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


# --- report --------------------------------------------------------------------------------------------------------


def machine():
    cores = os.cpu_count()
    return {"cores": cores, "note": f"{cores} cores shared by wrk (2 threads) and the server, on one machine over "
                                    "loopback: figures are for this machine, and wrk's own CPU is part of them"}


def print_table(report):
    print(f"suite serve under wrk ({report['machine']['note']})")
    print()
    print(f"{'route':<6} {'conns':>5} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for route, ramped in report["routes"].items():
        for step in ramped["steps"]:
            mark = "  ← knee" if step is ramped["knee"] else ""
            print(f"{route:<6} {step['connections']:>5} {step['rps']:>10.0f} {step['p50_ms']:>8.2f} "
                  f"{step['p99_ms']:>8.2f} {step['error_total']:>6}{mark}")
    print()
    print(f"{'knee':<6} {'conns':>5} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    for route, ramped in report["routes"].items():
        knee = ramped["knee"]
        print(f"{route:<6} {knee['connections']:>5} {knee['rps']:>10.0f} {knee['p50_ms']:>8.2f} {knee['p99_ms']:>8.2f}")
    s = report.get("soak")
    if s:
        r = s["rss_kib"]
        mib = lambda kib: f"{kib / 1024:.1f} MiB"
        print()
        print(f"soak: {s['seconds']} s at {s['connections']} connections, {100 - s['write_percent']} % GET / "
              f"{s['write_percent']} % PATCH: {s['load']['rps']:.0f} req/s, p50 {s['load']['p50_ms']:.2f} ms, "
              f"p99 {s['load']['p99_ms']:.2f} ms, errors {s['load']['error_total']}")
        print(f"  RSS start {mib(r['start'])}, half-way {mib(r['half'])}, peak {mib(r['peak'])}, end {mib(r['end'])}"
              f" ({r['samples']} samples, 1 s apart)")
        print(f"  growth over the second half {r['growth_second_half'] / 1024:+.1f} MiB (bound {mib(r['bound'])}: "
              f"{r['bound_percent']} % of the half-way RSS), slope {r['slope_second_half_kib_per_min'] / 1024:+.2f} "
              f"MiB/min: {'within' if s['within_bound'] else 'OVER'} the bound")
    print()
    print(f"server stop: exit {report['server_exit']}")
    print("PASS" if report["ok"] else "FAIL: " + "; ".join(report["problems"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step-seconds", type=int, default=10, help="seconds per concurrency step (default 10)")
    parser.add_argument("--max-connections", type=int, default=256, help="the last step's connections (256)")
    parser.add_argument("--soak-seconds", type=int, default=600, help="the soak's length (default 600; 0: none)")
    parser.add_argument("--soak-write-percent", type=int, default=10, help="PATCHes among the soak's requests (10)")
    parser.add_argument("--rss-growth-bound", type=float, default=10.0,
                        help="the most RSS may grow over the soak's second half, in percent of its half-way value")
    parser.add_argument("--routes", default="get,write", help="the routes to ramp: get, write, mix (get,write)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--json-file", help="also write the figures as JSON to this file")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        fail("wrk is not installed (Debian: apt-get install wrk)")
    bin_dir = os.environ.get("SUITE_BIN_DIR") or subprocess.run(
        ["swift", "build", "-c", "release", "--show-bin-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    binary = os.path.join(bin_dir, "suite")
    if not os.access(binary, os.X_OK):
        fail(f"no suite binary at {binary} (swift build -c release --product suite, or set SUITE_BIN_DIR)")

    work_dir = tempfile.mkdtemp(prefix="suite-load-")
    script = os.path.join(work_dir, "load.lua")
    with open(script, "w") as f:
        f.write(LUA)
    server = Server(binary, work_dir)
    report = {"machine": machine(), "binary": binary, "routes": {}, "problems": []}
    try:
        seed(server)
        log(f"load: {server.url}, pid {server.pid}; {report['machine']['note']}")
        for route in [r for r in args.routes.split(",") if r]:
            report["routes"][route] = ramp(server, script, route, args.step_seconds, args.max_connections)
        if args.soak_seconds > 0:
            connections = report["routes"].get("get", next(iter(report["routes"].values())))["knee"]["connections"]
            log(f"  soak: {args.soak_seconds} s at {connections} connections")
            report["soak"] = soak(server, script, connections, args.soak_seconds, args.soak_write_percent,
                                  args.rss_growth_bound)
    finally:
        report["server_exit"] = server.stop()
    for route, ramped in report["routes"].items():
        errors = sum(s["error_total"] for s in ramped["steps"])
        if errors:
            report["problems"].append(f"{errors} errors on the {route} route")
    if "soak" in report:
        if report["soak"]["load"]["error_total"]:
            report["problems"].append(f"{report['soak']['load']['error_total']} errors in the soak")
        if not report["soak"]["within_bound"]:
            report["problems"].append("RSS grew past the bound in the soak's second half")
    if report["server_exit"] != 0:
        report["problems"].append(f"the server exited {report['server_exit']} on SIGTERM")
    report["ok"] = not report["problems"]
    if args.json_file:
        with open(args.json_file, "w") as f:
            json.dump(report, f, indent=2)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    if report["ok"]:
        shutil.rmtree(work_dir, ignore_errors=True)
    else:
        log(f"load: the data directory and the server's stderr are kept in {work_dir}")
    sys.exit(0 if report["ok"] else 1)


if __name__ == "__main__":
    main()
