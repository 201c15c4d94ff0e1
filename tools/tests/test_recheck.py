"""`ordo findings --recheck` (runner/recheck.py): the plan of a finding's
runs, what a run shows, the status of a finding on each release against the
host's control, and --apply's edit of a waivers file. Fake reproducers and
fake results: no MPI, no roots of other releases."""
import json
import textwrap

import pytest

from conftest import ROOT, run_ordo
from reports import waivers as matcher
from runner import findings as findings_mod, recheck
from runner.errors import OrdoError

HEADER = textwrap.dedent(
    """\
    Finding: a fake.

      mpicc.mpich x.c -o repro
      mpiexec.mpich -n 3 ./repro plain 5
      E="-genv MPIR_CVAR_NUM_CLIQUES 2
         -genv MPIR_CVAR_X_ALGORITHM ring"
      mpiexec.mpich $E -n 4 ./repro ring 7
      MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_Y_ALGORITHM=tree \\
        mpiexec.mpich -n 2 ./repro tree 9

    Exits 0 when every result is right.
    """
)

KNOWN = [
    {"name": "lib.x.ring", "env": {"MPIR_CVAR_X_ALGORITHM": "ring"}},
    {"name": "lib.x.tree", "env": {"MPIR_CVAR_X_ALGORITHM": "tree"}},
    {
        "name": "lib.y.tree",
        "env": {
            "MPIR_CVAR_DEVICE_COLLECTIVES": "none",
            "MPIR_CVAR_Y_ALGORITHM": "tree",
        },
    },
]


def finding(*variants):
    return {
        "id": "fake",
        "vendor": "mpich",
        "path": "vendors/mpich/findings/fake.c",
        "waivers": [{"id": f"w{i}", "variant": v} for i, v in enumerate(variants)],
    }


def test_the_plan_runs_each_waivers_variant_with_the_line_that_sets_it():
    runs = recheck.plan(finding(None, "lib.x.*", "lib.y.*"), KNOWN, HEADER)
    by = {r["variant"]: r for r in runs}
    assert set(by) == {None, "lib.x.ring", "lib.y.tree"}
    # the library's own choice: the line that sets no variable
    assert (by[None]["ranks"], by[None]["args"], by[None]["env"]) == (
        3,
        ["plain", "5"],
        {},
    )
    # the pattern's variant whose variables a line sets, with that line's
    # process count, arguments and its other control variables (the cliques)
    ring = by["lib.x.ring"]
    assert (ring["ranks"], ring["args"]) == (4, ["ring", "7"])
    assert ring["env"] == {"MPIR_CVAR_NUM_CLIQUES": "2"}
    assert ring["patterns"] == ["lib.x.*"]
    tree = by["lib.y.tree"]
    assert (tree["ranks"], tree["args"], tree["env"]) == (2, ["tree", "9"], {})


def test_a_pattern_that_names_no_variant_of_the_old_release_is_not_applicable():
    runs = recheck.plan(finding("lib.z.*"), KNOWN, HEADER)
    assert len(runs) == 1 and runs[0]["unmatched"]
    assert "names no variant" in runs[0]["note"]
    got = recheck.run_one({}, {}, runs[0], KNOWN, None, 60, runner=pytest.fail)
    assert got["outcome"] == recheck.NOT_APPLICABLE
    assert got["reason"] == "no variant of this release matches lib.z.*"


def test_a_pattern_of_a_newer_releases_variant_runs_there():
    # A finding made on a newer release, under an algorithm the host's release does
    # not have (Open MPI 6's knomial reduce): not applicable on the host, run with
    # the newer release's own variant there, its rows named by the pattern.
    (spec,) = recheck.plan(finding("lib.z.*"), KNOWN, HEADER)
    newer = KNOWN + [{"name": "lib.z.knomial", "env": {"MPIR_CVAR_Z_ALGORITHM": "k"}}]
    seen = []

    def runner(adapter, f, variant, ranks, args, flags, timeout):
        seen.append((variant, ranks, args))
        return result(1, "got 5, expected 3\n")

    got = recheck.run_one({}, {}, spec, newer, None, 60, runner=runner)
    assert got["outcome"] == recheck.FAILS
    assert seen == [
        (
            {"name": "lib.z.knomial", "env": {"MPIR_CVAR_Z_ALGORITHM": "k"}},
            3,
            ["plain", "5"],
        )
    ]
    host = row("host", recheck.NOT_APPLICABLE, variant="lib.z.*")
    new = row("debian-13", recheck.FAILS, variant="lib.z.*", rc=1)
    rows = recheck.classify([host, new])
    assert rows[1]["status"] == recheck.PRESENT
    assert "not applicable on 4.0.2" in rows[1]["note"]


def test_a_waiver_of_the_variant_default_runs_the_librarys_own_choice():
    # Records of the library's own algorithm carry the variant "default"; a
    # waiver bound to it names no variant to force.
    runs = recheck.plan(finding("default"), KNOWN, HEADER)
    assert [(r["variant"], r["env"]) for r in runs] == [(None, {})]
    assert not runs[0].get("unmatched")


def test_two_patterns_that_give_the_same_run_share_it():
    runs = recheck.plan(finding("lib.x.r*", "lib.x.*"), KNOWN, HEADER)
    assert [r["patterns"] for r in runs] == [["lib.x.r*", "lib.x.*"]]


