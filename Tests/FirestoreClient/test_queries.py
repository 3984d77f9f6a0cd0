"""Queries (RunQuery): filters, composite filters, orders, limits, offsets, cursors, projections, collection groups.

Expected lists are in Firestore's result order: by the explicit orders, then the inequality fields not ordered
explicitly (in field-path order), then __name__, the implicit orders taking the direction of the last explicit one.
"""

import pytest
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import And, FieldFilter, Or
from google.cloud.firestore_v1.field_path import FieldPath

import helpers
from helpers import ids

ROWS = {
    "a": {"n": 3, "s": "x", "tags": ["red", "blue"], "g": 1},
    "b": {"n": 1, "s": "y", "tags": ["green"], "g": 2},
    "c": {"n": 4, "s": "x", "tags": [], "g": 1},
    "d": {"n": 1, "s": "z", "tags": ["blue"], "g": 2},
    "e": {"n": 5, "s": "y", "tags": ["red"], "g": 3},
    "f": {"s": "x"},  # no n, no tags, no g
}


@pytest.fixture
def rows(coll):
    helpers.seed(coll, ROWS)
    return coll


def where(query, field, op, value):
    return query.where(filter=FieldFilter(field, op, value))


@pytest.mark.parametrize(
    "op, value, expected",
    [
        ("==", 1, ["b", "d"]),
        ("!=", 1, ["a", "c", "e"]),  # an inequality: ordered by n; f (no n) excluded
        ("<", 3, ["b", "d"]),
        ("<=", 3, ["b", "d", "a"]),
        (">", 3, ["c", "e"]),
        (">=", 4, ["c", "e"]),
        ("in", [1, 5], ["b", "d", "e"]),
        ("not-in", [1, 5], ["a", "c"]),
        ("==", "1", []),  # no cross-type equality
        (">", "", []),  # range filters stay within the value's type
    ],
)
def test_field_filter(rows, op, value, expected):
    assert ids(where(rows, "n", op, value).get()) == expected


def test_array_contains(rows):
    assert ids(where(rows, "tags", "array_contains", "blue").get()) == ["a", "d"]


def test_array_contains_any(rows):
    assert ids(where(rows, "tags", "array_contains_any", ["green", "red"]).get()) == ["a", "b", "e"]


def test_equality_on_a_whole_array(rows):
    assert ids(where(rows, "tags", "==", ["red", "blue"]).get()) == ["a"]
    assert ids(where(rows, "tags", "==", ["blue", "red"]).get()) == []


def test_null_and_nan_filters(coll):
    helpers.seed(coll, {"null": {"v": None}, "nan": {"v": float("nan")}, "one": {"v": 1.0}, "none": {}})
    assert ids(where(coll, "v", "==", None).get()) == ["null"]
    assert ids(where(coll, "v", "==", float("nan")).get()) == ["nan"]


def test_two_where_calls_are_anded(rows):
    query = where(where(rows, "s", "==", "x"), "n", ">", 1)
    assert ids(query.get()) == ["a", "c"]


def test_and_composite_filter(rows):
    query = rows.where(filter=And([FieldFilter("s", "==", "x"), FieldFilter("g", "==", 1)]))
    assert ids(query.get()) == ["a", "c"]


def test_or_composite_filter(rows):
    query = rows.where(filter=Or([FieldFilter("s", "==", "z"), FieldFilter("n", "==", 5)]))
    assert ids(query.get()) == ["d", "e"]


def test_or_of_ands(rows):
    query = rows.where(filter=Or([
        And([FieldFilter("s", "==", "x"), FieldFilter("g", "==", 1)]),
        FieldFilter("n", "==", 1),
    ]))
    assert ids(query.get()) == ["a", "b", "c", "d"]


def test_and_of_ors(rows):
    query = rows.where(filter=And([
        Or([FieldFilter("s", "==", "x"), FieldFilter("s", "==", "y")]),
        Or([FieldFilter("g", "==", 1), FieldFilter("g", "==", 3)]),
    ]))
    assert ids(query.get()) == ["a", "c", "e"]


def test_order_by_descending(rows):
    # f has no n: ordering by n excludes it; the n=1 tie falls back to __name__, descending like n.
    assert ids(rows.order_by("n", direction=firestore.Query.DESCENDING).get()) == ["e", "c", "a", "d", "b"]


def test_order_by_ascending(rows):
    assert ids(rows.order_by("n").get()) == ["b", "d", "a", "c", "e"]


def test_order_by_two_fields(rows):
    query = rows.order_by("s").order_by("n", direction=firestore.Query.DESCENDING)
    assert ids(query.get()) == ["c", "a", "e", "b", "d"]


def test_order_across_types(coll):
    helpers.seed(coll, {
        "str": {"v": "a"}, "int": {"v": 2}, "dbl": {"v": 1.5}, "null": {"v": None}, "bool": {"v": True},
        "nan": {"v": float("nan")}, "bytes": {"v": b"a"}, "arr": {"v": [1]}, "map": {"v": {"a": 1}},
    })
    assert ids(coll.order_by("v").get()) == ["null", "bool", "nan", "dbl", "int", "str", "bytes", "arr", "map"]


