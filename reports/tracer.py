"""The combine order of a failing witness.tracer case, drawn from its record.

The tracer witness (reference/include/ordo/reference/witness.h) names the
first wrong combine of a wrong result. The harness writes it twice: as data,
the record's "tracer" list (one item per failing rank whose message names it,
conformance/harness/messages.cpp, tracer_item), e.g.

    {"kind": "swapped", "invec": [2, 3], "inoutvec": [0, 1], "why": "operands swapped",
     "expected": [0, 3], "element": 0, "group": null, "rank": 1, "size": 4,
     "on_rank": 1}
    {"kind": "wrong_cover", "covers": [0, 2], "expected": [0, 3], ...}

and in words in the message (each one line there):

    tracer: first wrong combine: invec = ranks 2..3, inoutvec = ranks 0..1
        (operands swapped)
    tracer: covers ranks 0..2 instead of ranks 0..3

from_record() reads the data (parse() reads the words, for journals written
before the field existed) into plain items, and svg() draws one: the ranks as
leaves, the two operands over the ranks they hold, and the combine node with
its left edge to invec and its right edge to inoutvec, so a swap shows as
crossing edges. Everything drawn comes from the record; nothing is guessed.
"""
import html
import re

_RANGE = r"ranks? (\d+)(?:\.\.(\d+))?"
_WRONG = re.compile(
    r"first wrong combine: invec = "
    + _RANGE
    + r", inoutvec = "
    + _RANGE
    + r" \(([^)]*)\)"
)
_COVERS = re.compile(r"covers " + _RANGE + r" instead of " + _RANGE)
_WHERE = re.compile(r"\((?:comm|low group|high group) rank (\d+) of (\d+)\)")
_ON_RANK = re.compile(r"on rank (\d+): ")
MAX_LEAVES = 64


def _range(lo, hi):
    lo = int(lo)
    return (lo, int(hi) if hi is not None else lo)


def _text(r):
    return f"rank {r[0]}" if r[0] == r[1] else f"ranks {r[0]}..{r[1]}"


_COMBINE_KINDS = {"swapped", "overlapping", "gap"}


def _drawable(item):
    """Whether the item's ranks can be (a corrupted cell names ranks that cannot)."""
    ranges = [
        r
        for r in (
            item.get("invec"),
            item.get("inoutvec"),
            item.get("got"),
            item.get("want"),
        )
        if r
    ]
    top = max(r[1] for r in ranges)
    size = item.get("size")
    return not (
        top >= MAX_LEAVES
        or (size and top >= size)
        or any(r[0] > r[1] or r[0] < 0 for r in ranges)
    )


def _add(found, seen, item):
    key = tuple(sorted((k, v) for k, v in item.items() if k != "on_rank"))
    if key not in seen:
        seen.add(key)
        found.append(item)


def from_record(record):
    """The tracer explanations of a record: from its "tracer" field, or from
    its message when the record has none (a journal written before the field)."""
    data = record.get("tracer")
    if not isinstance(data, list):
        return parse(record.get("message", ""))
    found: list = []
    seen: set = set()
    for t in data:
        kind = t.get("kind")
        if kind in _COMBINE_KINDS:
            item = {
                "kind": "wrong-combine",
                "invec": tuple(t["invec"]),
                "inoutvec": tuple(t["inoutvec"]),
                "why": t.get("why", ""),
            }
        elif kind == "wrong_cover":
            item = {
                "kind": "covers",
                "got": tuple(t["covers"]),
                "want": tuple(t["expected"]),
            }
        else:
            continue  # in order: nothing wrong to draw
        item["on_rank"] = t.get("on_rank")
        item["size"] = t.get("size")
        if _drawable(item):
            _add(found, seen, item)
    return found


def parse(message):
    """The tracer explanations in a failure message: a list of dicts, one per
    distinct explanation (the reading of journals written before the record's
    "tracer" field)."""
    found: list = []
    seen: set = set()
    for part in (message or "").split(" | "):
        m_rank = _ON_RANK.search(part)
        m_where = _WHERE.search(part)
        size = int(m_where.group(2)) if m_where else None
        m = _WRONG.search(part)
        if m:
            item = {
                "kind": "wrong-combine",
                "invec": _range(m.group(1), m.group(2)),
                "inoutvec": _range(m.group(3), m.group(4)),
                "why": m.group(5),
            }
        else:
            m = _COVERS.search(part)
            if not m:
                continue
            item = {
                "kind": "covers",
                "got": _range(m.group(1), m.group(2)),
                "want": _range(m.group(3), m.group(4)),
            }
        item["on_rank"] = int(m_rank.group(1)) if m_rank else None
        item["size"] = size
        # else ranks that cannot be (a corrupted cell): nothing to draw
        if _drawable(item):
            _add(found, seen, item)
    return found


def describe(item):
    """One line of text for the explanation (used where SVG cannot go)."""
    if item["kind"] == "wrong-combine":
        a, b = item["invec"], item["inoutvec"]
        text = f"combine(invec = {_text(a)}, inoutvec = {_text(b)}): {item['why']}"
        if item["why"] == "operands swapped":
            text += f"; in rank order invec = {_text(b)}, inoutvec = {_text(a)}"
        return text
    return f"the result covers {_text(item['got'])} instead of {_text(item['want'])}"