def test_a_routine_argument_follows_the_variants_routine():
    variant = {"targets": [{"routine": "allreduce", "modes": ["nonblocking"]}]}
    assert recheck.routine_argument(["reduce", "4"], variant) == ["iallreduce", "4"]
    assert recheck.routine_argument(["ireduce"], {"targets": []}) == ["ireduce"]
    assert recheck.routine_argument(["7"], variant) == ["7"]


def result(rc=0, output="", compile_rc=0, compile_output="", timed_out=False):
    return {
        "compile": ["mpicc.mpich", "fake.c", "-o", "repro"],
        "compile_rc": compile_rc,
        "compile_output": compile_output,
        "command": ["mpiexec.mpich", "-n", "2", "./repro"],
        "rc": rc,
        "output": output,
        "timed_out": timed_out,
    }


@pytest.mark.parametrize(
    "res,outcome,how",
    [
        (result(0), recheck.PASSES, "exit status 0"),
        (result(1, "wrong sum\n"), recheck.FAILS, "exit status 1"),
        (result(139), recheck.FAILS, "killed by signal 11"),
        (result(-6), recheck.FAILS, "signal 6"),
        (result(255), recheck.FAILS, "exit status 255"),  # not a signal
        (
            result(0, "Abort(1) on node 1: Internal error\n"),
            recheck.FAILS,
            "exit status 0, but the output shows an abort: Abort(1) on node 1",
        ),
        (
            result(0, "repro: x.c:82: unpack: Assertion `0' failed.\n"),
            recheck.FAILS,
            "the output shows an abort: repro: x.c:82: unpack: Assertion `0' failed.",
        ),
        (
            result(11, "... Segmentation fault (signal 11)\n"),
            recheck.FAILS,
            "names signal 11",
        ),
        (result(124, timed_out=True), recheck.FAILS, "time limit (60 s)"),
        (result(None, timed_out=True), recheck.FAILS, "time limit (60 s)"),
    ],
)
def test_what_a_run_shows(res, outcome, how):
    got, ev = recheck.outcome_of(res, 60)
    assert got == outcome
    assert how in ev["how"]
    assert res["rc"] != 255 or "signal" not in ev["how"]
    assert ev["tail"] == [ln for ln in res["output"].splitlines() if ln][-6:]


def test_a_reproducer_that_does_not_build_is_not_applicable_with_its_first_error():
    res = result(
        compile_rc=1,
        compile_output="fake.c: In function 'main':\n"
        "fake.c:3:5: error: 'MPI_Foo' undeclared\nfake.c:4:1: error: more\n",
    )
    got, ev = recheck.outcome_of(res, 60)
    assert got == recheck.NOT_APPLICABLE
    assert ev["first_error"] == "fake.c:3:5: error: 'MPI_Foo' undeclared"
    link = "ld: x.o: in function `MAIN__':\nx.f90:(.text+0xfc): undefined reference to"
    link += " `mpi_f_sync_reg_'\ncollect2: error: ld returned 1 exit status\n"
    assert recheck.first_error(link).startswith("x.f90:(.text+0xfc): undefined ref")
    spec = {"variant": None, "env": {}, "ranks": 2, "args": [], "flags": []}
    row = recheck.run_one({}, {}, spec, [], None, 60, runner=lambda *a: res)
    assert row["reason"] == "does not build: fake.c:3:5: error: 'MPI_Foo' undeclared"


def test_a_variant_or_variable_the_release_lacks_is_not_applicable_and_not_run():
    spec = {"variant": "lib.x.ring", "env": {}, "ranks": 2, "args": [], "flags": []}
    # the release has no variant of that name
    got = recheck.run_one({}, {}, spec, KNOWN[1:], None, 60, runner=pytest.fail)
    assert got["outcome"] == recheck.NOT_APPLICABLE
    assert "not among the release's variants" in got["reason"]
    # the name is there but its control variable is not (MPICH ignores it)
    got = recheck.run_one(
        {}, {}, spec, KNOWN, {"MPIR_CVAR_Y_ALGORITHM"}, 60, runner=pytest.fail
    )
    assert got["outcome"] == recheck.NOT_APPLICABLE
    assert "MPIR_CVAR_X_ALGORITHM, not a control variable" in got["reason"]
    # the line's own variable the release lacks
    spec = dict(spec, variant=None, env={"MPIR_CVAR_NUM_CLIQUES": "2"})
    got = recheck.run_one({}, {}, spec, KNOWN, set(), 60, runner=pytest.fail)
    assert "MPIR_CVAR_NUM_CLIQUES" in got["reason"]
    # both there: it runs with the variant's variables and the line's
    seen = []
    spec = dict(spec, variant="lib.x.ring")
    known_vars = {"MPIR_CVAR_X_ALGORITHM", "MPIR_CVAR_NUM_CLIQUES"}
    got = recheck.run_one(
        {},
        {},
        spec,
        KNOWN,
        known_vars,
        60,
        runner=lambda a, f, variant, *rest: seen.append(variant) or result(0),
    )
    assert got["outcome"] == recheck.PASSES
    assert seen[0]["env"] == {
        "MPIR_CVAR_X_ALGORITHM": "ring",
        "MPIR_CVAR_NUM_CLIQUES": "2",
    }


