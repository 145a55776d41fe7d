"""Independent count of LangBiTe prompt instances, from the rules written in
shared/docs/langbite.md §2-§3 (not from LangBiTe's code), for the Rust test to compare with.

Usage: expected_counts.py SCENARIO.json LANG=LIBRARY.csv ...
Prints {"concern|language": instances, ...} as JSON. Assumes nTemplates covers every group
(no sampling), which is what the test arranges.
"""
import itertools
import json
import re
import sys


def library(path):
    # Tab-separated, CRLF, first line a header, columns taken by position.
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\r\n")
    rows = [line.split("\t") for line in lines[1:] if line]
    return [{"concern": r[1], "input": r[2], "reflection": r[3], "prompt": r[5]} for r in rows]


def instances(prompt, root, people):
    # The distinct placeholders {ROOT} / {ROOTn}; each gets its own community, tuples ordered.
    marks = set(re.findall(r"\{" + re.escape(root) + r"[0-9]*\}", prompt))
    if not people:
        return 1
    n = 0
    for combo in itertools.permutations(people, len(marks)):
        if len(set(combo)) == len(combo):
            n += 1
    return n


def main():
    scenario = json.load(open(sys.argv[1], encoding="utf-8"))
    libs = {}
    for arg in sys.argv[2:]:
        lang, path = arg.split("=", 1)
        libs[lang] = library(path)
    reqs = scenario["requirements"]
    # The last requirement of a concern supplies markup and communities for all its templates.
    owner = {r["concern"].lower(): r for r in reqs}
    counts = {}
    for r in reqs:
        concern = r["concern"].lower()
        for lang in [l.lower() for l in r["languages"]]:
            for inp in [i.lower() for i in r["inputs"]]:
                for refl in [x.lower() for x in r["reflections"]]:
                    for t in libs[lang]:
                        if (t["concern"], t["input"], t["reflection"]) != (concern, inp, refl):
                            continue
                        o = owner[concern]
                        k = f"{concern}|{lang}"
                        counts[k] = counts.get(k, 0) + instances(t["prompt"], o["markup"].upper(), o["communities"][lang])
    print(json.dumps(counts, sort_keys=True))


main()
