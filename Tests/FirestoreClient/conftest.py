"""Fixtures for the real-client tests: Google's Python client (google-cloud-firestore) against `suite serve`'s
Firestore gRPC port, the way an app uses it against Google's Firestore emulator (FIRESTORE_EMULATOR_HOST).

The session starts one server (from $SUITE_BIN_DIR/suite, default .build/debug/suite) in a temporary data dir and
waits for the JSON line it prints once it listens: a signal, never a fixed sleep. Every test works in collections
of its own (the `coll` fixture, `helpers.unique`), so tests do not depend on each other or on their order.

FIRESTORE_REFERENCE=google runs the same tests against Google's own emulator instead (the jar that the gcloud CLI
package google-cloud-cli-firestore-emulator installs), to check the tests' expectations against the reference;
writes "from another process" then come from a separate Python process instead of `suite docs set`.
"""

import os
import shutil
import socket
import tempfile

import pytest
from google.cloud import firestore

import helpers

GOOGLE_EMULATOR = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud_firestore_emulator"


def _start_suite(work_dir):
    bin_dir = os.environ.get("SUITE_BIN_DIR") or ".build/debug"
    binary = os.path.abspath(os.path.join(bin_dir, "suite"))
    if not os.access(binary, os.X_OK):
        pytest.exit(f"no suite binary at {binary} (set SUITE_BIN_DIR to the directory of a built `suite`)", 2)
    # --auto-indexes: composite queries run without declared indexes, as on Google's emulator.
    data_dir = os.path.join(work_dir, "data")
    os.mkdir(data_dir)
    argv = [binary, "--data-dir", data_dir, "serve", "--port", "0", "--firestore-port", "0",
            "--accept-owner-token", "--auto-indexes", "--json"]
    proc, line = helpers.start_and_read_line(argv, os.path.join(work_dir, "serve.err"), lambda text: "{" in text)
    info = helpers.parse_serve_line(line)
    return proc, helpers.Server(host=info["firestore"], binary=binary, data_dir=data_dir, url=info["url"])


def _start_google_emulator(work_dir):
    with socket.socket() as s:  # a free port: the emulator does not report the one it got for --port 0
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [os.environ.get("GOOGLE_FIRESTORE_EMULATOR", GOOGLE_EMULATOR), "--host", "127.0.0.1", "--port", str(port)]
    proc, _ = helpers.start_and_read_line(argv, os.path.join(work_dir, "emulator.err"),
                                          lambda text: "Dev App Server is now running" in text)
    return proc, helpers.Server(host=f"127.0.0.1:{port}", binary=None, data_dir=None)


_server_stderr = []  # the server's stderr, kept for the summary of a failed run


@pytest.fixture(scope="session")
def server(request):
    """The running server: its Firestore host:port, the suite binary and its data dir."""
    work_dir = tempfile.mkdtemp(prefix="suite-firestore-client-")  # the data dir and the server's stderr
    if os.environ.get("FIRESTORE_REFERENCE") == "google":
        proc, info = _start_google_emulator(work_dir)
    else:
        proc, info = _start_suite(work_dir)
    os.environ["FIRESTORE_EMULATOR_HOST"] = info.host  # read by every Client, also in spawned processes
    try:
        yield info
    finally:
        helpers.stop(proc)
        if request.session.testsfailed:
            _server_stderr.append(helpers.tail_of_files(work_dir, ".err"))
        shutil.rmtree(work_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def client(server):
    """google.cloud.firestore.Client on the server's (default) database, as the emulator's users make it."""
    c = firestore.Client(project=helpers.PROJECT)
    yield c
    c.close()


@pytest.fixture(scope="session")
def other_client(server):
    """A client on the named database "other" of the same server."""
    c = firestore.Client(project=helpers.PROJECT, database="other")
    yield c
    c.close()


@pytest.fixture
def coll(client, request):
    """A collection of this test's own (unique name) in the (default) database."""
    return client.collection(helpers.unique(request.node.originalname))


# --- no passing by skipping ----------------------------------------------------------------------------------------

_skipped = []


def pytest_runtest_logreport(report):
    if report.skipped:
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    """A skipped (or xfailed) test fails the run: every test here must run and pass."""
    if _skipped and exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    for text in _server_stderr:
        terminalreporter.section("the server's stderr (last lines)")
        terminalreporter.write_line(text)
    if _skipped:
        terminalreporter.write_line(f"FAILED: skipped tests are not allowed here: {', '.join(_skipped)}", red=True)
