"""Interruptions, full disks, locks and bad folders: `ordo run` loses nothing
it has recorded, says in one line what went wrong, and finishes with --resume.

The tests marked `mpi` run real jobs in the builds `./ordo test` has made
(build/mpich, build/mutants); they are skipped with the reason when a build
is missing."""
import fcntl
import gzip
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest
from conftest import BUILD, journal_records as records, needs_build
from reports import results
from reports.records import HELD_BACK

ROOT = pathlib.Path(__file__).resolve().parents[2]
ORDO = str(ROOT / "ordo")
# A small run: the Reduce and Reduce_local checks of one executable, about a hundred
# checks, a few seconds.
SMALL = [
    "--filter",
    "noncommutative",
    "--only",
    "Reduce.*:Reduce_local.*",
    "--ranks",
    "1-3",
    "--property-budget",
    "0",
]


def run(*args, env=None, timeout=600):
    e = dict(os.environ, ORDO_NO_INSTALL="1")
    e.update(env or {})
    return subprocess.run(
        [ORDO, *args], capture_output=True, text=True, env=e, timeout=timeout
    )


def one_line_error(p, codes=(2, 3)):
    assert p.returncode in codes, (p.returncode, p.stdout[-2000:], p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("ordo: ")
    return lines[0]


def record_set(out):
    return sorted(
        (r.get("variant"), r.get("ranks"), r.get("id"), r.get("outcome"))
        for r in records(out)
    )


def snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


# ---- no MPI needed -----------------------------------------------------------


def test_a_second_run_into_a_locked_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".ordo.lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("pid 4242 on testhost\n")
        held.flush()
        line = one_line_error(run("run", "--out", str(out), *SMALL), codes=(2,))
    assert "another ordo run is writing into" in line and "--out" in line
    assert not (out / "journal.jsonl").exists()


def test_resume_of_a_folder_without_a_run_is_refused(tmp_path):
    line = one_line_error(run("run", "--resume", str(tmp_path)), codes=(2,))
    assert "holds no run.json" in line


def test_resume_of_a_corrupt_run_file_is_refused_and_the_journal_kept(tmp_path):
    (tmp_path / "run.json").write_text('{"schema": "ordo.run/1", "sett')
    (tmp_path / "journal.jsonl").write_text('{"id": "kept"}\n')
    before = snapshot(tmp_path)
    line = one_line_error(run("run", "--resume", str(tmp_path)), codes=(2,))
    assert "run.json is unreadable or corrupt" in line and "ordo report" in line
    assert snapshot(tmp_path) == before


def test_resume_of_a_finished_run_is_refused(tmp_path):
    (tmp_path / "run.json").write_text(
        json.dumps(
            {
                "schema": "ordo.run/1",
                "end": "2026-11-22T06:00:00+00:00",
                "settings": {"vendor": "mpich"},
            }
        )
    )
    line = one_line_error(run("run", "--resume", str(tmp_path)), codes=(2,))
    assert "nothing to resume" in line


def test_an_unknown_variant_is_refused_in_one_line(tmp_path):
    line = one_line_error(
        run(
            "run",
            "--vendor",
            "mpich",
            "--variants",
            "no-such-algorithm",
            "--out",
            str(tmp_path / "o"),
        ),
        codes=(2,),
    )
    assert "no-such-algorithm" in line and "list variants" in line
    assert not (tmp_path / "o").exists()


def test_a_missing_launcher_is_named(tmp_path):
    adapter = json.loads((ROOT / "vendors" / "mpich" / "adapter.json").read_text())
    adapter["launcher"]["command"] = "mpiexec.nowhere"
    path = tmp_path / "adapter.json"
    path.write_text(json.dumps(adapter))
    line = one_line_error(
        run("run", "--vendor", str(path), "--out", str(tmp_path / "o")), codes=(2,)
    )
    assert "mpiexec.nowhere not found" in line and "apt-get install" in line


def test_an_adapter_template_needs_its_environment_variable(tmp_path):
    adapter = json.loads((ROOT / "vendors" / "mpich" / "adapter.json").read_text())
    adapter["launcher"]["flags"] = ["-f", "{env:ORDO_TEST_HOSTFILE}"]
    path = tmp_path / "adapter.json"
    path.write_text(json.dumps(adapter))
    env = {k: v for k, v in os.environ.items() if k != "ORDO_TEST_HOSTFILE"}
    p = subprocess.run(
        [ORDO, "run", "--vendor", str(path), "--out", str(tmp_path / "o"), *SMALL],
        capture_output=True,
        text=True,
        env=dict(env, ORDO_NO_INSTALL="1"),
        timeout=600,
    )
    line = one_line_error(p, codes=(2,))
    assert "ORDO_TEST_HOSTFILE" in line


def test_a_reproducer_folder_that_cannot_be_written_is_refused_before_anything_runs(
    tmp_path,
):
    out = tmp_path / "out"
    out.mkdir()
    (out / "reproducers").write_text("a file where the folder should be\n")
    line = one_line_error(
        run(
            "run",
            "--out",
            str(out),
            "--filter",
            "noncommutative",
            "--ranks",
            "2",
            "--property-budget",
            "5",
        ),
        codes=(2,),
    )
    assert "reproducer folder" in line and str(out / "reproducers") in line
    assert (out / "reproducers").read_text() == "a file where the folder should be\n"


def test_a_truncated_journal_line_is_reported_in_one_line_and_nothing_is_lost(tmp_path):
    import conftest

    out = tmp_path / "run"
    out.mkdir()
    good = [conftest.record(index=i) for i in range(3)]
    text = (
        "".join(json.dumps(r) + "\n" for r in good)
        + json.dumps(conftest.record(index=3))[:57]
    )
    (out / "journal.jsonl").write_text(text)
    (out / "run.json").write_text(json.dumps(conftest.run_json(end=False)))
    p = run("report", str(out))
    line = one_line_error(p, codes=(3,))
    assert "could not be read" in line and "--resume" in line
    assert (out / "journal.jsonl").read_text() == text
    report = results.load(out)
    assert (
        report["partial"]
        and sum(r["outcome"] == "pass" for r in report["records"]) == 3
    )


def test_resume_sets_a_cut_last_line_aside():
    from runner.journal import repair_journal
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        j = pathlib.Path(d) / "journal.jsonl"
        j.write_text('{"a": 1}\n{"b": 2}\n{"c": ')
        assert repair_journal(j) == len('{"c": ')
        assert j.read_text() == '{"a": 1}\n{"b": 2}\n'
        assert (pathlib.Path(d) / "journal.jsonl.damaged").read_text() == '{"c": \n'
        assert repair_journal(j) == 0


def _run_with_settings(end):
    """A synthetic run.json with the settings `ordo run --vendor mpich` records (what
    --resume reads)."""
    import conftest
    from ordo_cli import build_parser
    from runner.run import RUN_SETTINGS

    args = build_parser().parse_args(["run", "--vendor", "mpich"])
    return conftest.run_json(
        end=end, settings={k: getattr(args, k) for k in RUN_SETTINGS}
    )


def _without_generated(report):
    """A report but for when and how it was made and stored."""
    return {k: v for k, v in report.items() if k not in ("generated", "stored_as")}


def test_a_finished_run_keeps_its_journal_compressed_and_every_reader_reads_it(
    tmp_path, capsys
):
    """The end of `ordo run` (runner/run.py finish): journal.jsonl becomes
    journal.jsonl.gz, every byte kept; the report made then, `ordo report` again, a
    package and `ordo compare --records` read it; a finished run is not resumed and its
    folder takes no new run."""
    import conftest
    from runner.run import finish

    out = conftest.write_run(
        tmp_path / "run", conftest.sample_records(), run=_run_with_settings(end=True)
    )
    plain = (out / "journal.jsonl").read_bytes()
    # the report of the plain journal, as before
    reference = shutil.copytree(out, tmp_path / "reference")
    expected = results.build(reference)
    run_json = json.loads((out / "run.json").read_text())
    # the sample run has failures
    assert finish(out, out / "journal.jsonl", "mpich", run_json) == 1
    assert not (out / "journal.jsonl").exists()
    assert gzip.decompress((out / "journal.jsonl.gz").read_bytes()) == plain
    assert f"journal: {out / 'journal.jsonl.gz'}" in capsys.readouterr().out
    written = results.load(out)
    assert _without_generated(written) == _without_generated(expected)
    assert written["generated"]["from"] == [
        str(out / "run.json"),
        str(out / "journal.jsonl.gz"),
    ]
    # `ordo report` regenerates the same report from the compressed journal
    p = run("report", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    again = results.load(out)
    assert _without_generated(again) == _without_generated(written)
    assert again["generated"]["from"] == written["generated"]["from"]
    # compare --records reads it (same records as the plain journal's folder)
    p = run("compare", "--records", str(reference), str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    # a package keeps it as it is
    p = run("package", str(out), "--dest", str(tmp_path / "pkg"))
    assert p.returncode == 0 and "verify: OK" in p.stdout, p.stdout + p.stderr
    assert (tmp_path / "pkg" / "run" / "journal.jsonl.gz").read_bytes() == (
        out / "journal.jsonl.gz"
    ).read_bytes()
    # a finished run is not resumed, and its folder takes no new run
    packed = (out / "journal.jsonl.gz").read_bytes()
    assert "nothing to resume" in one_line_error(
        run("run", "--resume", str(out)), codes=(2,)
    )
    line = one_line_error(
        run("run", "--vendor", "mpich", "--out", str(out)), codes=(2,)
    )
    assert (
        "already holds a run (journal.jsonl.gz)" in line
        and "choose another --out" in line
    )
    assert (out / "journal.jsonl.gz").read_bytes() == packed and not (
        out / "journal.jsonl"
    ).exists()


def test_resume_of_a_folder_whose_journal_is_compressed_is_refused(tmp_path):
    """A compressed journal is a finished run's, even when run.json lost its end:
    --resume would start a second, plain journal beside it."""
    import conftest

    out = conftest.write_run(
        tmp_path / "run", conftest.sample_records(), run=_run_with_settings(end=False)
    )
    packed = gzip.compress((out / "journal.jsonl").read_bytes())
    (out / "journal.jsonl.gz").write_bytes(packed)
    (out / "journal.jsonl").unlink()
    line = one_line_error(run("run", "--resume", str(out)), codes=(2,))
    assert "journal.jsonl.gz" in line and "nothing to resume" in line
    assert (out / "journal.jsonl.gz").read_bytes() == packed and not (
        out / "journal.jsonl"
    ).exists()


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB tmpfs (root only): a disk that fills up."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.call(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
            stderr=subprocess.DEVNULL,
        )
        != 0
    ):
        pytest.skip("mounting a small tmpfs needs root (the full-disk tests)")
    yield mnt
    subprocess.call(["umount", "-l", str(mnt)])


def test_a_full_disk_while_writing_a_report_keeps_the_run(tiny_disk, tmp_path):
    import conftest

    src = tmp_path / "run"
    src.mkdir()
    recs = [
        conftest.record(index=i, message="x" * 2000) for i in range(40)
    ]  # more than 64 KiB of report
    (src / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (src / "run.json").write_text(json.dumps(conftest.run_json()))
    before = snapshot(src)
    line = one_line_error(
        run("report", str(src), "--out", str(tiny_disk)), codes=(2, 3)
    )
    assert "No space left on device" in line
    assert snapshot(src) == before


def test_a_full_disk_when_the_journal_is_compressed_keeps_it_plain(tiny_disk):
    from runner.journal import compress_journal

    journal = tiny_disk / "journal.jsonl"
    text = "".join(
        json.dumps({"id": f"r{i}", "data": os.urandom(48).hex()}) + "\n"
        for i in range(200)
    )
    journal.write_text(text)  # about 30 KB that gzip cannot halve
    filler = tiny_disk / "filler"
    try:
        with open(filler, "wb") as f:  # the rest of the disk
            while True:
                f.write(b"x" * 1024)
                f.flush()
    except OSError:
        pass
    assert compress_journal(journal) == journal
    assert journal.read_text() == text
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["filler", "journal.jsonl"]
    filler.unlink()
    assert compress_journal(journal) == tiny_disk / "journal.jsonl.gz"
    assert (
        gzip.decompress((tiny_disk / "journal.jsonl.gz").read_bytes()).decode() == text
    )
    assert not journal.exists()


@pytest.fixture(scope="module")
def small_whole(tmp_path_factory):
    """One uninterrupted SMALL run against MPICH, read (never changed) by the
    tests that compare an interrupted and resumed run with it."""
    needs_build("mpich")
    whole = tmp_path_factory.mktemp("small") / "whole"
    p = run("run", "--vendor", "mpich", "--out", str(whole), *SMALL)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    return whole


# ---- real jobs -----------------------------------------------------------------


def test_a_run_killed_with_sigkill_and_resumed_has_the_records_of_an_uninterrupted_run(
    tmp_path, small_whole
):
    whole = small_whole
    n_whole = len(records(whole))
    assert n_whole > 100

    cut = tmp_path / "cut"
    e = dict(os.environ, ORDO_NO_INSTALL="1")
    proc = subprocess.Popen(
        [ORDO, "run", "--vendor", "mpich", "--out", str(cut), *SMALL],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=e,
    )
    deadline = time.time() + 300
    journal = cut / "journal.jsonl"
    while time.time() < deadline:  # kill it halfway through its records
        if journal.exists() and journal.read_bytes().count(b"\n") >= n_whole // 2:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(records(cut)) if journal.read_text().endswith("\n") else None
    assert partial is None or partial < n_whole, "the run ended before it was killed"
    run_json = json.loads((cut / "run.json").read_text())
    assert run_json["end"] is None

    # A report of the partial run says it is partial.
    rep = run("report", str(cut))
    assert rep.returncode in (0, 3), rep.stderr
    assert results.load(cut)["partial"]

    p = run("run", "--resume", str(cut))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert "resuming" in p.stdout
    assert record_set(cut) == record_set(whole)
    assert json.loads((cut / "run.json").read_text())["end"]
    assert not results.load(cut)["partial"]
    # finished: its journal compressed, as an uninterrupted run's; a finished run is not
    # resumed
    for d in (whole, cut):
        assert (d / "journal.jsonl.gz").is_file() and not (d / "journal.jsonl").exists()
    assert "nothing to resume" in one_line_error(
        run("run", "--resume", str(cut)), codes=(2,)
    )


def test_a_full_disk_during_a_run_stops_it_in_one_line_and_resume_finishes_it(
    tiny_disk, small_whole
):
    whole = small_whole
    # Room for the files a run writes before its first record (run.json with the
    # build's identity, each rank's environment) and a few records, not for the run.
    subprocess.check_call(["mount", "-o", "remount,size=96k", str(tiny_disk)])
    out = tiny_disk / "run"
    p = run("run", "--vendor", "mpich", "--out", str(out), *SMALL)
    line = one_line_error(p, codes=(3,))
    assert "No space left on device" in line or "cannot write" in line
    kept = (out / "journal.jsonl").read_bytes()
    assert kept.count(b"\n") > 0
    subprocess.check_call(["mount", "-o", "remount,size=64m", str(tiny_disk)])
    p = run("run", "--resume", str(out))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert gzip.decompress((out / "journal.jsonl.gz").read_bytes()).startswith(
        kept.rsplit(b"\n", 1)[0]
    )
    assert record_set(out) == record_set(whole)


def test_a_library_that_hangs_in_one_case_and_crashes_in_another_is_run_to_the_end(
    tmp_path,
):
    needs_build("mutants")
    out = tmp_path / "out"
    # The mutant MPI with two faults: MPI_Reduce hangs at 4 ranks, MPI_Allreduce
    # of 1000 elements or more crashes. The check below runs both routines at
    # 1 and 1000 elements on several types.
    p = run(
        "run",
        "--vendor",
        "mutants",
        "--env",
        "ORDO_MUTANT=hang-reduce-at-4-ranks,crash-allreduce-large-count",
        "--ranks",
        "4",
        "--filter",
        "determinism",
        "--case-timeout",
        "3",
        "--property-budget",
        "0",
        "--only",
        "Reductions."
        "floating_point_results_lie_within_the_error_bound_of_some_summation_order",
        "--out",
        str(out),
        timeout=900,
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    recs = records(out)
    hangs = [r for r in recs if r["outcome"] == "timeout"]
    crashes = [r for r in recs if r["outcome"] == "crash"]
    assert hangs and all(r["case"]["routine"] == "reduce" for r in hangs)
    assert crashes and all(
        r["case"]["routine"] == "allreduce" and r["case"]["count"] >= 1000
        for r in crashes
    )
    # The runner's records of the dead cases carry what waivers read from the
    # harness's in-flight note: the case's bytes and its communicator's size.
    sizes = {r["case"]["comm"]: r["comm_size"] for r in recs if r["outcome"] == "pass"}
    for r in hangs + crashes:
        assert (
            isinstance(r.get("bytes"), int)
            and r["comm_size"] == sizes[r["case"]["comm"]]
        ), r
    # After two MPI_Reduce cases on a communicator hung in a row, the further
    # ones are held back (case_limits.h): skips that name the hangs.
    held = [
        r for r in recs if r["outcome"] == "skip" and r["message"].startswith(HELD_BACK)
    ]
    assert all(r["case"]["routine"] == "reduce" for r in held)
    assert len(hangs) >= 2
    # Every other check was run, recorded and passed: the small Allreduce
    # cases and every case of the other routines.
    others = [
        r for r in recs if r["outcome"] not in ("timeout", "crash") and r not in held
    ]
    assert all(r["outcome"] == "pass" for r in others), [
        r["id"] for r in others if r["outcome"] != "pass"
    ]
    assert {r["case"]["routine"] for r in others} == {
        "allreduce",
        "reduce_scatter",
        "reduce_scatter_block",
        "scan",
        "exscan",
    }
    assert (
        len(others) + len(hangs) + len(held) + len(crashes)
        == len(recs)
        == recs[-1]["seq"]
    )
    assert len({r["seq"] for r in recs}) == len(recs), "a case was recorded twice"
    assert json.loads((out / "run.json").read_text())["end"]


def test_the_properties_catch_a_mutant_and_its_reproducer_fails_only_on_the_mutant(
    tmp_path,
):
    """Issue #5: against a broken reduction the properties find the fault,
    shrink it (at most 3 ranks, at most 2 elements) and write a standalone C
    program that fails against the fault and passes without it."""
    needs_build("mutants")
    if shutil.which("mpicc.mpich") is None:
        pytest.skip("mpicc.mpich is not installed")
    out = tmp_path / "out"
    p = run(
        "run",
        "--vendor",
        "mutants",
        "--env",
        "ORDO_MUTANT=swap-operands",
        "--filter",
        "proposals",
        "--ranks",
        "3",
        "--property-budget",
        "100",
        "--out",
        str(out),
        timeout=900,
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    summaries = [r for r in records(out) if r.get("clause") == "property.reduce-family"]
    failed = [r for r in summaries if not r["property"]["passed"]]
    assert failed, summaries
    shrunk = failed[0]
    assert shrunk["ranks"] <= 3 and shrunk["case"]["count"] <= 2, shrunk["case"]
    repro = pathlib.Path(shrunk["reproducer"])
    assert repro.is_file() and str(repro).startswith(str(out / "reproducers"))
    exe = tmp_path / "repro"
    subprocess.check_call(["mpicc.mpich", str(repro), "-o", str(exe)])
    mutant_lib = BUILD / "mutants" / "vendors" / "mutants" / "libordo_mutmpi.so"
    base = ["timeout", "60", "mpiexec.mpich", "-n", str(shrunk["ranks"])]
    with_fault = subprocess.run(
        base[:3]
        + [
            "-genv",
            "LD_PRELOAD",
            str(mutant_lib),
            "-genv",
            "ORDO_MUTANT",
            "swap-operands",
        ]
        + base[3:]
        + [str(exe)],
        capture_output=True,
        text=True,
    )
    assert with_fault.returncode != 0, with_fault.stdout + with_fault.stderr
    without = subprocess.run(base + [str(exe)], capture_output=True, text=True)
    assert without.returncode == 0, without.stdout + without.stderr


def test_the_properties_catch_a_fortran_path_fault_and_its_reproducer_fails_only_on_it(
    tmp_path_factory,
):
    """Issue #16: against the mutant fortran-in-place-ignored (MPI_IN_PLACE
    from the library's Fortran binding taken as zeros) the properties draw a
    Fortran-bound case that fails, shrink it to one of the f08 or f90
    binding, and write a standalone Fortran program that fails against the
    fault and passes without it."""
    needs_build("mutants")
    if shutil.which("mpifort.mpich") is None:
        pytest.skip("mpifort.mpich is not installed")
    # A folder whose name does not say "fort": the mutant takes a caller whose
    # file name has it (libmpichfort) for the library's Fortran binding.
    tmp_path = tmp_path_factory.mktemp("props")
    out = tmp_path / "out"
    p = run(
        "run",
        "--vendor",
        "mutants",
        "--env",
        "ORDO_MUTANT=fortran-in-place-ignored",
        "--filter",
        "proposals",
        "--ranks",
        "3",
        "--property-budget",
        "300",
        "--out",
        str(out),
        timeout=900,
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    summaries = [r for r in records(out) if r.get("clause") == "property.reduce-family"]
    failed = [r for r in summaries if not r["property"]["passed"]]
    assert failed, summaries
    shrunk = failed[0]
    assert (
        shrunk["case"]["binding"] in ("f08", "f90") and shrunk["case"]["in_place"]
    ), shrunk["case"]
    repro = pathlib.Path(shrunk["reproducer"])
    assert repro.suffix == ".f90" and str(repro).startswith(str(out / "reproducers"))
    exe = tmp_path / "repro"
    subprocess.check_call(
        ["mpifort.mpich", str(repro), "-o", str(exe)],
        cwd=tmp_path,
        stderr=subprocess.DEVNULL,
    )
    mutant_lib = BUILD / "mutants" / "vendors" / "mutants" / "libordo_mutmpi.so"
    base = [
        "flock",
        "/tmp/ordo-mpi.lock",
        "timeout",
        "60",
        "mpiexec.mpich",
        "-n",
        str(shrunk["ranks"]),
    ]
    with_fault = subprocess.run(
        base[:5]
        + [
            "-genv",
            "LD_PRELOAD",
            str(mutant_lib),
            "-genv",
            "ORDO_MUTANT",
            "fortran-in-place-ignored",
        ]
        + base[5:]
        + [str(exe)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert with_fault.returncode != 0, with_fault.stdout + with_fault.stderr
    without = subprocess.run(
        base + [str(exe)], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert without.returncode == 0, without.stdout + without.stderr


def mutants_site(tmp_path, *waivers):
    """A site's adapter for the mutant MPI, with waivers of its own (the
    test's, bound to every release until 2099); its adapter.json's path."""
    site = tmp_path / "site"
    site.mkdir()
    adapter = json.loads((ROOT / "vendors" / "mutants" / "adapter.json").read_text())
    (site / "adapter.json").write_text(json.dumps(adapter))
    bound = {
        "upstream": "none",
        "reproducer": "none",
        "expires": "2099-12-31",
        "library_versions": ">=0",
    }
    (site / "waivers.json").write_text(
        json.dumps(
            {
                "schema": "ordo.waivers/1",
                "vendor": "mutants",
                "waivers": [{**w, **bound} for w in waivers],
            }
        )
    )
    return site / "adapter.json"


def test_a_failed_case_on_odd_even_names_each_failing_ranks_communicator_size(
    tmp_path,
):
    needs_build("mutants")
    # At 5 processes odd-even is a communicator of 3 (world rank 0's, the
    # record's comm_size) and one of 2. The mutant folds in descending rank
    # order, so MPI_Reduce with a noncommutative op fails at the root of each:
    # the record names both sizes, and a waiver's comm_size condition must
    # hold for each. The first waiver names world rank 0's size alone and
    # waives nothing; the second, of either size, waives its op's records.
    adapter = mutants_site(
        tmp_path,
        {
            "id": "odd-even-at-3",
            "test": "*",
            "outcome": "fail",
            "case": {"comm": "odd-even"},
            "comm_size": 3,
            "reason": "test: a condition of world rank 0's communicator alone",
        },
        {
            "id": "odd-even-matrix-at-2-or-more",
            "test": "*",
            "outcome": "fail",
            "case": {"comm": "odd-even", "op": "witness.matrix"},
            "comm_size": {"min": 2},
            "reason": "test: a condition of every failing communicator",
        },
    )
    out = tmp_path / "out"
    p = run(
        "run",
        "--vendor",
        str(adapter),
        "--env",
        "ORDO_MUTANT=reverse-rank-order",
        "--ranks",
        "5",
        "--filter",
        "noncommutative",
        "--only",
        "Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    odd_even = [r for r in records(out) if r["case"]["comm"] == "odd-even"]
    tracer = [r for r in odd_even if r["case"]["op"] == "witness.tracer"]
    matrix = [r for r in odd_even if r["case"]["op"] == "witness.matrix"]
    assert tracer and matrix
    for r in odd_even:
        assert r["comm_size"] == 3 and r["failing_comm_sizes"] == [2, 3], r
    assert all(r["outcome"] == "fail" for r in tracer)
    assert all(
        r["outcome"] == "waived" and r["waiver"] == "odd-even-matrix-at-2-or-more"
        for r in matrix
    )
    # One size throughout: no failing_comm_sizes, comm_size is the condition's.
    world = [r for r in records(out) if r["case"]["comm"] == "world"]
    assert world and all(
        r["outcome"] == "fail" and "failing_comm_sizes" not in r for r in world
    )


def test_a_restart_job_waiver_ends_the_job_after_its_case_and_the_run_goes_on_afresh(
    tmp_path,
):
    needs_build("mutants")
    # A site's adapter for the mutant MPI whose waiver says the fault
    # corrupts memory (restart_job): after each waived failure the harness
    # ends the job, and the runner starts it again after that case.
    adapter = mutants_site(
        tmp_path,
        {
            "id": "restart-after-allreduce",
            "test": "*",
            "case": {"routine": "allreduce"},
            "restart_job": True,
            "reason": "test: the fault is treated as one that corrupts memory",
        },
    )
    site = adapter.parent
    out = tmp_path / "out"
    p = run(
        "run",
        "--vendor",
        str(site / "adapter.json"),
        "--env",
        "ORDO_MUTANT=drop-last-element",
        "--ranks",
        "2",
        "--filter",
        "values",
        "--only",
        "Allreduce.sum_of_int_is_exact_and_identical_on_every_rank",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    recs = records(out)
    waived = [r for r in recs if r["outcome"] == "waived"]
    assert waived and all(r["waiver"] == "restart-after-allreduce" for r in waived)
    assert not [r for r in recs if r["outcome"] in ("crash", "timeout", "fail")]
    # A fresh job after each waived case, each case recorded once, none lost.
    logs = sorted((out / "logs").glob("ordo_check_values-2ranks*.log"))
    assert len(logs) == len(waived) + 1
    assert len({r["seq"] for r in recs}) == len(recs) == recs[-1]["seq"]
    # Without the waiver's restart_job the same run needs no restart.
    doc = json.loads((site / "waivers.json").read_text())
    del doc["waivers"][0]["restart_job"]
    (site / "waivers.json").write_text(json.dumps(doc))
    out2 = tmp_path / "out2"
    p = run(
        "run",
        "--vendor",
        str(site / "adapter.json"),
        "--env",
        "ORDO_MUTANT=drop-last-element",
        "--ranks",
        "2",
        "--filter",
        "values",
        "--only",
        "Allreduce.sum_of_int_is_exact_and_identical_on_every_rank",
        "--property-budget",
        "0",
        "--out",
        str(out2),
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert len(list((out2 / "logs").glob("ordo_check_values-2ranks*.log"))) == 1
    assert record_set(out2) == record_set(out)


def test_a_damages_later_waiver_holds_its_cases_back_and_says_why(tmp_path):
    needs_build("mutants")
    # A library that damages the process's memory in a case it passes (the
    # crash comes cases later, or in MPI_Finalize): its waiver holds those
    # cases back as known crashes, and each skip names the damage.
    waiver = {
        "id": "damage-in-allreduce-at-count-7",
        "test": "*",
        "outcome": "crash",
        "signature": {"text": "*free(): invalid*"},
        "damages_later": True,
        "case": {"routine": "allreduce", "count": 7},
        "reason": "test: the case is treated as one that damages the heap",
    }
    site = mutants_site(tmp_path, waiver).parent
    out = tmp_path / "out"
    p = run(
        "run",
        "--vendor",
        str(site / "adapter.json"),
        "--ranks",
        "2",
        "--filter",
        "values",
        "--only",
        "Allreduce.every_valid_predefined_op_and_datatype_gives_the_reference_result",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    recs = records(out)
    held = [
        r
        for r in recs
        if r["outcome"] == "skip" and waiver["id"] in (r.get("message") or "")
    ]
    assert held and all((r.get("case") or {}).get("count") == 7 for r in held)
    assert all(
        "names damage this library does here to the process's memory, which ends"
        " the job in a later case or in MPI_Finalize" in r["message"]
        for r in held
    )
    # The other counts ran and passed; nothing was waived by it.
    ran = [r for r in recs if r["outcome"] == "pass"]
    assert ran and all((r.get("case") or {}).get("count") != 7 for r in ran)
    assert not [r for r in recs if r["outcome"] in ("waived", "fail", "crash")]
    summary = results.known_fatal_summary(recs, {"settings": {}})
    assert summary["by_waiver"] == {waiver["id"]: len(held)}


def test_sigint_or_sigterm_stops_a_run_at_once_and_resume_finishes_it(
    tmp_path, small_whole
):
    """A run started as a shell's background command inherits SIGINT ignored;
    before, it then took the launcher's death by SIGINT for the library's and
    launched the job again. Either signal now stops it in one line (exit 3),
    with no further launch, and --resume gives the records of a whole run."""
    whole = small_whole
    n_whole = len(records(whole))
    e = dict(os.environ, ORDO_NO_INSTALL="1")
    for sig in (signal.SIGINT, signal.SIGTERM):
        cut = tmp_path / f"cut-{sig.name}"
        proc = subprocess.Popen(
            [ORDO, "run", "--vendor", "mpich", "--out", str(cut), *SMALL],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=e,
            # as `cmd &` in a script: SIGINT ignored
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
        journal = cut / "journal.jsonl"
        deadline = time.time() + 300
        while time.time() < deadline:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 10:
                break
            time.sleep(0.01)
        os.kill(proc.pid, sig)
        err = proc.communicate(timeout=60)[1]
        assert proc.returncode == 3, (sig, proc.returncode, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines[-1].startswith("ordo: interrupted; `./ordo run --resume"), err
        # no launch again of a job the signal ended (a relaunch's log says -resume)
        assert not list(cut.rglob("*-resume*.log")), sorted(cut.rglob("*.log"))
        assert json.loads((cut / "run.json").read_text())["end"] is None
        assert len(records(cut)) < n_whole
        p = run("run", "--resume", str(cut))
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr
        assert record_set(cut) == record_set(whole)
