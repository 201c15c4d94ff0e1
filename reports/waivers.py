"""Waivers: the one Python matcher (the harness has the one C++ matcher).

A waiver is a claim about one library bug: the trigger it names (test,
outcome, variant, message, case fields, process counts) and the releases it
was seen in. Both matchers follow the same rules, and both must pass the
shared vectors in vendors/waiver-vectors.json; the rules are written down in
vendors/README.md ("Waivers").

    load(path)            the waivers of a file, validated by
                          vendors/waivers.schema.json
    locate(adapter)       the waivers file of an adapter (its "waivers" key)
    match(w, record, ...) "waived" | "no-match" | "expired" | "version"
    apply(record, ws,...) the record, waived by the first waiver that applies
"""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "vendors" / "waivers.schema.json"
VECTORS_PATH = ROOT / "vendors" / "waiver-vectors.json"

WAIVED, NO_MATCH, EXPIRED, VERSION = "waived", "no-match", "expired", "version"


class WaiverFileError(Exception):
    """A waivers file that cannot be read or does not follow its schema (one line)."""


# ---- library versions -------------------------------------------------------

_VERSION_IN_TEXT = re.compile(r"(\d+(?:\.\d+)+)([a-z]+\d*)?")


# The message of a case the harness did not run (--ordo-avoid-known-fatal,
# conformance/harness/executor.cpp): the waiver that names its crash or hang.
AVOIDED = re.compile(r"not run \(--ordo-avoid-known-fatal\): the waiver (\S+) names")


def parse_library_version(text):
    """The release in an MPI_Get_library_version string: the first dotted
    number ("MPICH Version:\\t4.0.2 ..." -> "4.0.2", "Open MPI v4.1.4, ..." ->
    "4.1.4"); "" when there is none."""
    m = _VERSION_IN_TEXT.search(text or "")
    return (m.group(1) + (m.group(2) or "")) if m else ""


def _numeric(version):
    """A version's dotted numbers, for comparisons ("4.1a1" -> (4, 1))."""
    m = re.match(r"\d+(?:\.\d+)*", version or "")
    return tuple(int(x) for x in m.group(0).split(".")) if m else ()


def _compare(a, b):
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


_OPS = {
    ">=": lambda c: c >= 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    "<": lambda c: c < 0,
    "==": lambda c: c == 0,
}


def version_matches(spec, version):
    """One spec against one version: a glob ("4.0.2", "4.0.*") or space
    separated comparisons that must all hold (">=4.0 <4.1")."""
    spec = spec.strip()
    if not spec or not version:
        return False
    if spec[0] not in "<>=":
        return glob(spec, version)
    for part in spec.split():
        op = next((o for o in (">=", "<=", "==", ">", "<") if part.startswith(o)), None)
        if op is None or not _OPS[op](
            _compare(_numeric(version), _numeric(part[len(op) :]))
        ):
            return False
    return True


def versions_of(waiver):
    v = waiver.get("library_versions")
    if v is None:
        return []
    return [v] if isinstance(v, str) else list(v)


# ---- globs -------------------------------------------------------------------


def glob(pattern, text):
    """ordo's one glob dialect (the C++ matcher implements the same): the whole
    text must match, case-sensitively; `*` any run of characters (`/` and a
    leading `.` included), `?` one character, `[...]` one character of a set
    with ranges (`a-z`), negated by a leading `!` or `^`, a `]` first in the
    set taken literally; a backslash takes the next character literally (in a
    set too); a `[` without its closing `]` is a literal `[`."""
    tokens = _glob_tokens(pattern)
    i = k = 0
    star, mark = -1, 0
    while k < len(text):
        if i < len(tokens) and tokens[i] == "*":
            star, mark, i = i, k, i + 1
        elif i < len(tokens) and _glob_one(tokens[i], text[k]):
            i, k = i + 1, k + 1
        elif star >= 0:  # let the last star take one more character
            mark += 1
            i, k = star + 1, mark
        else:
            return False
    while i < len(tokens) and tokens[i] == "*":
        i += 1
    return i == len(tokens)


