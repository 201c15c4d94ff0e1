"""tools/runner/variants.py: discovery from recorded mpivars / ompi_info output, the
adapters' sections, --variants selection. The live test runs only where the
library's tool is installed."""
import json
import pathlib
import re
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from runner import variants  # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures" / "variants"
MPIVARS = (FIXTURES / "mpich-4.0.2-mpivars.txt").read_text()
OMPI_INFO = (FIXTURES / "openmpi-4.1.4-ompi_info.txt").read_text()


def adapter(vendor):
    return json.loads((ROOT / "vendors" / vendor / "adapter.json").read_text())


def routine_counts(found):
    counts = {}
    for v in found:
        for t in v["targets"]:
            key = (t["routine"], "+".join(t["modes"]), t["comm"])
            counts[key] = counts.get(key, 0) + 1
    return counts


def check_shape(found):
    names = [v["name"] for v in found]
    assert len(names) == len(set(names)), "names are unique"
    for v in found:
        assert re.match(r"^[a-z0-9._-]+$", v["name"]) and v["name"] != "default"
        assert v["env"] and all(
            isinstance(k, str) and isinstance(x, str) for k, x in v["env"].items()
        )
        assert v["source"]
        for t in v["targets"]:
            assert t["routine"] in variants.ROUTINES
            assert set(t["modes"]) <= set(variants.MODES) and t["modes"]
            assert t["comm"] in variants.COMMS


# ---- MPICH ---------------------------------------------------------------


def test_mpivars_values_are_split_from_the_glued_descriptions():
    parsed = {
        cvar: [c[0] for c in items] for cvar, items in variants.parse_mpivars(MPIVARS)
    }
    assert parsed["MPIR_CVAR_REDUCE_INTRA_ALGORITHM"] == [
        "auto",
        "binomial",
        "nb",
        "smp",
        "reduce_scatter_gather",
    ]
    assert parsed["MPIR_CVAR_ALLREDUCE_INTER_ALGORITHM"] == [
        "auto",
        "nb",
        "reduce_exchange_bcast",
    ]
    assert parsed["MPIR_CVAR_IREDUCE_INTRA_ALGORITHM"] == [
        "auto",
        "sched_auto",
        "sched_smp",
        "sched_binomial",
        "sched_reduce_scatter_gather",
        "tsp_tree",
        "tsp_ring",
    ]
    assert parsed["MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM"][-3:] == [
        "tsp_tree",
        "tsp_ring",
        "tsp_recexch_reduce_scatter_recexch_allgatherv",
    ]
    assert parsed["MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM"] == [
        "auto",
        "noncommutative",
        "recursive_doubling",
        "pairwise",
        "recursive_halving",
        "nb",
    ]
    assert parsed["MPIR_CVAR_SCAN_INTRA_ALGORITHM"] == [
        "auto",
        "nb",
        "smp",
        "recursive_doubling",
    ]
    assert parsed["MPIR_CVAR_IEXSCAN_INTRA_ALGORITHM"] == [
        "auto",
        "sched_auto",
        "sched_recursive_doubling",
    ]
    # every variable of the family, blocking and nonblocking; scan and exscan have no
    # INTER variable
    assert len(parsed) == 20


