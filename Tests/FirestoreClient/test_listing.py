"""Listing: collection ids (ListCollectionIds), document references (ListDocuments), partitions (PartitionQuery)."""

import itertools

import helpers


def test_root_collections(client):
    first, second, only_deep = helpers.unique("root"), helpers.unique("root"), helpers.unique("root")
    client.document(f"{first}/d").set({})
    client.document(f"{second}/d").set({})
    client.document(f"{only_deep}/missing/sub/d").set({})  # a collection of only a missing document still counts
    listed = [c.id for c in client.collections()]
    assert {first, second, only_deep} <= set(listed)
    assert listed == sorted(listed)


def test_document_collections(coll):
    parent = coll.document("p")
    parent.set({"v": 1})
    parent.collection("s1").document("x").set({})
    parent.collection("s2").document("missing").collection("deeper").document("z").set({})
    coll.document("other").collection("s3").document("x").set({})
    assert sorted(c.id for c in parent.collections()) == ["s1", "s2"]
    assert list(coll.document("other").collection("s3").document("x").collections()) == []


def test_collections_of_a_missing_document(coll):
    coll.document("missing").collection("kids").document("k").set({})
    assert [c.id for c in coll.document("missing").collections()] == ["kids"]


def test_list_documents_shows_missing_parents(coll):
    helpers.seed(coll, {"b": {"v": 1}, "a": {"v": 2}})
    coll.document("m").collection("sub").document("x").set({})  # "m" itself was never written
    refs = list(coll.list_documents())
    assert [r.id for r in refs] == ["a", "b", "m"]
    assert [r.get().exists for r in refs] == [True, True, False]


def test_list_documents_pages(coll):
    helpers.seed(coll, {f"d{i:02d}": {"i": i} for i in range(25)})
    assert [r.id for r in coll.list_documents(page_size=7)] == [f"d{i:02d}" for i in range(25)]


def test_get_partitions_cover_the_collection_group(client, coll):
    group = helpers.unique("group")
    parents = itertools.cycle(["", f"{coll.id}/a/", f"{coll.id}/b/sub/c/"])
    expected = [f"{parent}{group}/doc{i:03d}" for i, parent in zip(range(40), parents)]
    batch = client.batch()
    for path in expected:
        batch.set(client.document(path), {"v": 1})
    batch.commit()
    partitions = list(client.collection_group(group).get_partitions(3))
    assert 1 <= len(partitions) <= 4  # at most partition_count split points, so one more partition
    found = [path for p in partitions for path in helpers.paths(p.query().stream())]
    assert found == sorted(expected, key=lambda p: p.split("/"))
