"""The results file lists its lines in collection order, whatever order the tests finish in
(pytest-xdist's workers report as they finish): `runlog.in_collection_order`."""

from __future__ import annotations

from conformance.running.runlog import in_collection_order


def test_records_follow_collection_order() -> None:
    collected = ["t::a", "t::b", "t::c", "t::d"]
    nodeids = ["t::c", "t::a", "t::d", "t::b"]
    records = [{"cell": nodeid} for nodeid in nodeids]
    ordered = in_collection_order(records, nodeids, collected)
    assert [r["cell"] for r in ordered] == collected


def test_records_of_unknown_tests_keep_their_place_after_the_rest() -> None:
    nodeids = ["t::x", "t::b", "t::y", "t::a"]
    records = [{"cell": nodeid} for nodeid in nodeids]
    ordered = in_collection_order(records, nodeids, ["t::a", "t::b"])
    assert [r["cell"] for r in ordered] == ["t::a", "t::b", "t::x", "t::y"]


def test_without_a_collection_the_order_is_unchanged() -> None:
    nodeids = ["t::b", "t::a"]
    records = [{"cell": nodeid} for nodeid in nodeids]
    assert in_collection_order(records, nodeids, []) == records