def test_mpivars_values_of_mpich_4_2_are_read_from_their_own_lines():
    # MPICH 4.2.1 (Debian 13) keeps the line breaks of a description: each value on a
    # line of its own.
    text = (FIXTURES / "mpich-4.2.1-mpivars.txt").read_text()
    parsed = {
        cvar: [c[0] for c in items] for cvar, items in variants.parse_mpivars(text)
    }
    assert len(parsed) == 20
    assert parsed["MPIR_CVAR_REDUCE_INTRA_ALGORITHM"] == [
        "auto",
        "binomial",
        "nb",
        "smp",
        "reduce_scatter_gather",
    ]
    assert parsed["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"] == [
        "auto",
        "nb",
        "smp",
        "recursive_doubling",
        "reduce_scatter_allgather",
        "tree",
        "recexch",
        "ring",
        "k_reduce_scatter_allgather",
    ]
    assert parsed["MPIR_CVAR_IREDUCE_INTRA_ALGORITHM"] == [
        "auto",
        "sched_auto",
        "sched_smp",
        "sched_binomial",
        "sched_reduce_scatter_gather",
        "tsp_tree",
        "tsp_ring",
    ]
    names = {v["name"] for v in variants.mpich_variants(text)}
    assert names >= {
        v["name"] for v in variants.mpich_variants(MPIVARS)
    }  # all of 4.0.2's, and 4.2's new ones
    assert {"mpich.allreduce.intra.tree", "mpich.allreduce.intra.ring"} <= names


def test_mpich_variants_from_recorded_mpivars():
    found = variants.finish(adapter("mpich"), variants.mpich_variants(MPIVARS))
    check_shape(found)
    counts = routine_counts(found)
    for routine in variants.ROUTINES:
        assert counts.get((routine, "blocking", "intra"), 0) >= 2, routine
        assert counts.get((routine, "nonblocking+persistent", "intra"), 0) >= 1, routine
    # binomial, nb, smp, reduce_scatter_gather, + the ch4 device's compositions alpha,
    # beta, gamma
    assert counts[("reduce", "blocking", "intra")] == 4 + 3
    # + static tsp variants
    assert counts[("allreduce", "nonblocking+persistent", "intra")] == 9 + 2
    assert ("scan", "blocking", "inter") not in counts
    by_name = {v["name"]: v for v in found}
    v = by_name["mpich.reduce.intra.binomial"]
    assert v["env"] == {
        "MPIR_CVAR_DEVICE_COLLECTIVES": "none",
        "MPIR_CVAR_REDUCE_INTRA_ALGORITHM": "binomial",
    }
    assert v["targets"] == [
        {"routine": "reduce", "modes": ["blocking"], "comm": "intra"}
    ]
    assert v["source"] == "mpivars: MPIR_CVAR_REDUCE_INTRA_ALGORITHM"
    # a composition of the ch4 device: device collectives on (common_env turns them
    # off), and the selection file that names it, which exists and names it for the top
    # of the hierarchy
    c = by_name["mpich.ch4.reduce.composition_alpha"]
    assert c["env"]["MPIR_CVAR_DEVICE_COLLECTIVES"] == "all"
    selection = c["env"]["MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE"]
    assert selection.startswith("{root}/")
    tree = json.loads((ROOT / selection[len("{root}/") :]).read_text())
    assert tree == {
        "collective=reduce": {
            "comm_type=intra": {
                "comm_hierarchy=parent": {
                    "composition=MPIDI_Reduce_intra_composition_alpha": {}
                }
            }
        }
    }
    assert (c["fallback"] or {}).get("pattern") is None  # the library cannot tell
    assert v["fallback"] == {
        "env": {"MPIR_CVAR_COLLECTIVE_FALLBACK": "print"},
        "pattern": (
            "User set collective algorithm is not usable for the provided arguments"
        ),
    }
    assert by_name["mpich.ireduce.intra.tsp_tree"]["targets"][0]["modes"] == [
        "nonblocking",
        "persistent",
    ]
    assert (
        by_name["mpich.reduce_scatter.inter.remote_reduce_local_scatter"]["targets"][0][
            "comm"
        ]
        == "inter"
    )
    assert not any(n.endswith((".auto", ".sched_auto")) for n in by_name)
    # the message MPICH prints (src/mpi/coll/include/coll_impl.h) matches the pattern
    log = (
        "User set collective algorithm is not usable for the provided arguments\n"
        "Allreduce reduce_scatter_allgather cannot be applied.\n"
    )
    assert re.search(v["fallback"]["pattern"], log)


# ---- Open MPI ------------------------------------------------------------


