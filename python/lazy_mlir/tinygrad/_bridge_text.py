"""The bridge text lazy-mlir's `lazy-print-schedule{format=bridge}` writes
(PrintSchedule.cpp), read by the tinygrad bridge (_bridge.py) and by the
kernel compiler (_compile.py): each distinct kernel once, then each item.
A module of its own so that neither of those imports the other.
"""


class LazyMlirError(RuntimeError):
    """lazy-mlir refused a graph; the message holds its diagnostics."""


def parse_bridge(text):
    """(kernels, items) of a bridge schedule text: kernels maps a symbol to
    (metadata names, node lines, argument count); each item is (kind, symbol or ext kind,
    output positions, buffer tokens)."""
    kernels, items = {}, []
    current = None
    for line in text.splitlines():
        if line.startswith("var_vals"):
            continue  # read by var_values()
        if line.startswith("kernel @"):
            _, symbol, _, arity = line.split(" ")
            current = kernels[symbol] = ([], [], int(arity))
        elif line.startswith("item "):
            _, kind, what = line.split(" ", 2)
            current = None
            items.append([kind, what, (), ()])
        elif line.startswith("  meta "):
            current[0].append(line[7:])
        elif line.startswith("  out"):
            items[-1][2] = tuple(int(x) for x in line[5:].split())
        elif line.startswith("  buf"):
            items[-1][3] = tuple(line[5:].split())
        elif line.startswith("  ") and current is not None:
            current[1].append(line[2:])
    return kernels, items