def row(system, outcome, variant="default", finding="fake", hang=False, times=1, **ev):
    release = {"host": "4.0.2", "debian-13": "4.2.1"}[system]
    one = {"outcome": outcome, "evidence": dict(ev), "seconds": 1.0}
    runs = {"runs": [dict(one, evidence=dict(ev)) for _ in range(times)]}
    return {
        "finding": finding,
        "vendor": "mpich",
        "system": system,
        "release": release,
        "variant": variant,
        "patterns": [] if variant == "default" else [variant],
        "hang": hang,
        "outcome": outcome,
        "reason": "no" if outcome == recheck.NOT_APPLICABLE else None,
        "evidence": dict(ev),
        "seconds": 1.0,
        "note": None,
        **(runs if times > 1 else {}),
    }


def statuses(rows):
    return {
        (r["finding"], r["system"]): (r["status"], r["note"])
        for r in recheck.classify(rows)
    }


def test_the_status_of_each_finding_on_each_release_against_the_control():
    F, P, NA = recheck.FAILS, recheck.PASSES, recheck.NOT_APPLICABLE
    got = statuses(
        [
            row("host", F, finding="gone"),
            row("debian-13", P, finding="gone"),
            row("host", F, finding="stays"),
            row("debian-13", F, finding="stays"),
            row("host", P, finding="never"),
            row("debian-13", P, finding="never"),
            row("host", F, finding="na"),
            row("debian-13", NA, finding="na"),
            row("host", F, finding="hang", hang=True, timed_out=True),
            row("debian-13", F, finding="hang", hang=True, timed_out=True),
            row("host", F, finding="slow", timed_out=True),
        ]
    )
    assert got[("gone", "host")][0] == recheck.PRESENT
    assert got[("gone", "debian-13")][0] == recheck.FIXED
    assert got[("stays", "debian-13")][0] == recheck.PRESENT
    # not reproduced on its own release: never "fixed"
    assert got[("never", "host")][0] == recheck.NOT_REPRODUCED
    assert got[("never", "debian-13")] == (
        recheck.NOT_REPRODUCED,
        "not reproduced on 4.0.2",
    )
    assert got[("na", "debian-13")][0] == recheck.NOT_APPLICABLE
    assert got[("hang", "debian-13")] == (
        recheck.PRESENT,
        "a hang: the finding is a hang",
    )
    assert "not known as one" in got[("slow", "host")][1]


def test_the_control_is_matched_by_variant():
    F, P = recheck.FAILS, recheck.PASSES
    rows = recheck.classify(
        [
            row("host", F, variant="lib.x.ring"),
            row("host", P, variant="default"),
            row("debian-13", P, variant="lib.x.ring"),
            row("debian-13", P, variant="default"),
        ]
    )
    got = {(r["variant"], r["system"]): r["status"] for r in rows}
    assert got[("lib.x.ring", "debian-13")] == recheck.FIXED
    assert got[("default", "debian-13")] == recheck.NOT_REPRODUCED


WAIVERS = """\
{
 "schema": "ordo.waivers/1",
 "vendor": "mpich",
 "waivers": [
  {
   "id": "w-default",
   "test": "*",
   "library_versions": "4.0.2",
   "expires": "2027-06-30",
   "reason": "r",
   "upstream": "none found",
   "examples": {"covers": [{"test": "A.b"}]},
   "reproducer": "vendors/mpich/findings/fake.c"
  },
  {
   "id": "w-ring",
   "test": "*",
   "variant": "lib.x.*",
   "library_versions": "4.0.2",
   "expires": "2027-06-30",
   "reason": "r",
   "upstream": "none found",
   "reproducer": "vendors/mpich/findings/fake.c"
  },
  {
   "id": "w-gone",
   "test": "*",
   "library_versions": ["4.0.2"],
   "expires": "2027-06-30",
   "reason": "r",
   "upstream": "none found",
   "reproducer": "vendors/mpich/findings/gone.c"
  },
  {
   "id": "w-na",
   "test": "*",
   "library_versions": "4.0.2",
   "expires": "2027-06-30",
   "reason": "r",
   "upstream": "none found",
   "reproducer": "vendors/mpich/findings/na.c"
  }
 ]
}
"""


def fake_root(tmp_path):
    folder = tmp_path / "vendors" / "mpich" / "findings"
    folder.mkdir(parents=True)
    for name in ("fake", "gone", "na"):
        (folder / f"{name}.c").write_text("/* fake */\nint main(void) { return 0; }\n")
    (tmp_path / "vendors" / "mpich" / "waivers.json").write_text(WAIVERS)
    return tmp_path


