#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints scripts/bench.sh's one table: bench/table.py SPEC RAW_DIR

SPEC has one tab-separated line per row:
  ROW   label  case  field  unit  base_label  base_case  base_field  target_abs  target_ratio
  NA    label  text
  INFO  label  text
  SEC   title
RAW_DIR/<case> holds the runner's lines ("key=value" words). unit: ms (field in us), MB
or KB (field in KiB). A target is "-" when there is none; the ratio is median / baseline
median, both measured in the same run (interleaved rounds).
"""
import statistics
import sys


def values(raw, case, field):
    out = []
    try:
        with open(f"{raw}/{case}") as f:
            for line in f:
                for word in line.split():
                    k, _, v = word.partition("=")
                    if k == field and v.lstrip("-").isdigit() and int(v) >= 0:
                        out.append(int(v))
    except FileNotFoundError:
        pass
    return out


def scale(v, unit):
    return {"ms": v / 1000.0, "MB": v / 1024.0, "KB": float(v)}[unit]


def fmt(v, unit):
    if unit == "KB":
        return f"{v:.0f} KB"
    return f"{v:.2f} {unit}"


def main():
    spec, raw = sys.argv[1], sys.argv[2]
    rows = []
    for line in open(spec):
        parts = line.rstrip("\n").split("\t")
        kind = parts[0]
        if kind == "SEC":
            rows.append(("sec", parts[1]))
        elif kind in ("NA", "INFO"):
            rows.append(("text", parts[1], parts[2]))
        elif kind == "ROW":
            label, case, field, unit, blabel, bcase, bfield, tabs, tratio = parts[1:10]
            vals = [scale(v, unit) for v in values(raw, case, field)]
            if not vals:
                rows.append(("text", label, f"no data (case {case} failed: see the errors above)"))
                continue
            med = statistics.median(vals)
            cells = [label, fmt(med, unit), fmt(min(vals), unit), fmt(max(vals), unit), str(len(vals))]
            ratio = None
            if bcase != "-":
                bvals = [scale(v, unit) for v in values(raw, bcase, bfield)]
                if bvals:
                    bmed = statistics.median(bvals)
                    ratio = med / bmed if bmed > 0 else None
                    cells.append(f"{blabel} {fmt(bmed, unit)}")
                    cells.append(f"{ratio:.2f}x" if ratio is not None else "-")
                else:
                    cells += [f"{blabel}: no data", "-"]
            else:
                cells += ["", ""]
            targets, verdict = [], []
            if tabs != "-":
                targets.append(f"<= {tabs} {unit}")
                verdict.append(med <= float(tabs))
            if tratio != "-":
                targets.append(f"<= {tratio}x")
                verdict.append(ratio is not None and ratio <= float(tratio))
            cells.append(", ".join(targets))
            cells.append("" if not verdict else ("met" if all(verdict) else "MISSED"))
            rows.append(("row", cells))

    head = ["figure", "median", "min", "max", "n", "baseline (median)", "ratio", "target", ""]
    widths = [len(h) for h in head]
    for r in rows:
        if r[0] == "row":
            widths = [max(w, len(c)) for w, c in zip(widths, r[1])]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        if r[0] == "sec":
            print(line([f"**{r[1]}**"] + [""] * (len(head) - 1)))
        elif r[0] == "text":
            print(line([r[1], r[2]] + [""] * (len(head) - 2)))
        else:
            print(line(r[1]))


if __name__ == "__main__":
    main()
