"""Field transforms (Write.update_transforms) and DELETE_FIELD (an update mask entry without a value)."""

import datetime

from google.cloud import firestore


def near_now(value, slack=datetime.timedelta(seconds=60)):
    now = datetime.datetime.now(datetime.timezone.utc)
    return isinstance(value, datetime.datetime) and abs(now - value) < slack


def test_server_timestamp_on_create(coll):
    ref = coll.document("d")
    result = ref.create({"t": firestore.SERVER_TIMESTAMP, "nested": {"t2": firestore.SERVER_TIMESTAMP}, "k": 1})
    data = ref.get().to_dict()
    assert set(data) == {"t", "nested", "k"} and data["k"] == 1
    assert near_now(data["t"])
    assert data["nested"] == {"t2": data["t"]}  # one request time for every field of the write
    assert data["t"] <= result.update_time


def test_server_timestamp_in_update(coll):
    ref = coll.document("d")
    ref.set({"k": 1})
    ref.update({"t": firestore.SERVER_TIMESTAMP})
    data = ref.get().to_dict()
    assert data["k"] == 1 and near_now(data["t"])


def test_server_timestamp_inside_a_map_in_update_replaces_the_map(coll):
    # update({"c": {...}}) sets the whole map c: the mask holds "c", the transform "c.d"; c's other keys go.
    ref = coll.document("d")
    ref.set({"c": {"x": 1}, "k": 1})
    ref.update({"c": {"d": firestore.SERVER_TIMESTAMP}})
    data = ref.get().to_dict()
    assert data["k"] == 1 and list(data["c"]) == ["d"] and near_now(data["c"]["d"])


def test_server_timestamp_inside_a_map_in_set_merge_keeps_the_map(coll):
    ref = coll.document("d")
    ref.set({"c": {"x": 1}})
    ref.set({"c": {"d": firestore.SERVER_TIMESTAMP}, "e": 1}, merge=True)
    data = ref.get().to_dict()
    assert data["e"] == 1 and data["c"]["x"] == 1 and sorted(data["c"]) == ["d", "x"]
    assert near_now(data["c"]["d"])


def test_server_timestamp_only_create(coll):
    ref = coll.document("d")
    ref.set({"t": firestore.SERVER_TIMESTAMP})
    assert list(ref.get().to_dict()) == ["t"]


def test_increment_integer(coll):
    ref = coll.document("d")
    ref.set({"n": 5})
    ref.update({"n": firestore.Increment(3), "fresh": firestore.Increment(2)})
    data = ref.get().to_dict()
    assert data == {"n": 8, "fresh": 2}
    assert type(data["n"]) is int and type(data["fresh"]) is int


def test_increment_float(coll):
    ref = coll.document("d")
    ref.set({"i": 8, "f": 1.5})
    ref.update({"i": firestore.Increment(1.5), "f": firestore.Increment(2), "fresh": firestore.Increment(0.25)})
    data = ref.get().to_dict()
    assert data == {"i": 9.5, "f": 3.5, "fresh": 0.25}
    assert all(type(v) is float for v in data.values())


def test_increment_of_a_non_number_sets_the_operand(coll):
    ref = coll.document("d")
    ref.set({"s": "text"})
    ref.update({"s": firestore.Increment(4)})
    assert ref.get().to_dict() == {"s": 4}


def test_maximum(coll):
    ref = coll.document("d")
    ref.set({"lower": 5, "higher": 10, "mixed": 2})
    ref.update({
        "lower": firestore.Maximum(7),
        "higher": firestore.Maximum(3),
        "mixed": firestore.Maximum(2.5),
        "fresh": firestore.Maximum(-1),
    })
    data = ref.get().to_dict()
    assert data == {"lower": 7, "higher": 10, "mixed": 2.5, "fresh": -1}
    assert type(data["mixed"]) is float and type(data["higher"]) is int


def test_minimum(coll):
    ref = coll.document("d")
    ref.set({"lower": 5, "higher": 10, "mixed": 3})
    ref.update({
        "lower": firestore.Minimum(7),
        "higher": firestore.Minimum(3),
        "mixed": firestore.Minimum(2.5),
        "fresh": firestore.Minimum(9),
    })
    data = ref.get().to_dict()
    assert data == {"lower": 5, "higher": 3, "mixed": 2.5, "fresh": 9}


def test_array_union(coll):
    ref = coll.document("d")
    ref.set({"a": [1, 2], "s": "not an array"})
    ref.update({
        "a": firestore.ArrayUnion([2, 3, 3, 1.0, "x"]),
        "s": firestore.ArrayUnion([1]),
        "fresh": firestore.ArrayUnion(["y", "y"]),
    })
    assert ref.get().to_dict() == {"a": [1, 2, 3, "x"], "s": [1], "fresh": ["y"]}


def test_array_remove(coll):
    ref = coll.document("d")
    ref.set({"a": [1, 2, 3, 1, "x", {"m": 1}], "s": "not an array"})
    ref.update({"a": firestore.ArrayRemove([1, 2.0, {"m": 1}]), "s": firestore.ArrayRemove([1])})
    assert ref.get().to_dict() == {"a": [3, "x"], "s": []}


def test_delete_field(coll):
    ref = coll.document("d")
    ref.set({"a": 1, "b": 2, "m": {"x": 1, "y": 2}})
    ref.update({"a": firestore.DELETE_FIELD, "m.x": firestore.DELETE_FIELD, "gone": firestore.DELETE_FIELD})
    assert ref.get().to_dict() == {"b": 2, "m": {"y": 2}}


def test_delete_field_in_set_merge(coll):
    ref = coll.document("d")
    ref.set({"a": 1, "b": 2})
    ref.set({"a": firestore.DELETE_FIELD, "c": 3}, merge=True)
    assert ref.get().to_dict() == {"b": 2, "c": 3}


def test_transform_results_in_write_result(coll):
    ref = coll.document("d")
    ref.set({"n": 5})
    result = ref.update({"n": firestore.Increment(3)})
    assert [v.integer_value for v in result.transform_results] == [8]
