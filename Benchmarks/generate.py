#!/usr/bin/env python3
"""Generates an old and a new list of records for the benchmarks, deterministically.

Records have 7 fields. The new list has 1% of the records deleted, 1% inserted,
1% updated and 1% moved. Writes old-COUNT.json and new-COUNT.json (one record per line
inside a JSON list), theirs-COUNT.json (another such edit of the old list, for a merge), the same records as NDJSON sorted by id (old-COUNT.ndjson,
new-COUNT.ndjson), for `listdiff --sorted`, as CSV (old-COUNT.csv, new-COUNT.csv), and as block-style YAML (old-COUNT.yaml,
new-COUNT.yaml), and in other shapes (SHAPE-old-COUNT.json, SHAPE-new-COUNT.json): an object
of 10 lists (objects), a list of 10 section objects (sections), a nested key user.id
(nested), a composite key region, n (composite), an updated_at member that differs in
every record between old and new (volatile), and a list of 10 order lines in each record
(lines), whose updated records rotate their lines and change one. With --churn, the new list has 10% deletes, 10% inserts, 20% updates
and 20% moves instead, written as churn-old-COUNT.json and churn-new-COUNT.json. With --next,
the list after new-COUNT.json (written first if missing), edited the same way as new from old
(1% each, new keys from 3 × COUNT), written as next-COUNT.json: a chain for `listdiff compose`.
With --renames, new-COUNT.json (written first if missing) with 1% of its records given new
keys (from 5 × COUNT), half of them with their age changed too, written as
renamed-new-COUNT.json: the renames `listdiff --renames` finds.
Usage: generate.py COUNT OUT_DIR [--churn | --next | --renames]
"""
import json
import os
import random
import subprocess
import sys

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Margaret", "Frances", "Ken", "Dennis"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Allen", "Thompson", "Ritchie"]


def record(rng, i):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "id": i,
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{last.lower()}{i}@example.com",
        "age": rng.randint(18, 90),
        "active": rng.random() < 0.8,
        "score": round(rng.uniform(0, 1000), 2),
        "team": rng.choice(["engines", "codes", "compilers", "paths", "types", "books"]),
    }


def write(path, records):
    with open(path, "w") as f:
        f.write("[\n")
        for k, r in enumerate(records):
            f.write(json.dumps(r, separators=(",", ":")))
            f.write(",\n" if k + 1 < len(records) else "\n")
        f.write("]\n")


def write_yaml(path, records):
    # Every value here is plain-safe: names, emails and teams are letters, dots and @.
    with open(path, "w") as f:
        for r in records:
            f.write(f"- id: {r['id']}\n  name: {r['name']}\n  email: {r['email']}\n  age: {r['age']}\n"
                    f"  active: {'true' if r['active'] else 'false'}\n  score: {r['score']}\n  team: {r['team']}\n")