def _glob_tokens(p):
    """The pattern as tokens: "*", "?", (negated, [(low, high)...]) for a set,
    or a one-character string for a literal."""
    tokens: list[str | tuple] = []
    i = 0
    while i < len(p):
        c = p[i]
        if c == "*":
            if not tokens or tokens[-1] != "*":
                tokens.append("*")
            i += 1
        elif c == "?":
            tokens.append("?")
            i += 1
        elif c == "[" and _glob_set(p, i) is not None:
            negated, items, i = _glob_set(p, i)
            tokens.append((negated, items))
        elif c == "\\" and i + 1 < len(p):
            tokens.append(("lit", p[i + 1]))
            i += 2
        else:
            tokens.append(("lit", c))
            i += 1
    return tokens


def _glob_one(token, ch):
    if token == "?":
        return True
    if token[0] == "lit":
        return token[1] == ch
    negated, items = token
    return any(lo <= ch <= hi for lo, hi in items) != negated


def _glob_set(pattern, i):
    """The set that starts at pattern[i] == "[": (negated, items, index after
    it) or None when it is not closed. items: (low, high) pairs."""
    j = i + 1
    negated = j < len(pattern) and pattern[j] in "!^"
    if negated:
        j += 1
    items: list = []
    first = True
    while j < len(pattern):
        c = pattern[j]
        if c == "]" and not first:
            return negated, items, j + 1
        first = False
        if c == "\\" and j + 1 < len(pattern):
            j += 1
            c = pattern[j]
        low = c
        j += 1
        if j + 1 < len(pattern) and pattern[j] == "-" and pattern[j + 1] != "]":
            high = pattern[j + 1]
            j += 2
            if high == "\\" and j < len(pattern):
                high = pattern[j]
                j += 1
            items.append((low, high))
        else:
            items.append((low, low))
    return None


# ---- conditions --------------------------------------------------------------


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def value_matches(want, have):
    """One condition of a waiver against one field of a record:
    a string is a glob over a string field; a list, any of its elements; an
    object, a numeric condition {min, max, not, power_of_two}; anything else,
    equality. An object with `equal` and/or `sum` is a condition on a list of
    numbers (recvcounts): a non-empty list whose entries are all the same
    (equal: true) or not (false), whose sum holds the numeric condition
    `sum`, and whose entries each hold the object's other conditions."""
    if isinstance(want, str):
        return isinstance(have, str) and glob(want, have)
    if isinstance(want, list):
        return any(value_matches(w, have) for w in want)
    if isinstance(want, dict) and ("equal" in want or "sum" in want):
        if not isinstance(have, list) or not have or not all(map(_is_number, have)):
            return False
        if "equal" in want and (len(set(have)) == 1) != bool(want["equal"]):
            return False
        if "sum" in want and not (
            isinstance(want["sum"], dict) and value_matches(want["sum"], sum(have))
        ):
            return False
        each = {k: v for k, v in want.items() if k not in ("equal", "sum")}
        return all(value_matches(each, h) for h in have) if each else True
    if isinstance(want, dict):
        if not _is_number(have):
            return False
        if "min" in want and have < want["min"]:
            return False
        if "max" in want and have > want["max"]:
            return False
        if "not" in want and any(_is_number(x) and have == x for x in want["not"]):
            return False
        if "power_of_two" in want:
            pow2 = (
                have > 0
                and float(have).is_integer()
                and (int(have) & (int(have) - 1)) == 0
            )
            if pow2 != bool(want["power_of_two"]):
                return False
        return True
    if isinstance(want, bool) or isinstance(have, bool):
        return isinstance(want, bool) and isinstance(have, bool) and want == have
    if _is_number(want) and _is_number(have):
        return want == have
    return want == have


