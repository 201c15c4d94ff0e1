"""Virtual nodes (`ordo run --nodes N --placement P`): which node each rank
should sit on, how the adapter makes the library believe it (its
`virtual_nodes` methods), and the proof that it did: the node map the
library shows (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), printed by
`ordo_replay --ordo-node-map` and at the start of every job) must be the
one asked for, else the run stops as an infrastructure error.

Placements (nodes N, ranks n, every node holds at least one rank):
  block        consecutive ranks; the first n % N nodes hold one rank more
               (the rule of MPICH's MPIR_CVAR_CLIQUES_BY_BLOCK)
  cyclic       rank r on node r % N
  first-alone  rank 0 alone on node 0, ranks 1..n-1 in blocks over the
               other N-1 nodes (the shape of pmodels/mpich#6893)
  sizes:a,b,.. consecutive ranks, a on the first node, b on the next, ...
               (N = the number of sizes, their sum = n)
"""
import json
import re
import subprocess

from .adapters import expand
from .errors import EXIT_INFRA, OrdoError
from .launch import die_with_parent, job_command, ordo_flags, outer_timeout

NAMED = ("block", "cyclic", "first-alone")
NODE_NAME = "ordo-node{}"


class PlacementError(ValueError):
    pass


def _blocks(ranks, nodes, first_node=0):
    """Node of each of `ranks` consecutive ranks in `nodes` blocks, larger first."""
    size, extra = divmod(ranks, nodes)
    out = []
    for k in range(nodes):
        out += [first_node + k] * (size + (1 if k < extra else 0))
    return out


def from_settings(settings):
    """(nodes, placement) of a run's settings: (None, None) on the machine as it is."""
    nodes, where = settings.get("nodes"), settings.get("placement")
    if where and where.startswith("sizes:") and nodes is None:
        nodes = len(where.split(","))
    if nodes is None:
        if where:
            raise OrdoError(
                f"--placement {where} needs --nodes N (the number of virtual nodes)"
            )
        return None, None
    where = where or "block"
    try:
        check_spec(where, nodes)
    except PlacementError as e:
        raise OrdoError(str(e))
    return nodes, where


def flags(nodes, where):
    return ordo_flags(nodes=nodes, placement=where) if nodes is not None else []


def check_spec(placement, nodes):
    """A usage error for a placement or node count that fits no rank count."""
    if nodes is not None and nodes < 1:
        raise PlacementError(f"--nodes {nodes}: give at least 1 node")
    if placement in NAMED:
        if placement == "first-alone" and nodes is not None and nodes < 2:
            raise PlacementError(
                "--placement first-alone needs --nodes 2 or more (rank 0 alone on one"
                " node)"
            )
        return
    m = re.fullmatch(r"sizes:(\d+(?:,\d+)*)", placement or "")
    if not m:
        raise PlacementError(
            f"--placement '{placement}' is not block, cyclic, first-alone or"
            " sizes:A,B,... (ranks per node, e.g. sizes:1,3)"
        )
    sizes = [int(x) for x in m.group(1).split(",")]
    if min(sizes) < 1:
        raise PlacementError(
            f"--placement {placement}: every node holds at least one rank"
        )
    if nodes is not None and nodes != len(sizes):
        raise PlacementError(
            f"--placement {placement} names {len(sizes)} nodes, --nodes says {nodes}"
        )


def node_of_rank(placement, nodes, ranks):
    """The node (0..N-1) of each world rank, or PlacementError (one line)."""
    check_spec(placement, nodes)
    if placement.startswith("sizes:"):
        sizes = [int(x) for x in placement[len("sizes:") :].split(",")]
        if sum(sizes) != ranks:
            raise PlacementError(
                f"--placement {placement} places {sum(sizes)} ranks, not {ranks}: "
                f"give --ranks {sum(sizes)}"
            )
        return [k for k, s in enumerate(sizes) for _ in range(s)]
    if ranks < nodes:
        raise PlacementError(
            f"--nodes {nodes} at {ranks} ranks: more nodes than ranks (every node holds"
            f" at least one rank); give --ranks {nodes} or more"
        )
    if placement == "block":
        return _blocks(ranks, nodes)
    if placement == "cyclic":
        return [r % nodes for r in range(ranks)]
    return [0] + _blocks(ranks - 1, nodes - 1, first_node=1)  # first-alone


def groups(node_of):
    """The node map: the world ranks of each node, nodes in the order of their lowest
    rank."""
    by_node: dict = {}
    for r, k in enumerate(node_of):
        by_node.setdefault(k, []).append(r)
    return sorted(by_node.values(), key=lambda g: g[0])


def contiguous(node_of):
    """Whether every node holds a run of consecutive ranks, nodes in order."""
    return all(b in (a, a + 1) for a, b in zip(node_of, node_of[1:])) and node_of[
        :1
    ] in ([], [0])