def svg(item):
    """A small self-contained SVG of one explanation (all text escaped)."""
    ranges = (
        [item["invec"], item["inoutvec"]]
        if item["kind"] == "wrong-combine"
        else [item["got"], item["want"]]
    )
    leaves = max(max(r[1] for r in ranges) + 1, item.get("size") or 0)
    leaves = min(leaves, MAX_LEAVES)
    cell, gap, margin = 26, 4, 14
    width = max(520, margin * 2 + leaves * (cell + gap))
    height = 170 if item["kind"] == "wrong-combine" else 110
    left = (width - leaves * (cell + gap) + gap) / 2  # the leaves are centred
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tracer" width="{width}"'
        f' height="{height}" viewBox="0 0 {width} {height}" role="img"'
        f' aria-label="{html.escape(describe(item))}">'
    ]

    def x_of(rank):
        return left + rank * (cell + gap)

    def centre(r):
        return (x_of(r[0]) + x_of(min(r[1], leaves - 1)) + cell) / 2

    def colour(rank):
        if item["kind"] == "wrong-combine":
            a, b = item["invec"], item["inoutvec"]
            in_a, in_b = a[0] <= rank <= a[1], b[0] <= rank <= b[1]
            return (
                "#c0392b"
                if in_a and in_b
                else "#2e86c1"
                if in_a
                else "#e67e22"
                if in_b
                else "#d5d8dc"
            )
        got, want = item["got"], item["want"]
        if got[0] <= rank <= got[1]:
            return "#27ae60" if want[0] <= rank <= want[1] else "#c0392b"
        return "#f5b7b1" if want[0] <= rank <= want[1] else "#d5d8dc"

    leaf_y = height - cell - 8
    for rank in range(leaves):
        parts.append(
            f'<rect x="{x_of(rank)}" y="{leaf_y}" width="{cell}" height="{cell}" rx="3"'
            f' fill="{colour(rank)}"/>'
        )
        parts.append(
            f'<text x="{x_of(rank) + cell / 2}" y="{leaf_y + cell / 2 + 4}"'
            f' text-anchor="middle" font-size="11" fill="#17202a">{rank}</text>'
        )
    if item["kind"] == "wrong-combine":
        node_x, node_y = width / 2, 22
        boxes = (
            ("invec (left)", item["invec"], "#2e86c1"),
            ("inoutvec (right)", item["inoutvec"], "#e67e22"),
        )
        lower_first = item["invec"][0] <= item["inoutvec"][0]
        for side, (label, r, fill) in enumerate(boxes):
            cx = centre(r)
            # The operand holding the lower ranks sits on the left, whichever side of
            # the combine it was given.
            on_left = (side == 0) == lower_first
            bx = width * (0.27 if on_left else 0.73) - 60
            by = 78
            # The node's first edge goes to invec, drawn from the node's left; a swap
            # makes the edges cross.
            start_x = node_x - 10 if side == 0 else node_x + 10
            parts.append(
                f'<line x1="{start_x}" y1="{node_y + 10}" x2="{bx + 60}" y2="{by}"'
                f' stroke="{fill}" stroke-width="2"/>'
            )
            parts.append(
                f'<rect x="{bx}" y="{by}" width="120" height="34" rx="4" fill="#ffffff"'
                f' stroke="{fill}" stroke-width="2"/>'
            )
            parts.append(
                f'<text x="{bx + 60}" y="{by + 14}" text-anchor="middle"'
                f' font-size="11">{html.escape(label)}</text>'
            )
            parts.append(
                f'<text x="{bx + 60}" y="{by + 28}" text-anchor="middle" font-size="11"'
                f' font-weight="bold">{html.escape(_text(r))}</text>'
            )
            parts.append(
                f'<line x1="{bx + 60}" y1="{by + 34}" x2="{cx}" y2="{leaf_y - 2}"'
                f' stroke="{fill}" stroke-dasharray="3,2"/>'
            )
        parts.append(
            f'<circle cx="{node_x}" cy="{node_y}" r="12" fill="#fdedec"'
            ' stroke="#c0392b" stroke-width="2"/>'
        )
        parts.append(
            f'<text x="{node_x}" y="{node_y + 5}" text-anchor="middle"'
            ' font-size="14">&#8728;</text>'
        )
        parts.append(
            f'<text x="{node_x + 18}" y="{node_y + 4}" font-size="11"'
            f' fill="#c0392b">first wrong combine: {html.escape(item["why"])}</text>'
        )
    else:
        parts.append(
            f'<text x="{margin}" y="40" font-size="12">result covers <tspan'
            f' font-weight="bold">{html.escape(_text(item["got"]))}</tspan>, expected'
            " <tspan"
            f' font-weight="bold">{html.escape(_text(item["want"]))}</tspan></text>'
        )
        parts.append(
            f'<text x="{margin}" y="62" font-size="11" fill="#566573">green: included'
            " and expected; red: included but not expected; pink: expected but"
            " missing</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