def node_map_matches(want, have, root=None):
    """A waiver's node_map condition against a record's node map (the world
    ranks of each node, `ordo run --nodes`): `nodes` (a condition on the
    number of nodes), `alone` (world ranks each alone on its node),
    `largest` (a condition on the most ranks any node holds), `consecutive`
    (true: every node holds consecutive ranks; false: some node does not).
    For a communicator's map (comm_node_map), `root_node` names the node of
    the case's root (root: its rank in that map): `size` (a condition on the
    ranks it holds), `last` (true: it is the node listed last, the one of
    the highest ranks under block placement) and `first` (true: the root is
    the lowest rank on its node, the node's leader). A record without a node map
    (one node, as the machine is) does not match."""
    if (
        not isinstance(have, list)
        or not have
        or not all(isinstance(g, list) for g in have)
    ):
        return False
    if "nodes" in want and not value_matches(want["nodes"], len(have)):
        return False
    if "largest" in want and not value_matches(
        want["largest"], max(len(g) for g in have)
    ):
        return False
    if "consecutive" in want:
        consecutive = all(
            sorted(g) == list(range(min(g), min(g) + len(g))) for g in have if g
        )
        if consecutive != want["consecutive"]:
            return False
    if "root_node" in want:
        at = [i for i, g in enumerate(have) if isinstance(root, int) and root in g]
        if not at:
            return False
        node = want["root_node"]
        if "size" in node and not value_matches(node["size"], len(have[at[0]])):
            return False
        if "last" in node and (at[0] == len(have) - 1) != node["last"]:
            return False
        if "first" in node and (root == min(have[at[0]])) != node["first"]:
            return False
    return all([r] in have for r in want.get("alone", []))


def outcomes_of(waiver):
    """The outcomes a waiver names: its "outcome", a string or a list (default fail)."""
    o = waiver.get("outcome", "fail")
    return (
        [o]
        if isinstance(o, str)
        else [x for x in o if isinstance(x, str)]
        if isinstance(o, list)
        else []
    )


def variant_of(record):
    """A record's variant: "default" when it has none (absent, null or "")."""
    v = record.get("variant")
    return v if isinstance(v, str) and v else "default"


_EXIT_CODE = re.compile(r"\(exit code (-?[0-9]+)\)")
_SIGNAL = re.compile(r"[Ss]ignal ([0-9]+)")


def exit_code_of(message):
    """The job's exit code a crash or timeout record's message states
    ("... (exit code 6); last output: ..."), or None."""
    m = _EXIT_CODE.search(message or "")
    return int(m.group(1)) if m else None


def signal_of(message):
    """The first signal number the message names ("signal 11", "Signal 6"), or None."""
    m = _SIGNAL.search(message or "")
    return int(m.group(1)) if m else None


def signature_matches(signature, record):
    """A crash or timeout waiver's signature against a crash or timeout record:
    `hang: true` covers a timeout by its limit alone; otherwise (and always for
    a crash) the fields it gives must all hold, and it must give one: `text` (a
    glob or a list of globs, any of which, over the whole message), `signal` (a
    condition on the first signal number the message names) and `exit_code` (a
    condition on the job's exit code the message states). No signature: no match."""
    if not isinstance(signature, dict):
        return False
    if record.get("outcome") == "timeout" and signature.get("hang") is True:
        return True
    named = [k for k in ("text", "signal", "exit_code") if k in signature]
    if not named:
        return False
    message = record.get("message") or ""
    if "text" in signature and not value_matches(signature["text"], message):
        return False
    for key, value in (
        ("signal", signal_of(message)),
        ("exit_code", exit_code_of(message)),
    ):
        if key in signature and (
            value is None or not value_matches(signature[key], value)
        ):
            return False
    return True


