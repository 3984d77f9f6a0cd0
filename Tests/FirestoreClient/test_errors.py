"""Requests the server must refuse with INVALID_ARGUMENT (the client library lets them through), and that it still
serves afterwards. Where the library itself refuses to build a request, helpers.raw_commit sends it through the
library's generated gRPC client."""

import pytest
from google.api_core.exceptions import InvalidArgument
from google.cloud.firestore_v1.base_query import FieldFilter

import helpers

MIB = 1024 * 1024


def assert_still_serves(coll):
    ref = coll.document("after-error")
    ref.set({"ok": True})
    assert ref.get().to_dict() == {"ok": True}


@pytest.mark.parametrize("path", ["a..b", ".a", "a.", "a.`b", "`"])
def test_invalid_field_path_in_a_filter(coll, path):
    coll.document("d").set({"a": {"b": 1}})
    with pytest.raises(InvalidArgument):
        coll.where(filter=FieldFilter(path, "==", 1)).get()
    assert_still_serves(coll)


def test_invalid_field_path_in_an_aggregation(coll):
    coll.document("d").set({"a": 1})
    with pytest.raises(InvalidArgument):
        coll.sum("a..b", alias="s").get()
    assert_still_serves(coll)


def test_invalid_field_path_in_an_update_mask(client, coll):
    name = helpers.document_name(client, f"{coll.id}/d")
    with pytest.raises(InvalidArgument):
        helpers.raw_commit(client, [{"update": {"name": name, "fields": {}}, "update_mask": {"field_paths": ["a..b"]}}])
    assert not coll.document("d").get().exists
    assert_still_serves(coll)


@pytest.mark.parametrize("path_suffix", ["a/b", "a//b/c", ""])
def test_malformed_document_name(client, coll, path_suffix):
    # A document id containing '/' reaches the server as a name with an odd number of segments (or an empty one):
    # the library refuses coll.document("a/b") itself, so the name goes through raw_commit.
    name = helpers.document_name(client, f"{coll.id}/{path_suffix}".rstrip("/"))
    with pytest.raises(InvalidArgument):
        helpers.raw_commit(client, [{"update": {"name": name, "fields": {"v": {"integer_value": 1}}}}])
    assert_still_serves(coll)


def test_reserved_document_id(coll):
    with pytest.raises(InvalidArgument):
        coll.document("__reserved__").set({"v": 1})
    assert_still_serves(coll)


def test_nested_arrays_are_invalid(coll):
    with pytest.raises(InvalidArgument):
        coll.document("d").set({"a": [1, [2, 3]]})
    assert not coll.document("d").get().exists
    assert_still_serves(coll)


def test_oversized_document(coll):
    ref = coll.document("big")
    with pytest.raises(InvalidArgument):
        ref.set({"blob": b"x" * (MIB + 1)})
    assert not ref.get().exists
    assert_still_serves(coll)


def test_document_just_under_the_size_limit(coll):
    ref = coll.document("big")
    blob = b"y" * (MIB - 1024)
    ref.set({"blob": blob})
    assert ref.get().get("blob") == blob


def test_oversized_update_of_an_existing_document(coll):
    ref = coll.document("growing")
    ref.set({"half": "h" * (MIB // 2)})
    with pytest.raises(InvalidArgument):
        ref.update({"other_half": "o" * (MIB // 2 + 1024)})
    assert set(ref.get().to_dict()) == {"half"}
    assert_still_serves(coll)