def test_openmpi_variants_from_recorded_ompi_info():
    found = variants.finish(adapter("openmpi"), variants.openmpi_variants(OMPI_INFO))
    check_shape(found)
    by_name = {v["name"]: v for v in found}
    tuned = {
        r: [
            v
            for v in found
            if v["name"].startswith(f"openmpi.tuned.{r}.")
            and not v["name"].endswith(".seg1024")
        ]
        for r in variants.ROUTINES
    }
    assert {r: len(vs) for r, vs in tuned.items()} == {
        "reduce": 7,
        "allreduce": 6,
        "reduce_scatter": 4,
        "reduce_scatter_block": 4,
        "scan": 2,
        "exscan": 2,
    }
    v = by_name["openmpi.tuned.reduce.binomial"]
    assert v["env"] == {
        "OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
        "OMPI_MCA_coll_tuned_reduce_algorithm": "5",
    }
    assert v["targets"] == [
        {"routine": "reduce", "modes": ["blocking"], "comm": "intra"}
    ]
    assert v["fallback"] is None  # Open MPI does not report it (pattern null)
    assert by_name["openmpi.libnbc.iallreduce.rabenseifner"]["env"] == {
        "OMPI_MCA_coll_libnbc_iallreduce_algorithm": "3"
    }
    assert by_name["openmpi.libnbc.iscan.recursive_doubling"]["targets"][0][
        "modes"
    ] == ["nonblocking", "persistent"]
    adapt = [n for n in by_name if n.startswith("openmpi.adapt.reduce.")]
    assert (
        len(adapt) == 6
        and by_name["openmpi.adapt.reduce.linear"]["env"][
            "OMPI_MCA_coll_adapt_priority"
        ]
        == "100"
    )
    han = by_name["openmpi.coll.han"]
    assert re.search(
        han["fallback"]["pattern"],
        (
            "[vm:1] coll:han:comm_query (0/MPI_COMM_WORLD): comm has only local"
            " processes; disqualifying myself"
        ),
    )
    assert [t["comm"] for t in by_name["openmpi.coll.basic"]["targets"]] == ["any"] * 6
    # han's sub-modules, from the help text of coll_han_<coll>_{up,low}_module, and its
    # simple compositions
    assert sorted(n for n in by_name if n.startswith("openmpi.han.")) == [
        "openmpi.han.allreduce.low.sm",
        "openmpi.han.allreduce.simple",
        "openmpi.han.allreduce.up.adapt",
        "openmpi.han.reduce.low.sm",
        "openmpi.han.reduce.simple",
        "openmpi.han.reduce.up.adapt",
    ]
    v = by_name["openmpi.han.reduce.low.sm"]
    assert v["env"] == {
        "OMPI_MCA_coll_han_priority": "100",
        "OMPI_MCA_coll_han_reduce_low_module": "1",
    }
    assert v["targets"] == [
        {"routine": "reduce", "modes": ["blocking"], "comm": "intra"}
    ]
    assert re.search(
        v["fallback"]["pattern"],
        (
            "[vm:1] coll:han:comm_query (0/MPI_COMM_WORLD): comm has only local "
            "processes; disqualifying myself"
        ),
    )


# ---- the adapters, static-only adapters ------------------------------------


@pytest.mark.parametrize("vendor", ["mpich", "openmpi"])
def test_adapter_section(vendor):
    section = adapter(vendor)["algorithm_variants"]
    assert section["discover"] in variants.DISCOVERERS
    assert section["note"] and "fallback" in section
    variants.finish(adapter(vendor), [])  # every static entry is valid


