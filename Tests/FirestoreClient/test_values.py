"""Every Firestore value type survives set -> get unchanged, with its Python type."""

import datetime
import math

import pytest
from google.cloud import firestore
from google.cloud.firestore_v1.vector import Vector

UTC = datetime.timezone.utc

VALUES = {
    "null": lambda c: None,
    "true": lambda c: True,
    "false": lambda c: False,
    "int": lambda c: 42,
    "int_negative": lambda c: -7,
    "int64_max": lambda c: 2**63 - 1,
    "int64_min": lambda c: -(2**63),
    "double": lambda c: 3.25,
    "double_whole": lambda c: 2.0,
    "double_tiny": lambda c: 5e-324,
    "double_max": lambda c: 1.7976931348623157e308,
    "inf": lambda c: math.inf,
    "minus_inf": lambda c: -math.inf,
    "timestamp_micros": lambda c: datetime.datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=UTC),
    "timestamp_before_1970": lambda c: datetime.datetime(1969, 7, 20, 20, 17, 40, 1, tzinfo=UTC),
    "string": lambda c: "héllo, wörld ✓ 𝄞",
    "string_empty": lambda c: "",
    "bytes": lambda c: b"\x00\x01\x7f\x80\xfe\xff",
    "bytes_empty": lambda c: b"",
    "reference": lambda c: c.document("cities/sf/landmarks/bridge"),
    "geopoint": lambda c: firestore.GeoPoint(48.8566, -2.3522),
    "array": lambda c: [1, "two", 3.5, None, True, {"k": "v"}, b"\x01"],
    "array_empty": lambda c: [],
    "map_nested": lambda c: {"a": {"b": {"c": 1, "d": [1, 2]}}, "e": "f"},
    "map_empty": lambda c: {},
    "vector": lambda c: Vector([0.5, -1.0, 2.0]),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_value_round_trip(client, coll, name):
    value = VALUES[name](client)
    ref = coll.document("d")
    ref.set({"v": value})
    got = ref.get().to_dict()["v"]
    assert got == value
    if isinstance(value, datetime.datetime):
        assert isinstance(got, datetime.datetime)  # google.api_core's DatetimeWithNanoseconds
    else:
        assert type(got) is type(value)  # 2.0 stays a double, 1 an integer, True a boolean


def test_nan_round_trip(coll):
    ref = coll.document("d")
    ref.set({"v": math.nan})
    got = ref.get().get("v")
    assert isinstance(got, float) and math.isnan(got)


def test_timestamp_keeps_microseconds(coll):
    ref = coll.document("d")
    when = datetime.datetime(2031, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    ref.set({"t": when})
    got = ref.get().get("t")
    assert got == when and got.microsecond == 999999 and got.tzinfo is not None


def test_reference_decodes_to_document_reference(client, coll):
    ref = coll.document("d")
    ref.set({"r": client.document("a/b/c/d")})
    got = ref.get().get("r")
    assert isinstance(got, firestore.DocumentReference)
    assert got.path == "a/b/c/d"


def test_vector_decodes_to_vector(coll):
    ref = coll.document("d")
    ref.set({"embedding": Vector([1, 2, 3])})
    got = ref.get().get("embedding")
    assert isinstance(got, Vector) and list(got) == [1.0, 2.0, 3.0]


def test_all_types_in_one_document(client, coll):
    data = {name: make(client) for name, make in VALUES.items()}
    ref = coll.document("everything")
    ref.set(data)
    assert ref.get().to_dict() == data


def test_missing_document_snapshot(coll):
    snapshot = coll.document("nothing-here").get()
    assert not snapshot.exists
    assert snapshot.to_dict() is None
    assert snapshot.create_time is None and snapshot.update_time is None


def test_get_all_with_missing(client, coll):
    coll.document("a").set({"n": 1})
    coll.document("c").set({"n": 3})
    refs = [coll.document("c"), coll.document("b"), coll.document("a")]
    found = {s.id: (s.exists, s.to_dict()) for s in client.get_all(refs)}
    assert found == {"a": (True, {"n": 1}), "b": (False, None), "c": (True, {"n": 3})}
