"""Verdicts that mean what they say (issue #13): skips and ordo's own code are
not the library's conformance, and the headline says what was not tested."""
from conftest import record
from reports import results, waivers


def skip(index, message, clause="collective.large-count", ranks=2):
    return record(index=index, outcome="skip", clause=clause, message=message, ranks=ranks)


def test_a_must_clause_whose_checks_were_all_skipped_is_not_tested_and_the_headline_says_why():
    recs = [record(index=i) for i in range(3)] + [
        skip(10, "MPI_Reduce_c is not provided by this library (MPI-4 large-count bindings)"),
        skip(11, "MPI_Allreduce_c is not provided by this library (MPI-4 large-count bindings)")]
    s = results.summarize(recs, partial=False)
    assert s["verdict"] == "conformant"
    assert s["headline"] == "conformant; 1 MUST clause not tested: MPI-4 large-count bindings absent"
    [gap] = s["not_tested"]
    assert gap == {"clause": "collective.large-count", "level": "MUST", "status": "not tested", "checks": 2,
                   "untested": 2, "reasons": [{"reason": "MPI-4 large-count bindings absent", "checks": 2}]}


def test_a_clause_skipped_only_where_a_shape_needs_more_ranks_is_still_tested():
    recs = [record(index=0, clause="op.minloc-maxloc-pair-types"),
            skip(1, "communicator shape odd-even needs more ranks", clause="op.minloc-maxloc-pair-types")]
    s = results.summarize(recs, partial=False)
    assert s["not_tested"] == [] and s["headline"] == "conformant"


def test_a_feature_the_library_lacks_leaves_a_clause_partly_tested():
    recs = [record(index=0, clause="collective.nonblocking-persistent"),
            skip(1, "MPI_Reduce_init is not provided by this library (MPI-4 persistent collectives)",
                 clause="collective.nonblocking-persistent")]
    s = results.summarize(recs, partial=False)
    assert s["not_tested"][0]["status"] == "partly tested"
    assert s["headline"] == "conformant; 1 MUST clause partly tested: MPI-4 persistent collectives absent"


def test_checks_of_ordos_own_implementation_are_not_credited_to_the_library():
    own = [dict(record(index=i, clause="reduce-locals.assignments", outcome=o), credited_to="ordo")
           for i, o in enumerate(["pass", "fail"])]
    s = results.summarize([record(index=9)] + own, partial=False)
    assert s["verdict"] == "conformant"  # ordo's failing check is not the library's failure
    assert s["levels"]["MUST"]["total"] == 1
    assert s["ordo_own"]["total"] == 2 and s["ordo_own"]["clauses"] == ["reduce-locals.assignments"]
    assert s["not_tested"][0]["status"] == "not tested"
    assert "the library has no MPIX_Reduce_locals" in s["headline"]


def test_waiver_usage_names_stale_out_of_scope_and_not_applied_waivers():
    ws = [{"id": "used", "test": "Reduce.*", "expires": "2030-01-01", "library_versions": "4.0.2"},
          {"id": "other-release", "test": "Scan.*", "expires": "2030-01-01", "library_versions": "4.1"},
          {"id": "idle", "test": "Exscan.*", "expires": "2030-01-01"},
          {"id": "big-runs", "test": "Exscan.*", "ranks": {"min": 8}, "expires": "2030-01-01"},
          {"id": "a-variant", "test": "Exscan.*", "variant": "mpich.*", "expires": "2030-01-01"}]
    recs = [record(index=0, outcome="waived", waiver="used"),
            record(test="Scan.x", index=1, outcome="fail")]
    u = waivers.usage(recs, ws, today="2026-11-23", library_version="4.0.2", variants=["default"], ranks=[1, 2, 3, 4])
    assert u["used"] == {"used": 1}
    assert u["not_applied"] == [{"id": "other-release", "why": "it is for 4.1, not 4.0.2", "checks": 1}]
    assert u["stale"] == ["idle"] and u["out_of_scope"] == ["big-runs", "a-variant"]


def test_a_case_not_run_because_a_fatal_waiver_names_it_counts_for_that_waiver_not_as_stale():
    ws = [{"id": "known-hang", "test": "Exscan.*", "outcome": "timeout", "expires": "2030-01-01"},
          {"id": "idle", "test": "Exscan.*", "expires": "2030-01-01"}]
    avoided = record(test="Exscan.x", index=0, outcome="skip")
    avoided["message"] = ("not run (--ordo-avoid-known-fatal): the waiver known-hang names a crash or hang "
                          "of this library here")
    other_skip = dict(record(test="Exscan.y", index=1, outcome="skip"), message="MPI_Exscan_c is not provided")
    u = waivers.usage([avoided, other_skip], ws, today="2026-11-23", library_version="4.0.2",
                      variants=["default"], ranks=[1, 2])
    assert u["avoided"] == {"known-hang": 1}
    assert u["used"] == {}
    assert u["stale"] == ["idle"]


def test_a_skip_reason_keeps_the_digits_of_names_and_groups_the_counts_that_vary():
    # The report groups skips by reason: a count varies per case, a section
    # number or a waiver id is part of the reason and reads as written.
    assert results.skip_reason("the library has no MPI_Type_get_value_index (MPI-4.1 6.9.4)") == \
        "the library has no MPI_Type_get_value_index (MPI-4.1 6.9.4)"
    assert results.skip_reason("not run: the waiver mpich-6351-intercomm-reduce-null-sendbuf-timeout names a hang") == \
        "not run: the waiver mpich-6351-intercomm-reduce-null-sendbuf-timeout names a hang"
    assert results.skip_reason("shape needs 3 ranks, has 2") == results.skip_reason("shape needs 5 ranks, has 4") == \
        "shape needs N ranks, has N"


def test_the_headline_says_once_a_reason_that_differs_only_in_the_memory_a_case_needs():
    """The huge cases of each routine need their own amount of memory: the
    headline names the opt-in once, with the range; the clause keeps each."""
    recs = [record(index=0)] + [
        skip(i, f"opt-in: ./ordo run --huge (needs about {gib} GiB per process)", clause="collective.huge-count")
        for i, gib in enumerate(["8.0", "6.3", "7.0"], start=1)]
    s = results.summarize(recs, partial=False)
    assert s["headline"] == ("conformant; 1 MUST clause not tested: "
                             "opt-in: ./ordo run --huge (needs about 6.3-8.0 GiB per process)")
    [gap] = s["not_tested"]
    assert len(gap["reasons"]) == 3