def test_static_only_adapter_needs_no_tool(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    a = {
        "name": "othermpi",
        "algorithm_variants": {
            "common_env": {"X_COMMON": "1"},
            "fallback": {"env": {"X_VERBOSE": "1"}, "pattern": "fell back"},
            "static": [
                {
                    "name": "othermpi.reduce.ring",
                    "env": {"X_REDUCE": "ring"},
                    "targets": [
                        {"routine": "reduce", "modes": ["blocking"], "comm": "intra"}
                    ],
                    "source": "docs",
                },
                {
                    "name": "othermpi.all.tree",
                    "env": {"X_ALL": "tree", "X_COMMON": "2"},
                    "targets": None,
                },
            ],
        },
    }
    found = variants.discover(a, environ={"PATH": "/nonexistent"})
    assert [v["name"] for v in found] == ["othermpi.reduce.ring", "othermpi.all.tree"]
    assert found[0]["env"] == {"X_COMMON": "1", "X_REDUCE": "ring"}
    assert found[1]["env"]["X_COMMON"] == "2"  # the variant's own entry wins
    assert (
        found[1]["targets"] is None and found[0]["fallback"]["pattern"] == "fell back"
    )
    assert variants.discover({"name": "bare"}) == []


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"name": "Bad Name", "env": {}}, "a name is made of"),
        (
            {"name": "x.y", "env": {}, "targets": [{"routine": "bcast"}]},
            "routine must be one of",
        ),
        (
            {
                "name": "x.y",
                "env": {},
                "targets": [{"routine": "scan", "modes": ["eager"]}],
            },
            "modes must be among",
        ),
        (
            {
                "name": "x.y",
                "env": {},
                "targets": [{"routine": "scan", "comm": "world"}],
            },
            "comm must be one of",
        ),
    ],
)
def test_bad_static_entries(bad, message):
    with pytest.raises(variants.VariantError, match=message):
        variants.finish({"name": "v", "algorithm_variants": {"static": [bad]}}, [])


def test_duplicate_names_and_unknown_discoverer():
    entry = {"name": "v.a", "env": {"A": "1"}}
    with pytest.raises(variants.VariantError, match="used twice"):
        variants.finish(
            {"name": "v", "algorithm_variants": {"static": [entry, entry]}}, []
        )
    with pytest.raises(
        variants.VariantError, match="unknown algorithm_variants.discover"
    ):
        variants.discover({"name": "v", "algorithm_variants": {"discover": "guess"}})


def test_missing_tool_is_one_line(monkeypatch):
    a = dict(adapter("mpich"))
    with pytest.raises(variants.VariantError) as e:
        variants.discover(a, environ={"PATH": "/nonexistent"})
    assert "mpivars not found" in str(e.value) and "\n" not in str(e.value)


# ---- select ----------------------------------------------------------------

FOUND = variants.finish(adapter("mpich"), variants.mpich_variants(MPIVARS))


def test_select_default_and_all():
    a = adapter("mpich")
    assert variants.select(a, "default", FOUND) == [variants.DEFAULT]
    everything = variants.select(a, "all", FOUND)
    assert everything[0] == variants.DEFAULT and everything[1:] == FOUND


def test_select_names_patterns_and_order():
    a = adapter("mpich")
    chosen = variants.select(
        a,
        "mpich.scan.intra.smp,default,mpich.reduce.intra.*,mpich.reduce.intra.nb",
        FOUND,
    )
    names = [v["name"] for v in chosen]
    assert names[:2] == ["mpich.scan.intra.smp", "default"]
    assert names[2:] == [
        v["name"] for v in FOUND if v["name"].startswith("mpich.reduce.intra.")
    ]
    assert len(names) == len(set(names))


def test_select_unknown_name_is_one_line():
    with pytest.raises(variants.VariantError) as e:
        variants.select(
            adapter("mpich"),
            "mpich.reduce.intra.binomial,mpich.reduce.intra.bogus",
            FOUND,
        )
    text = str(e.value)
    assert isinstance(e.value, ValueError) and "\n" not in text
    assert (
        "mpich.reduce.intra.bogus" in text
        and "./ordo list variants --vendor mpich" in text
    )
    with pytest.raises(variants.VariantError, match="'openmpi.tuned.\\*'"):
        variants.select(adapter("mpich"), "openmpi.tuned.*", FOUND)