def covers(waiver, record, *, signature=True):
    """Does the waiver's trigger name this record (dates and versions aside)?
    signature=False: a crash or timeout is judged by its trigger alone, without
    its signature or message condition (the harness's prediction of a case it
    does not run, --ordo-avoid-known-fatal, and the gate's re-judging of one)."""
    if record.get("outcome") not in outcomes_of(waiver):
        return False
    if not isinstance(waiver.get("test"), str) or not glob(
        waiver["test"], record.get("test") or ""
    ):
        return False
    if "variant" in waiver and not (
        isinstance(waiver["variant"], str)
        and glob(waiver["variant"], variant_of(record))
    ):
        return False
    if (
        signature
        and record.get("outcome") in ("crash", "timeout")
        and not signature_matches(waiver.get("signature"), record)
    ):
        return False
    # A prediction (signature=False) has no message yet: neither the signature nor a
    # message condition is read.
    if (
        signature
        and "message" in waiver
        and not value_matches(waiver["message"], record.get("message") or "")
    ):
        return False
    for key in ("ranks", "bytes", "layout"):
        if key in waiver and (
            key not in record or not value_matches(waiver[key], record[key])
        ):
            return False
    # A failed case on a shape of two sizes: the condition holds for each
    # failing rank's communicator's size. A dead case on such a shape may have
    # died in either communicator: it holds for any of them.
    failing = record.get("failing_comm_sizes")
    if "comm_size" in waiver and isinstance(failing, list) and failing:
        if not all(
            isinstance(s, int) and value_matches(waiver["comm_size"], s)
            for s in failing
        ):
            return False
    elif "comm_size" in waiver and not any(
        value_matches(waiver["comm_size"], size) for size in comm_sizes_of(record)
    ):
        return False
    if "node_map" in waiver and not node_map_matches(
        waiver["node_map"], record.get("node_map")
    ):
        return False
    root = (
        (record.get("case") or {}).get("root")
        if isinstance(record.get("case"), dict)
        else None
    )
    if "comm_node_map" in waiver and not any(
        node_map_matches(waiver["comm_node_map"], m, root)
        for m in record.get("comm_node_maps") or []
    ):
        return False
    # A record without a placement is one with placement null.
    if "placement" in waiver and not value_matches(
        waiver["placement"], record.get("placement")
    ):
        return False
    conditions = waiver.get("case")
    if conditions:
        case = record.get("case")
        if not isinstance(case, dict):
            return False
        for key, want in conditions.items():
            if key not in case or not value_matches(want, case[key]):
                return False
    return True


def comm_sizes_of(record):
    """The communicator sizes a record's comm_size condition may hold for: its
    comm_size and, for a dead case on a shape of two sizes, each of comm_sizes."""
    sizes = [record["comm_size"]] if "comm_size" in record else []
    extra = record.get("comm_sizes")
    if isinstance(extra, list):
        sizes += [s for s in extra if isinstance(s, int) and s not in sizes]
    return sizes


def match(waiver, record, *, today, library_version, signature=True):
    """'waived' when the waiver applies; 'no-match' when its trigger does not
    name the record; 'version' when it does but the library's release is not
    one the waiver was seen in; 'expired' when it does but its date is past."""
    if not covers(waiver, record, signature=signature):
        return NO_MATCH
    versions = versions_of(waiver)
    if versions and not any(version_matches(s, library_version) for s in versions):
        return VERSION
    if str(waiver.get("expires", "")) < str(today):
        return EXPIRED
    return WAIVED


def apply(record, waivers, *, today, library_version):
    """Waives the record by the first waiver that applies (in file order); a
    waiver that names the record but does not apply says why in the message."""
    for w in waivers:
        verdict = match(w, record, today=today, library_version=library_version)
        if verdict == NO_MATCH:
            continue
        if verdict == EXPIRED:
            record["message"] = (
                record.get("message") or ""
            ) + f" | the waiver {w.get('id')} expired on {w.get('expires')}"
            continue
        if verdict == VERSION:
            record["message"] = (
                (record.get("message") or "")
                + f" | the waiver {w.get('id')} is for {' or '.join(versions_of(w))}, "
                f"not {library_version or 'an unknown release'}"
            )
            continue
        record["outcome"] = "waived"
        record["waiver"] = w.get("id")
        record["message"] = (record.get("message") or "") + waiver_note(w)
        break
    return record


def waiver_note(waiver):
    """The note apply() appends to a waived record's message."""
    return (
        f" | waived until {waiver.get('expires')}:"
        f" {waiver.get('reason')} ({waiver.get('upstream')})"
    )


def without_note(message, waiver):
    """A waived record's message without the note its waiver appended (the message whole
    when it does not end with that note: a view that leaves the note out gives the
    waiver's fields itself).
    """
    message, note = message or "", waiver_note(waiver)
    return message[: -len(note)] if message.endswith(note) else message


# ---- files ---------------------------------------------------------------------


def _schema_errors(document):
    try:
        import jsonschema
    # the runner checks its Python packages at start (reports/deps.py)
    except ImportError:
        return []
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def load_document(path, *, validate=True):
    path = pathlib.Path(path)
    try:
        document = json.loads(path.read_text())
    except OSError as e:
        raise WaiverFileError(f"cannot read the waivers file {path}: {e.strerror}")
    except ValueError as e:
        raise WaiverFileError(f"malformed waivers file {path}: {e}")
    if validate:
        errors = _schema_errors(document)
        if errors:
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path) or "(top)"
            raise WaiverFileError(
                f"the waivers file {path} does not follow vendors/waivers.schema.json "
                f"at {where}: {first.message}"
            )
    return document


