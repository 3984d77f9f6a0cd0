"""create, set, set with merge, update (field paths), delete and preconditions: each a Commit."""

import pytest
from google.api_core.exceptions import AlreadyExists, FailedPrecondition, NotFound
from google.cloud import firestore
from google.cloud.firestore_v1.field_path import FieldPath


def test_create_then_already_exists(coll):
    ref = coll.document("d")
    result = ref.create({"a": 1})
    snapshot = ref.get()
    assert snapshot.to_dict() == {"a": 1}
    assert snapshot.create_time == snapshot.update_time == result.update_time
    with pytest.raises(AlreadyExists) as raised:
        ref.create({"a": 2})
    assert coll.id in raised.value.message  # Firestore: "Document already exists: projects/…/d"
    assert ref.get().to_dict() == {"a": 1}


def test_add_creates_a_document_with_a_generated_id(coll):
    _, ref = coll.add({"a": 1})
    assert len(ref.id) == 20
    assert ref.get().to_dict() == {"a": 1}


def test_set_replaces_the_whole_document(coll):
    ref = coll.document("d")
    ref.set({"a": 1, "b": {"c": 2}})
    first = ref.get()
    ref.set({"z": True})
    second = ref.get()
    assert second.to_dict() == {"z": True}
    assert second.create_time == first.create_time
    assert second.update_time > first.update_time


def test_update_dotted_paths_change_nested_fields_only(coll):
    ref = coll.document("d")
    ref.set({"a": {"b": 1, "c": 2}, "x": 1})
    ref.update({"a.b": 10, "a.new": 3, "y": "new"})
    assert ref.get().to_dict() == {"a": {"b": 10, "c": 2, "new": 3}, "x": 1, "y": "new"}


def test_update_with_a_map_value_replaces_the_map(coll):
    ref = coll.document("d")
    ref.set({"a": {"b": 1, "c": 2}})
    ref.update({"a": {"only": 1}})
    assert ref.get().to_dict() == {"a": {"only": 1}}


def test_update_backquoted_field_paths(coll):
    ref = coll.document("d")
    ref.set({"weird.key": {"k": 1}, "we": {"ird": 0}, "sp ace": 0, "back`tick": 0})
    ref.update({
        FieldPath("weird.key", "k").to_api_repr(): 5,
        "`sp ace`": 1,
        FieldPath("back`tick").to_api_repr(): 2,
    })
    assert ref.get().to_dict() == {"weird.key": {"k": 5}, "we": {"ird": 0}, "sp ace": 1, "back`tick": 2}


def test_update_of_a_missing_document_is_not_found(coll):
    ref = coll.document("missing")
    with pytest.raises(NotFound) as raised:
        ref.update({"a": 1})
    assert coll.id in raised.value.message  # Firestore: "No document to update: projects/…/missing"
    assert not ref.get().exists


def test_delete(coll):
    ref = coll.document("d")
    ref.set({"a": 1})
    ref.delete()
    assert not ref.get().exists
    ref.delete()  # deleting a missing document succeeds
    assert not ref.get().exists


def test_delete_with_exists_option(client, coll):
    ref = coll.document("d")
    with pytest.raises(NotFound):
        ref.delete(option=client.write_option(exists=True))
    ref.set({"a": 1})
    ref.delete(option=client.write_option(exists=True))
    assert not ref.get().exists


def test_set_merge_true_merges_nested_maps(coll):
    ref = coll.document("d")
    ref.set({"a": 1, "m": {"x": 1, "y": 2}})
    ref.set({"m": {"x": 10}, "b": 2}, merge=True)
    assert ref.get().to_dict() == {"a": 1, "m": {"x": 10, "y": 2}, "b": 2}


def test_set_merge_true_creates_a_missing_document(coll):
    ref = coll.document("d")
    ref.set({"m": {"x": 1}}, merge=True)
    assert ref.get().to_dict() == {"m": {"x": 1}}


def test_set_merge_field_list_writes_only_those_fields(coll):
    ref = coll.document("d")
    ref.set({"a": 1, "m": {"x": 1, "y": 2}})
    ref.set({"a": 100, "m": {"x": 5, "y": 99}, "ignored": True}, merge=["m.x"])
    assert ref.get().to_dict() == {"a": 1, "m": {"x": 5, "y": 2}}


def test_update_with_last_update_time_precondition(client, coll):
    ref = coll.document("d")
    ref.set({"v": 1})
    first = ref.get()
    ref.update({"v": 2}, option=client.write_option(last_update_time=first.update_time))
    assert ref.get().get("v") == 2
    with pytest.raises(FailedPrecondition):
        ref.update({"v": 3}, option=client.write_option(last_update_time=first.update_time))
    assert ref.get().get("v") == 2


def test_delete_with_stale_last_update_time_fails(client, coll):
    ref = coll.document("d")
    ref.set({"v": 1})
    stale = ref.get().update_time
    ref.set({"v": 2})
    with pytest.raises(FailedPrecondition):
        ref.delete(option=client.write_option(last_update_time=stale))
    assert ref.get().to_dict() == {"v": 2}


def test_write_result_times_order_successive_writes(coll):
    ref = coll.document("d")
    first = ref.set({"v": 1})
    second = ref.update({"v": firestore.Increment(1)})
    assert second.update_time > first.update_time
    assert ref.get().update_time == second.update_time
