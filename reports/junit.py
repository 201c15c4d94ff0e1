"""JUnit XML of one run, for CI systems (valid against schema/junit.xsd).

One <testsuite> per check executable family and rank count (e.g.
"mpich.Reduce.4ranks"), one <testcase> per check. fail -> <failure>,
crash / timeout / corrupt -> <error>, skip and waived -> <skipped> with the
reason (a waived check is a known library bug, not a new failure).
"""
import xml.etree.ElementTree as ET

from . import records as rec, results as res

XSD = res.SCHEMA_PATH.parent / "junit.xsd"


def _s(value):
    return rec.printable(value)


def render(report):
    run = report["run"]
    groups = {}
    for r in report["records"]:
        family = r["test"].split(".", 1)[0] if r.get("test") else "ordo"
        groups.setdefault((family, r["variant"], r["ranks"]), []).append(r)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    root = ET.Element("testsuites", name=_s(f"ordo {run['vendor']}"))
    for (family, variant, ranks), records in sorted(groups.items()):
        prefix = f"{run['vendor']}." + ("" if variant == "default" else f"{variant}.")
        name = f"{prefix}{family}.{ranks}ranks"
        suite = ET.SubElement(root, "testsuite", name=_s(name))
        counts = {"tests": len(records), "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        props = ET.SubElement(suite, "properties")
        for key, value in (("vendor", run["vendor"]), ("library", res.first_line(run.get("library_version"))),
                           ("mpi_version", run.get("mpi_version") or ""), ("ranks", str(ranks)),
                           ("variant", variant), ("ordo_commit", run["git"].get("commit") or ""),
                           ("partial", str(report["partial"]).lower())):
            ET.SubElement(props, "property", name=key, value=_s(value))
        for r in records:
            seconds = float(r.get("duration_s") or 0.0)
            counts["time"] += seconds
            case = ET.SubElement(suite, "testcase", name=_s(f"{r['id']} {res.case_text(r.get('case'))}".strip()),
                                 classname=_s(f"{prefix}{ranks}ranks.{r['test']}"), time=f"{seconds:.6f}")
            cprops = ET.SubElement(case, "properties")
            for key in ("clause", "level", "outcome"):
                ET.SubElement(cprops, "property", name=key, value=_s(r[key]))
            message = _s(f"[{r['clause']}, {r['level']}] {r.get('message', '')}")
            if r["outcome"] == "fail":
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=message[:1000], type=r["level"]).text = message
            elif r["outcome"] in ("crash", "timeout", "corrupt"):
                counts["errors"] += 1
                ET.SubElement(case, "error", message=message[:1000], type=r["outcome"]).text = message
            elif r["outcome"] in ("skip", "waived"):
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=_s(f"{r['outcome']}: {r.get('message', '')}")[:1000])
            replay = res.replay_command(r)
            if replay and r["outcome"] != "pass":
                ET.SubElement(case, "system-out").text = _s("replay: " + replay)
        for key, value in counts.items():
            suite.set(key, f"{value:.6f}" if key == "time" else str(value))
            total[key] += value
    for key, value in total.items():
        root.set(key, f"{value:.6f}" if key == "time" else str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
