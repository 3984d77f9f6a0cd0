"""Aggregations (RunAggregationQuery): count, sum, avg, aliases, on filtered and limited queries."""

import pytest
from google.cloud.firestore_v1.base_query import FieldFilter

import helpers
from helpers import aggregate

ROWS = {
    "a": {"n": 3, "s": "x"},
    "b": {"n": 1, "s": "y"},
    "c": {"n": 4, "s": "x"},
    "d": {"n": 1, "s": "z"},
    "e": {"n": 5, "s": "y"},
    "f": {"s": "x"},
    "g": {"n": "not a number", "s": "x"},
}


@pytest.fixture
def rows(coll):
    helpers.seed(coll, ROWS)
    return coll


def test_count(rows):
    assert aggregate(rows.count(alias="total")) == {"total": 7}


def test_count_default_alias(rows):
    assert aggregate(rows.count()) == {"field_1": 7}


def test_count_of_a_filtered_query(rows):
    assert aggregate(rows.where(filter=FieldFilter("s", "==", "x")).count(alias="c")) == {"c": 4}


def test_count_with_limit_counts_up_to_the_limit(rows):
    assert aggregate(rows.limit(2).count(alias="c")) == {"c": 2}
    assert aggregate(rows.limit(100).count(alias="c")) == {"c": 7}


def test_count_of_nothing(coll):
    assert aggregate(coll.count(alias="c")) == {"c": 0}


def test_sum_of_integers_is_an_integer(rows):
    result = aggregate(rows.sum("n", alias="total"))
    assert result == {"total": 14} and type(result["total"]) is int


def test_sum_with_a_double_is_a_double(coll):
    helpers.seed(coll, {"a": {"n": 1}, "b": {"n": 2.5}})
    result = aggregate(coll.sum("n", alias="total"))
    assert result == {"total": 3.5} and type(result["total"]) is float


def test_avg(rows):
    assert aggregate(rows.avg("n", alias="mean")) == {"mean": pytest.approx(2.8)}


def test_sum_and_avg_of_a_filtered_query(rows):
    query = rows.where(filter=FieldFilter("s", "==", "x"))
    assert aggregate(query.sum("n", alias="s").avg("n", alias="a")) == {"s": 7, "a": 3.5}


def test_several_aggregations_with_aliases(rows):
    # Aggregations over a field count only the documents that have it (f has no n; g's n is a string):
    # Firestore's documented rule for several aggregations in one query, which Google's emulator follows.
    query = rows.count(alias="how_many").sum("n", alias="total").avg("n", alias="mean")
    assert aggregate(query) == {"how_many": 6, "total": 14, "mean": pytest.approx(2.8)}


def test_several_aggregations_default_aliases(rows):
    assert aggregate(rows.count().sum("n").avg("n")) == {"field_1": 6, "field_2": 14, "field_3": pytest.approx(2.8)}


def test_aggregations_on_two_fields_count_documents_having_both(coll):
    helpers.seed(coll, {"a": {"x": 1, "y": 10}, "b": {"x": 2}, "c": {"y": 20}, "d": {}})
    assert aggregate(coll.count(alias="c")) == {"c": 4}
    assert aggregate(coll.count(alias="c").sum("x", alias="sx")) == {"c": 2, "sx": 3}
    assert aggregate(coll.count(alias="c").sum("x", alias="sx").sum("y", alias="sy")) == {"c": 1, "sx": 1, "sy": 10}


def test_aggregation_over_a_collection_group(client, coll):
    group = helpers.unique("group")
    for path in [f"{coll.id}/a/{group}/x", f"{coll.id}/b/{group}/y", f"{group}/z"]:
        client.document(path).set({"n": 2})
    assert aggregate(client.collection_group(group).count(alias="c").sum("n", alias="s")) == {"c": 3, "s": 6}