def load(path, *, validate=True):
    """The waivers of a file, in order."""
    return list(load_document(path, validate=validate).get("waivers", []))


def locate(adapter):
    """The waivers file of an adapter (its "waivers" key, default waivers.json
    beside adapter.json), or None when there is none."""
    base = pathlib.Path(adapter.get("_dir") or ".")
    name = adapter.get("waivers", "waivers.json")
    if not name:
        return None
    path = (base / name).resolve()
    return path if path.is_file() else None


# ---- a run's records against its waivers ------------------------------------------


def _original_outcome(record, waiver):
    """The outcome a waived record had: the waiver's one outcome, or for a
    waiver of several, the one its message tells (records.py's wording)."""
    named = outcomes_of(waiver)
    if len(named) == 1:
        return named[0]
    message = record.get("message") or ""
    if (
        message.startswith("this case did not finish within the case time limit")
        and "timeout" in named
    ):
        return "timeout"
    if (
        message.startswith("this case ended the job")
        or message.startswith("the job ended (exit code")
    ) and "crash" in named:
        return "crash"
    return "fail" if "fail" in named else named[0] if named else "fail"


def unwaived(record, waiver):
    """A waived record as it was before the waiver applied: the waiver's outcome
    and the message without the waiver's note."""
    original = dict(record)
    original["outcome"] = _original_outcome(record, waiver)
    original["message"] = (record.get("message") or "").split(" | waived until ")[0]
    original.pop("waiver", None)
    return original


def in_scope(waiver, *, variants, ranks):
    """Could a run of these variants and rank counts have met the waiver's trigger?"""
    if "variant" in waiver and not any(
        glob(waiver["variant"], v) for v in variants or ["default"]
    ):
        return False
    if (
        "ranks" in waiver
        and ranks
        and not any(value_matches(waiver["ranks"], n) for n in ranks)
    ):
        return False
    return True


def usage(records, waivers, *, today, library_version, variants=None, ranks=None):
    """How a run's records met its waivers: the checks each waiver waived, the
    waivers that waived nothing although the run's variants and rank counts
    could have met them (stale), those it could not have met (out of scope),
    and those that named failing checks but did not apply (another release,
    expired)."""
    used: dict = {}
    # cases not run because a crash or timeout waiver names them (skips)
    avoided: dict = {}
    for r in records:
        if r.get("outcome") == "waived" and r.get("waiver"):
            used[r["waiver"]] = used.get(r["waiver"], 0) + 1
        elif r.get("outcome") == "skip":
            m = AVOIDED.match(r.get("message") or "")
            if m:
                avoided[m.group(1)] = avoided.get(m.group(1), 0) + 1
    not_applied: dict = {}
    for r in records:
        if r.get("outcome") not in ("fail", "crash", "timeout"):
            continue
        for w in waivers:
            verdict = match(w, r, today=today, library_version=library_version)
            if verdict in (VERSION, EXPIRED):
                why = (
                    f"it is for {' or '.join(versions_of(w))}, not"
                    f" {library_version or 'an unknown release'}"
                    if verdict == VERSION
                    else f"it expired on {w.get('expires')}"
                )
                row = not_applied.setdefault(
                    w.get("id"), {"id": w.get("id"), "why": why, "checks": 0}
                )
                row["checks"] += 1
    idle = [
        w
        for w in waivers
        if w.get("id") not in used
        and w.get("id") not in not_applied
        and w.get("id") not in avoided
    ]
    stale = [w.get("id") for w in idle if in_scope(w, variants=variants, ranks=ranks)]
    out_of_scope = [
        w.get("id") for w in idle if not in_scope(w, variants=variants, ranks=ranks)
    ]
    return {
        "used": used,
        "avoided": avoided,
        "stale": stale,
        "out_of_scope": out_of_scope,
        "not_applied": sorted(not_applied.values(), key=lambda x: x["id"]),
    }
