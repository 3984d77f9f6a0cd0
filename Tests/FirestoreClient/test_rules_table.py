"""The allow/deny tables of Tests/SuiteServerTests/RulesCases replayed through Firestore's own protocol with Google's
Python client, as each case's user: `suite serve --rules TABLE.rules` per table, the case's documents written by the
emulator's admin token, then the request sent signed in as the case's user (a Suite token) or signed out (no
authorization at all). A refusal must be PermissionDenied and only that.

Cases a live server cannot replay are counted apart, never as passing: a fixed `request.time`, token claims (Suite's
tokens carry none), another database, documents the store refuses. Against Google's emulator these tests are skipped
(Tools/rules-reference replays the tables there, with its own users)."""

import base64
import datetime
import json
import os
import shutil
import subprocess
import tempfile

import pytest
import yaml
from google.api_core.exceptions import AlreadyExists, GoogleAPICallError, PermissionDenied
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

import helpers

CASES = os.path.join(os.path.dirname(__file__), "..", "SuiteServerTests", "RulesCases")
TABLES = sorted(name[:-len(".rules")] for name in os.listdir(CASES)
                if name.endswith(".rules") and os.path.exists(os.path.join(CASES, name[:-len(".rules")] + ".yaml")))
VALID_UID = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

pytestmark = pytest.mark.skipif(os.environ.get("FIRESTORE_REFERENCE") == "google",
                                reason="Suite users and tokens; Tools/rules-reference replays the tables on Google's emulator")


def value(client, raw):
    """A case's tagged JSON value as the Python client's type."""
    if isinstance(raw, dict):
        if len(raw) == 1:
            (tag, inner), = raw.items()
            if tag == "$timestamp":
                return datetime.datetime.fromisoformat(inner.replace("Z", "+00:00"))
            if tag == "$ref":
                return client.document(inner)
            if tag == "$bytes":
                return base64.b64decode(inner)
            if tag == "$geo":
                return firestore.GeoPoint(inner[0], inner[1])
            if tag == "$double":
                return float(inner.lower().replace("infinity", "inf"))
            if tag == "$map":
                return {k: value(client, v) for k, v in inner.items()}
        return {k: value(client, v) for k, v in raw.items()}
    if isinstance(raw, list):
        return [value(client, v) for v in raw]
    return raw


def as_user(host, token):
    """A client signed in with `token`, or signed out when it is None (no authorization metadata at all)."""
    os.environ["FIRESTORE_EMULATOR_HOST"] = host
    client = firestore.Client(project=helpers.PROJECT)
    metadata = [(k, v) for k, v in client._rpc_metadata if k != "authorization"]
    if token is not None:
        metadata.append(("authorization", f"Bearer {token}"))
    client._rpc_metadata_internal = metadata
    return client


def depth(raw):
    if isinstance(raw, dict):
        return 1 + max((depth(v) for v in raw.values()), default=0)
    if isinstance(raw, list):
        return 1 + max((depth(v) for v in raw), default=0)
    return 0


def replayable(case):
    auth = case.get("auth")
    if "time" in case or case.get("database", "(default)") != "(default)":
        return False
    # Maps nested past Firestore's 20 levels: the store keeps them, the client's protobuf cannot read them back.
    if max(depth(case.get(key)) for key in ("resource", "data", "documents")) > 20:
        return False
    if auth is not None and (auth.get("token") or not set(auth["uid"]) <= VALID_UID):
        return False
    return True


def operation(case):
    for method in ["get", "list", "create", "update", "delete"]:
        if method in case:
            return method, case[method]
    raise AssertionError(f"no operation in {case}")


