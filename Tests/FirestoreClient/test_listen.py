"""on_snapshot listeners (the Listen stream) on a document and on a query: they see writes from the same client and
writes made by a separate process (`suite docs set` on the server's data dir). Each wait is a threading.Event
with a timeout, set by the callback on the expected snapshot."""

from google.cloud.firestore_v1.base_query import FieldFilter

import helpers


def test_document_listener(server, coll):
    ref = coll.document("d")
    recorder = helpers.SnapshotRecorder()
    watch = ref.on_snapshot(recorder)
    try:
        recorder.wait_for([])  # the first snapshot: the document does not exist
        ref.set({"name": "own"})
        recorder.wait_for([("d", {"name": "own"})])
        helpers.external_set(server, ref.path, {"name": "Ana"})
        recorder.wait_for([("d", {"name": "Ana"})])
        ref.delete()
        recorder.wait_for([])
    finally:
        watch.unsubscribe()


def test_document_listener_first_snapshot_of_an_existing_document(coll):
    ref = coll.document("d")
    ref.set({"v": 1})
    recorder = helpers.SnapshotRecorder()
    watch = ref.on_snapshot(recorder)
    try:
        recorder.wait_for([("d", {"v": 1})])
    finally:
        watch.unsubscribe()


def test_query_listener(server, coll):
    coll.document("blue").set({"team": "blue", "name": "Bo"})
    query = coll.where(filter=FieldFilter("team", "==", "red"))
    recorder = helpers.SnapshotRecorder()
    watch = query.on_snapshot(recorder)
    try:
        recorder.wait_for([])
        coll.document("b").set({"team": "red", "name": "own"})
        recorder.wait_for([("b", {"team": "red", "name": "own"})])
        helpers.external_set(server, f"{coll.id}/a", {"team": "red", "name": "Ana"})
        recorder.wait_for([("a", {"team": "red", "name": "Ana"}), ("b", {"team": "red", "name": "own"})])
        coll.document("b").update({"team": "blue"})  # leaves the query
        recorder.wait_for([("a", {"team": "red", "name": "Ana"})])
    finally:
        watch.unsubscribe()


def test_ordered_limited_query_listener(coll):
    helpers.seed(coll, {"a": {"n": 1}, "b": {"n": 2}, "c": {"n": 3}})
    recorder = helpers.SnapshotRecorder()
    watch = coll.order_by("n").limit(2).on_snapshot(recorder)
    try:
        recorder.wait_for([("a", {"n": 1}), ("b", {"n": 2})])
        coll.document("z").set({"n": 0})
        recorder.wait_for([("z", {"n": 0}), ("a", {"n": 1})])
        coll.document("z").delete()
        recorder.wait_for([("a", {"n": 1}), ("b", {"n": 2})])
    finally:
        watch.unsubscribe()


def test_listener_changes_report_added_modified_removed(coll):
    changes = []
    recorder = helpers.SnapshotRecorder()

    def callback(docs, doc_changes, read_time):
        changes.extend((c.type.name, c.document.id) for c in doc_changes)
        recorder(docs, doc_changes, read_time)

    watch = coll.on_snapshot(callback)
    try:
        recorder.wait_for([])
        coll.document("x").set({"v": 1})
        recorder.wait_for([("x", {"v": 1})])
        coll.document("x").set({"v": 2})
        recorder.wait_for([("x", {"v": 2})])
        coll.document("x").delete()
        recorder.wait_for([])
    finally:
        watch.unsubscribe()
    assert changes == [("ADDED", "x"), ("MODIFIED", "x"), ("REMOVED", "x")]