def test_several_inequality_fields(coll):
    helpers.seed(coll, {"w": {"p": 9, "q": 1}, "x": {"p": 1, "q": 2}, "y": {"p": 5, "q": 1}, "z": {"p": 3, "q": 3}})
    query = coll.where(filter=FieldFilter("q", "<", 3)).where(filter=FieldFilter("p", ">", 2))
    assert ids(query.get()) == ["y", "w"]  # implicitly ordered by p, then q


def test_limit(rows):
    assert ids(rows.order_by("n").limit(2).get()) == ["b", "d"]


def test_limit_to_last(rows):
    assert ids(rows.order_by("n").limit_to_last(2).get()) == ["c", "e"]


def test_offset(rows):
    assert ids(rows.order_by("n").offset(2).limit(2).get()) == ["a", "c"]
    assert ids(rows.order_by("n").offset(10).get()) == []


def test_cursors_with_values(rows):
    by_n = rows.order_by("n")
    assert ids(by_n.start_at({"n": 3}).get()) == ["a", "c", "e"]
    assert ids(by_n.start_after({"n": 3}).get()) == ["c", "e"]
    assert ids(by_n.end_at({"n": 3}).get()) == ["b", "d", "a"]
    assert ids(by_n.end_before({"n": 3}).get()) == ["b", "d"]
    assert ids(by_n.start_after({"n": 1}).end_at({"n": 4}).get()) == ["a", "c"]


def test_cursors_with_two_order_values(rows):
    query = rows.order_by("n").order_by("s")
    assert ids(query.start_at({"n": 1, "s": "z"}).get()) == ["d", "a", "c", "e"]


def test_cursors_with_document_snapshots(rows):
    # A snapshot cursor adds __name__ to the orders, so ties on n are split by document name.
    by_n = rows.order_by("n")
    b, d, a = rows.document("b").get(), rows.document("d").get(), rows.document("a").get()
    assert ids(by_n.start_at(d).get()) == ["d", "a", "c", "e"]
    assert ids(by_n.start_after(b).get()) == ["d", "a", "c", "e"]
    assert ids(by_n.end_at(a).get()) == ["b", "d", "a"]
    assert ids(by_n.end_before(d).get()) == ["b"]


def test_snapshot_cursor_without_order_by(rows):
    assert ids(rows.start_after(rows.document("c").get()).get()) == ["d", "e", "f"]


def test_select_projection(rows):
    snapshots = rows.select(["n", "g"]).get()
    assert [(s.id, s.to_dict()) for s in snapshots] == [
        ("a", {"n": 3, "g": 1}), ("b", {"n": 1, "g": 2}), ("c", {"n": 4, "g": 1}),
        ("d", {"n": 1, "g": 2}), ("e", {"n": 5, "g": 3}), ("f", {}),
    ]


def test_select_nested_field(coll):
    helpers.seed(coll, {"a": {"m": {"x": 1, "y": 2}, "z": 3}})
    assert coll.select(["m.x"]).get()[0].to_dict() == {"m": {"x": 1}}


def test_select_no_fields_returns_names_only(rows):
    snapshots = rows.select([]).get()
    assert [(s.id, s.to_dict()) for s in snapshots] == [(i, {}) for i in "abcdef"]


def test_where_on_document_name(rows):
    name = FieldPath.document_id()  # "__name__"; the values are document references
    assert ids(where(rows, name, "==", rows.document("c")).get()) == ["c"]
    assert ids(where(rows, name, ">", rows.document("c")).get()) == ["d", "e", "f"]
    assert ids(where(rows, name, "in", [rows.document("e"), rows.document("a")]).get()) == ["a", "e"]
    assert ids(where(rows, name, "<", rows.document("b")).order_by(name).get()) == ["a"]


def test_query_on_a_subcollection(coll):
    helpers.seed(coll, {"p": {}})
    sub = coll.document("p").collection("sub")
    helpers.seed(sub, {"x": {"v": 1}, "y": {"v": 2}})
    coll.document("q").collection("sub").document("z").set({"v": 3})
    assert ids(where(sub, "v", ">=", 1).get()) == ["x", "y"]


def test_collection_group_over_nested_subcollections(client, coll):
    group = helpers.unique("group")
    nested = [
        f"{coll.id}/a1/{group}/d1",
        f"{coll.id}/b1/sub/c1/{group}/d2",
        f"{group}/d3",
        f"{coll.id}/a1/{group}/d1/{group}/d4",
    ]
    for path in nested:
        client.document(path).set({"v": 1})
    client.document(f"{coll.id}/a1/{group}-not/x").set({"v": 1})  # another collection id: not in the group
    found = helpers.paths(client.collection_group(group).get())
    assert found == sorted(nested, key=lambda p: p.split("/"))
    filtered = client.collection_group(group).where(filter=FieldFilter("v", "==", 1)).limit(2).get()
    assert helpers.paths(filtered) == sorted(nested, key=lambda p: p.split("/"))[:2]


def test_empty_result(coll):
    assert coll.get() == []
    assert where(coll, "v", "==", 1).get() == []


def test_stream_yields_the_same_as_get(rows):
    query = rows.order_by("n", direction=firestore.Query.DESCENDING).limit(3)
    assert ids(query.stream()) == ids(query.get()) == ["e", "c", "a"]