def test_apply_extends_only_the_waivers_whose_run_is_present_there(tmp_path):
    root = fake_root(tmp_path)
    F, P, NA = recheck.FAILS, recheck.PASSES, recheck.NOT_APPLICABLE
    wrong = {"rc": 1, "how": "exit status 1"}  # the reproducer's wrong result
    rows = recheck.classify(
        [
            row("host", F, times=3, **wrong),
            row("debian-13", F, times=3, **wrong),  # the library's own choice
            row("host", F, variant="lib.x.ring", times=3, **wrong),
            row("debian-13", P, variant="lib.x.ring", times=3),  # fixed
            row("host", F, finding="gone", times=3, **wrong),
            row("debian-13", P, finding="gone", times=3),  # fixed
            row("host", F, finding="na", **wrong),
            row("debian-13", NA, finding="na"),  # not applicable
        ]
    )
    doc = {"rows": rows}
    assert recheck.preview(doc, root) == [
        ("mpich", "w-default", ["4.0.2"], ["4.0.2", "4.2.1"])
    ]
    path = root / "vendors" / "mpich" / "waivers.json"
    assert path.read_text() == WAIVERS  # preview writes nothing
    changes = recheck.apply(doc, root)
    assert changes == [("mpich", "w-default", ["4.0.2"], ["4.0.2", "4.2.1"])]
    text = path.read_text()
    # only that field of that waiver changed; the file's own layout stays
    assert text == WAIVERS.replace(
        '"library_versions": "4.0.2",', '"library_versions": ["4.0.2", "4.2.1"],', 1
    )
    after = {w["id"]: w for w in json.loads(text)["waivers"]}
    assert after["w-ring"]["library_versions"] == "4.0.2"
    assert after["w-gone"]["library_versions"] == ["4.0.2"]
    assert after["w-na"]["library_versions"] == "4.0.2"
    # the matcher takes the list: the waiver now covers 4.2.1 and still 4.0.2
    w = after["w-default"]
    for release in ("4.0.2", "4.2.1"):
        assert any(matcher.version_matches(s, release) for s in matcher.versions_of(w))
    assert not any(matcher.version_matches(s, "5.0.2") for s in matcher.versions_of(w))
    # applied twice: nothing more
    assert recheck.apply(doc, root) == []
    assert path.read_text() == text


def test_apply_keeps_to_the_vendor_and_findings_asked(tmp_path):
    # `--recheck --from FILE --apply --vendor V` extended every library's waivers.
    root = fake_root(tmp_path)
    wrong = {"rc": 1, "how": "exit status 1"}
    doc = {
        "rows": recheck.classify(
            [
                row("host", recheck.FAILS, times=3, **wrong),
                row("debian-13", recheck.FAILS, times=3, **wrong),
            ]
        )
    }
    path = root / "vendors" / "mpich" / "waivers.json"
    assert recheck.apply(doc, root, vendors=["openmpi"]) == []
    assert recheck.apply(doc, root, only=["gone"]) == []
    assert path.read_text() == WAIVERS
    assert recheck.apply(doc, root, vendors=["mpich"], only=["fake"]) == [
        ("mpich", "w-default", ["4.0.2"], ["4.0.2", "4.2.1"])
    ]


def test_the_extended_file_follows_the_schema(tmp_path):
    root = fake_root(tmp_path)
    path = root / "vendors" / "mpich" / "waivers.json"
    path.write_text(recheck.extend_text(WAIVERS, "w-default", ["4.2.1", "6.0.0rc2"]))
    got = matcher.load(path)  # raises on a file off the schema
    w = next(x for x in got if x["id"] == "w-default")
    assert w["library_versions"] == ["4.0.2", "4.2.1", "6.0.0rc2"]


def test_an_entry_it_cannot_edit_in_place_is_one_clear_error():
    text = WAIVERS.replace('"id": "w-na",\n', "").replace(
        '   "upstream": "none found",\n   "reproducer": "vendors/mpich/findings/na.c"',
        '   "upstream": "none found",\n   "reproducer": "vendors/mpich/findings/na.c",'
        '\n   "id": "w-na"',
    )
    assert json.loads(text)["waivers"][3]["id"] == "w-na"
    with pytest.raises(OrdoError, match="cannot edit the library_versions of w-na"):
        recheck.extend_text(text, "w-na", ["4.2.1"])


def test_the_markdown_and_json_come_from_an_earlier_result(tmp_path):
    rows = recheck.classify(
        [
            row("host", recheck.FAILS, how="exit status 1"),
            row("debian-13", recheck.PASSES, how="exit status 0"),
        ]
    )
    doc = {
        "schema": recheck.SCHEMA,
        "command": "./ordo findings --recheck",
        "date": "2026-11-27",
        "timeout": 60,
        "vendor_names": ["mpich"],
        "systems": [
            {"system": "host", "vendors": {"mpich": {"release": "4.0.2"}}},
            {"system": "debian-13", "vendors": {"mpich": {"release": "4.2.1"}}},
        ],
        "rows": rows,
    }
    src = tmp_path / "in.json"
    src.write_text(json.dumps(doc))
    p = run_ordo(
        "findings", "--recheck", "--from", str(src), "--out", str(tmp_path / "o")
    )
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "o" / "findings_recheck.md").read_text()
    assert "| fake | default | **present** (exit status 1, 1.0 s) | **fixed**" in md
    assert "- fixed (1): fake (default)" in md
    out = json.loads((tmp_path / "o" / "findings_recheck.json").read_text())
    assert out["rows"][1]["status"] == recheck.FIXED


def test_recheck_with_report_is_one_line_and_exit_2():
    p = run_ordo("findings", "--recheck", "--report", "x")
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "--recheck" in p.stderr


def test_the_plans_of_the_real_findings_name_every_reproducer():
    plans = recheck.make_plans(["mpich", "openmpi"], ROOT)
    ids = {i["id"] for items in plans.values() for i in items}
    assert ids == {
        p.stem for p in ROOT.glob("vendors/*/findings/*") if p.suffix in (".c", ".f90")
    }
    for items in plans.values():
        for item in items:
            assert item["runs"], item["id"]