# ---- live ------------------------------------------------------------------


@pytest.mark.skipif(
    shutil.which("mpivars") is None, reason="mpivars (MPICH) is not installed"
)
def test_live_mpich_discovery_matches_the_library():
    found = variants.discover(adapter("mpich"))
    check_shape(found)
    recorded = {v["name"] for v in FOUND}
    assert {
        v["name"] for v in found
    } == recorded, "the installed MPICH differs from the recorded mpivars"


@pytest.mark.skipif(
    shutil.which("ompi_info") is None, reason="ompi_info (Open MPI) is not installed"
)
def test_live_openmpi_discovery():
    found = variants.discover(adapter("openmpi"))
    check_shape(found)
    assert any(v["name"].startswith("openmpi.tuned.reduce.") for v in found)


# ---- the large element ------------------------------------------------------


def test_the_large_element_is_above_the_chunk_or_segment_a_variant_forces():
    """variants.element_bytes: the smallest multiple of 16 bytes above the
    largest chunk / segment size the settings force; None without one."""
    by_name = {
        v["name"]: v
        for vendor in ("mpich", "openmpi")
        for v in variants.finish(adapter(vendor), [])
    }
    assert (
        variants.element_bytes(
            by_name["mpich.ireduce.intra.tsp_tree.knomial_1-k3-chunk256"]["env"]
        )
        == 272
    )
    assert (
        variants.element_bytes(by_name["openmpi.tuned.reduce.chain.seg1024"]["env"])
        == 1040
    )
    assert variants.element_bytes({}) is None
    assert (
        variants.element_bytes({"MPIR_CVAR_REDUCE_INTRA_ALGORITHM": "binomial"}) is None
    )
    # Open MPI's other spellings, the largest of several, a multiple of 16 itself.
    assert (
        variants.element_bytes({"OMPI_MCA_coll_han_reduce_segsize": "65536"}) == 65552
    )
    assert (
        variants.element_bytes(
            {
                "OMPI_MCA_coll_adapt_reduce_segment_size": "100",
                "MPIR_CVAR_IREDUCE_RING_CHUNK_SIZE": "300",
            }
        )
        == 304
    )
    # 0 and -1 force none (the libraries' "no pipelining"); not a number is ignored.
    assert variants.element_bytes({"MPIR_CVAR_IREDUCE_RING_CHUNK_SIZE": "0"}) is None
    assert variants.element_bytes({"OMPI_MCA_coll_han_reduce_segsize": "x"}) is None


def test_the_large_element_is_above_the_libraries_own_segment_where_none_is_forced():
    """adapt and han variants force no segment size: their element is above
    the default ompi_info reports (Open MPI 4.1.4: coll_adapt_reduce_segment_size
    163740, coll_han_<coll>_segsize 65536); a forced size and the user's
    --env still win over it."""
    # through finish(), as a run selects them
    found = {
        v["name"]: v
        for v in variants.finish(
            adapter("openmpi"), variants.openmpi_variants(OMPI_INFO)
        )
    }
    adapt = found["openmpi.adapt.reduce.chain"]
    assert adapt["chunk_defaults"] == {
        "OMPI_MCA_coll_adapt_reduce_segment_size": "163740"
    }
    assert variants.element_bytes(adapt["env"], adapt["chunk_defaults"]) == 163744
    han = found["openmpi.han.allreduce.simple"]
    assert han["chunk_defaults"] == {"OMPI_MCA_coll_han_allreduce_segsize": "65536"}
    assert variants.element_bytes(han["env"], han["chunk_defaults"]) == 65552
    forced = dict(adapt["env"], OMPI_MCA_coll_adapt_reduce_segment_size="1000")
    assert variants.element_bytes(forced, adapt["chunk_defaults"]) == 1008
    # tuned variants read a segment size whose default is 0 (no segmentation)
    assert not found["openmpi.tuned.reduce.chain"].get("chunk_defaults")
    assert variants.element_bytes({}, {}) is None
