#!/usr/bin/env python3
"""Jepsen's bank test against real `suite serve` processes, under faults. See README.md next to this file.

N accounts bank/acct-{i} hold a fixed total. Client processes of three kinds move random amounts between random
accounts in transactions (each transfer also creates ledger/{id} in the same transaction) and read every balance in
one consistent read, while a schedule kills servers (kill -9, restarted on the same store), kills clients mid-commit,
stops servers (SIGSTOP/SIGCONT) and restarts PostgreSQL. Then the faults stop, replicas push their outboxes, and the
final state is checked against what every client was told.

    python3 Tools/faults/bank/bank.py [--target sqlite|postgres|all] [--seconds 60] [--json]

Exit status: 0 no violation, 1 a violation (or a client kind that committed nothing), 2 the harness itself failed.
"""

import argparse
import json
import os
import random
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
KINDS = ("json", "firestore", "replica")
FAULTS = ("kill-server", "kill-client", "pause-server", "restart-postgres")
PROJECT = "demo-suite"
START_TIMEOUT = 120  # seconds for a server to print its ready line: a bound on a signal, not a sleep
HTTP_TIMEOUT = 30  # seconds for one JSON API call (a stopped server answers after SIGCONT)
CLI_TIMEOUT = 120  # seconds for one `suite` command of a replica
STOP_TIMEOUT = 90  # seconds for the clients to finish their operation once asked to stop


class HarnessError(Exception):
    """The harness could not do its part (exit status 2): not a finding about Suite."""


def log(message):
    print(f"bank: {message}", file=sys.stderr, flush=True)


# --- processes ----------------------------------------------------------------------------------------------------


class Processes:
    """Every process the harness starts, each in a process group of its own; all are killed at exit."""

    def __init__(self):
        self._lock = threading.Lock()
        self._procs = set()

    def start(self, argv, **kwargs):
        proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
        with self._lock:
            self._procs.add(proc)
        return proc

    def kill(self, proc):
        """kill -9 of the process's group, then reaped."""
        for sig in (signal.SIGCONT, signal.SIGKILL):  # a stopped process dies on SIGKILL too; CONT lets children go
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        with self._lock:
            self._procs.discard(proc)

    def kill_all(self):
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            self.kill(proc)


def read_ready_line(proc, stderr_path, is_ready, what):
    """The first stdout line of proc that passes is_ready; the rest of stdout is drained in the background."""
    deadline = time.monotonic() + START_TIMEOUT
    buffer = b""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                line = raw.decode("utf-8", "replace")
                if is_ready(line):
                    threading.Thread(target=_drain, args=(proc.stdout,), daemon=True).start()
                    return line
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not sel.select(remaining):
                return None
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            buffer += chunk


def _drain(stream):
    try:
        while stream.read(65536):
            pass
    except (OSError, ValueError):
        pass


def tail(path, limit=3000):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")[-limit:]
    except OSError:
        return ""


# --- PostgreSQL ---------------------------------------------------------------------------------------------------


def postgres_bin():
    root = "/usr/lib/postgresql"
    versions = sorted((int(v) for v in os.listdir(root) if v.isdigit()), reverse=True) if os.path.isdir(root) else []
    for version in versions:
        if os.access(f"{root}/{version}/bin/initdb", os.X_OK):
            return f"{root}/{version}/bin"
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return os.path.dirname(found)
    raise HarnessError("PostgreSQL is not installed: run Tools/install-deps.sh (apt-get install postgresql)")