def test_a_variants_tuning_file_is_given_by_its_path_in_the_checkout():
    # The ch4 compositions name their tuning file as {root}/...: MPICH given
    # the template itself cannot read it and crashes (signal 11) for that
    # reason alone, so the run and the shown command take the path.
    from runner import findings
    from runner.adapters import load_adapter

    adapter = load_adapter("mpich")
    variant = {
        "name": "v",
        "env": {"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE": "{root}/x.json"},
    }
    assert findings.variant_env(adapter, variant) == {
        "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE": f"{ROOT}/x.json"
    }
    words = findings.launch_words(adapter, variant, 2, [])
    assert f"{ROOT}/x.json" in words and not any("{root}" in w for w in words)


PLACED = textwrap.dedent(
    """\
    Finding: a fake on virtual nodes.

      mpicc.openmpi x.c -o repro
      printf 'ordo-node0 slots=2\\nordo-node1 slots=2\\n' > hosts
      M="--hostfile hosts --map-by slot --mca plm_rsh_agent $AGENT \\
         --mca oob_tcp_if_include lo"
      mpiexec.openmpi $M --mca coll_han_priority 100 -n 4 ./repro send 9
      mpiexec.openmpi -n 4 ./repro send 9
    """
)


def test_a_line_on_virtual_hosts_keeps_its_launcher_flags_and_host_file(tmp_path):
    lines = recheck.launch_lines(PLACED)
    agent = str(ROOT / "vendors" / "launchers" / "virtual-node-agent.sh")
    assert lines[0]["placement"] == [
        "--hostfile",
        "hosts",
        "--map-by",
        "slot",
        "--mca",
        "plm_rsh_agent",
        agent,
        "--mca",
        "oob_tcp_if_include",
        "lo",
    ]  # the coll variable is the run's own (its variant's), not a flag
    assert lines[0]["env"]["OMPI_MCA_coll_han_priority"] == "100"
    assert lines[1]["placement"] == []
    assert recheck.host_files(PLACED) == {
        "hosts": "ordo-node0 slots=2\nordo-node1 slots=2\n"
    }
    known = [{"name": "han", "env": {"OMPI_MCA_coll_han_priority": "100"}}]
    (run,) = recheck.plan(finding("han"), known, PLACED)
    assert run["launcher_flags"] == lines[0]["placement"]
    adapter = {"launcher": {"command": "mpiexec.openmpi", "flags": ["--oversubscribe"]}}
    placed = recheck.with_placement(adapter, run, tmp_path)
    flags = placed["launcher"]["flags"]
    assert flags[:3] == ["--oversubscribe", "--hostfile", str(tmp_path / "hosts")]
    assert (
        tmp_path / "hosts"
    ).read_text() == "ordo-node0 slots=2\nordo-node1 slots=2\n"
    assert adapter["launcher"]["flags"] == ["--oversubscribe"]  # not changed


def test_a_kept_output_that_shows_an_abort_fails_a_run_that_exited_0():
    rows = [
        row("host", recheck.FAILS, rc=1, tail=["wrong"]),
        row("debian-13", recheck.PASSES, rc=0, tail=["x", "Abort(1) on node 0: bad"]),
    ]
    got = recheck.classify(recheck.recheck_outcomes(rows))
    assert got[1]["outcome"] == recheck.FAILS
    assert got[1]["status"] == recheck.PRESENT
    assert "Abort(1) on node 0" in got[1]["evidence"]["how"]
    again = recheck.classify(got)  # classified twice: the same notes
    assert [r["note"] for r in again] == [r["note"] for r in got]


# ---- #36: the kind of a failure, repeated runs ------------------------------------


def test_the_exit_codes_a_header_states():
    # the real reproducers' own words: which exit code is their report of a hang
    def stated(name):
        path = next(ROOT.glob(f"vendors/*/findings/{name}.c"))
        return recheck.stated_exits(findings_mod.header(path))

    assert stated("detect_negative_recvcount_then_hang") == {
        3: recheck.TIMEOUT,  # "3 when a step has not returned after 20 s"
        2: recheck.FAIL,  # "2 when ... accepted but nothing hung or aborted"
    }
    assert stated("reduce_scatter_init_noncommutative_padded_type_heap_corruption") == {
        1: recheck.FAIL,
        2: recheck.TIMEOUT,  # "An alarm ends a hang with exit 2"
    }
    assert stated("variant_reduce_scatter_noncommutative_asserts") == {
        1: recheck.FAIL,
        2: recheck.TIMEOUT,  # "2 after 30 s of hanging"
    }
    assert stated("detect_freed_op_crashes")[3] == recheck.TIMEOUT
    assert stated("unsigned_max_min_compare_as_signed") == {1: recheck.FAIL}


