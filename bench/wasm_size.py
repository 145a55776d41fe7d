#!/usr/bin/env python3
"""Where a wasm module's bytes are: `twiggy top` (cargo install twiggy) summed per crate, or
per module of ours, by the first path segment of each function's name. Run it on the wasm cargo
writes (target/wasm32-unknown-unknown/release/evenhand.wasm), which still has its function
names; the shipped files do not. Usage: bench/wasm_size.py FILE.wasm [ROWS]"""
import collections
import csv
import re
import subprocess
import sys

SECTIONS = ("data segment", "custom section", "type[", "import ", "export ", "table[", "elem", "global", "memory")


def contributor(name: str, size: int) -> str:
    if name.startswith(SECTIONS) or "subsection" in name:
        return name if size > 10_000 else "(other sections)"
    bare = re.sub(r"^[<&\[( ]+|mut |dyn ", "", name)
    m = re.match(r"([A-Za-z_]\w*)(?:::([A-Za-z_]\w*))?(?:::([A-Za-z_]\w*))?", bare)
    if not m:
        return "(unnamed)"
    if m.group(1) != "evenhand":
        return m.group(1)
    if m.group(2) == "web":
        return f"evenhand::web::{m.group(3) or ''}"
    return f"evenhand::{m.group(2) or ''}"


def main() -> None:
    path, rows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
    out = subprocess.run(["twiggy", "top", "-n", "1000000", "-f", "csv", path], capture_output=True, text=True, check=True)
    sizes = collections.Counter()
    for row in csv.DictReader(out.stdout.splitlines()):
        sizes[contributor(row["Name"], int(row["ShallowSize"]))] += int(row["ShallowSize"])
    total = sum(sizes.values())
    print(f"{total:>9} 100.0%  {path}")
    for name, size in sizes.most_common(rows):
        print(f"{size:>9} {100 * size / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
