#!/usr/bin/env python3
"""Replicas under network faults: offline-first Sync replicas, each in a network namespace of its own, writing while
the network between them and `suite serve` breaks on a schedule; then the faults stop, every replica syncs, and the
harness checks that all of them and the server hold the same documents and that nothing was lost or applied twice.

    sudo python3 Tools/faults/replicas.py [--replicas 3] [--seconds 20] [--phase 2] [--seed N] [--json]

Made by the harness, all on this machine: one namespace per replica (`ip netns`), a veth pair from it to the root
namespace where `suite serve` runs, and in front of the server a fault proxy of the harness's own. Each replica is
`suite-faults-replica` (Tools/FaultsReplica): Documents on SQLite with a `SyncClient` over HTTP, as an app has.

The faults, one per replica link per phase, drawn from the seed:
- partition: the replica's veth is down on both ends (nothing passes either way);
- loss: nftables in the replica's namespace drops 30% of its packets, both directions (`numgen random`);
- duplication: nftables sends every outgoing packet twice (`dup`);
- delay: the proxy holds each chunk of a connection 50–400 ms (a delay drawn per connection, so requests on
  different connections overtake each other: reordering);
- cut answers: the proxy forwards the request, then drops the connection when the answer starts (the server applied
  it, the replica saw an error: its retry must be a duplicate);
- replayed requests: the proxy sends a request to the server a second time on a connection of its own (a duplicated
  push must apply nothing twice).
The kernel here has no `netem` qdisc (CONFIG_NET_SCH_NETEM is not set; `tc qdisc add … netem` says "Specified qdisc
kind is unknown"), so delay and reordering come from the proxy instead of `tc netem`; loss, duplication and partitions
are the kernel's own.

Checked after the faults stop: every replica holds exactly the server's documents; each counter equals the sum of the
increments all replicas made; each replica's last edit of its field is the server's value; every item a replica
created and did not delete exists, and none it deleted does; the server holds exactly one applied-marker per mutation
made (none lost, none applied twice). Exit 0 when all hold, 1 on a violation, 2 on a harness error, 3 when this
machine does not allow network namespaces (the test did not run: that is never a pass).
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

FAULTS = ["clean", "partition", "loss", "duplication", "delay", "cut", "replay"]
PREFIX = "suitefault"


class HarnessError(Exception):
    pass


def run(argv, check=True):
    done = subprocess.run(argv, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise HarnessError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[:400]}")
    return done


# --- the network ----------------------------------------------------------------------------------------------------


class Network:
    """The namespaces and links, and the kernel-side faults (partition, loss, duplication)."""

    def __init__(self, replicas, tag):
        self.replicas = replicas
        self.tag = tag
        self.made = []

    def namespace(self, i):
        return f"{PREFIX}{self.tag}r{i}"

    def host_link(self, i):
        return f"sf{self.tag}h{i}"

    def replica_link(self, i):
        return f"sf{self.tag}r{i}"

    def server_address(self, i):
        return f"10.88.{i + 1}.1"

    def replica_address(self, i):
        return f"10.88.{i + 1}.2"

    @staticmethod
    def check_allowed():
        """Raises HarnessError with the reason when namespaces, veth or nftables cannot be used here."""
        if os.geteuid() != 0:
            return "it needs root (ip netns, veth, nftables): run it as root"
        for tool in ("ip", "nft"):
            if shutil.which(tool) is None:
                return f"`{tool}` is missing (Debian: iproute2, nftables; Tools/install-deps.sh installs them)"
        probe = f"{PREFIX}probe{os.getpid()}"
        done = run(["ip", "netns", "add", probe], check=False)
        if done.returncode != 0:
            return f"`ip netns add` is refused here: {done.stderr.strip()}"
        run(["ip", "netns", "del", probe], check=False)
        return None

    def clean_stale(self):
        """Namespaces left by an earlier run that was killed (their veth ends go with them)."""
        listing = run(["ip", "netns", "list"], check=False).stdout
        for line in listing.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith(PREFIX) and name != f"{PREFIX}probe":
                run(["ip", "netns", "del", name], check=False)

    def up(self):
        for i in range(self.replicas):
            ns, host, peer = self.namespace(i), self.host_link(i), self.replica_link(i)
            run(["ip", "netns", "add", ns])
            self.made.append(ns)
            run(["ip", "link", "add", host, "type", "veth", "peer", "name", peer])
            run(["ip", "link", "set", peer, "netns", ns])
            run(["ip", "addr", "add", f"{self.server_address(i)}/24", "dev", host])
            run(["ip", "link", "set", host, "up"])
            run(["ip", "netns", "exec", ns, "ip", "addr", "add", f"{self.replica_address(i)}/24", "dev", peer])
            run(["ip", "netns", "exec", ns, "ip", "link", "set", peer, "up"])
            run(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"])
            tables = (
                "table inet suitefault {\n"
                "  chain out { type filter hook output priority 0; policy accept; }\n"
                "  chain in { type filter hook input priority 0; policy accept; }\n"
                "}\n"
                "table ip suitefaultdup {\n"
                "  chain out { type filter hook output priority 0; policy accept; }\n"
                "}\n")
            done = subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"], input=tables, text=True,
                                  capture_output=True)
            if done.returncode != 0:
                raise HarnessError(f"nftables in {ns}: {done.stderr.strip()}")

    def down(self):
        for ns in self.made:
            run(["ip", "netns", "del", ns], check=False)
        for i in range(self.replicas):
            run(["ip", "link", "del", self.host_link(i)], check=False)
        self.made = []

    def nft(self, i, *rule):
        run(["ip", "netns", "exec", self.namespace(i), "nft", *rule])

    def clear(self, i):
        """Every kernel-side fault off for replica i."""
        ns = self.namespace(i)
        self.nft(i, "flush", "chain", "inet", "suitefault", "out")
        self.nft(i, "flush", "chain", "inet", "suitefault", "in")
        self.nft(i, "flush", "chain", "ip", "suitefaultdup", "out")
        run(["ip", "link", "set", self.host_link(i), "up"])
        run(["ip", "netns", "exec", ns, "ip", "link", "set", self.replica_link(i), "up"])

    def apply(self, i, fault):
        if fault == "partition":
            run(["ip", "link", "set", self.host_link(i), "down"])
            run(["ip", "netns", "exec", self.namespace(i), "ip", "link", "set", self.replica_link(i), "down"])
        elif fault == "loss":
            for chain in ("out", "in"):
                self.nft(i, "add", "rule", "inet", "suitefault", chain, "numgen", "random", "mod", "100", "<", "30",
                         "drop")
        elif fault == "duplication":
            self.nft(i, "add", "rule", "ip", "suitefaultdup", "out", "ip", "daddr", self.server_address(i), "dup",
                     "to", self.server_address(i), "device", self.replica_link(i))


# --- the fault proxy ------------------------------------------------------------------------------------------------


class Proxy:
    """A TCP proxy in front of the server, per replica (by its address): delay, cut answers, replayed requests."""

    def __init__(self, server_port, rng):
        self.server_port = server_port
        self.rng = rng
        self.modes = {}  # replica address -> fault
        self.counts = {"connections": 0, "cut": 0, "replayed": 0, "delayed": 0}
        self.loop = asyncio.new_event_loop()
        self.port = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.ready = threading.Event()

    def start(self):
        self.thread.start()
        if not self.ready.wait(10):
            raise HarnessError("the fault proxy did not start")

    def set_mode(self, address, fault):
        self.loop.call_soon_threadsafe(self.modes.__setitem__, address, fault)

    def _run(self):
        asyncio.set_event_loop(self.loop)

        async def serve():
            server = await asyncio.start_server(self._connection, "0.0.0.0", 0)
            self.port = server.sockets[0].getsockname()[1]
            self.ready.set()
            async with server:
                await server.serve_forever()

        try:
            self.loop.run_until_complete(serve())
        except (asyncio.CancelledError, Exception):  # cancelled by stop()
            pass

    async def _connection(self, client_reader, client_writer):
        address = client_writer.get_extra_info("peername")[0]
        self.counts["connections"] += 1
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.server_port)
        except OSError:
            client_writer.close()
            return
        delay = self.rng.uniform(0.05, 0.4)
        state = {"cut": False}

        async def answers():
            try:
                while True:
                    chunk = await server_reader.read(65536)
                    if not chunk:
                        break
                    if state["cut"]:
                        self.counts["cut"] += 1
                        break
                    if self.modes.get(address) == "delay":
                        self.counts["delayed"] += 1
                        await asyncio.sleep(delay)
                    client_writer.write(chunk)
                    await client_writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                client_writer.close()
                server_writer.close()

        pump = asyncio.ensure_future(answers())
        try:
            while True:
                request = await self._read_request(client_reader)
                if request is None:
                    break
                mode = self.modes.get(address)
                if mode == "delay":
                    self.counts["delayed"] += 1
                    await asyncio.sleep(delay)
                if mode == "cut" and self.rng.random() < 0.5:
                    state["cut"] = True
                server_writer.write(request)
                await server_writer.drain()
                if mode == "replay" and self.rng.random() < 0.5:
                    self.counts["replayed"] += 1
                    asyncio.ensure_future(self._replay(request))
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            server_writer.close()
            await pump

    @staticmethod
    async def _read_request(reader):
        """One HTTP/1.1 request (head and a Content-Length body), as bytes; None at the end of the connection."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
            if name.strip().lower() == b"transfer-encoding":
                raise ConnectionError("chunked requests are not proxied")
        body = await reader.readexactly(length) if length else b""
        return head + body

    async def _replay(self, request):
        """The same request once more, on a connection of its own; the answer is read and dropped."""
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.server_port)
            writer.write(request)
            await writer.drain()
            await asyncio.wait_for(reader.read(65536), 10)
            writer.close()
        except (OSError, asyncio.TimeoutError):
            pass

    def stop(self):
        """Stops accepting; the loop's thread is a daemon and ends with the process (os._exit, below)."""
        self.loop.call_soon_threadsafe(self.loop.stop)


