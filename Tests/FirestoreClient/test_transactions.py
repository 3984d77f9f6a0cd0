"""Transactions through @firestore.transactional: BeginTransaction, reads in it, Commit (retried with
retry_transaction on ABORTED), Rollback when the function raises."""

import multiprocessing

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

import helpers


def test_read_then_write_transfer(client, coll):
    a, b = coll.document("a"), coll.document("b")
    helpers.seed(coll, {"a": {"balance": 100}, "b": {"balance": 5}})

    @firestore.transactional
    def transfer(transaction, amount):
        from_balance = a.get(transaction=transaction).get("balance")
        to_balance = b.get(transaction=transaction).get("balance")
        transaction.update(a, {"balance": from_balance - amount})
        transaction.update(b, {"balance": to_balance + amount})
        return from_balance

    assert transfer(client.transaction(), 30) == 100
    assert (a.get().get("balance"), b.get().get("balance")) == (70, 35)


def test_transaction_creates_a_missing_document(client, coll):
    ref = coll.document("counter")

    @firestore.transactional
    def create_or_increment(transaction):
        snapshot = ref.get(transaction=transaction)
        if snapshot.exists:
            transaction.update(ref, {"n": snapshot.get("n") + 1})
        else:
            transaction.create(ref, {"n": 1})

    create_or_increment(client.transaction())
    create_or_increment(client.transaction())
    assert ref.get().to_dict() == {"n": 2}


def test_transaction_query_read(client, coll):
    helpers.seed(coll, {"a": {"team": "red", "n": 1}, "b": {"team": "red", "n": 2}, "c": {"team": "blue", "n": 4}})
    total = coll.document("total")

    @firestore.transactional
    def sum_red(transaction):
        docs = transaction.get(coll.where(filter=FieldFilter("team", "==", "red")))
        transaction.set(total, {"n": sum(d.get("n") for d in docs)})

    sum_red(client.transaction())
    assert total.get().to_dict() == {"n": 3}


def test_transaction_that_raises_writes_nothing(client, coll):
    ref = coll.document("d")
    ref.set({"v": 1})

    @firestore.transactional
    def failing(transaction):
        ref.get(transaction=transaction)
        transaction.set(ref, {"v": 2})
        raise RuntimeError("abandon")

    with pytest.raises(RuntimeError, match="abandon"):
        failing(client.transaction())
    assert ref.get().to_dict() == {"v": 1}


def test_read_only_transaction(client, coll):
    ref = coll.document("d")
    ref.set({"v": 1})

    @firestore.transactional
    def read(transaction):
        return ref.get(transaction=transaction).get("v")

    assert read(client.transaction(read_only=True)) == 1


def _move_ten(client, a, b):
    """A transfer from a to b committed outside any transaction."""
    batch = client.batch()
    batch.update(a, {"balance": firestore.Increment(-10)})
    batch.update(b, {"balance": firestore.Increment(10)})
    batch.commit()


@pytest.mark.parametrize("second_read", ["get", "query"])
def test_read_only_transaction_never_answers_a_mix_of_two_states(client, coll, second_read):
    """A commit lands between two reads of a read-only transaction (the torn total Tools/faults/bank found):
    Firestore answers both reads from the transaction's snapshot; Suite, which keeps no old versions, aborts the
    transaction at the second read. Either way no answer mixes the states before and after the commit."""
    a, b = coll.document("a"), coll.document("b")
    helpers.seed(coll, {"a": {"balance": 50}, "b": {"balance": 50}})

    @firestore.transactional
    def read_both(transaction):
        first = a.get(transaction=transaction).get("balance")
        _move_ten(client, a, b)
        if second_read == "get":
            return first + b.get(transaction=transaction).get("balance")
        balances = {s.id: s.get("balance") for s in transaction.get(coll.order_by("balance"))}
        return first + balances["b"]

    try:
        total = read_both(client.transaction(read_only=True))
    except exceptions.Aborted:
        return
    assert total == 100


def test_contended_counter_in_two_processes(coll):
    # Two OS processes, each with its own client, each run 100 read-then-write transactions on one counter,
    # started together: every increment must count, whatever the server aborts and the clients retry.
    ref = coll.document("counter")
    ref.set({"n": 0})
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    workers = [
        context.Process(target=helpers.increment_in_transactions, args=(helpers.PROJECT, ref.path, 100, barrier))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)
    exit_codes = [worker.exitcode for worker in workers]
    for worker in workers:
        if worker.is_alive():
            worker.kill()
    assert exit_codes == [0, 0]
    assert ref.get().to_dict() == {"n": 200}