def attempt(client, case):
    """Sends the case's request; True when allowed, False when refused (PermissionDenied)."""
    method, path = operation(case)
    try:
        if method == "get":
            client.document(path).get()
        elif method == "create":
            client.document(path).create(value(client, case["data"]))
        elif method == "update":
            client.document(path).set(value(client, case["data"]))
        elif method == "delete":
            client.document(path).delete()
        else:
            query = client.collection_group(path) if case.get("group") else client.collection(path)
            spec = case.get("query") or {}
            for field, raw in sorted((spec.get("where") or {}).items()):
                query = query.where(filter=FieldFilter(field, "==", value(client, raw)))
            for field, raw in sorted((spec.get("in") or {}).items()):
                query = query.where(filter=FieldFilter(field, "in", value(client, raw)))
            for field in spec.get("orderBy") or []:
                query = query.order_by(field)
            if spec.get("offset") is not None:
                query = query.offset(spec["offset"])
            if spec.get("limit") is not None:
                query = query.limit(spec["limit"])
            list(query.stream())
        return True
    except PermissionDenied:
        return False
    except AlreadyExists:
        return True  # allowed by the rules, then refused by the create's precondition


@pytest.mark.parametrize("table", TABLES)
def test_the_table_through_the_firestore_protocol(server, table):
    with open(os.path.join(CASES, table + ".yaml")) as f:
        spec = yaml.safe_load(f)
    work_dir = tempfile.mkdtemp(prefix="suite-rules-table-")
    data_dir = os.path.join(work_dir, "data")
    os.mkdir(data_dir)
    argv = [server.binary, "--data-dir", data_dir, "serve", "--port", "0", "--firestore-port", "0",
            "--rules", os.path.join(CASES, table + ".rules"), "--accept-owner-token", "--auto-indexes", "--json"]
    proc, line = helpers.start_and_read_line(argv, os.path.join(work_dir, "serve.err"), lambda text: "{" in text)
    host = helpers.parse_serve_line(line)["firestore"]
    saved_host = os.environ.get("FIRESTORE_EMULATOR_HOST")
    tokens, clients, wrong = {}, {}, []
    replayed = skipped = 0
    try:
        os.environ["FIRESTORE_EMULATOR_HOST"] = host
        admin = firestore.Client(project=helpers.PROJECT)  # the emulator's token: an admin, past the rules
        for case in spec["cases"]:
            if not replayable(case):
                skipped += 1
                continue
            method, path = operation(case)
            world = dict(spec.get("documents") or {})
            world.update(case.get("documents") or {})
            if method in ("get", "update", "delete") and "resource" in case:
                world[path] = case["resource"]
            if method == "create" and path not in (case.get("documents") or {}):
                world.pop(path, None)
            try:
                for doc_path, data in world.items():
                    admin.document(doc_path).set(value(admin, data))
            except GoogleAPICallError:
                skipped += 1  # a document the store refuses (nesting past its limits)
                continue
            uid = (case.get("auth") or {}).get("uid")
            if uid is not None and uid not in tokens:
                done = subprocess.run([server.binary, "--data-dir", data_dir, "users", "add", uid, "--json"],
                                      capture_output=True, text=True, timeout=120)
                if done.returncode != 0 and "already exists" in done.stderr:  # `admin`, made by suite serve
                    done = subprocess.run([server.binary, "--data-dir", data_dir, "users", "token", uid, "--json"],
                                          capture_output=True, text=True, timeout=120)
                assert done.returncode == 0, done.stderr
                tokens[uid] = json.loads(done.stdout)["token"]
            if uid not in clients:
                clients[uid] = as_user(host, tokens.get(uid))
            allowed = attempt(clients[uid], case)
            replayed += 1
            if allowed != (case["expect"] == "allow"):
                wrong.append(f"{case.get('name')}: expected {case['expect']}, the server {'allowed' if allowed else 'refused'}")
            for doc_path in set(world) | ({path} if method != "list" else set()):
                admin.document(doc_path).delete()
        print(f"rules table {table} through the Firestore protocol: {replayed} replayed, {skipped} not replayable")
        assert not wrong, "\n".join(wrong)
        assert replayed > 0
    finally:
        if "admin" in locals():
            admin.close()
        for client in clients.values():
            client.close()
        if saved_host is not None:
            os.environ["FIRESTORE_EMULATOR_HOST"] = saved_host
        helpers.stop(proc)
        shutil.rmtree(work_dir, ignore_errors=True)
