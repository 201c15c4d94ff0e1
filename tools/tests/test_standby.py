"""The standby launch (tools/runner/job.py, harness.h await_go): a job that
died once gets each later resumption made ready beside the launch before it;
a standby resumes after the case its go names, an unused one quits, and no
process, go file or log of it is left. A fake check executable plays the
harness's side of the protocol: five cases, of which 2, 3 and 4 hang."""
import json
import os
import pathlib
import sys

from runner import protocol
from runner.job import run_job
from runner.launch import job_limit, split_lock

FAKE = r"""#!PYTHON
import json, os, sys, time
journal, hang = sys.argv[1], {int(x) for x in sys.argv[2].split(",") if x}
skip, standby = 0, None
for a in sys.argv[3:]:
    if a.startswith("--ordo-skip="):
        skip = int(a.split("=", 1)[1])
    if a.startswith("--ordo-standby="):
        standby = a.split("=", 1)[1]
with open(journal + ".argv", "a") as f:
    f.write(json.dumps(sys.argv[3:]) + "\n")
waited = 0.0
if standby and os.path.exists(journal + ".standby-dies"):
    print("the library failed in MPI_Init")
    sys.exit(3)
if standby:
    open(standby + ".ready", "w").write("ready\n")
    t0 = time.time()
    while True:
        try:
            word = open(standby).read().split()
        except FileNotFoundError:
            word = []
        if word[:1] == ["quit"]:
            sys.exit(0)
        if word[:1] == ["skip"]:
            skip = int(word[1])
            break
        time.sleep(0.005)
    waited = time.time() - t0
for seq in range(skip + 1, 6):
    begun = {"seq": seq, "id": "T.x#%d" % (seq - 1), "test": "T.x",
             "clause": "reduce.values", "level": "MUST", "case": None, "routine": ""}
    if seq in hang:
        open(journal + ".inflight.0", "w").write(json.dumps(begun) + "\n")
        open(journal + ".timeout", "w").write("%d\n" % seq)
        sys.exit(124)
    with open(journal, "a") as f:
        f.write(json.dumps(dict(begun, outcome="pass", message="", ranks=2,
                                vendor="mpich", variant="default",
                                schema="ordo.check/1")) + "\n")
if hang:
    # The standby beside this last launch gets ready, and is then told to quit.
    time.sleep(1.0)
# As the harness: .done promises each rank's marker that MPI_Finalize returned (a
# standby told to quit ends before any case and writes none).
open(journal + ".done", "w").write("0\nfinalized 2\n")
for rank in (0, 1):
    open(journal + ".finalized.%d" % rank, "w").write("returned\n")
print("ordo phases: " + json.dumps({"wall_s": 0.1, "mpi_init_s": 0, "startup_s": 0,
                                     "standby_s": waited, "tests_s": 0.1,
                                     "finalize_s": 0, "cases": {},
                                     "outside_cases_by_test": {}}))
"""


class _NoWaivers:
    def apply(self, record):
        return record


def fake_job(tmp_path, hang, standby_dies=False):
    j = tmp_path / "journal.jsonl"
    j.write_text("")
    if standby_dies:
        pathlib.Path(str(j) + ".standby-dies").write_text("")
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE.replace("PYTHON", sys.executable))
    fake.chmod(0o755)
    base = ["timeout", "-k", "5", "60", str(fake), str(j), ",".join(map(str, hang))]
    launches = run_job(
        base, "fake", 2, tmp_path, j, {"name": "mpich"}, 10, waivers=_NoWaivers()
    )
    lines = [json.loads(x) for x in j.read_text().splitlines()]
    argv = [
        json.loads(x) for x in pathlib.Path(str(j) + ".argv").read_text().splitlines()
    ]
    return launches, lines, argv