class Postgres:
    """A throwaway cluster (as Tests/PostgresTestSupport/PostgresServer.swift makes it): initdb in a temporary
    directory, `postgres` on a free loopback port, as the `postgres` (else `nobody`) account when run as root."""

    USER = "suite"
    PASSWORD = "suite-bank-secret"

    def __init__(self, processes, directory):
        import pwd

        self.processes = processes
        self.bin = postgres_bin()
        self.directory = directory
        self.data = os.path.join(directory, "data")
        self.log_path = os.path.join(directory, "postgres.log")
        self.proc = None
        self.port = free_port()
        self.prefix = []
        os.makedirs(directory, exist_ok=True)
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam("postgres")
            except KeyError:
                entry = pwd.getpwnam("nobody")
            os.chown(directory, entry.pw_uid, entry.pw_gid)
            self.prefix = ["/usr/bin/setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups",
                           "--"]
            self.owner = (entry.pw_uid, entry.pw_gid)
        else:
            self.owner = None

    @property
    def url(self):
        return f"postgres://{self.USER}:{self.PASSWORD}@127.0.0.1:{self.port}/postgres"

    def _tool(self, name, args):
        env = dict(os.environ, PGPASSWORD=self.PASSWORD)
        done = subprocess.run(self.prefix + [f"{self.bin}/{name}"] + args, cwd=self.directory, env=env,
                              capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout + done.stderr

    def init(self):
        password_file = os.path.join(self.directory, "password")
        with open(password_file, "w") as f:
            f.write(self.PASSWORD)
        if self.owner:
            os.chown(password_file, *self.owner)
        status, text = self._tool("initdb", ["-D", self.data, "-U", self.USER, f"--pwfile={password_file}",
                                             "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync"])
        if status != 0:
            raise HarnessError(f"initdb failed: {text[-800:]}")

    def start(self):
        # fsync=off loses nothing when only processes die (the OS keeps what was written); synchronous_commit stays
        # on, so a commit PostgreSQL acknowledged is in the WAL the OS holds before a restart.
        settings = ["listen_addresses=127.0.0.1", "max_connections=200", "unix_socket_directories=", "fsync=off",
                    "full_page_writes=off"]
        argv = self.prefix + [f"{self.bin}/postgres", "-D", self.data, "-p", str(self.port)]
        for setting in settings:
            argv += ["-c", setting]
        out = open(self.log_path, "ab")
        if self.owner:
            os.chown(self.log_path, *self.owner)
        self.proc = self.processes.start(argv, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        out.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, _ = self._tool("pg_isready", ["-h", "127.0.0.1", "-p", str(self.port), "-q"])
            if status == 0:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise HarnessError(f"postgres did not start on 127.0.0.1:{self.port}: {tail(self.log_path, 800)}")

    def crash(self):
        """An immediate shutdown: every backend quits at once, no checkpoint (crash recovery at the next start)."""
        status, text = self._tool("pg_ctl", ["-D", self.data, "stop", "-m", "immediate", "-w", "-t", "60"])
        if status != 0:
            raise HarnessError(f"pg_ctl stop -m immediate failed: {text[-800:]}")
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise HarnessError("postgres did not exit after pg_ctl stop -m immediate")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self._tool("pg_ctl", ["-D", self.data, "stop", "-m", "immediate", "-w", "-t", "30"])
            self.processes.kill(self.proc)


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- suite serve --------------------------------------------------------------------------------------------------


class Server:
    """One `suite serve` (JSON API and Firestore's gRPC port). The first start takes ports the OS chose; a restart
    binds the same ones, so clients and replicas find it again."""

    def __init__(self, harness, name, data_dir, config):
        self.harness = harness
        self.name = name
        self.data_dir = data_dir
        self.config = config
        self.stderr_path = os.path.join(harness.work, f"{name}.err")
        self.proc = None
        self.port = 0
        self.grpc_port = 0
        self.paused = False
        self.starts = 0

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def firestore(self):
        return f"127.0.0.1:{self.grpc_port}"

    def start(self):
        argv = self.harness.suite_argv(self.data_dir, self.config) + [
            "serve", "--port", str(self.port), "--firestore-port", str(self.grpc_port), "--accept-owner-token",
            "--json"]
        for attempt in range(5):
            err = open(self.stderr_path, "ab")
            err.write(f"--- start {self.starts + 1} at {time.time():.3f}\n".encode())
            err.flush()
            proc = self.harness.processes.start(argv, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
            err.close()
            line = read_ready_line(proc, self.stderr_path, lambda text: text.startswith("{"), self.name)
            if line is not None:
                info = json.loads(line)
                self.port = int(info["port"])
                self.grpc_port = int(info["firestore"].rsplit(":", 1)[1])
                self.proc = proc
                self.starts += 1
                return
            self.harness.processes.kill(proc)
            text = tail(self.stderr_path, 1500)
            if "in use" not in text.lower() or attempt == 4:
                raise ServerDown(f"{self.name} did not start again on ports {self.port}/{self.grpc_port}: {text}")
            time.sleep(0.5)  # the old socket's port still held by someone: try again

    def kill(self):
        self.harness.processes.kill(self.proc)

    def pause(self):
        os.killpg(self.proc.pid, signal.SIGSTOP)
        self.paused = True

    def resume(self):
        os.killpg(self.proc.pid, signal.SIGCONT)
        self.paused = False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


class ServerDown(Exception):
    """A server that does not come back after a fault: a finding (a violation), not a harness failure."""


# --- the JSON API -------------------------------------------------------------------------------------------------


def http(url, method, path, token, body=None, timeout=HTTP_TIMEOUT):
    """(status, json) of one JSON API call; raises OSError (urllib.error.URLError) when there is no answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, {"raw": text.decode("utf-8", "replace")}


def account_path(i):
    return f"bank/acct-{i}"


# --- the clients (each its own OS process: `bank.py --client KIND ...`) -------------------------------------------


class ClientLog:
    """The client's JSON lines, written before and after each step so that a kill -9 leaves the truth behind."""

    def __init__(self, path):
        self.file = open(path, "a", buffering=1)

    def write(self, event, **fields):
        fields["e"] = event
        fields.setdefault("t", time.time())
        self.file.write(json.dumps(fields) + "\n")
        if event in ("fail", "readfail"):
            time.sleep(random.uniform(0.05, 0.2))  # the server is down or stopped: back off as an app would


class Client:
    def __init__(self, args):
        self.args = args
        self.log = ClientLog(args.client_log)
        self.rng = random.Random(args.seed)
        self.n = args.accounts
        self.total = args.accounts * args.initial

    def stopping(self):
        return os.path.exists(self.args.stop_file)

    def run(self):
        self.log.write("ready")
        while not self.stopping():
            if self.rng.random() < self.args.read_ratio:
                self.read()
            else:
                a, b = self.rng.sample(range(self.n), 2)
                amount = self.rng.randint(1, 5)
                tid = f"{self.args.client}{self.args.client_id}-{uuid.uuid4().hex[:16]}"
                self.log.write("try", id=tid, **{"from": a, "to": b, "amount": amount})
                self.transfer(tid, a, b, amount)

    def check_read(self, t0, balances, where):
        total = sum(balances.values())
        ok = len(balances) == self.n and total == self.total
        self.log.write("read", start=t0, ok=ok, total=total, count=len(balances), where=where,
                       balances=None if ok else balances)


class JSONClient(Client):
    """The JSON API: read both accounts, POST /v1/commit with version preconditions and the ledger's create
    (exists: false); a 409 is read again and retried. All balances: POST /v1/query of the collection, one read."""

    def read(self):
        t0 = time.time()
        try:
            status, answer = http(self.args.url, "POST", "/v1/query", self.args.token, {"collection": "bank"})
        except OSError as error:
            self.log.write("readfail", t=t0, error=str(error))
            return
        if status != 200:
            self.log.write("readfail", t=t0, error=f"{status} {answer}")
            return
        balances = {d["path"]: d["data"]["balance"] for d in answer["documents"]}
        self.check_read(t0, balances, "POST /v1/query")

    def transfer(self, tid, a, b, amount):
        retries = 0
        while True:
            try:
                docs = []
                for i in (a, b):
                    status, doc = http(self.args.url, "GET", f"/v1/docs/{account_path(i)}", self.args.token)
                    if status != 200:
                        self.log.write("fail", id=tid, error=f"GET {status} {doc}", retries=retries, sent=False)
                        return
                    docs.append(doc)
                writes = [
                    {"op": "set", "path": account_path(a), "data": {"balance": docs[0]["data"]["balance"] - amount},
                     "precondition": {"version": docs[0]["version"]}},
                    {"op": "set", "path": account_path(b), "data": {"balance": docs[1]["data"]["balance"] + amount},
                     "precondition": {"version": docs[1]["version"]}},
                    {"op": "set", "path": f"ledger/{tid}",
                     "data": {"from": a, "to": b, "amount": amount, "client": self.args.client},
                     "precondition": {"exists": False}},
                ]
                self.log.write("send", id=tid)
                status, answer = http(self.args.url, "POST", "/v1/commit", self.args.token, {"writes": writes})
            except OSError as error:
                self.log.write("fail", id=tid, error=str(error), retries=retries)
                return
            if status == 200:
                self.log.write("ok", id=tid, retries=retries)
                return
            if status == 409 and retries < self.args.max_retries:
                retries += 1
                continue
            if status == 409:
                self.log.write("abort", id=tid, retries=retries)
            else:
                self.log.write("fail", id=tid, error=f"commit {status} {answer}", retries=retries)
            return


class FirestoreClient(Client):
    """Firestore's protocol through Google's client: @firestore.transactional reads both accounts and writes both
    plus the ledger's create; all balances in a read-only transaction (one BatchGetDocuments)."""

    def __init__(self, args):
        super().__init__(args)
        from google.api_core import exceptions
        from google.cloud import firestore

        self.firestore = firestore
        self.exceptions = exceptions
        self.db = firestore.Client(project=PROJECT)
        self.refs = [self.db.document(account_path(i)) for i in range(self.n)]

    def read(self):
        t0 = time.time()
        attempts = []

        @self.firestore.transactional
        def read_all(transaction):
            balances = {s.reference.path: s.get("balance") for s in transaction.get_all(self.refs)}
            attempts.append(balances)
            return balances

        try:
            balances = read_all(self.db.transaction(read_only=True, max_attempts=self.args.max_retries + 1))
        except Exception as error:  # noqa: BLE001 — any error of the library is an unavailable read
            self.log.write("readfail", t=t0, error=f"{type(error).__name__}: {error}")
            return
        # Attempts that the commit aborted were never the transaction's answer; a torn one is noted, not a violation.
        torn = sum(1 for seen in attempts[:-1] if sum(seen.values()) != self.total)
        if torn:
            self.log.write("torn", t=t0, count=torn)
        self.check_read(t0, balances, "read-only transaction")

    def transfer(self, tid, a, b, amount):
        ra, rb = self.refs[a], self.refs[b]
        ledger = self.db.document(f"ledger/{tid}")
        runs = []

        @self.firestore.transactional
        def move(transaction):
            runs.append(1)
            snapshots = {s.reference.path: s for s in transaction.get_all([ra, rb])}
            transaction.update(ra, {"balance": snapshots[ra.path].get("balance") - amount})
            transaction.update(rb, {"balance": snapshots[rb.path].get("balance") + amount})
            transaction.create(ledger, {"from": a, "to": b, "amount": amount, "client": self.args.client})

        try:
            self.log.write("send", id=tid)
            move(self.db.transaction(max_attempts=self.args.max_retries + 1))
        except (self.exceptions.Aborted, ValueError) as error:
            # ValueError: "Failed to commit transaction in N attempts" — every attempt aborted, nothing applied.
            if isinstance(error, ValueError) and "attempts" not in str(error):
                self.log.write("fail", id=tid, error=f"{type(error).__name__}: {error}", retries=len(runs) - 1)
            else:
                self.log.write("abort", id=tid, retries=len(runs) - 1)
            return
        except Exception as error:  # noqa: BLE001 — the outcome is unknown (a killed server, a timeout)
            self.log.write("fail", id=tid, error=f"{type(error).__name__}: {error}", retries=max(0, len(runs) - 1))
            return
        self.log.write("ok", id=tid, retries=len(runs) - 1)


class ReplicaClient(Client):
    """A Sync replica: `suite --remote URL --token T --data-dir D docs batch` with increments on both accounts and the
    ledger's create; the write commits locally (acknowledged when the CLI exits 0) and is pushed when the command
    ends, or by a later command. All balances: `docs query bank` on the replica (it pulls first)."""

    def cli(self, args, stdin=None):
        argv = [self.args.suite, "--remote", self.args.url, "--token", self.args.token, "--data-dir",
                self.args.replica_dir, "--json"] + args
        return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=CLI_TIMEOUT)

    def read(self):
        t0 = time.time()
        try:
            done = self.cli(["docs", "query", "bank"])
        except subprocess.TimeoutExpired:
            self.log.write("readfail", t=t0, error="timeout")
            return
        if done.returncode != 0:
            self.log.write("readfail", t=t0, error=done.stderr[-500:])
            return
        try:
            documents = json.loads(done.stdout)
            if isinstance(documents, dict):
                documents = documents.get("documents", [])
            balances = {d["path"]: d["data"]["balance"] for d in documents}
        except (ValueError, KeyError, TypeError) as error:
            self.log.write("readfail", t=t0, error=f"unreadable output {error}: {done.stdout[:300]}")
            return
        self.check_read(t0, balances, "replica docs query")

    def transfer(self, tid, a, b, amount):
        writes = [
            {"op": "update", "path": account_path(a), "transforms": {"balance": {"increment": -amount}}},
            {"op": "update", "path": account_path(b), "transforms": {"balance": {"increment": amount}}},
            {"op": "set", "path": f"ledger/{tid}",
             "data": {"from": a, "to": b, "amount": amount, "client": self.args.client},
             "precondition": {"exists": False}},
        ]
        self.log.write("send", id=tid)
        try:
            done = self.cli(["docs", "batch", "-"], stdin=json.dumps(writes))
        except subprocess.TimeoutExpired:
            self.log.write("fail", id=tid, error="timeout", retries=0)
            return
        if done.returncode == 0:
            self.log.write("ok", id=tid, retries=0)
        else:
            self.log.write("fail", id=tid, error=done.stderr[-500:], retries=0)


def client_main(args):
    kind = {"json": JSONClient, "firestore": FirestoreClient, "replica": ReplicaClient}[args.client]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    kind(args).run()


# --- the harness --------------------------------------------------------------------------------------------------


class Harness:
    def __init__(self, args, target):
        self.args = args
        self.target = target
        self.rng = random.Random(args.seed)
        self.processes = Processes()
        self.work = tempfile.mkdtemp(prefix=f"suite-bank-{target}-")
        os.chmod(self.work, 0o755)
        self.binary = os.path.join(args.bin_dir, "suite")
        self.servers = []
        self.postgres = None
        self.config = None
        self.clients = []  # {"kind", "id", "argv", "env", "proc", "server", "log", "replica_dir"}
        self.windows = []  # {"fault", "start", "end", "detail"}
        self.violations = []
        self.notes = []
        self.token = None
        self.stop_file = os.path.join(self.work, "stop")
        self.started = time.time()

    def suite_argv(self, data_dir, config):
        argv = [self.binary]
        if config:
            argv += ["--config", config]
        return argv + ["--data-dir", data_dir]

    # setting up

    def setup(self):
        data_dir = os.path.join(self.work, "server-data")
        os.makedirs(data_dir)
        if self.target == "postgres":
            self.postgres = Postgres(self.processes, os.path.join(self.work, "postgres"))
            self.postgres.init()
            self.postgres.start()
            self.config = os.path.join(self.work, "suite.yaml")
            with open(self.config, "w") as f:
                f.write("plugins: [PostgresDocuments]\n"
                        f'documents: {{engine: postgres, options: {{url: "{self.postgres.url}", schema: bank, '
                        "pool-size: 8, connect-timeout: 60}}\n")
            count = 3
        else:
            count = 1
        added = subprocess.run(self.suite_argv(data_dir, self.config) + ["users", "add", "bank", "--admin", "--json"],
                               capture_output=True, text=True, timeout=120)
        if added.returncode != 0:
            raise HarnessError(f"suite users add failed: {added.stderr}")
        self.token = json.loads(added.stdout)["token"]
        for i in range(count):
            server = Server(self, f"server-{i}", data_dir, self.config)
            try:
                server.start()
            except ServerDown as error:
                raise HarnessError(str(error))
            self.servers.append(server)
        self.seed()

    def seed(self):
        writes = [{"op": "set", "path": account_path(i), "data": {"balance": self.args.initial},
                   "precondition": {"exists": False}} for i in range(self.args.accounts)]
        status, answer = http(self.servers[0].url, "POST", "/v1/commit", self.token, {"writes": writes})
        if status != 200:
            raise HarnessError(f"seeding the accounts failed: {status} {answer}")

    def start_clients(self):
        os.makedirs(os.path.join(self.work, "clients"))
        for k, kind in enumerate(KINDS):
            for i in range(self.args.clients):
                server = self.servers[(i + k) % len(self.servers)]
                client = {"kind": kind, "id": i, "server": server, "proc": None, "lives": 0,
                          "log": os.path.join(self.work, "clients", f"{kind}-{i}.log"),
                          "replica_dir": os.path.join(self.work, "replicas", f"{kind}-{i}")}
                if kind == "replica":
                    os.makedirs(client["replica_dir"])
                self.clients.append(client)
                self.start_client(client)
        self.wait_for_clients()

    def wait_for_clients(self):
        """Until every client wrote its first line (Google's client takes a second to import): the clock of the run
        starts once all can work."""
        deadline = time.monotonic() + START_TIMEOUT
        waiting = list(self.clients)
        while waiting:
            self.check_clients_alive()
            waiting = [c for c in waiting if '"ready"' not in open(c["log"]).read()]
            if waiting and time.monotonic() > deadline:
                raise HarnessError(f"clients not ready in {START_TIMEOUT} s: {[c['kind'] for c in waiting]}")
            time.sleep(0.05)

    def start_client(self, client):
        server = client["server"]
        client["lives"] += 1
        argv = [sys.executable, os.path.abspath(__file__), "--client", client["kind"], "--client-id", str(client["id"]),
                "--client-log", client["log"], "--url", server.url, "--token", self.token,
                "--suite", self.binary, "--replica-dir", client["replica_dir"], "--stop-file", self.stop_file,
                "--accounts", str(self.args.accounts), "--initial", str(self.args.initial),
                "--read-ratio", str(self.args.read_ratio), "--max-retries", str(self.args.max_retries),
                "--seed", str(self.rng.randrange(1 << 30))]
        env = dict(os.environ, FIRESTORE_EMULATOR_HOST=server.firestore, PYTHONDONTWRITEBYTECODE="1")
        open(client["log"], "a").close()
        err = open(client["log"] + ".err", "ab")
        client["proc"] = self.processes.start(argv, env=env, stdout=subprocess.DEVNULL, stderr=err,
                                              stdin=subprocess.DEVNULL)
        err.close()

    # faults

    def run_schedule(self):
        faults = [f for f in self.args.faults if f != "restart-postgres" or self.postgres is not None]
        seconds = self.args.seconds
        period = self.args.fault_period or max(1.0, min(6.0, seconds / (len(faults) + 1)))
        hold = min(3.0, period / 2)
        start = self.started = time.time()
        end = start + seconds
        done = set()
        k = 0
        while faults:
            at = start + (k + 1) * period
            remaining = [f for f in faults if f not in done]
            if at >= end and not remaining:
                break
            fault = faults[k % len(faults)] if at < end else remaining[0]
            self.sleep_until(at)
            self.check_clients_alive()
            window = {"fault": fault, "start": time.time(), "detail": ""}
            self.windows.append(window)
            try:
                self.inject(fault, hold, window)
            except ServerDown as error:
                self.violations.append({"fault": fault, "kind": "server", "class": "server down", "what": str(error)})
                raise
            window["end"] = time.time()
            done.add(fault)
            k += 1
        self.sleep_until(end)
        self.check_clients_alive()
        return time.time() - start

    def sleep_until(self, at):
        while True:
            left = at - time.time()
            if left <= 0:
                return
            time.sleep(min(left, 0.2))

    def check_clients_alive(self):
        """A client that exited by itself crashed: that is the harness's failure, with the client's stderr."""
        for client in self.clients:
            status = client["proc"].poll()
            if status is not None:
                raise HarnessError(f"client {client['kind']}-{client['id']} exited with {status}: "
                                   f"{tail(client['log'] + '.err', 2000)}")

    def inject(self, fault, hold, window):
        if fault == "kill-server":
            server = self.rng.choice(self.servers)
            window["detail"] = server.name
            server.kill()
            time.sleep(hold)
            server.start()
        elif fault == "pause-server":
            server = self.rng.choice(self.servers)
            window["detail"] = server.name
            server.pause()
            time.sleep(hold)
            server.resume()
        elif fault == "kill-client":
            client = self.rng.choice(self.clients)
            window["detail"] = f"{client['kind']}-{client['id']}"
            time.sleep(self.rng.uniform(0, hold))  # a random moment, most often in the middle of a transfer
            self.processes.kill(client["proc"])
            self.start_client(client)
        elif fault == "restart-postgres":
            window["detail"] = "pg_ctl stop -m immediate, start"
            self.postgres.crash()
            time.sleep(hold)
            self.postgres.start()

    # the end

    def stop_clients(self):
        with open(self.stop_file, "w"):
            pass
        deadline = time.monotonic() + STOP_TIMEOUT
        for client in self.clients:
            try:
                client["proc"].wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.notes.append(f"client {client['kind']}-{client['id']} did not stop in {STOP_TIMEOUT} s: killed")
                self.processes.kill(client["proc"])

    def drain_replicas(self):
        """`sync now` until each replica's outbox is empty (`sync status --json`: pending)."""
        for client in self.clients:
            if client["kind"] != "replica":
                continue
            base = [self.binary, "--remote", client["server"].url, "--token", self.token, "--data-dir",
                    client["replica_dir"], "--json"]
            status = {}
            for _ in range(30):
                subprocess.run(base + ["sync", "now"], capture_output=True, text=True, timeout=CLI_TIMEOUT)
                done = subprocess.run(base + ["sync", "status"], capture_output=True, text=True, timeout=CLI_TIMEOUT)
                try:
                    status = json.loads(done.stdout)
                except ValueError:
                    status = {"error": done.stderr[-500:]}
                if status.get("pending") == 0:
                    break
            else:
                self.violations.append({"fault": "end", "kind": "replica", "class": "outbox not drained",
                                        "what": f"replica-{client['id']}'s outbox never emptied: {status}"})

    def final_state(self):
        server = self.servers[0]
        balances = {}
        for i in range(self.args.accounts):
            status, doc = http(server.url, "GET", f"/v1/docs/{account_path(i)}", self.token)
            if status != 200:
                raise HarnessError(f"final read of {account_path(i)}: {status} {doc}")
            balances[i] = doc["data"]["balance"]
        ledger = {}
        after = None
        while True:
            query = "?limit=1000" + (f"&after={urllib.request.quote(after)}" if after else "")
            status, page = http(server.url, "GET", f"/v1/list/ledger{query}", self.token)
            if status != 200:
                raise HarnessError(f"final read of the ledger: {status} {page}")
            for doc in page["documents"]:
                ledger[doc["path"].split("/", 1)[1]] = doc["data"]
            after = page.get("next")
            if not after:
                break
        return balances, ledger

    def run(self):
        try:
            self.setup()
            self.start_clients()
            duration = self.run_schedule()
        except ServerDown:
            duration = None
        finally:
            for server in self.servers:
                if server.paused:
                    server.resume()
        if duration is None:  # a server did not come back: its violation is recorded; bring it up to check the rest
            self.notes.append("a server did not come back after a fault; the run stopped there")
            for server in self.servers:
                if not server.alive():
                    try:
                        server.port = server.grpc_port = 0
                        server.start()
                    except ServerDown as error:
                        raise HarnessError(f"after the violation, {error}")
            duration = 0.0
        self.stop_clients()
        self.drain_replicas()
        balances, ledger = self.final_state()
        replica_views = self.replica_views()
        server_views = self.server_views()
        return self.check(duration, balances, ledger, replica_views, server_views)

    def replica_views(self):
        """Each replica's balances once synced: they must equal the server's."""
        views = {}
        for client in self.clients:
            if client["kind"] != "replica":
                continue
            done = subprocess.run([self.binary, "--data-dir", client["replica_dir"], "--remote", client["server"].url,
                                   "--token", self.token, "--json", "docs", "query", "bank"],
                                  capture_output=True, text=True, timeout=CLI_TIMEOUT)
            try:
                docs = json.loads(done.stdout)
                views[f"replica-{client['id']}"] = {int(d["path"].rsplit("-", 1)[1]): d["data"]["balance"]
                                                    for d in docs}
            except (ValueError, KeyError, TypeError):
                views[f"replica-{client['id']}"] = f"unreadable: {done.stdout[:200]} {done.stderr[-300:]}"
        return views

    def server_views(self):
        views = {}
        for server in self.servers[1:]:
            status, answer = http(server.url, "POST", "/v1/query", self.token, {"collection": "bank"})
            views[server.name] = ({int(d["path"].rsplit("-", 1)[1]): d["data"]["balance"]
                                   for d in answer["documents"]} if status == 200 else f"{status} {answer}")
        return views

    def window_of(self, t):
        name = "none"
        for window in self.windows:
            if window["start"] <= t:
                name = window["fault"]
            else:
                break
        return name

    def check(self, duration, balances, ledger, replica_views, server_views):
        rows = {}

        def row(fault, kind):
            return rows.setdefault((fault, kind), {"attempted": 0, "committed": 0, "aborted": 0, "failed": 0,
                                                   "retries": 0, "reads": 0, "readErrors": 0, "tornAttempts": 0,
                                                   "violations": 0})

        def violation(fault, kind, what, cls):
            self.violations.append({"fault": fault, "kind": kind, "class": cls, "what": what})
            row(fault, kind)["violations"] += 1

        transfers = {}  # id -> {kind, try, outcome}
        for client in self.clients:
            kind = client["kind"]
            with open(client["log"]) as f:
                for line in f:
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue  # the last line of a client killed while writing it
                    fault = self.window_of(event["t"])
                    # An operation counts in the window of the fault in force when it ended (a transfer whose
                    # end no line records, in the window where it began).
                    if event["e"] == "try":
                        transfers[event["id"]] = {"kind": kind, "fault": fault, "try": event, "outcome": None}
                    elif event["e"] in ("ok", "abort", "fail"):
                        transfer = transfers[event["id"]]
                        transfer["outcome"] = event["e"]
                        transfer["fault"] = fault
                        transfer["retries"] = event.get("retries", 0)
                    elif event["e"] == "read":
                        row(fault, kind)["reads"] += 1
                        if not event["ok"]:
                            violation(fault, kind, f"a read saw total {event['total']} over {event['count']} "
                                                   f"accounts ({event['where']}): {event['balances']}", "torn read")
                    elif event["e"] == "readfail":
                        row(fault, kind)["readErrors"] += 1
                    elif event["e"] == "torn":
                        row(fault, kind)["tornAttempts"] += event["count"]
        for transfer in transfers.values():
            r = row(transfer["fault"], transfer["kind"])
            r["attempted"] += 1
            # No outcome: the client was killed in the middle, which is an unknown outcome, as a failure is.
            r[{"ok": "committed", "abort": "aborted", "fail": "failed", None: "failed"}[transfer["outcome"]]] += 1
            r["retries"] += transfer.get("retries", 0)

        # Every acknowledged transfer is in the ledger, as it was asked; none known to be aborted is.
        for tid, transfer in transfers.items():
            entry = ledger.get(tid)
            asked = transfer["try"]
            if transfer["outcome"] == "ok" and entry is None:
                violation(transfer["fault"], transfer["kind"], f"acknowledged transfer {tid} is not in the ledger: "
                                                                  f"{asked}", "lost acknowledged transfer")
            if transfer["outcome"] == "abort" and entry is not None:
                violation(transfer["fault"], transfer["kind"], f"aborted transfer {tid} is in the ledger",
                          "aborted transfer applied")
            if entry is not None and (entry.get("from"), entry.get("to"), entry.get("amount")) != (
                    asked["from"], asked["to"], asked["amount"]):
                violation(transfer["fault"], transfer["kind"], f"ledger/{tid} is {entry}, the client asked {asked}",
                          "ledger differs")
        for tid in ledger:
            if tid not in transfers:
                violation("end", "?", f"ledger/{tid} was never attempted by a client", "unknown ledger entry")
        # Balances equal the initial ones plus the ledger's sum: nothing half-applied, nothing applied twice.
        expected = {i: self.args.initial for i in range(self.args.accounts)}
        for entry in ledger.values():
            expected[entry["from"]] -= entry["amount"]
            expected[entry["to"]] += entry["amount"]
        total = self.args.accounts * self.args.initial
        if sum(balances.values()) != total:
            violation("end", "server", f"the final total is {sum(balances.values())}, not {total}: {balances}",
                      "final total")
        if balances != expected:
            violation("end", "server", f"final balances {balances} differ from initial + ledger {expected}",
                      "half-applied transfer")
        for name, view in list(replica_views.items()) + list(server_views.items()):
            if view != balances:
                violation("end", name.split("-")[0], f"{name} holds {view} once synced, the server {balances}",
                          "diverged")
        for kind in KINDS:
            committed = sum(r["committed"] for (f, k), r in rows.items() if k == kind)
            if committed == 0:
                violation("end", kind, f"the {kind} clients committed no transfer: the test did nothing", "did nothing")
        return {"target": self.target, "seconds": round(duration, 1), "accounts": self.args.accounts,
                "clientsPerKind": self.args.clients, "servers": len(self.servers),
                "faults": [{"fault": w["fault"], "detail": w["detail"], "at": round(w["start"] - self.started, 2), "recovered": round(w.get("end", w["start"]) - w["start"], 2)}
                           for w in self.windows],
                "rows": [dict(fault=f, kind=k, **r) for (f, k), r in sorted(rows.items(), key=_row_order)],
                "ledger": len(ledger), "finalBalances": balances,
                "violations": self.violations, "notes": self.notes}

    def cleanup(self, keep):
        with open(self.stop_file, "w"):
            pass
        self.processes.kill_all()
        if self.postgres is not None:
            self.postgres.stop()
        if keep:
            log(f"kept {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)


def _row_order(item):
    (fault, kind), _ = item
    order = ["none"] + list(FAULTS) + ["end"]
    return (order.index(fault) if fault in order else 99, KINDS.index(kind) if kind in KINDS else 9, kind)


# --- output -------------------------------------------------------------------------------------------------------


COLUMNS = ("attempted", "committed", "aborted", "failed", "retries", "reads", "readErrors", "violations")


def print_table(result):
    print(f"\nbank test on {result['target']}: {result['servers']} server(s), {result['accounts']} accounts, "
          f"{result['clientsPerKind']} client(s) per kind, {result['seconds']} s, {result['ledger']} transfers in "
          "the ledger")
    print("faults: " + (", ".join(f"{w['fault']} ({w['detail']}) at {w['at']} s, back in {w['recovered']} s"
                                  for w in result["faults"]) or "none"))
    header = f"{'fault':<17} {'client':<10}" + "".join(f"{c:>11}" for c in COLUMNS)
    print(header)
    print("-" * len(header))
    totals = dict.fromkeys(COLUMNS, 0)
    for r in result["rows"]:
        print(f"{r['fault']:<17} {r['kind']:<10}" + "".join(f"{r[c]:>11}" for c in COLUMNS))
        for c in COLUMNS:
            totals[c] += r[c]
    print("-" * len(header))
    print(f"{'total':<28}" + "".join(f"{totals[c]:>11}" for c in COLUMNS))
    torn = sum(r["tornAttempts"] for r in result["rows"])
    if torn:
        print(f"note: {torn} read-only transaction attempt(s) read a torn total and were aborted and retried")
    for note in result["notes"]:
        print(f"note: {note}")
    classes = {}
    for v in result["violations"]:
        classes.setdefault(v["class"], []).append(v)
    for cls, found in classes.items():
        print(f"VIOLATIONS: {len(found)} {cls}")
        for v in found[:3]:
            print(f"  [{v['fault']}/{v['kind']}] {v['what']}")
        if len(found) > 3:
            print(f"  ... and {len(found) - 3} more")
    print("result: " + ("PASS, 0 violations" if not result["violations"] else
                        f"FAIL, {len(result['violations'])} violation(s)"))


# --- main ---------------------------------------------------------------------------------------------------------


def ensure_venv():
    """Runs this script again in .build/firestore-venv (made by Tools/python-venv.sh) unless already there."""
    try:
        import google.cloud.firestore  # noqa: F401

        return
    except ImportError:
        pass
    if os.environ.get("SUITE_BANK_VENV_TRIED"):
        raise HarnessError("google-cloud-firestore is not importable even in the venv Tools/python-venv.sh made")
    done = subprocess.run([os.path.join(ROOT, "Tools", "python-venv.sh")], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise HarnessError("Tools/python-venv.sh could not make the venv (see above)")
    python = done.stdout.strip()
    os.environ["SUITE_BANK_VENV_TRIED"] = "1"
    os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


def parse_args(argv):
    p = argparse.ArgumentParser(description="Jepsen's bank test against real `suite serve` processes, under faults.")
    p.add_argument("--target", choices=("sqlite", "postgres", "all"), default="all",
                   help="one server on the embedded SQLite store, three on one PostgreSQL, or both (default)")
    p.add_argument("--seconds", type=float, default=60, help="how long the clients run (default 60)")
    p.add_argument("--accounts", type=int, default=8)
    p.add_argument("--initial", type=int, default=100, help="each account's initial balance")
    p.add_argument("--clients", type=int, default=2, help="client processes per kind (json, firestore, replica)")
    p.add_argument("--faults", default=",".join(FAULTS),
                   help=f"comma-separated, from {', '.join(FAULTS)}; 'none' for none (default: all)")
    p.add_argument("--fault-period", type=float, default=0,
                   help="seconds between fault windows (default: min(6, seconds / (faults + 1)))")
    p.add_argument("--read-ratio", type=float, default=0.3, help="share of operations that read every balance")
    p.add_argument("--max-retries", type=int, default=20, help="retries of a transfer after a conflict")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print the results as JSON for scripts")
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs, stores) afterwards")
    p.add_argument("--bin-dir", default=os.environ.get("SUITE_BIN_DIR"),
                   help="the directory of the built `suite` and its plugins (SUITE_BIN_DIR; default: swift build "
                        "--show-bin-path)")
    # A client process (started by the harness).
    p.add_argument("--client", choices=KINDS, help=argparse.SUPPRESS)
    p.add_argument("--client-id", type=int, help=argparse.SUPPRESS)
    p.add_argument("--client-log", help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--token", help=argparse.SUPPRESS)
    p.add_argument("--suite", help=argparse.SUPPRESS)
    p.add_argument("--replica-dir", help=argparse.SUPPRESS)
    p.add_argument("--stop-file", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client is None:
        faults = [] if args.faults == "none" else [f.strip() for f in args.faults.split(",") if f.strip()]
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            p.error(f"unknown fault(s) {', '.join(unknown)}: choose from {', '.join(FAULTS)}")
        args.faults = faults
        if args.seconds <= 0 or args.accounts < 2 or args.clients < 1:
            p.error("--seconds must be > 0, --accounts >= 2, --clients >= 1")
    return args


def main(argv):
    args = parse_args(argv)
    if args.client is not None:
        client_main(args)
        return 0
    try:
        ensure_venv()
        if not args.bin_dir:
            done = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                raise HarnessError(f"swift build --show-bin-path failed: {done.stderr}")
            args.bin_dir = done.stdout.strip()
        args.bin_dir = os.path.abspath(args.bin_dir)
        if not os.access(os.path.join(args.bin_dir, "suite"), os.X_OK):
            raise HarnessError(f"no suite binary in {args.bin_dir} (build it with `swift build --product suite`, "
                               "or set SUITE_BIN_DIR)")
        if args.seed is None:
            args.seed = random.randrange(1 << 30)
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    targets = ["sqlite", "postgres"] if args.target == "all" else [args.target]
    results = []
    current = []

    def interrupted(signum, _frame):
        for harness in current:
            harness.cleanup(keep=False)
        print(f"bank: interrupted by signal {signum}", file=sys.stderr)
        os._exit(2)

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    status = 0
    for target in targets:
        harness = Harness(args, target)
        current[:] = [harness]
        log(f"{target}: seed {args.seed}, work directory {harness.work}")
        try:
            result = harness.run()
        except HarnessError as error:
            print(f"error: {target}: {error}", file=sys.stderr)
            harness.cleanup(keep=True)
            return 2
        except Exception:
            harness.cleanup(keep=True)
            raise
        results.append(result)
        if not args.json:
            print_table(result)
            sys.stdout.flush()
        if result["violations"]:
            status = 1
        harness.cleanup(keep=args.keep or bool(result["violations"]))
    if args.json:
        print(json.dumps({"seed": args.seed, "results": results}, indent=2))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
