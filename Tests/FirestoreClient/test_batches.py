"""WriteBatch (one atomic Commit) and BulkWriter (BatchWrite: independent writes, one status each)."""

import pytest
from google.api_core.exceptions import AlreadyExists

import helpers


def test_write_batch_applies_every_write(coll):
    helpers.seed(coll, {"upd": {"v": 1}, "del": {"v": 1}})
    batch = coll._client.batch()
    batch.set(coll.document("set"), {"v": "set"})
    batch.create(coll.document("new"), {"v": "new"})
    batch.update(coll.document("upd"), {"v": 2})
    batch.delete(coll.document("del"))
    results = batch.commit()
    assert len(results) == 4
    assert results[0].update_time == results[1].update_time == results[2].update_time  # the commit's time
    assert results[3].update_time is None  # a delete's WriteResult has none
    assert {s.id: s.to_dict() for s in coll.stream()} == {"new": {"v": "new"}, "set": {"v": "set"}, "upd": {"v": 2}}


def test_write_batch_is_atomic(coll):
    coll.document("exists").set({"v": 1})
    batch = coll._client.batch()
    batch.set(coll.document("a"), {"v": "a"})
    batch.create(coll.document("exists"), {"v": 2})
    with pytest.raises(AlreadyExists):
        batch.commit()
    assert not coll.document("a").get().exists
    assert coll.document("exists").get().to_dict() == {"v": 1}


def test_bulk_writer_writes_and_reports_each_failure(client, coll):
    coll.document("taken").set({"v": 0})
    written, failed = [], []

    def on_error(failure, _writer):
        failed.append((failure.operation.reference.id, failure.code))
        return False  # no retry

    writer = client.bulk_writer()
    writer.on_write_result(lambda ref, _result, _writer: written.append(ref.id))
    writer.on_write_error(on_error)
    for i in range(25):
        writer.set(coll.document(f"d{i:02d}"), {"i": i})
    writer.create(coll.document("taken"), {"v": 1})  # ALREADY_EXISTS (6)
    writer.update(coll.document("absent"), {"v": 1})  # NOT_FOUND (5)
    writer.close()
    assert sorted(written) == [f"d{i:02d}" for i in range(25)]
    assert sorted(failed) == [("absent", 5), ("taken", 6)]
    assert sorted(helpers.ids(coll.stream())) == [f"d{i:02d}" for i in range(25)] + ["taken"]
    assert coll.document("d07").get().to_dict() == {"i": 7}
    assert coll.document("taken").get().to_dict() == {"v": 0}
