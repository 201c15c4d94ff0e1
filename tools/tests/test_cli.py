"""Bad input to the command line: one clear line, exit code 2, nothing recorded is
lost."""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
ORDO = str(ROOT / "ordo")


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(
        [ORDO, *args], capture_output=True, text=True, env=e, timeout=120
    )


def one_line_error(p, code=2):
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("ordo: ")
    return lines[0]


def test_unknown_vendor_names_the_known_ones():
    line = one_line_error(run("run", "--vendor", "nosuchmpi"))
    assert (
        "unknown vendor 'nosuchmpi'" in line and "mpich" in line and "openmpi" in line
    )


def test_malformed_ranks_are_refused():
    for bad in ("1,x", "0", "5-2", "", "-3"):
        line = one_line_error(run("run", "--ranks", bad))
        assert "--ranks" in line


def test_env_without_equals_is_refused():
    line = one_line_error(run("run", "--env", "FOO"))
    assert "KEY=VALUE" in line


def test_a_crossing_depth_other_than_2_or_3_is_refused():
    for bad in ("1", "4", "0"):
        line = one_line_error(run("run", "--depth", bad))
        assert "--depth" in line and "pairs (2) or triples (3)" in line


def test_huge_takes_no_value_and_a_bad_argument_is_one_line():
    line = one_line_error(run("run", "--huge=yes"))
    assert (
        "--huge" in line
        and "ignored explicit argument 'yes'" in line
        and "ordo run --help" in line
    )
    line = one_line_error(run("run", "--depth", "x"))
    assert "--depth" in line and "invalid int value" in line


def test_missing_mpi_library_says_what_to_install(tmp_path):
    adapter = json.loads((ROOT / "vendors" / "mpich" / "adapter.json").read_text())
    adapter["name"] = "ghost"
    adapter["compilers"] = {"c": "mpicc.ghost", "cxx": "mpicxx.ghost"}
    adapter["launcher"]["command"] = "mpiexec.ghost"
    adapter["packages"] = ["ghost-mpi-dev"]
    path = tmp_path / "adapter.json"
    path.write_text(json.dumps(adapter))
    line = one_line_error(
        run("run", "--vendor", str(path), "--out", str(tmp_path / "out"))
    )
    assert (
        "mpicc.ghost not found" in line and "apt-get install -y ghost-mpi-dev" in line
    )
    assert not (tmp_path / "out").exists()


def test_malformed_adapter_file_is_refused(tmp_path):
    path = tmp_path / "adapter.json"
    path.write_text("{ not json")
    line = one_line_error(run("run", "--vendor", str(path)))
    assert "malformed adapter file" in line
    path.write_text(json.dumps({"name": "x"}))
    line = one_line_error(run("run", "--vendor", str(path)))
    assert "no 'launcher'" in line


