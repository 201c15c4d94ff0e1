"""Virtual nodes (runner/placement.py): which node each rank should sit on,
which adapter method places it, what the launcher is given, and the proof
that compares the node map the library shows with the one asked for. No MPI
here, except the last test (a short real run on MPICH under two nodes)."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from runner import placement
from runner.adapters import load_adapter
from runner.errors import EXIT_INFRA, EXIT_USAGE, OrdoError

from conftest import journal_records
from test_cli import one_line_error, run

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "where,nodes,ranks,expected",
    [
        ("block", 2, 4, [0, 0, 1, 1]),
        (
            "block",
            2,
            5,
            [0, 0, 0, 1, 1],
        ),  # the first n % N nodes hold one more (MPICH's byblock)
        ("block", 4, 8, [0, 0, 1, 1, 2, 2, 3, 3]),
        ("block", 3, 4, [0, 0, 1, 2]),
        ("cyclic", 2, 5, [0, 1, 0, 1, 0]),
        ("cyclic", 4, 4, [0, 1, 2, 3]),
        ("first-alone", 2, 4, [0, 1, 1, 1]),
        ("first-alone", 3, 8, [0, 1, 1, 1, 1, 2, 2, 2]),
        ("first-alone", 4, 4, [0, 1, 2, 3]),
        ("sizes:1,3", 2, 4, [0, 1, 1, 1]),
        ("sizes:2,1,1", 3, 4, [0, 0, 1, 2]),
        ("block", 1, 3, [0, 0, 0]),
    ],
)
def test_node_of_each_rank(where, nodes, ranks, expected):
    assert placement.node_of_rank(where, nodes, ranks) == expected


def test_groups_are_the_node_map_the_harness_prints():
    # conformance/harness/node_map.cpp: groups in the order of their lowest rank, each
    # ascending
    assert placement.groups([0, 1, 0, 1, 0]) == [[0, 2, 4], [1, 3]]
    assert placement.groups([0, 1, 1, 1]) == [[0], [1, 2, 3]]


def test_contiguous_means_consecutive_runs_in_node_order():
    assert placement.contiguous([0, 1, 1, 1])
    assert placement.contiguous([0, 0, 1, 2])
    assert not placement.contiguous([0, 1, 0, 1])
    assert not placement.contiguous([1, 1, 0, 0])


@pytest.mark.parametrize(
    "where,nodes,ranks,words",
    [
        ("block", 4, 2, "more nodes than ranks"),
        ("cyclic", 3, 2, "more nodes than ranks"),
        ("first-alone", 1, 4, "--nodes 2 or more"),
        ("sizes:1,3", 2, 5, "places 4 ranks, not 5"),
        ("sizes:1,0", 2, 1, "at least one rank"),
        ("sizes:1,3", 3, 4, "names 2 nodes"),
        ("round-robin", 2, 4, "is not block, cyclic"),
        ("block", 0, 4, "at least 1 node"),
    ],
)
def test_bad_placements_are_usage_errors(where, nodes, ranks, words):
    with pytest.raises(placement.PlacementError, match=words):
        placement.node_of_rank(where, nodes, ranks)


def test_mpich_places_block_and_cyclic_with_cliques_and_uneven_ones_with_hydra_hosts():
    mpich = load_adapter("mpich")
    plans = placement.plan(mpich, "block", 2, [4, 5])
    assert plans[5]["groups"] == [[0, 1, 2], [3, 4]]
    assert plans[4]["method"]["name"] == "cliques-block"
    placed, env = placement.apply(
        mpich,
        plans[4]["method"],
        plans[4]["node_of"],
        pathlib.Path("/nonexistent"),
        "B",
    )
    assert env == {"MPIR_CVAR_NUM_CLIQUES": "2", "MPIR_CVAR_CLIQUES_BY_BLOCK": "1"}
    assert placed["launcher"]["flags"] == mpich["launcher"]["flags"]
    assert placement.plan(mpich, "cyclic", 4, [8])[8]["method"]["env"] == {
        "MPIR_CVAR_NUM_CLIQUES": "{nodes}"
    }
    uneven = placement.plan(mpich, "first-alone", 2, [4])[4]
    assert uneven["method"]["name"] == "hydra-hosts"
    placed, env = placement.apply(
        mpich, uneven["method"], uneven["node_of"], pathlib.Path("/nonexistent"), "B"
    )
    flags = placed["launcher"]["flags"]
    assert flags[flags.index("-hosts") + 1] == "ordo-node0:1,ordo-node1:3" and env == {}
    assert flags[flags.index("-launcher-exec") + 1] == str(
        ROOT / "vendors/launchers/virtual-node-agent.sh"
    )


def test_openmpi_writes_a_hostfile_and_maps_cyclic_by_node(tmp_path):
    ompi = load_adapter("openmpi")
    p = placement.plan(ompi, "cyclic", 2, [5])[5]
    placed, env = placement.apply(ompi, p["method"], p["node_of"], tmp_path / "hf", "B")
    assert (tmp_path / "hf").read_text() == "ordo-node0 slots=3\nordo-node1 slots=2\n"
    flags = placed["launcher"]["flags"]
    assert flags[flags.index("--map-by") + 1] == "node" and flags[
        flags.index("--hostfile") + 1
    ] == str(tmp_path / "hf")
    p = placement.plan(ompi, "sizes:1,3", 2, [4])[4]
    placed, _ = placement.apply(ompi, p["method"], p["node_of"], tmp_path / "hf2", "B")
    assert (
        "--map-by" in placed["launcher"]["flags"]
        and "slot" in placed["launcher"]["flags"]
    )
    assert (tmp_path / "hf2").read_text() == "ordo-node0 slots=1\nordo-node1 slots=3\n"


def test_a_placement_no_method_expresses_is_refused_in_one_line():
    mpich = dict(load_adapter("mpich"))
    mpich["virtual_nodes"] = {
        "methods": [
            m for m in mpich["virtual_nodes"]["methods"] if m["name"] != "hydra-hosts"
        ]
    }
    with pytest.raises(OrdoError) as e:
        placement.plan(mpich, "first-alone", 2, [4])
    assert (
        e.value.code == EXIT_USAGE
        and "cannot place ranks as --placement first-alone" in str(e.value)
    )
    del mpich["virtual_nodes"]
    with pytest.raises(OrdoError, match="no virtual_nodes section"):
        placement.plan(mpich, "block", 2, [4])


def test_the_node_map_is_read_from_a_job_log_and_must_be_the_one_asked():
    log = (
        "ordo: hello\nordo node-map:"
        ' {"node_map":[[0,1,2,3]],"processor_names":["a","a","a","a"]}\n[==========]\n'
    )
    found = placement.parse_node_map(log)
    assert found["node_map"] == [[0, 1, 2, 3]]
    placement.verify(
        found,
        [[0, 1, 2, 3]],
        vendor="v",
        nodes=1,
        placement="block",
        ranks=4,
        where="x",
    )
    with pytest.raises(OrdoError) as e:
        placement.verify(
            found,
            [[0, 1], [2, 3]],
            vendor="mpich",
            nodes=2,
            placement="block",
            ranks=4,
            where="x",
        )
    assert e.value.code == EXIT_INFRA
    assert "mpich showed 1 node [[0,1,2,3]] at 4 ranks" in str(
        e.value
    ) and "[[0,1],[2,3]]" in str(e.value)
    assert placement.parse_node_map("no map here") is None


def test_settings_default_to_block_and_refuse_a_placement_without_nodes():
    assert placement.from_settings({}) == (None, None)
    assert placement.from_settings({"nodes": 2}) == (2, "block")
    assert placement.from_settings({"placement": "sizes:1,3"}) == (2, "sizes:1,3")
    with pytest.raises(OrdoError, match="needs --nodes"):
        placement.from_settings({"placement": "cyclic"})


def test_bad_nodes_on_the_command_line_are_one_line_errors():
    assert "at least 1 node" in one_line_error(
        run("run", "--nodes", "0", "--ranks", "4")
    )
    assert "more nodes than ranks" in one_line_error(
        run("run", "--nodes", "4", "--ranks", "2,4")
    )
    assert "needs --nodes" in one_line_error(run("run", "--placement", "cyclic"))
    assert "is not block" in one_line_error(
        run("run", "--nodes", "2", "--placement", "diagonal", "--ranks", "4")
    )


@pytest.mark.skipif(
    shutil.which("mpiexec.mpich") is None, reason="MPICH is not installed"
)
def test_a_short_mpich_run_under_two_nodes_records_the_node_map(tmp_path):
    out = tmp_path / "run"
    cmd = [
        "flock",
        "/tmp/ordo-mpi.lock",
        "timeout",
        "900",
        str(ROOT / "ordo"),
        "run",
        "--vendor",
        "mpich",
        "--nodes",
        "2",
        "--ranks",
        "4",
        "--filter",
        "values",
        "--only",
        "Allreduce.*",
        "--property-budget",
        "0",
        "--out",
        str(out),
    ]
    p = subprocess.run(
        cmd, capture_output=True, text=True, timeout=1000, env=dict(os.environ)
    )
    # 0: the checks ran under the nodes, and the intercommunicator Allreduce that MPICH
    # 4.0.2 fails there (its high group {1,2,3} has its rank 0 alone on node 0) is
    # waived by its comm_node_map waiver (vendors/mpich/waivers.json); 3 would be a
    # library that did not show the nodes.
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["nodes"] == 2 and run_json["placement"] == "block"
    row = run_json["node_maps"]["4"]
    assert (
        row["node_map"] == row["asked"] == [[0, 1], [2, 3]]
        and row["method"] == "cliques-block"
    )
    assert row["jobs_verified"] >= 1
    records = journal_records(out)
    assert records and all(
        r["node_map"] == [[0, 1], [2, 3]] and r["nodes"] == 2 for r in records
    )
    assert all(
        "--nodes 2 --placement block" in r["replay"] for r in records if r.get("replay")
    )
    # the node map of each group of the case's communicator, in its own ranks (waivers
    # read it)
    shapes = {r["case"]["comm"]: r["comm_node_maps"] for r in records if r.get("case")}
    assert shapes["world"] == [[[0, 1], [2, 3]]]
    assert shapes["inter-1-n"] == [[[0]], [[0], [1, 2]]]
    node_aware = [
        r
        for r in records
        if r["outcome"] == "waived"
        and r["waiver"] == "mpich-node-aware-intercomm-group-reduce-rank0-alone-on-node"
    ]
    assert node_aware and all(
        r["case"]["comm"].startswith("inter-") for r in node_aware
    )
    assert all(
        r["bytes"] == r["case"]["count"] * 8
        for r in records
        if r.get("case", {}).get("datatype") == "MPI_DOUBLE"
    )


@pytest.mark.skipif(
    shutil.which("mpiexec.mpich") is None, reason="MPICH is not installed"
)
@pytest.mark.parametrize("run_known_fatal", [False, True])
def test_a_crash_under_two_nodes_is_recorded_with_the_node_maps_its_waiver_reads(
    tmp_path, run_known_fatal
):
    """MPICH 4.0.2's ch4 composition alpha, forced, segfaults in MPI_Reduce with
    MPI_IN_PLACE at a root that is not the first rank on its node (3 ranks over
    {0,1} {2}: root 1). The waiver names that trigger through comm_node_map
    root_node, which the runner's record of the crash can only meet if the
    harness's in-flight note carried the communicator's node maps. By default
    the case is not run (a skip naming the waiver); --run-known-fatal runs it."""
    out = tmp_path / "run"
    cmd = [
        "flock",
        "/tmp/ordo-mpi.lock",
        "timeout",
        "900",
        str(ROOT / "ordo"),
        "run",
        "--vendor",
        "mpich",
        "--variants",
        "mpich.ch4.reduce.composition_alpha",
        "--nodes",
        "2",
        "--ranks",
        "3",
        "--filter",
        "in_place",
        "--property-budget",
        "0",
        "--out",
        str(out),
    ]
    if run_known_fatal:
        cmd.append("--run-known-fatal")
    p = subprocess.run(
        cmd, capture_output=True, text=True, timeout=1000, env=dict(os.environ)
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    records = journal_records(out)
    waiver = "mpich-variant-ch4-reduce-alpha-in-place-root-not-first-on-node-crash"
    world_root_1 = [
        r
        for r in records
        if r.get("case")
        and r["case"]["routine"] == "reduce"
        and r["case"]["in_place"]
        and r["case"]["comm"] == "world"
        and r["case"]["root"] == 1
    ]
    assert world_root_1
    for r in world_root_1:
        assert r["comm_node_maps"] == [[[0, 1], [2]]], r
        if run_known_fatal:
            assert r["outcome"] == "waived" and r["waiver"] == waiver, r
            assert "ended the job" in r["message"], r
        else:
            assert r["outcome"] == "skip" and waiver in r["message"], r
    # Root 2, the first (only) rank of its node, and root 0 run and pass.
    others = [
        r
        for r in records
        if r.get("case")
        and r["case"]["routine"] == "reduce"
        and r["case"]["in_place"]
        and r["case"]["comm"] == "world"
        and r["case"]["root"] in (0, 2)
        and r["case"]["count"] < 513
    ]
    assert others and all(r["outcome"] == "pass" for r in others), [
        r["id"] for r in others
    ]


@pytest.mark.skipif(
    shutil.which("mpiexec.mpich") is None, reason="MPICH is not installed"
)
def test_on_one_node_the_crash_waivers_node_conditions_read_the_machines_node_map(
    tmp_path,
):
    """Without --nodes the machine is one node: the same forced composition crashes at
    every root but 0 (none is the first rank of the communicator on the node). The
    in-flight note carries the communicator's node map there too, so the crash waiver
    names those cases: by default each is a skip naming it, and root 0 runs.
    """
    out = tmp_path / "run"
    cmd = [
        "flock",
        "/tmp/ordo-mpi.lock",
        "timeout",
        "900",
        str(ROOT / "ordo"),
        "run",
        "--vendor",
        "mpich",
        "--variants",
        "mpich.ch4.reduce.composition_alpha",
        "--ranks",
        "3",
        "--filter",
        "in_place",
        "--property-budget",
        "0",
        "--out",
        str(out),
    ]
    p = subprocess.run(
        cmd, capture_output=True, text=True, timeout=1000, env=dict(os.environ)
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    records = journal_records(out)
    waiver = "mpich-variant-ch4-reduce-alpha-in-place-root-not-first-on-node-crash"
    world = [
        r
        for r in records
        if r.get("case")
        and r["case"]["routine"] == "reduce"
        and r["case"]["in_place"]
        and r["case"]["comm"] == "world"
        and r["case"]["count"] < 513
    ]
    assert {r["case"]["root"] for r in world} == {0, 1, 2}
    for r in world:
        if r["case"]["root"] == 0:
            assert r["outcome"] == "pass", r
        else:
            assert r["outcome"] == "skip" and waiver in r["message"], r
