#!/usr/bin/env python3
"""Writes ScheduleFlags.def from ScheduleFlags.td's records.

Usage: gen_schedule_flags.py RECORDS.json OUT.def, where RECORDS.json is
`llvm-tblgen --dump-json ScheduleFlags.td`. The .def lists every
Lazy_BoolFlag as LAZY_BOOL_FLAG(...) and every Lazy_PolicyFlag as
LAZY_POLICY_FLAG(...), in the order of the .td's lists.
"""

import json
import sys


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(records_path, out_path):
    records = json.load(open(records_path))

    def ordered(listed_class):
        # Definition order: the records' locations in the .td.
        names = records["!instanceof"].get(listed_class, [])
        return sorted(names, key=lambda n: int(
            records[n]["!locs"][0].rsplit(":", 1)[1]))

    lines = [
        "// Generated from ScheduleFlags.td by utils/gen_schedule_flags.py:",
        "// do not edit. ScheduleFlags.td documents the macros.",
        "",
        "#if !defined(LAZY_BOOL_FLAG) || !defined(LAZY_POLICY_FLAG)",
        '#error "define LAZY_BOOL_FLAG and LAZY_POLICY_FLAG before including '
        'ScheduleFlags.def"',
        "#endif",
        "",
    ]
    for name in ordered("Lazy_BoolFlag"):
        r = records[name]
        if r["defaultValue"] not in ("true", "false"):
            sys.exit(f"{name}: a bool flag's default is true or false")
        lines.append(f"LAZY_BOOL_FLAG({r['cppField']}, {quote(r['key'])}, "
                     f"{quote(r['option'])}, {r['defaultValue']}, "
                     f"{quote(r['tinygrad'])}, {quote(r['description'])})")
    for name in ordered("Lazy_PolicyFlag"):
        r = records[name]
        lines.append(f"LAZY_POLICY_FLAG({r['cppField']}, {quote(r['key'])}, "
                     f"{quote(r['option'])}, {quote(r['description'])})")
    lines += ["", "#undef LAZY_BOOL_FLAG", "#undef LAZY_POLICY_FLAG", ""]
    text = "\n".join(lines)
    try:
        if open(out_path).read() == text:
            return
    except OSError:
        pass
    with open(out_path, "w") as out:
        out.write(text)


if __name__ == "__main__":
    main(*sys.argv[1:])