@pytest.mark.parametrize(
    "ev,kind",
    [
        ({"rc": 1, "how": "exit status 1", "tail": ["root 0: got 37"]}, "fail"),
        ({"rc": 2, "how": "exit status 2"}, "fail"),  # accepted: not a hang
        ({"rc": 3, "how": "exit status 3"}, "timeout"),  # the alarm's report
        ({"rc": None, "timed_out": True, "how": "ended by the time limit"}, "timeout"),
        ({"rc": 139, "how": "killed by signal 11 (exit status 139)"}, "crash"),
        (
            {"rc": 11, "how": "exit status 11 (the output names signal 11)"},
            "crash",
        ),
        (
            {"rc": 1, "how": "exit status 1", "signs": ["Abort(1) on node 0: x"]},
            "crash",
        ),
        (
            {"rc": 0, "how": "exit status 0, but the output shows an abort: A"},
            "crash",
        ),
    ],
)
def test_the_kind_of_a_failed_run(ev, kind):
    assert recheck.kind_of(ev, {3: recheck.TIMEOUT, 2: recheck.FAIL}) == kind


KINDS = """\
{
 "schema": "ordo.waivers/1",
 "vendor": "mpich",
 "waivers": [
  {"id": "w-hang", "test": "*", "outcome": "timeout", "signature": {"hang": true},
   "library_versions": "4.0.2", "expires": "2027-06-30", "reason": "r",
   "upstream": "none found", "reproducer": "vendors/mpich/findings/hang.c"},
  {"id": "w-segv", "test": "*", "outcome": "crash", "signature": {"signal": 11},
   "library_versions": "4.0.2", "expires": "2027-06-30", "reason": "r",
   "upstream": "none found", "reproducer": "vendors/mpich/findings/segv.c"},
  {"id": "w-text", "test": "*", "outcome": "crash",
   "signature": {"text": "*Assertion failed in file src/x.c*"},
   "library_versions": "4.0.2", "expires": "2027-06-30", "reason": "r",
   "upstream": "none found", "reproducer": "vendors/mpich/findings/text.c"},
  {"id": "w-wrong", "test": "*",
   "library_versions": "4.0.2", "expires": "2027-06-30", "reason": "r",
   "upstream": "none found", "reproducer": "vendors/mpich/findings/wrong.c"}
 ]
}
"""

HANG = {"rc": None, "timed_out": True, "how": "ended by the time limit (60 s)"}
SEGV = {"rc": 139, "how": "killed by signal 11 (exit status 139)"}
ABRT = {"rc": 134, "how": "killed by signal 6 (exit status 134)"}
WRONG = {"rc": 1, "how": "exit status 1", "tail": ["rank 1: got 5, expected 3"]}
ASSERT = {
    "rc": 1,
    "how": "exit status 1",
    "signs": ["Assertion failed in file src/x.c at line 3: 0"],
}


def kinds_root(tmp_path):
    folder = tmp_path / "vendors" / "mpich" / "findings"
    folder.mkdir(parents=True)
    for name in ("hang", "segv", "text", "wrong"):
        (folder / f"{name}.c").write_text("/* fake */\nint main(void) { return 0; }\n")
    (tmp_path / "vendors" / "mpich" / "waivers.json").write_text(KINDS)
    return tmp_path


def new_release(finding, ev, times=3):
    return [
        row("host", recheck.FAILS, finding=finding, times=times, **ev),
        row("debian-13", recheck.FAILS, finding=finding, times=times, **ev),
    ]


@pytest.mark.parametrize(
    "finding,ev,extended",
    [
        ("hang", HANG, True),
        ("hang", SEGV, False),  # a timeout waiver: a crash is not its hang
        ("hang", WRONG, False),
        ("segv", SEGV, True),
        ("segv", ABRT, False),  # a crash, but not the waiver's signal
        ("segv", WRONG, False),  # a wrong result is not the crash
        ("segv", HANG, False),
        ("text", ASSERT, True),
        ("text", SEGV, False),  # its assertion text is not in the output
        ("wrong", WRONG, True),
        ("wrong", SEGV, False),  # a fail waiver: a crash is not its wrong result
        ("wrong", ASSERT, False),  # an abort the output shows: a crash
    ],
)
def test_apply_extends_a_waiver_only_on_its_own_kind_of_failure(
    tmp_path, finding, ev, extended
):
    root = kinds_root(tmp_path)
    doc = {"rows": recheck.classify(new_release(finding, ev))}
    assert doc["rows"][1]["status"] == recheck.PRESENT  # the finding fails there
    got = recheck.preview(doc, root)
    assert bool(got) == extended, got
    (d,) = recheck.decisions(doc, root)
    assert d["extend"] == extended
    if not extended:
        assert "mismatch" in d["why"] or "signature not shown" in d["why"]


def test_apply_extends_a_waiver_bound_to_the_variant_default(tmp_path):
    # A waiver whose variant is "default" (the library's own choice) is
    # rechecked in the run without a variant; --apply must read that run as
    # its own (it found none and extended nothing).
    root = kinds_root(tmp_path)
    text = KINDS.replace(
        '{"id": "w-wrong", "test": "*",',
        '{"id": "w-wrong", "test": "*", "variant": "default",',
    )
    (root / "vendors" / "mpich" / "waivers.json").write_text(text)
    doc = {"rows": recheck.classify(new_release("wrong", WRONG))}
    (d,) = recheck.decisions(doc, root)
    assert d["waiver"] == "w-wrong" and d["extend"]
    assert recheck.preview(doc, root)


