"""A named database ("other") beside (default): the same paths hold different documents."""

from google.cloud.firestore_v1.base_query import FieldFilter

import helpers


def test_named_database_is_separate(client, other_client, coll):
    default_coll, other_coll = coll, other_client.collection(coll.id)
    default_coll.document("shared").set({"db": "default"})
    other_coll.document("shared").set({"db": "other"})
    default_coll.document("only-default").set({"db": "default"})
    other_coll.document("only-other").set({"db": "other"})

    assert default_coll.document("shared").get().to_dict() == {"db": "default"}
    assert other_coll.document("shared").get().to_dict() == {"db": "other"}
    assert not other_coll.document("only-default").get().exists
    assert not default_coll.document("only-other").get().exists
    assert helpers.ids(default_coll.get()) == ["only-default", "shared"]
    assert helpers.ids(other_coll.get()) == ["only-other", "shared"]


def test_named_database_queries_and_listings(other_client, coll):
    other_coll = other_client.collection(coll.id)
    coll.document("d").set({"n": 1})
    other_coll.document("e").set({"n": 1})
    assert helpers.ids(other_coll.where(filter=FieldFilter("n", "==", 1)).get()) == ["e"]
    assert helpers.aggregate(other_coll.count(alias="c")) == {"c": 1}
    assert [r.id for r in other_coll.list_documents()] == ["e"]
    assert coll.id in [c.id for c in other_client.collections()]


def test_named_database_references_and_transactions(other_client):
    from google.cloud import firestore

    other_coll = other_client.collection(helpers.unique("other"))
    ref = other_coll.document("d")
    ref.set({"self": ref, "n": 1})
    got = ref.get().get("self")
    assert got.path == ref.path and got._client is other_client

    @firestore.transactional
    def bump(transaction):
        transaction.update(ref, {"n": ref.get(transaction=transaction).get("n") + 1})

    bump(other_client.transaction())
    assert ref.get().get("n") == 2
