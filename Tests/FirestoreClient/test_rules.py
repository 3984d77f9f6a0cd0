"""Firestore's own rules language on `suite serve --rules FILE`, through Google's Python client signed in as a user
(the client sends a credential's id_token as the bearer token, the way rules are tested against an emulator).

A server of its own (module scope) runs with the rules below; the users are Suite users with their tokens. Against
Google's emulator (FIRESTORE_REFERENCE=google) these tests are skipped: its users are JWTs, not Suite tokens."""

import json
import os
import shutil
import subprocess
import tempfile

import google.auth.credentials
import pytest
from google.api_core.exceptions import PermissionDenied
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

import helpers

RULES = """
rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /accounts/{uid} {
      allow get: if request.auth != null && request.auth.uid == uid;
      allow create: if request.auth.uid == uid
        && request.resource.data.keys().hasOnly(['balance', 'name'])
        && request.resource.data.balance is int && request.resource.data.balance >= 0;
      allow update: if request.auth.uid == uid && request.resource.data.balance >= 0
        && !request.resource.data.diff(resource.data).affectedKeys().hasAny(['name']);
      allow delete: if false;
    }
    match /posts/{post} {
      allow get, list: if resource.data.owner == request.auth.uid;
      allow create: if request.resource.data.owner == request.auth.uid
        && getAfter(/databases/$(database)/documents/accounts/$(request.auth.uid)).data.balance >= 1;
    }
  }
}
"""

pytestmark = pytest.mark.skipif(os.environ.get("FIRESTORE_REFERENCE") == "google",
                                reason="Suite users and tokens; Google's emulator has none")


class UserToken(google.auth.credentials.AnonymousCredentials):
    """A credential whose id_token the client sends to an emulator host as `authorization: Bearer …`."""

    def __init__(self, token):
        super().__init__()
        self.id_token = token


@pytest.fixture(scope="module")
def rules_server(server):
    work_dir = tempfile.mkdtemp(prefix="suite-firestore-rules-")
    data_dir = os.path.join(work_dir, "data")
    os.mkdir(data_dir)
    rules = os.path.join(work_dir, "firestore.rules")
    with open(rules, "w") as f:
        f.write(RULES)
    binary = server.binary
    tokens = {}
    for uid in ["ana", "bob"]:
        done = subprocess.run([binary, "--data-dir", data_dir, "users", "add", uid, "--json"], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        tokens[uid] = json.loads(done.stdout)["token"]
    argv = [binary, "--data-dir", data_dir, "serve", "--port", "0", "--firestore-port", "0", "--rules", rules,
            "--json"]
    proc, line = helpers.start_and_read_line(argv, os.path.join(work_dir, "serve.err"), lambda text: "{" in text)
    host = helpers.parse_serve_line(line)["firestore"]
    try:
        yield host, tokens
    finally:
        helpers.stop(proc)
        shutil.rmtree(work_dir, ignore_errors=True)


def client_as(rules_server, uid, monkeypatch):
    host, tokens = rules_server
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", host)
    client = firestore.Client(project=helpers.PROJECT, credentials=UserToken(tokens[uid]))
    # In emulator mode the client adds `authorization: Bearer owner` to every call's metadata (the emulator's admin);
    # a signed-in app sends its user's token there instead.
    client._rpc_metadata_internal = [
        (key, value) for key, value in client._rpc_metadata if key != "authorization"
    ] + [("authorization", f"Bearer {tokens[uid]}")]
    return client


def test_writes_are_judged_on_the_data(rules_server, monkeypatch):
    ana = client_as(rules_server, "ana", monkeypatch)
    account = ana.collection("accounts").document("ana")
    with pytest.raises(PermissionDenied):
        account.set({"balance": 10, "name": "Ana", "role": "admin"})  # a field the rules do not allow
    account.set({"balance": 10, "name": "Ana"})
    with pytest.raises(PermissionDenied):
        account.update({"balance": -5})  # a negative balance
    with pytest.raises(PermissionDenied):
        account.update({"name": "Anna"})  # an immutable field
    with pytest.raises(PermissionDenied):
        ana.collection("accounts").document("eve").set({"balance": 1})  # another user's document
    account.update({"balance": firestore.Increment(-4)})  # a transform, judged on its result
    with pytest.raises(PermissionDenied):
        account.update({"balance": firestore.Increment(-100)})
    with pytest.raises(PermissionDenied):
        account.delete()
    assert account.get().to_dict() == {"balance": 6, "name": "Ana"}
    ana.close()


def test_reads_are_judged_on_the_stored_document(rules_server, monkeypatch):
    bob = client_as(rules_server, "bob", monkeypatch)
    with pytest.raises(PermissionDenied):
        bob.collection("accounts").document("ana").get()
    assert not bob.collection("accounts").document("bob").get().exists  # allowed, and missing
    bob.close()


def test_a_batch_is_judged_whole_and_get_after_sees_it(rules_server, monkeypatch):
    bob = client_as(rules_server, "bob", monkeypatch)
    refused = bob.batch()
    refused.set(bob.collection("posts").document("p0"), {"owner": "bob"})  # no account yet: refused
    with pytest.raises(PermissionDenied):
        refused.commit()
    batch = bob.batch()
    batch.set(bob.collection("accounts").document("bob"), {"balance": 1})
    batch.set(bob.collection("posts").document("p1"), {"owner": "bob"})  # getAfter sees the account
    batch.commit()
    assert bob.collection("posts").document("p1").get().to_dict() == {"owner": "bob"}
    bob.close()


def test_queries_are_not_filters(rules_server, monkeypatch):
    bob = client_as(rules_server, "bob", monkeypatch)
    batch = bob.batch()
    batch.set(bob.collection("accounts").document("bob"), {"balance": 2})
    batch.set(bob.collection("posts").document("p2"), {"owner": "bob"})
    batch.commit()
    with pytest.raises(PermissionDenied):
        list(bob.collection("posts").stream())  # could reach other users' posts
    mine = list(bob.collection("posts").where(filter=FieldFilter("owner", "==", "bob")).stream())
    assert {d.id for d in mine} >= {"p2"}
    ana = client_as(rules_server, "ana", monkeypatch)
    with pytest.raises(PermissionDenied):
        list(ana.collection("posts").where(filter=FieldFilter("owner", "==", "bob")).stream())
    bob.close()
    ana.close()


def test_a_transaction_is_judged_when_it_commits(rules_server, monkeypatch):
    ana = client_as(rules_server, "ana", monkeypatch)
    account = ana.collection("accounts").document("ana-t")
    # ana may not create ana-t (the uid must match): the transaction's commit is refused.
    transaction = ana.transaction()

    @firestore.transactional
    def create(tx):
        tx.set(account, {"balance": 1})

    with pytest.raises(PermissionDenied):
        create(transaction)
    own = ana.collection("accounts").document("ana")
    own.set({"balance": 3, "name": "Ana"}, merge=True)

    @firestore.transactional
    def spend(tx, amount):
        balance = own.get(transaction=tx).get("balance")
        tx.update(own, {"balance": balance - amount})

    spend(ana.transaction(), 1)
    with pytest.raises(PermissionDenied):
        spend(ana.transaction(), 100)
    assert own.get().get("balance") == 2
    ana.close()