def test_a_job_that_hangs_again_resumes_each_time_in_a_standby_launch_ready_beside_it(
    tmp_path,
):
    launches, lines, argv = fake_job(tmp_path, (2, 3, 4))
    # Every case is recorded once, in order: the hung ones as timeouts by the runner.
    assert [r["seq"] for r in lines] == [1, 2, 3, 4, 5]
    assert [r["outcome"] for r in lines] == [
        "pass",
        "timeout",
        "timeout",
        "timeout",
        "pass",
    ]
    # Launch 0 cold, its first resumption cold (a standby is started beside it), then
    # standbys.
    assert [x["rc"] for x in launches] == [124, 124, 124, 0]
    assert [bool(x.get("standby")) for x in launches] == [False, False, True, True]
    assert launches[-1]["phases"]["standby_s"] >= 0
    # A cold launch is told where to resume by --ordo-skip; a standby by its go file,
    # never both.
    cold = [a for a in argv if not any(x.startswith("--ordo-standby=") for x in a)]
    ahead = [a for a in argv if any(x.startswith("--ordo-standby=") for x in a)]
    assert [next(x for x in a if x.startswith("--ordo-skip=")) for a in cold] == [
        "--ordo-skip=0",
        "--ordo-skip=2",
    ]
    assert not any(x.startswith("--ordo-skip=") for a in ahead for x in a)
    # Three standbys were started: two resumed the job, the last one (beside the launch
    # that finished) quit.
    assert len(ahead) == 3
    assert not list(tmp_path.glob("journal.jsonl.standby-*"))
    logs = sorted(p.name for p in (tmp_path / "logs").glob("fake-2ranks*.log"))
    assert logs == [
        "fake-2ranks-resume1.log",
        "fake-2ranks-resume2.log",
        "fake-2ranks-resume3.log",
        "fake-2ranks.log",
    ]
    gtest = {
        next(x for x in a if x.startswith("--gtest_output=")).rsplit("-", 1)[1]
        for a in argv
    }
    assert gtest == {
        "0.xml",
        "1.xml",
        "2.xml",
        "3.xml",
        "4.xml",
    }  # one per launch, the unused standby's too


def test_a_job_that_never_dies_starts_no_standby(tmp_path):
    launches, lines, argv = fake_job(tmp_path, ())
    assert [r["outcome"] for r in lines] == ["pass"] * 5
    assert len(launches) == 1 and len(argv) == 1 and not launches[0].get("standby")


def test_the_lock_and_the_limit_are_read_off_the_job_command():
    lock, cmd = split_lock(
        ["flock", "/tmp/x.lock", "timeout", "-k", "5", "600", "mpiexec", "-n", "2", "a"]
    )
    assert lock == "/tmp/x.lock" and cmd[0] == "timeout" and job_limit(cmd) == 600
    assert (
        split_lock(["timeout", "30", "a"]) == (None, ["timeout", "30", "a"])
        and job_limit(["timeout", "30"]) == 30
    )
    assert job_limit(["mpiexec", "-n", "2"]) is None


def test_no_process_of_a_standby_outlives_the_job(tmp_path):
    fake_job(tmp_path, (2,))
    mine = [p for p in os.listdir("/proc") if p.isdigit()]
    for p in mine:
        try:
            cmd = pathlib.Path(f"/proc/{p}/cmdline").read_bytes()
        except OSError:
            continue
        assert str(tmp_path / "fake.py").encode() not in cmd, cmd
    assert protocol.DONE == ".done"


def test_a_standby_that_died_in_its_start_up_is_not_used_and_keeps_its_log(tmp_path):
    launches, lines, argv = fake_job(tmp_path, (2, 3), standby_dies=True)
    assert [r["outcome"] for r in lines] == [
        "pass",
        "timeout",
        "timeout",
        "pass",
        "pass",
    ]
    assert not any(x.get("standby") for x in launches) and len(launches) == 3
    kept = (tmp_path / "logs" / "fake-2ranks-resume2-standby.log").read_text()
    assert "failed in MPI_Init" in kept
    assert (
        "failed in MPI_Init"
        not in (tmp_path / "logs" / "fake-2ranks-resume2.log").read_text()
    )
