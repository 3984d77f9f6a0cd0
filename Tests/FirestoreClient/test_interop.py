"""One store, several doors: a document written through Firestore's protocol reads back identically through the
JSON API and `suite docs get` in another process, and one written by `suite docs set` reads back through Google's
client, for every value type. (Suite only: Google's emulator has no other door.)"""

import datetime
import json
import subprocess
import urllib.request

import pytest
from google.cloud import firestore

import helpers

WHEN = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc)


def every_value(client):
    return {
        "null": None, "bool": True, "int": -(2**63), "big": 2**63 - 1, "double": -0.5, "nan": float("nan"),
        "inf": float("inf"), "ninf": float("-inf"), "time": WHEN, "string": "héllo", "bytes": b"\x00\xff\x07",
        "ref": client.document("users/ana"), "geo": firestore.GeoPoint(48.85, 2.35),
        "array": [1, "x", {"k": False}], "map": {"nested": {"deep": 3}},
    }


# The same document in Suite's tagged JSON (docs/api.md), as the JSON API and `suite docs get` show it.
TAGGED = {
    "null": None, "bool": True, "int": -(2**63), "big": 2**63 - 1, "double": -0.5, "nan": {"$double": "NaN"},
    "inf": {"$double": "Infinity"}, "ninf": {"$double": "-Infinity"}, "time": {"$timestamp": "2024-01-02T03:04:05.123456Z"},
    "string": "héllo", "bytes": {"$bytes": "AP8H"}, "ref": {"$ref": "users/ana"}, "geo": {"$geo": [48.85, 2.35]},
    "array": [1, "x", {"k": False}], "map": {"nested": {"deep": 3}},
}


def suite(server, *args):
    done = subprocess.run([server.binary, "--data-dir", server.data_dir, *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def admin_token(server):
    if server.binary is None:
        pytest.fail("the interop tests need suite's own doors (run them against suite serve)")
    return json.loads(suite(server, "users", "add", helpers.unique("interop"), "--admin", "--json"))["token"]


def test_a_document_written_over_grpc_reads_back_through_the_json_api_and_suite_docs_get(client, coll, server,
                                                                                         admin_token):
    ref = coll.document("every")
    ref.set(every_value(client))
    path = f"{coll.id}/every"
    from_cli = json.loads(suite(server, "docs", "get", path, "--json"))
    request = urllib.request.Request(f"{server.url}/v1/docs/{path}", headers={"Authorization": f"Bearer {admin_token}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        from_api = json.loads(answer.read())
    assert from_cli["data"] == TAGGED
    assert from_api["data"] == TAGGED


def test_a_document_written_by_suite_docs_set_reads_back_through_googles_client(client, coll, server):
    path = f"{coll.id}/tagged"
    suite(server, "docs", "set", path, json.dumps(TAGGED))
    data = coll.document("tagged").get().to_dict()
    expected = every_value(client)
    assert set(data) == set(expected)
    for name, value in expected.items():
        if name == "nan":
            assert data[name] != data[name]  # NaN
        elif name == "ref":
            assert data[name].path == "users/ana"
        else:
            assert data[name] == value, name