# --- suite serve and the replicas -----------------------------------------------------------------------------------

RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /{document=**} {
      allow read, write: if request.auth != null;
    }
  }
}
"""


class Server:
    def __init__(self, binary, work):
        self.work = work
        rules = os.path.join(work, "open.rules")
        with open(rules, "w") as f:
            f.write(RULES)
        self.err = open(os.path.join(work, "serve.err"), "w")
        self.proc = subprocess.Popen(
            [binary, "--data-dir", os.path.join(work, "server"), "serve", "--port", "0", "--dev-user", "faults",
             "--rules", rules, "--json"], stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise HarnessError(f"suite serve did not start: {tail(os.path.join(work, 'serve.err'))}")
        info = json.loads(line)
        self.url, self.port, self.token = info["url"], info["port"], info["token"]

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())

    def documents(self, collection):
        found = self.request("POST", "/v1/query", {"collection": collection})["documents"]
        return {d["path"]: d["data"] for d in found}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.err.close()


def tail(path, lines=10):
    try:
        with open(path) as f:
            return "".join(f.readlines()[-lines:]).strip()
    except OSError:
        return ""


class Replica:
    def __init__(self, index, binary, network, proxy_port, server, work, args):
        self.name = f"r{index}"
        self.err_path = os.path.join(work, f"{self.name}.err")
        self.err = open(self.err_path, "w")
        argv = ["ip", "netns", "exec", network.namespace(index), binary,
                "--server", f"http://{network.server_address(index)}:{proxy_port}", "--token", server.token,
                "--store", os.path.join(work, f"{self.name}.sqlite"), "--name", self.name,
                "--seconds", str(args.seconds), "--seed", str(args.seed * 1000 + index), "--rate", str(args.rate),
                "--counters", str(args.counters), "--timeout", "3"]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)

    def expect(self, event, timeout):
        """The next JSON line, which must be `event`."""
        deadline = time.monotonic() + timeout
        result = {}

        def read():
            result["line"] = self.proc.stdout.readline()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(max(0.0, deadline - time.monotonic()))
        line = result.get("line")
        if not line:
            raise HarnessError(
                f"replica {self.name} did not say '{event}' within {timeout:.0f} s: {tail(self.err_path)}")
        message = json.loads(line)
        if message.get("event") != event:
            raise HarnessError(f"replica {self.name} said {line.strip()[:200]} instead of '{event}'")
        return message

    def send(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


# --- the run --------------------------------------------------------------------------------------------------------


def schedule(network, proxy, args, rng, stop, applied):
    """Every `phase` seconds each replica link gets a fault drawn from the seed (never the same twice in a row)."""
    current = ["clean"] * args.replicas
    while not stop.wait(0):
        for i in range(args.replicas):
            choices = [f for f in args.faults if f != current[i]] or args.faults
            fault = rng.choice(choices)
            network.clear(i)
            proxy.set_mode(network.replica_address(i), None)
            network.apply(i, fault)
            if fault in ("delay", "cut", "replay"):
                proxy.set_mode(network.replica_address(i), fault)
            current[i] = fault
            applied[fault] = applied.get(fault, 0) + 1
        if stop.wait(args.phase):
            break
    for i in range(args.replicas):
        network.clear(i)
        proxy.set_mode(network.replica_address(i), None)


def check(server, dumps):
    """The violations: a list of sentences (empty when every promise held)."""
    violations = []
    truth = {}
    for collection in ("counters", "edits", "items"):
        truth.update(server.documents(collection))
    for dump in dumps:
        held = dump["documents"]
        if held != truth:
            differ = sorted(p for p in set(held) | set(truth) if held.get(p) != truth.get(p))
            violations.append(f"{dump['name']} differs from the server at {len(differ)} documents, e.g. "
                              + ", ".join(f"{p}: {held.get(p)} vs {truth.get(p)}" for p in differ[:3]))
        if dump["pending"] != 0:
            violations.append(f"{dump['name']} still has {dump['pending']} writes in its outbox")
    increments = {}
    for dump in dumps:
        for path, count in dump["expected"]["increments"].items():
            increments[path] = increments.get(path, 0) + count
    for path in sorted(p for p in truth if p.startswith("counters/")):
        made = increments.get(path, 0)
        value = truth[path].get("n")
        if value != made:
            kind = "applied twice" if isinstance(value, int) and value > made else "lost"
            violations.append(f"{path}.n is {value} on the server, the replicas made {made} increments ({kind})")
    for dump in dumps:
        for path, value in dump["expected"]["edits"].items():
            got = truth.get(path, {}).get(dump["name"])
            if got != value:
                violations.append(f"{path}.{dump['name']} is {got} on the server; {dump['name']} last wrote {value}")
        for path in dump["expected"]["alive"]:
            if path not in truth:
                violations.append(f"{path} was created by {dump['name']} and never deleted, but is missing (lost)")
        for path in dump["expected"]["deleted"]:
            if path in truth:
                violations.append(f"{path} was deleted by {dump['name']} but exists")
    expected_items = set()
    for dump in dumps:
        expected_items |= set(dump["expected"]["alive"])
    for path in sorted(p for p in truth if p.startswith("items/") and p not in expected_items):
        violations.append(f"{path} exists on the server but no replica has it alive")
    markers = len(server.request("POST", "/v1/query", {"collectionGroup": "applied"})["documents"])
    made = sum(d["expected"]["mutations"] for d in dumps)
    if markers != made:
        violations.append(f"the server applied {markers} mutations; the replicas made {made}")
    return violations, len(truth), markers


def self_test():
    """The checker must see each kind of violation: a run that breaks a promise can never pass."""

    class FakeServer:
        def __init__(self, truth, markers):
            self.truth, self.markers = truth, markers

        def documents(self, collection):
            return {p: d for p, d in self.truth.items() if p.startswith(collection + "/")}

        def request(self, method, path, body):
            return {"documents": [{}] * self.markers}

    truth = {"counters/c0": {"n": 3}, "edits/e0": {"r0": 5}, "items/r0-2": {"by": "r0"}}
    dump = {"name": "r0", "documents": dict(truth), "pending": 0,
            "expected": {"increments": {"counters/c0": 3}, "edits": {"edits/e0": 5}, "alive": ["items/r0-2"],
                         "deleted": ["items/r0-4"], "mutations": 5}}
    assert check(FakeServer(truth, 5), [dump])[0] == [], "a clean run must pass"
    cases = {
        "applied twice": (dict(truth, **{"counters/c0": {"n": 4}}), 5, None),
        "lost": (dict(truth, **{"counters/c0": {"n": 2}}), 5, None),
        "last wrote": (dict(truth, **{"edits/e0": {"r0": 4}}), 5, None),
        "missing (lost)": ({k: v for k, v in truth.items() if k != "items/r0-2"}, 5, None),
        "deleted by r0 but exists": (dict(truth, **{"items/r0-4": {"by": "r0"}}), 5, None),
        "no replica has it alive": (dict(truth, **{"items/r9-1": {"by": "r9"}}), 5, None),
        "the server applied 6": (truth, 6, None),
        "differs from the server": (truth, 5, {"counters/c0": {"n": 3}}),
        "outbox": (truth, 5, "pending"),
    }
    for needle, (server_truth, markers, held) in cases.items():
        case = json.loads(json.dumps(dump))
        if held == "pending":
            case["pending"] = 2
        elif held is not None:
            case["documents"] = held
        else:
            case["documents"] = dict(server_truth)
        violations = check(FakeServer(server_truth, markers), [case])[0]
        assert any(needle in v for v in violations), f"the checker missed '{needle}': {violations}"
    print(f"self-test: the checker caught all {len(cases)} kinds of violation")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3, help="replicas, each in a namespace (default 3)")
    parser.add_argument("--seconds", type=float, default=20, help="how long the replicas write (default 20)")
    parser.add_argument("--phase", type=float, default=2, help="seconds per fault phase (default 2)")
    parser.add_argument("--rate", type=float, default=20, help="writes per second per replica (default 20)")
    parser.add_argument("--counters", type=int, default=4, help="counter and edit documents (default 4)")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000, help="the fault schedule's seed")
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"comma-separated, of {','.join(FAULTS)}")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args()
    args.faults = [f.strip() for f in args.faults.split(",") if f.strip()]
    unknown = [f for f in args.faults if f not in FAULTS]
    if unknown or not args.faults:
        parser.error(f"unknown fault {', '.join(unknown) or '(none given)'}; choose from {', '.join(FAULTS)}")
    if args.replicas < 1 or args.replicas > 50 or args.seconds <= 0 or args.phase <= 0:
        parser.error("--replicas 1–50, --seconds and --phase above 0")

    bin_dir = os.environ.get("SUITE_BIN_DIR") or subprocess.run(
        ["swift", "build", "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    suite = os.path.join(bin_dir, "suite")
    replica_binary = os.path.join(bin_dir, "suite-faults-replica")
    for binary in (suite, replica_binary):
        if not os.access(binary, os.X_OK):
            print(f"error: no {binary}\nhint: build it (swift build --product {os.path.basename(binary)}) or set "
                  "SUITE_BIN_DIR", file=sys.stderr)
            return 2
    refused = Network.check_allowed()
    if refused:
        print(f"NOT RUN: the replica fault test needs network namespaces, and {refused}.", file=sys.stderr)
        return 3

    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="suite-faults-replicas-")
    network = Network(args.replicas, str(os.getpid() % 10000))
    network.clean_stale()
    server = proxy = None
    replicas = []
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))
    try:
        network.up()
        server = Server(suite, work)
        for k in range(args.counters):
            server.request("PUT", f"/v1/docs/counters/c{k}", {"data": {"n": 0}})
        proxy = Proxy(server.port, random.Random(args.seed + 1))
        proxy.start()
        replicas = [Replica(i, replica_binary, network, proxy.port, server, work, args) for i in range(args.replicas)]
        for replica in replicas:
            replica.expect("ready", 60)
        applied = {}
        started = time.monotonic()
        faults = threading.Thread(target=schedule, args=(network, proxy, args, rng, stop, applied))
        faults.start()
        for replica in replicas:
            replica.expect("written", args.seconds + 60)
        stop.set()
        faults.join()
        healed = time.monotonic()
        for replica in replicas:
            replica.send("converge")
        pushed = [r.expect("pushed", 120) for r in replicas]
        converged = time.monotonic() - healed
        for replica in replicas:
            replica.send("dump")
        dumps = [r.expect("dump", 120) for r in replicas]
        violations, documents, markers = check(server, dumps)
    except HarnessError as error:
        print(f"error: {error}\nhint: the files of the run are kept in {work}", file=sys.stderr)
        return 2
    finally:
        stop.set()
        for replica in replicas:
            replica.stop()
        if proxy:
            proxy.stop()
        if server:
            server.stop()
        network.down()

    figures = {
        "seed": args.seed, "replicas": args.replicas, "seconds": args.seconds, "phase": args.phase,
        "faultPhases": applied, "proxy": proxy.counts, "documents": documents, "appliedMarkers": markers,
        "convergeSeconds": round(converged, 3), "writeSeconds": round(healed - started, 3),
        "perReplica": [dict(d["figures"], name=d["name"], pushSeconds=p["seconds"])
                       for d, p in zip(dumps, pushed)],
        "violations": violations,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_tables(figures)
    if violations:
        print(f"FAILED: {len(violations)} violations (the files of the run are in {work})", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


def print_tables(f):
    print(f"Replicas under network faults: {f['replicas']} replicas, {f['seconds']:g} s of writes, a fault per link "
          f"every {f['phase']:g} s, seed {f['seed']}")
    print("fault phases: " + ", ".join(f"{k} {v}" for k, v in sorted(f["faultPhases"].items())))
    p = f["proxy"]
    print(f"proxy: {p['connections']} connections, {p['cut']} answers cut, {p['replayed']} requests replayed, "
          f"{p['delayed']} chunks delayed")
    print()
    columns = ["name", "mutations", "syncs", "failedSyncs", "failedRequests", "applied", "duplicates", "rejected",
               "pushSeconds"]
    titles = ["replica", "mutations", "syncs", "retries", "failed requests", "applied", "duplicates suppressed",
              "rejected", "push after heal (s)"]
    rows = [[str(r[c]) if c != "pushSeconds" else f"{r[c]:.2f}" for c in columns] for r in f["perReplica"]]
    widths = [max(len(t), *(len(row[i]) for row in rows)) for i, t in enumerate(titles)]
    print("  ".join(t.rjust(w) for t, w in zip(titles, widths)))
    for row in rows:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))
    print()
    total = sum(r["mutations"] for r in f["perReplica"])
    print(f"converged {f['convergeSeconds']:.2f} s after the faults stopped; {f['documents']} documents; "
          f"{f['appliedMarkers']} mutations applied on the server of {total} made")
    print(f"violations: {len(f['violations'])}")
    for v in f["violations"][:20]:
        print(f"  - {v}")


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the proxy's connections end with the process, without asyncio's complaints at shutdown