def test_a_run_that_fails_some_times_is_intermittent_and_not_extended(tmp_path):
    root = kinds_root(tmp_path)
    host = row("host", recheck.FAILS, finding="wrong", times=3, **WRONG)
    new = row("debian-13", recheck.FAILS, finding="wrong", times=3, **WRONG)
    new["runs"][1] = {"outcome": recheck.PASSES, "evidence": {"rc": 0}, "seconds": 1}
    new["outcome"] = recheck.VARIES
    doc = {"rows": recheck.classify([host, new])}
    assert doc["rows"][1]["status"] == recheck.INTERMITTENT
    assert "failed 2 of 3 runs" in doc["rows"][1]["note"]
    assert recheck.preview(doc, root) == []
    (d,) = recheck.decisions(doc, root)
    assert not d["extend"] and d["why"] == "intermittent: failed 2 of 3 runs"
    # a release where it passes every time against an intermittent control:
    # not "fixed"
    host["runs"][0] = dict(new["runs"][1])
    host["outcome"] = recheck.VARIES
    ok = row("debian-13", recheck.PASSES, finding="wrong", times=3)
    rows = recheck.classify([host, ok])
    assert [r["status"] for r in rows] == [recheck.INTERMITTENT, recheck.NOT_REPRODUCED]
    assert "intermittent on 4.0.2" in rows[1]["note"]


def test_apply_needs_three_runs(tmp_path):
    root = kinds_root(tmp_path)
    doc = {"rows": recheck.classify(new_release("wrong", WRONG, times=1))}
    assert doc["rows"][1]["status"] == recheck.PRESENT
    assert recheck.preview(doc, root) == []
    (d,) = recheck.decisions(doc, root)
    assert "--apply needs 3" in d["why"]


def test_the_times_of_a_run_make_one_row():
    def t(outcome, s):
        return {"outcome": outcome, "evidence": {"how": outcome}, "seconds": s}

    got = recheck.merge_times([t("passes", 1.0), t("fails", 2.0), t("fails", 3.0)])
    assert got["outcome"] == recheck.VARIES
    assert got["seconds"] == 6.0
    assert got["evidence"] == {"how": "fails"}  # a failing time's evidence
    assert [x["outcome"] for x in got["runs"]] == ["passes", "fails", "fails"]
    assert recheck.merge_times([t("fails", 1.0)] * 3)["outcome"] == recheck.FAILS


def test_a_kept_output_gives_the_signs_a_signature_is_matched_against(tmp_path):
    out = tmp_path / "o.txt"
    out.write_text(
        "line\n" * 50
        + "Assertion failed in file src/x.c at line 3: 0\n"
        + "frame\n" * 20
    )
    ev = dict(rc=1, how="exit status 1", tail=["frame"], output_file=str(out))
    root = kinds_root(tmp_path)
    doc = {"rows": recheck.classify(new_release("text", ev))}
    run = doc["rows"][1]["runs"][0]
    assert run["evidence"]["signs"] == ["Assertion failed in file src/x.c at line 3: 0"]
    assert run["kind"] == recheck.CRASH
    assert recheck.preview(doc, root)


def test_repeat_below_one_is_one_line_and_exit_2():
    p = run_ordo("findings", "--recheck", "--repeat", "0")
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "--repeat" in p.stderr


MODES = textwrap.dedent(
    """\
    Finding: a fake of several modes, one bug each.

      mpicc.mpich x.c -o repro
      mpiexec.mpich -n 3 ./repro 1   # 1 the first routine, 8 the persistent one
      mpiexec.mpich -n 4 ./repro 8 high

    Exits 0 when every call is right.
    """
)


def test_a_waiver_with_its_own_arguments_has_a_run_of_its_own_mode():
    # Each waiver of a reproducer of several modes is rechecked in the mode that
    # shows its bug: the run of another mode is no evidence of it.
    f = {
        "id": "modes",
        "vendor": "mpich",
        "path": "vendors/mpich/findings/modes.c",
        "waivers": [
            {"id": "w-first", "variant": "default"},
            {
                "id": "w-persistent",
                "variant": "default",
                "reproducer_args": ["8", "high"],
            },
            {"id": "w-missing", "reproducer_args": ["9"]},
            {"id": "w-alone", "reproducer_args": ["1"], "reproducer_ranks": 1},
            {"id": "w-ring", "variant": "lib.x.*", "reproducer_args": ["8", "high"]},
        ],
    }
    runs = recheck.plan(f, KNOWN, MODES)
    got = [(r["variant"], r["ranks"], r["args"], r["waivers"]) for r in runs]
    assert got == [
        (None, 3, ["1"], ["w-first"]),
        (None, 4, ["8", "high"], ["w-persistent"]),
        (None, 3, ["9"], ["w-missing"]),
        (None, 1, ["1"], ["w-alone"]),
        ("lib.x.ring", 4, ["8", "high"], ["w-ring"]),
    ]
    assert (
        "no launch line of the header has the waiver's arguments 9" in runs[2]["note"]
    )


