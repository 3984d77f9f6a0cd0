"""Vector search: find_nearest (a RunQuery whose StructuredQuery has find_nearest).

Query vector [1, 0] against:
    a [1, 0]   b [0, 3]   c [2, 1]   d [-2, 0]   e [4, 4]
EUCLIDEAN distance: a 0, c 1.414, d 3, b 3.162, e 5          (nearest first: smallest)
COSINE distance (1 - cos): a 0, c 0.106, e 0.293, b 1, d 2   (nearest first: smallest)
DOT_PRODUCT: e 4, c 2, a 1, b 0, d -2                       (nearest first: largest)
"""

import math

import pytest
from google.cloud.firestore_v1.base_query import FieldFilter
from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
from google.cloud.firestore_v1.vector import Vector

import helpers
from helpers import ids

VECTORS = {"a": [1, 0], "b": [0, 3], "c": [2, 1], "d": [-2, 0], "e": [4, 4]}
QUERY = Vector([1, 0])
EUCLIDEAN = {"a": 0.0, "b": math.sqrt(10), "c": math.sqrt(2), "d": 3.0, "e": 5.0}
COSINE = {"a": 0.0, "b": 1.0, "c": 1 - 2 / math.sqrt(5), "d": 2.0, "e": 1 - 4 / math.sqrt(32)}
DOT = {"a": 1.0, "b": 0.0, "c": 2.0, "d": -2.0, "e": 4.0}


@pytest.fixture
def vectors(coll):
    docs = {k: {"v": Vector(v), "kind": "odd" if k in "ace" else "even"} for k, v in VECTORS.items()}
    docs["no_vector"] = {"kind": "odd"}
    docs["not_a_vector"] = {"v": [1.0, 0.0], "kind": "odd"}  # a plain array is not a vector
    helpers.seed(coll, docs)
    return coll


@pytest.mark.parametrize(
    "measure, expected",
    [
        (DistanceMeasure.EUCLIDEAN, ["a", "c", "d"]),
        (DistanceMeasure.COSINE, ["a", "c", "e"]),
        (DistanceMeasure.DOT_PRODUCT, ["e", "c", "a"]),
    ],
)
def test_find_nearest_order(vectors, measure, expected):
    assert ids(vectors.find_nearest("v", QUERY, limit=3, distance_measure=measure).get()) == expected


@pytest.mark.parametrize(
    "measure, distances",
    [(DistanceMeasure.EUCLIDEAN, EUCLIDEAN), (DistanceMeasure.COSINE, COSINE), (DistanceMeasure.DOT_PRODUCT, DOT)],
)
def test_distance_result_field(vectors, measure, distances):
    query = vectors.find_nearest("v", QUERY, limit=5, distance_measure=measure, distance_result_field="dist")
    got = {s.id: s.get("dist") for s in query.get()}
    assert got == {k: pytest.approx(v) for k, v in distances.items()}
    assert all(set(s.to_dict()) == {"v", "kind", "dist"} for s in query.get())


@pytest.mark.parametrize(
    "measure, threshold, expected",
    [
        (DistanceMeasure.EUCLIDEAN, 3.0, ["a", "c", "d"]),  # distance <= threshold
        (DistanceMeasure.COSINE, 0.5, ["a", "c", "e"]),  # distance <= threshold
        (DistanceMeasure.DOT_PRODUCT, 1.0, ["e", "c", "a"]),  # dot product >= threshold
    ],
)
def test_distance_threshold(vectors, measure, threshold, expected):
    query = vectors.find_nearest("v", QUERY, limit=5, distance_measure=measure, distance_threshold=threshold)
    assert ids(query.get()) == expected


def test_find_nearest_with_a_prefilter(vectors):
    query = vectors.where(filter=FieldFilter("kind", "==", "even")).find_nearest(
        "v", QUERY, limit=5, distance_measure=DistanceMeasure.EUCLIDEAN
    )
    assert ids(query.get()) == ["d", "b"]


def test_find_nearest_limit_larger_than_the_matches(vectors):
    query = vectors.find_nearest("v", QUERY, limit=100, distance_measure=DistanceMeasure.EUCLIDEAN)
    assert ids(query.get()) == ["a", "c", "d", "b", "e"]


def test_find_nearest_over_a_collection_group(client, coll):
    group = helpers.unique("group")
    client.document(f"{coll.id}/p/{group}/far").set({"v": Vector([10, 0])})
    client.document(f"{group}/near").set({"v": Vector([1, 0.5])})
    query = client.collection_group(group).find_nearest(
        "v", QUERY, limit=2, distance_measure=DistanceMeasure.EUCLIDEAN
    )
    assert helpers.paths(query.get()) == [f"{group}/near", f"{coll.id}/p/{group}/far"]


def test_vectors_order_between_arrays_and_maps_by_dimension_first(coll):
    # Firestore's value ordering: ... arrays < vectors < maps; vectors by dimension, then element by element.
    helpers.seed(coll, {
        "map": {"v": {"x": 1}},
        "long": {"v": Vector([0.0, 0.0, 0.0])},
        "short_big": {"v": Vector([9.0])},
        "pair_b": {"v": Vector([1.0, 3.0])},
        "pair_a": {"v": Vector([1.0, 2.0])},
        "array": {"v": [5]},
    })
    ordered = helpers.ids(coll.order_by("v").stream())
    assert ordered == ["array", "short_big", "pair_a", "pair_b", "long", "map"]
