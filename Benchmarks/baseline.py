#!/usr/bin/env python3
"""The plain Python baseline listdiff is measured against.

Loads both files with the json module, indexes records by key in dicts, compares them,
finds minimal moves with a longest increasing subsequence, and writes the changes as JSON.
Usage: baseline.py OLD NEW KEY > changes.json
"""
import bisect
import json
import sys


def lis_positions(values):
    tails, tails_pos, prev = [], [], [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect.bisect_left(tails, v)
        if k > 0:
            prev[i] = tails_pos[k - 1]
        if k == len(tails):
            tails.append(v)
            tails_pos.append(i)
        else:
            tails[k] = v
            tails_pos[k] = i
    out, p = [], tails_pos[-1] if tails_pos else -1
    while p >= 0:
        out.append(p)
        p = prev[p]
    return set(out)


def main():
    old_path, new_path, key = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(old_path, "rb") as f:
        old = json.load(f)
    with open(new_path, "rb") as f:
        new = json.load(f)
    old_index = {r[key]: i for i, r in enumerate(old)}
    new_index = {r[key]: j for j, r in enumerate(new)}
    changes = []
    for i, r in enumerate(old):
        if r[key] not in new_index:
            changes.append({"op": "delete", "key": r[key], "old": [0, i], "value": r})
    matched = [(old_index[r[key]], j) for j, r in enumerate(new) if r[key] in old_index]
    matched.sort()
    stays = lis_positions([j for _, j in matched])
    moved = {matched[p][0] for p in range(len(matched)) if p not in stays}
    for j, r in enumerate(new):
        i = old_index.get(r[key])
        if i is None:
            changes.append({"op": "insert", "key": r[key], "new": [0, j], "value": r})
            continue
        if i in moved:
            changes.append({"op": "move", "key": r[key], "old": [0, i], "new": [0, j]})
        if old[i] != r:
            fields = [{"path": "/" + k, "old": old[i].get(k), "new": r.get(k)}
                      for k in sorted(set(old[i]) | set(r)) if old[i].get(k) != r.get(k)]
            changes.append({"op": "update", "key": r[key], "old": [0, i], "new": [0, j], "fields": fields, "value": r})
    json.dump({"version": 1, "changes": changes}, sys.stdout)


if __name__ == "__main__":
    main()