def edit(rng, old, count, deletes, inserts, updates, moves):
    """The new list: whole percentages of the old list's size deleted, inserted, updated, moved.
    Done by marking and one rebuild, so that high churn stays linear."""
    n = len(old)
    gone = set(rng.sample(range(n), n * deletes // 100))
    new = [r for i, r in enumerate(old) if i not in gone]
    for j in rng.sample(range(len(new)), len(new) * updates // 100):
        new[j] = dict(new[j], score=round(rng.uniform(0, 1000), 2), team="moved-on")
    # Moves and inserts: taken out (or made), then put at random places in one pass.
    moved = set(rng.sample(range(len(new)), len(new) * moves // 100))
    stay = [r for j, r in enumerate(new) if j not in moved]
    loose = [r for j, r in enumerate(new) if j in moved] + [record(rng, count + i) for i in range(n * inserts // 100)]
    slots = sorted(rng.randrange(len(stay) + 1) for _ in loose)
    rng.shuffle(loose)
    result, k = [], 0
    for pos in range(len(stay) + 1):
        while k < len(slots) and slots[k] == pos:
            result.append(loose[k])
            k += 1
        if pos < len(stay):
            result.append(stay[pos])
    return result


def write_shapes(out, count, old, new):
    """The same records in 10 sections (an object of lists, a list of section objects), and
    with a nested key and a composite key added, one record per line."""
    def lines(f, records):
        for j, r in enumerate(records):
            f.write(json.dumps(r, separators=(",", ":")) + (",\n" if j + 1 < len(records) else "\n"))

    old_by_id = {r["id"]: r for r in old}

    def with_lines(r, changed):
        items = [{"sku": f"s{k}", "qty": (r["id"] + k) % 5} for k in range(10)]
        if changed:
            items = items[1:] + items[:1]
            items[3] = dict(items[3], qty=9)
        return dict(r, lines=items)

    for side, records in (("old", old), ("new", new)):
        with open(os.path.join(out, f"lines-{side}-{count}.json"), "w") as f:
            f.write("[\n")
            lines(f, [with_lines(r, side == "new" and old_by_id.get(r["id"]) not in (None, r)) for r in records])
            f.write("]\n")
        k = len(records) // 10
        sections = [records[i * k:(i + 1) * k] if i < 9 else records[9 * k:] for i in range(10)]
        with open(os.path.join(out, f"objects-{side}-{count}.json"), "w") as f:
            f.write("{\n")
            for i, section in enumerate(sections):
                f.write(f'"s{i}": [\n')
                lines(f, section)
                f.write("]" + (",\n" if i < 9 else "\n"))
            f.write("}\n")
        with open(os.path.join(out, f"sections-{side}-{count}.json"), "w") as f:
            f.write("[\n")
            for i, section in enumerate(sections):
                f.write('{"name": "s%d", "items": [\n' % i)
                lines(f, section)
                f.write("]}" + (",\n" if i < 9 else "\n"))
            f.write("]\n")
        with open(os.path.join(out, f"nested-{side}-{count}.json"), "w") as f:
            f.write("[\n")
            lines(f, [dict(r, user={"id": r["id"]}) for r in records])
            f.write("]\n")
        with open(os.path.join(out, f"composite-{side}-{count}.json"), "w") as f:
            f.write("[\n")
            lines(f, [dict(r, region=r["id"] % 7, n=r["id"] // 7) for r in records])
            f.write("]\n")
        # The same records as a map, each under a name made from its id, in the list's order.
        with open(os.path.join(out, f"map-{side}-{count}.json"), "w") as f:
            f.write("{\n")
            for j, r in enumerate(records):
                f.write(f'"u{r["id"]}":' + json.dumps(r, separators=(",", ":")) + (",\n" if j + 1 < len(records) else "\n"))
            f.write("}\n")
        stamp = "2026-01-01T00:00:00Z" if side == "old" else "2026-02-02T11:11:11Z"
        with open(os.path.join(out, f"volatile-{side}-{count}.json"), "w") as f:
            f.write("[\n")
            lines(f, [dict(r, updated_at=stamp) for r in records])
            f.write("]\n")


def one_percent(rng, old, first_id):
    """The old list with 1% of its size deleted, 1% inserted (ids from first_id), 1% updated
    and 1% moved."""
    new = list(old)
    k = max(1, len(old) // 100)
    for _ in range(k):  # deletes
        new.pop(rng.randrange(len(new)))
    for n in range(k):  # inserts
        new.insert(rng.randrange(len(new) + 1), record(rng, first_id + n))
    for _ in range(k):  # updates
        j = rng.randrange(len(new))
        new[j] = dict(new[j], score=round(rng.uniform(0, 1000), 2), team="moved-on")
    for _ in range(k):  # moves
        r = new.pop(rng.randrange(len(new)))
        new.insert(rng.randrange(len(new) + 1), r)
    return new


def main():
    count, out = int(sys.argv[1]), sys.argv[2]
    churn = "--churn" in sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    if "--next" in sys.argv[3:] or "--renames" in sys.argv[3:]:
        source = os.path.join(out, f"new-{count}.json")
        if not os.path.exists(source):
            subprocess.run([sys.executable, os.path.abspath(__file__), str(count), out], check=True)
        with open(source) as f:
            new = json.load(f)
        if "--renames" in sys.argv[3:]:
            rng = random.Random(count + 3)
            renamed = list(new)
            for n, j in enumerate(rng.sample(range(len(renamed)), max(1, len(renamed) // 100))):
                r = dict(renamed[j], id=5 * count + n)
                if n % 2:
                    r["age"] = r["age"] % 72 + 19
                renamed[j] = r
            write(os.path.join(out, f"renamed-new-{count}.json"), renamed)
            return
        write(os.path.join(out, f"next-{count}.json"), one_percent(random.Random(count + 2), new, 3 * count))
        return
    rng = random.Random(count)
    old = [record(rng, i) for i in range(count)]
    if churn:
        new = edit(rng, old, count, 10, 10, 20, 20)
        write(os.path.join(out, f"churn-old-{count}.json"), old)
        write(os.path.join(out, f"churn-new-{count}.json"), new)
        return
    new = one_percent(rng, old, count)
    write(os.path.join(out, f"old-{count}.json"), old)
    write(os.path.join(out, f"new-{count}.json"), new)
    # Another 1% edit of the old list, made on its own (a merge's THEIRS, with new the
    # OURS): mostly other records, a few the same ones, new ids of its own.
    write(os.path.join(out, f"theirs-{count}.json"), one_percent(random.Random(count + 1), old, 2 * count))
    write_yaml(os.path.join(out, f"old-{count}.yaml"), old)
    write_yaml(os.path.join(out, f"new-{count}.yaml"), new)
    write_shapes(out, count, old, new)
    for name, records in (("old", old), ("new", new)):
        # The same records as CSV, in the same order: --csv-types infer reads them back as
        # the JSON list's records.
        with open(os.path.join(out, f"{name}-{count}.csv"), "w") as f:
            fields = list(records[0].keys())
            f.write(",".join(fields) + "\n")
            for r in records:
                f.write(",".join(json.dumps(r[k]) if not isinstance(r[k], str) else r[k] for k in fields) + "\n")
        with open(os.path.join(out, f"{name}-{count}.ndjson"), "w") as f:
            for r in sorted(records, key=lambda r: r["id"]):
                f.write(json.dumps(r, separators=(",", ":")))
                f.write("\n")


if __name__ == "__main__":
    main()
