"""Query explain (RunQuery's explain_options), answered from Suite's planner: the indexes used, and with analyze the
results and the reads. Google's emulator does not implement explain; production Firestore does."""

from google.cloud.firestore_v1.base_query import FieldFilter
from google.cloud.firestore_v1.query_profile import ExplainOptions

import helpers


def test_explain_without_analyze_plans_and_returns_no_documents(coll):
    helpers.seed(coll, {"a": {"n": 1}, "b": {"n": 5}, "c": {"n": 9}})
    results = coll.where(filter=FieldFilter("n", ">=", 5)).get(explain_options=ExplainOptions(analyze=False))
    assert list(results) == []
    summary = results.get_explain_metrics().plan_summary
    assert summary.indexes_used, summary
    assert all(index["query_scope"] == "Collection" for index in summary.indexes_used)


def test_explain_with_analyze_returns_the_documents_and_the_reads(coll):
    helpers.seed(coll, {"a": {"n": 1}, "b": {"n": 5}, "c": {"n": 9}})
    results = coll.where(filter=FieldFilter("n", ">=", 5)).get(explain_options=ExplainOptions(analyze=True))
    assert sorted(helpers.ids(results)) == ["b", "c"]
    stats = results.get_explain_metrics().execution_stats
    assert stats.results_returned == 2
    assert stats.read_operations == 2
    assert int(stats.debug_stats["index_entries_scanned"]) >= 2
