"""Helpers shared by the real-client tests (see conftest.py)."""

import dataclasses
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest
from google.cloud import firestore

PROJECT = "demo-suite"
START_TIMEOUT = 120  # seconds for the server to print its line: a bound on a signal, not a sleep
SIGNAL_TIMEOUT = 30  # seconds for a listener to see an expected snapshot
# Attempts of one contended transaction. The library's default, 5, is too few even against Google's emulator,
# which aborts contended transactions ("Transaction lock timeout") often enough that a run of 100 fails.
CONTENDED_MAX_ATTEMPTS = 50


@dataclasses.dataclass
class Server:
    host: str  # FIRESTORE_EMULATOR_HOST, "127.0.0.1:PORT"
    binary: str | None  # the suite binary (None when the tests run against Google's emulator)
    data_dir: str | None  # the suite server's data dir
    url: str | None = None  # the suite server's JSON API (None against Google's emulator)


# --- starting the server -------------------------------------------------------------------------------------------


def start_and_read_line(argv, stderr_path, is_ready):
    """Starts argv and returns (process, line) once a line of its stdout passes is_ready. Fails the session with
    the process's stderr if it exits first or prints nothing ready in START_TIMEOUT. The rest of stdout is drained
    in the background so that the process never blocks on a full pipe."""
    stderr = open(stderr_path, "wb")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL,
                            start_new_session=True)  # its own process group: stop() ends its children too
    stderr.close()
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
                    return proc, line
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not sel.select(remaining):
                _give_up(proc, stderr_path, f"printed no ready line in {START_TIMEOUT} s")
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                _give_up(proc, stderr_path, f"exited ({proc.wait()}) before printing a ready line")
            buffer += chunk


def stop(proc):
    """Kills a process that start_and_read_line started, with its process group (a launcher script's java)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _drain(stream):
    while stream.read(65536):
        pass


def _give_up(proc, stderr_path, why):
    stop(proc)
    with open(stderr_path, "rb") as f:
        err = f.read().decode("utf-8", "replace")[-4000:]
    pytest.exit(f"{' '.join(proc.args)} {why}; its stderr:\n{err}", 2)


def tail_of_files(directory, suffix, limit=6000):
    """The last characters of the files in directory whose names end in suffix."""
    text = ""
    for name in sorted(os.listdir(directory)):
        if name.endswith(suffix):
            with open(os.path.join(directory, name), "rb") as f:
                text += f"== {name}\n" + f.read().decode("utf-8", "replace")[-limit:]
    return text


def parse_serve_line(line):
    """`suite serve --json`'s line: {"url": ..., "firestore": "127.0.0.1:PORT", ...}."""
    info = json.loads(line)
    assert isinstance(info.get("firestore"), str) and ":" in info["firestore"], info
    return info


# --- names, data, results ------------------------------------------------------------------------------------------


def unique(prefix="c"):
    """A collection id no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def seed(coll, docs):
    """Writes {id: data} into the collection in one batch."""
    batch = coll._client.batch()
    for doc_id, data in docs.items():
        batch.set(coll.document(doc_id), data)
    batch.commit()


def ids(snapshots):
    return [s.id for s in snapshots]


def paths(snapshots):
    return [s.reference.path for s in snapshots]


def aggregate(aggregation_query):
    """{alias: value} of an aggregation query's single result."""
    results = aggregation_query.get()
    assert len(results) == 1, results
    return {r.alias: r.value for r in results[0]}


def raw_commit(client, writes):
    """Sends a Commit whose writes the client library would refuse to build (a malformed name, a bad mask) through
    the library's own generated gRPC client, with the same metadata as every call of the client."""
    return client._firestore_api.commit(
        request={"database": client._database_string, "writes": writes},
        metadata=client._rpc_metadata,
    )


def document_name(client, path):
    return f"{client._database_string}/documents/{path}"


# --- another process -----------------------------------------------------------------------------------------------


def external_set(server, path, data):
    """Writes a document from a separate OS process: `suite docs set` on the server's data dir (the server's
    default database), or, against Google's emulator, a separate Python process with its own client."""
    if server.binary is not None:
        argv = [server.binary, "--data-dir", server.data_dir, "docs", "set", path, json.dumps(data)]
    else:
        code = ("import json,sys; from google.cloud import firestore; "
                f"firestore.Client(project={PROJECT!r}).document(sys.argv[1]).set(json.loads(sys.argv[2]))")
        argv = [sys.executable, "-c", code, path, json.dumps(data)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{argv} exited {done.returncode}: {done.stdout}{done.stderr}"


def increment_in_transactions(project, path, times, start_barrier, database=None):
    """The body of a contended-counter process (multiprocessing, spawn): its own client, `times` transactions that
    each read the counter and write it + 1. Started together with its rival through start_barrier."""
    client = firestore.Client(project=project, database=database)
    ref = client.document(path)
    ref.get()  # connected before the race starts

    @firestore.transactional
    def increment(transaction):
        snapshot = ref.get(transaction=transaction)
        transaction.update(ref, {"n": snapshot.get("n") + 1})

    start_barrier.wait(60)
    for _ in range(times):
        increment(client.transaction(max_attempts=CONTENDED_MAX_ATTEMPTS))
    client.close()


# --- listeners -----------------------------------------------------------------------------------------------------


class SnapshotRecorder:
    """An on_snapshot callback that keeps each snapshot as [(id, data), ...] and signals, through a
    threading.Event, the first one equal to what a test waits for."""

    def __init__(self):
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._expected = None
        self.history = []

    def __call__(self, docs, changes, read_time):
        state = [(d.id, d.to_dict()) for d in docs]
        with self._lock:
            self.history.append(state)
            if state == self._expected:
                self._event.set()

    def wait_for(self, expected, timeout=SIGNAL_TIMEOUT):
        with self._lock:
            self._event.clear()
            self._expected = expected
            if self.history and self.history[-1] == expected:
                return
        assert self._event.wait(timeout), f"no snapshot {expected} in {timeout} s; snapshots seen: {self.history}"