def choose_method(adapter, placement, node_of):
    """The adapter's first virtual_nodes method that can place these ranks, or None.
    A method names the placements it expresses; "contiguous" stands for any
    placement whose nodes hold runs of consecutive ranks."""
    for method in (adapter.get("virtual_nodes") or {}).get("methods", []):
        names = method.get("placements", [])
        if placement in names or ("contiguous" in names and contiguous(node_of)):
            return method
    return None


def refusal(adapter, placement):
    """The one line that says why the adapter cannot place ranks so."""
    vn = adapter.get("virtual_nodes")
    if not vn:
        return (
            f"the {adapter['name']} adapter has no virtual_nodes section: it cannot"
            " make the library see several nodes on this machine (vendors/README.md,"
            " 'Virtual nodes')"
        )
    can = sorted({p for m in vn.get("methods", []) for p in m.get("placements", [])})
    return (
        f"{adapter['name']} cannot place ranks as --placement {placement}: its"
        " adapter's methods express"
        f" {', '.join(can)} (vendors/{adapter['name']}/adapter.json, virtual_nodes)"
    )


def plan(adapter, placement, nodes, ranks):
    """Per rank count: the node of each rank and the method. Usage errors (exit 2)
    first."""
    out = {}
    for n in ranks:
        try:
            node_of = node_of_rank(placement, nodes, n)
        except PlacementError as e:
            raise OrdoError(str(e))
        method = choose_method(adapter, placement, node_of)
        if method is None:
            raise OrdoError(refusal(adapter, placement))
        out[n] = {"node_of": node_of, "groups": groups(node_of), "method": method}
    return out


def apply(adapter, method, node_of, hostfile, build):
    """An adapter whose launcher places the ranks so, and the variables every
    rank needs for it. Placeholders in the method's flags and env: {nodes},
    {hosts} (one host entry per node, joined by host_separator), {hostfile}
    (a file with one hostfile_line per node, written here), and the
    adapter's own ({build}, {root}, {env:NAME})."""
    nodes = max(node_of) + 1
    counts = [node_of.count(k) for k in range(nodes)]
    entries = [{"name": NODE_NAME.format(k), "count": c} for k, c in enumerate(counts)]
    host_fmt = method.get("host", "{name}:{count}")
    hosts = method.get("host_separator", ",").join(
        host_fmt.format(**e) for e in entries
    )
    if "hostfile_line" in method:
        hostfile.parent.mkdir(parents=True, exist_ok=True)
        hostfile.write_text(
            "".join(method["hostfile_line"].format(**e) + "\n" for e in entries)
        )

    def fill(value):
        value = (
            value.replace("{nodes}", str(nodes))
            .replace("{hosts}", hosts)
            .replace("{hostfile}", str(hostfile))
        )
        return expand(value, build)

    placed = dict(adapter)
    placed["launcher"] = dict(adapter["launcher"])
    placed["launcher"]["flags"] = list(adapter["launcher"].get("flags", [])) + [
        fill(f) for f in method.get("flags", [])
    ]
    return placed, {k: fill(v) for k, v in method.get("env", {}).items()}


def parse_node_map(text):
    """The node map printed by the harness (`ordo node-map: {...}` in a job
    log, or the JSON line of --ordo-node-map), or None."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("ordo node-map: "):
            line = line[len("ordo node-map: ") :]
        if line.startswith('{"node_map"'):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def describe(found):
    return (
        "no node map"
        if found is None
        else json.dumps(found["node_map"], separators=(",", ":"))
    )


def verify(found, expected, *, vendor, nodes, placement, ranks, where):
    """OrdoError (exit 3) unless the library showed the asked node map."""
    if found is not None and found.get("node_map") == expected:
        return
    shown = (
        "no node map"
        if found is None
        else (
            f"{len(found['node_map'])} node{'s' if len(found['node_map']) != 1 else ''}"
            f" {describe(found)}"
        )
    )
    raise OrdoError(
        (
            f"{vendor} showed {shown} at {ranks} ranks ({where}) where --nodes"
            f" {nodes} --placement {placement} asks"
            f" {json.dumps(expected, separators=(',', ':'))}: the virtual nodes did not"
            " take, no check ran under them"
        ),
        EXIT_INFRA,
    )


def probe(adapter, prefix, ranks, bdir, timeout=120):
    """The node map the library shows at `ranks` processes under this launcher
    prefix (ordo_replay --ordo-node-map), and the output when there is none."""
    cmd = job_command(
        adapter,
        prefix,
        ranks,
        bdir / "conformance" / "ordo_replay",
        timeout=timeout,
        kill_after=5,
        flags=["--ordo-node-map"],
    )
    try:
        out = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=outer_timeout(cmd, timeout + 30),
            preexec_fn=die_with_parent,
        )
    except subprocess.TimeoutExpired:
        return None, "the probe timed out"
    found = parse_node_map(out.stdout)
    return found, " / ".join((out.stdout + out.stderr).strip().splitlines()[-3:])
