"""Write corpus graphs out as stand-alone build() scripts.

    python3 python/tests/corpus/generate.py OUTDIR [SUBSTRING ...]

writes OUTDIR/<name with / replaced by __>.py for every corpus graph (or
those whose name contains one of the substrings); each script can be given
to `python3 -m lazy_mlir.tinygrad export|check`.
"""

import os
import sys

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TEMPLATE = '''"""Corpus graph {name} (written by tests/corpus/generate.py)."""
import sys

sys.path.insert(0, {tests_dir!r})

from corpus import registry  # noqa: E402


def build():
    return registry.build({name!r})
'''


def script_name(name):
    return name.replace("/", "__") + ".py"


def write_scripts(out_dir, patterns=()):
    if TESTS_DIR not in sys.path:
        sys.path.insert(0, TESTS_DIR)
    from corpus import registry
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name in sorted(registry.load()):
        if patterns and not any(p in name for p in patterns):
            continue
        path = os.path.join(out_dir, script_name(name))
        with open(path, "w") as f:
            f.write(TEMPLATE.format(name=name, tests_dir=TESTS_DIR))
        written.append(path)
    return written


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    paths = write_scripts(argv[0], argv[1:])
    print(f"wrote {len(paths)} scripts to {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