def test_apply_reads_each_waiver_of_a_mode_in_its_own_run_only(tmp_path):
    folder = tmp_path / "vendors" / "mpich" / "findings"
    folder.mkdir(parents=True)
    (folder / "modes.c").write_text("/* fake */\nint main(void) { return 0; }\n")
    entry = (
        '"test": "*", "library_versions": "4.0.2", "expires": "2027-06-30",'
        ' "reason": "r", "upstream": "none found",'
        ' "reproducer": "vendors/mpich/findings/modes.c"'
    )
    (tmp_path / "vendors" / "mpich" / "waivers.json").write_text(
        '{"schema": "ordo.waivers/1", "vendor": "mpich", "waivers": ['
        f'{{"id": "w-first", {entry}}},'
        f'{{"id": "w-persistent", "reproducer_args": ["8", "high"], {entry}}}]}}'
    )

    def mode(system, outcome, args, waiver):
        r = row(system, outcome, finding="modes", times=3, **WRONG)
        r.update(args=args, ranks=3 if args == ["1"] else 4, waivers=[waiver])
        return r

    rows = [
        mode("host", recheck.FAILS, ["1"], "w-first"),
        mode("host", recheck.FAILS, ["8", "high"], "w-persistent"),
        mode("debian-13", recheck.FAILS, ["1"], "w-first"),
        mode("debian-13", recheck.PASSES, ["8", "high"], "w-persistent"),
    ]
    doc = {"rows": recheck.classify(rows)}
    # each mode against its own control on the host
    assert [r["status"] for r in doc["rows"][2:]] == [recheck.PRESENT, recheck.FIXED]
    got = {d["waiver"]: d["extend"] for d in recheck.decisions(doc, tmp_path)}
    # the first mode fails on 4.2.1: only its waiver is extended there
    assert got == {"w-first": True}
    text = recheck.markdown(
        {
            "command": "c",
            "date": "d",
            "timeout": 60,
            "vendor_names": ["mpich"],
            "systems": [
                {"system": s, "vendors": {"mpich": {"release": v, "os": "o"}}}
                for s, v in (("host", "4.0.2"), ("debian-13", "4.2.1"))
            ],
            "rows": doc["rows"],
        }
    )
    assert "| modes | default (`8 high`, 4 processes) |" in text
    assert "| modes | default (`1`, 3 processes) |" in text


def test_an_exit_the_header_gives_a_missing_routine_is_not_applicable():
    # detect_intercomm_in_place_crashes.c: "4 when the library has no
    # MPI_Reduce_init". Open MPI 4.1.4 exits 4 in that mode: it cannot show the
    # bug there, which is no "present" (and no control for a newer release).
    path = "vendors/openmpi/findings/detect_intercomm_in_place_crashes.c"
    assert recheck.stated_exits(findings_mod.header(ROOT / path)) == {
        2: recheck.FAIL,
        3: recheck.TIMEOUT,
        4: recheck.NOT_APPLICABLE,
        5: recheck.PASSES,
    }
    spec = {"variant": None, "env": {}, "ranks": 3, "args": ["8"], "flags": []}
    finding = {"id": "detect_intercomm_in_place_crashes", "path": path}
    row = recheck.run_one({}, finding, spec, [], None, 60, runner=lambda *a: result(4))
    assert row["outcome"] == recheck.NOT_APPLICABLE
    assert "exit status 4" in row["reason"] and "lacks" in row["reason"]
    # exit 2 (the call returned MPI_SUCCESS) stays the reproducer's report of the bug
    row = recheck.run_one({}, finding, spec, [], None, 60, runner=lambda *a: result(2))
    assert row["outcome"] == recheck.FAILS


def test_an_exit_the_header_gives_an_error_reported_elsewhere_passes():
    # detect_intercomm_in_place_crashes.c mode 6 at 3 processes: two processes
    # return MPI_ERR_ARG and the third waits in MPI_Reduce for them ("5 when it
    # has not returned after 20 s while another process returned the error (the
    # error is reported: ...)"). ordo's DETECT check counts that as reported; the
    # reproducer's exit 3 had read it as the hang of Open MPI 4.1.4's finding.
    path = "vendors/openmpi/findings/detect_intercomm_in_place_crashes.c"
    spec = {"variant": None, "env": {}, "ranks": 3, "args": ["6"], "flags": []}
    finding = {"id": "detect_intercomm_in_place_crashes", "path": path}
    row5 = recheck.run_one({}, finding, spec, [], None, 60, runner=lambda *a: result(5))
    assert row5["outcome"] == recheck.PASSES
    assert "exit status 5" in row5["reason"] and "reported" in row5["reason"]
    # no process returned an error: the hang, as before
    row3 = recheck.run_one({}, finding, spec, [], None, 60, runner=lambda *a: result(3))
    assert row3["outcome"] == recheck.FAILS
    # and in an earlier result (--from FILE)
    r = row("host", recheck.FAILS, finding="detect_intercomm_in_place_crashes", rc=5)
    r["vendor"] = "openmpi"
    r["path"] = path
    (got,) = recheck.classify([r])
    assert got["outcome"] == recheck.PASSES


def test_a_missing_routines_exit_in_an_earlier_result_is_not_applicable_too():
    # rows written before the header's exit was read so (--from FILE)
    r = row("host", recheck.FAILS, finding="detect_intercomm_in_place_crashes", rc=4)
    r["vendor"] = "openmpi"
    r["path"] = "vendors/openmpi/findings/detect_intercomm_in_place_crashes.c"
    (got,) = recheck.classify([r])
    assert got["status"] == recheck.NOT_APPLICABLE
    assert "exit status 4" in got["reason"]
