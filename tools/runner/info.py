"""`ordo list` and `ordo doctor`: what this checkout and this machine have."""
import json
import os
import subprocess
import sys

from . import ROOT, variants as variants_mod
from .adapters import known_vendors, load_adapter, require_tools
from .errors import EXIT_OK, EXIT_USAGE, OrdoError


def cmd_list(args):
    if args.what == "vendors":
        for v in known_vendors():
            a = load_adapter(v)
            tested = "tested here" if a.get("tested_here") else "not tested here"
            print(f"{v:18} {tested:16} {a.get('description', '')}")
    elif args.what == "clauses":
        spec = json.loads((ROOT / "spec" / "clauses.json").read_text())
        for slug, c in sorted(spec["clauses"].items()):
            s50 = c.get("section_50") or "-"
            print(
                f"{slug:40} MPI-4.1 §{c['section']:12} MPI-5.0"
                f" §{s50:12} {c['paraphrase']}"
            )
    elif args.what == "variants":
        adapter = load_adapter(args.vendor)
        try:
            found = variants_mod.discover(adapter)
        except variants_mod.VariantError as e:
            raise OrdoError(str(e))
        for v in [variants_mod.DEFAULT] + found:
            targets = (
                ", ".join(
                    f"{t.get('routine')}/{'+'.join(t.get('modes') or ['*'])}/"
                    f"{t.get('comm', 'any')}"
                    for t in v.get("targets") or []
                )
                or "every case"
            )
            env = " ".join(f"{k}={val}" for k, val in v.get("env", {}).items())
            print(f"{v['name']:44} {targets:40} {env}")
        print(f"{len(found)} variants besides default ({adapter['name']})")
    else:
        return subprocess.call(
            [sys.executable, str(ROOT / "tools" / "lint_clauses.py"), str(ROOT)]
        )
    return EXIT_OK


def cmd_doctor(args):
    ok = True
    rc = subprocess.call([str(ROOT / "tools" / "install-deps.sh"), "--check"])
    print(f"{'Debian packages':28} {'ok' if rc == 0 else 'missing (see above)'}")
    ok &= rc == 0
    for v in known_vendors():
        a = load_adapter(v)
        try:
            require_tools(a)
            print(f"{'MPI library ' + v:28} ok")
        except OrdoError as e:
            print(f"{'MPI library ' + v:28} {e}")
            ok = False
    for mod, pkg in (
        ("jsonschema", "python3-jsonschema"),
        ("jinja2", "python3-jinja2"),
        ("pytest", "python3-pytest"),
    ):
        try:
            __import__(mod)
            print(f"{'python module ' + mod:28} ok")
        except ImportError:
            print(f"{'python module ' + mod:28} missing: sudo apt-get install -y {pkg}")
            ok = False
    print(f"{'cores':28} {os.cpu_count()}")
    return EXIT_OK if ok else EXIT_USAGE