def test_an_output_folder_with_a_run_is_refused_and_kept(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    journal = out / "journal.jsonl"
    journal.write_text('{"id": "kept", "outcome": "pass"}\n')
    line = one_line_error(run("run", "--out", str(out)))
    assert "already holds a run" in line
    assert journal.read_text() == '{"id": "kept", "outcome": "pass"}\n'


def test_replay_refuses_a_case_that_is_not_json():
    line = one_line_error(run("replay", "--case", "{oops"))
    assert "--case is not a JSON object" in line


def test_missing_packages_without_root_print_the_command(tmp_path):
    # ORDO_NO_INSTALL=1 with a package list that cannot be satisfied: the
    # installer must name the apt-get command and exit 2.
    script = ROOT / "tools" / "install-deps.sh"
    p = subprocess.run(
        [
            "bash",
            "-c",
            (
                f"sed 's/^  cmake /  ordo-no-such-package cmake /' {script} >"
                f" {tmp_path}/d.sh && ORDO_NO_INSTALL=1 bash {tmp_path}/d.sh"
            ),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert "ordo-no-such-package" in p.stderr and "apt-get install -y" in p.stderr


def test_a_waiver_that_names_a_variant_applies_to_that_variant_only(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    from runner.waivers import JobWaivers

    (tmp_path / "waivers.json").write_text(
        json.dumps(
            {
                "schema": "ordo.waivers/1",
                "vendor": "x",
                "waivers": [
                    {
                        "id": "w-variant",
                        "outcome": "crash",
                        "variant": "lib.ireduce.tsp_*",
                        "test": "*",
                        "signature": {"text": "*Assertion failed in file tree.c*"},
                        "library_versions": "4.0.2",
                        "case": {"routine": "reduce"},
                        "reason": "r",
                        "upstream": "u",
                        "expires": "2099-12-31",
                    }
                ],
            }
        )
    )
    adapter = {"_dir": str(tmp_path)}

    def outcome(variant, routine="reduce"):
        record = {
            "outcome": "crash",
            "test": "T.t",
            "variant": variant,
            "case": {"routine": routine},
            "message": (
                "this case ended the job (exit code 6); last output: Assertion failed"
                " in file tree.c"
            ),
        }
        return JobWaivers(adapter, "4.0.2").apply(record)["outcome"]

    assert outcome("lib.ireduce.tsp_tree") == "waived"
    assert outcome("lib.ireduce.tsp_ring") == "waived"
    assert outcome("default") == "crash"
    assert outcome("lib.ireduce.binomial") == "crash"
    assert outcome("lib.ireduce.tsp_tree", routine="allreduce") == "crash"


def _two_rank_counts_journal(tmp_path):
    # One id at two rank counts, each its own case (each rank count's crossing array
    # is its own): a replay of the 3-rank failure must not run the 2-rank case.
    journal = tmp_path / "journal.jsonl"
    recs = [
        {
            "id": "Crossing.x#7",
            "ranks": r,
            "variant": "default",
            "outcome": o,
            "case": {"routine": "reduce", "count": c},
        }
        for r, c, o in ((2, 5, "pass"), (3, 65536, "timeout"))
    ]
    journal.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return journal


def test_replay_of_an_id_at_several_rank_counts_needs_ranks(tmp_path):
    journal = _two_rank_counts_journal(tmp_path)
    line = one_line_error(run("replay", "--record", f"{journal}:Crossing.x#7"))
    assert "2 rank counts (2, 3)" in line and "--ranks" in line
    line = one_line_error(
        run("replay", "--record", f"{journal}:Crossing.x#7", "--ranks", "5")
    )
    assert "no record with a case and id 'Crossing.x#7' at 5 ranks" in line


def test_replay_takes_the_record_of_the_rank_count_it_is_given(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    from runner.replay import pick_records

    journal = _two_rank_counts_journal(tmp_path)
    recs = [json.loads(x) for x in journal.read_text().splitlines()]
    got = pick_records(recs, "Crossing.x#7", str(journal), None, 3)
    assert [r["case"]["count"] for r in got] == [65536]
    got = pick_records(recs, "Crossing.x#7", str(journal), "default", 2)
    assert [r["case"]["count"] for r in got] == [5]


def test_a_replay_whose_library_dies_in_mpi_finalize_fails_and_says_so(
    tmp_path, capsys
):
    # The case passed (exit 0) and the executable ran to its end (.done with
    # the promise of 3 ranks' markers), but rank 1's MPI_Finalize did not
    # return: a launcher may exit 0 after an abort there.
    from runner import replay

    journal = tmp_path / "journal.jsonl"
    (tmp_path / "journal.jsonl.done").write_text("0\nfinalized 3\n")
    for rank in (0, 2):
        (tmp_path / f"journal.jsonl.finalized.{rank}").write_text("")
    assert replay.replay_status(0, journal, 3) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("ordo replay: the job died after the case (pass)")
    assert "did not return on rank(s) 1 of 3" in line
    # Every rank's marker there: the case's own status.
    (tmp_path / "journal.jsonl.finalized.1").write_text("")
    assert replay.replay_status(0, journal, 3) == 0
    assert replay.replay_status(1, journal, 3) == 1
    # A job that died in the case (no .done): the job died, as before.
    assert replay.replay_status(137, tmp_path / "other.jsonl", 3) == 3
    assert capsys.readouterr().out == ""
