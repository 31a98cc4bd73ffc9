#!/usr/bin/env python3
"""The scale table of a diff larger than memory: unsorted NDJSON, diffed in memory, with
--memory-limit (spilled to disk), and sorted first with sort(1) then diffed with --sorted.

Writes DIR/spill-old-COUNT.ndjson and DIR/spill-new-COUNT.ndjson when missing: COUNT
records in random order, and the same with 1% deleted, 1% inserted, 1% updated and 1%
moved. Then runs each way RUNS times, alternating, and prints the
median time and peak memory (GNU time's maximum resident set), and whether the spilled
changeset is byte for byte the one in memory.

Other shapes hold the same records, and sort(1) has no way in:
- sections: a JSON object of 10 lists (records in sections), each list a tenth of the
  records in that order, so that the moved and inserted records cross lists;
- section-objects: a JSON list of 10 section objects (`{"name": "s0", "title": …, "items":
  […], "open": true}`), the same tenths;
- yaml: a YAML block sequence at the left margin, a record's members on lines of their own;
- yaml-path: that sequence under `items:` in a document like `kubectl get -o yaml`'s,
  diffed with `--path /items`;
- yaml-sections: a YAML object of 10 lists (`s0:` then its items);
- yaml-section-objects: a YAML list of 10 section objects (`- name: s0`, `title:`,
  `items:` then its items, and `open:` after them);
- yaml-map-path: a YAML map of records (`u17:` then its record's members) under
  `data:`, `users:`, diffed with `--path /data/users`;
- csv-cr: CSV whose rows end with a lone CR, as Excel for Mac writes them, each name a
  quoted field that holds one too;
- yaml-ls: the YAML block sequence, each record with a quoted note that holds U+2028 (a
  line break to libyaml, so every place counts it).

With --given, the section-object shapes are diffed with `--section-key name --items
items` (the layout given, not found), so that the first section is cut inside too.

Usage: spill.py DIR COUNT [--limit 1G] [--runs 3] [--no-memory] [--binary PATH] [--given]
       [--shape list|sections|section-objects|yaml|yaml-path|yaml-sections|yaml-section-objects|yaml-map-path|csv-cr|yaml-ls]
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import record  # noqa: E402


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def edit(rng, old, count):
    """1% of the records deleted, 1% inserted, 1% updated and 1% moved, in one pass and
    a sort (generate.py's list inserts take too long at 10M)."""
    k = max(1, len(old) // 100)
    n = len(old)
    placed = [(float(i), r) for i, r in enumerate(old)]
    gone = set(rng.sample(range(n), k))
    moved = set(rng.sample(range(n), k))
    updated = set(rng.sample(range(n), k))
    out = []
    for i, (place, r) in enumerate(placed):
        if i in gone:
            continue
        if i in updated:
            r = dict(r, score=round(rng.uniform(0, 1000), 2), team="moved-on")
        out.append((rng.uniform(0, n) if i in moved else place, r))
    for j in range(k):
        out.append((rng.uniform(0, n), record(rng, count + j)))
    out.sort(key=lambda e: e[0])
    return [r for _, r in out]


def write_ndjson(path, records):
    import json
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")))
            f.write("\n")


def tenths(records):
    """The records in 10 runs of a tenth each, in order."""
    tenth = max(1, -(-len(records) // 10))
    return [records[start:start + tenth] for start in range(0, len(records), tenth)]


def write_sections(path, records):
    """An object of 10 lists, each a tenth of the records, one record a line."""
    import json
    with open(path, "w") as f:
        f.write("{\n")
        for k, part in enumerate(tenths(records)):
            f.write(f'"s{k}": [\n' if k == 0 else f',\n"s{k}": [\n')
            f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in part))
            f.write("\n]")
        f.write("\n}\n")


def write_section_objects(path, records):
    """A list of 10 section objects, named first, with a field of their own after their
    records; one record a line."""
    import json
    with open(path, "w") as f:
        f.write("[\n")
        for k, part in enumerate(tenths(records)):
            f.write(f'{{"name": "s{k}", "title": "Section {k}", "items": [\n' if k == 0 else f',\n{{"name": "s{k}", "title": "Section {k}", "items": [\n')
            f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in part))
            f.write(f'\n], "open": {"true" if k % 2 == 0 else "false"}}}')
        f.write("\n]\n")


def yaml_items(f, records, pad="", map=False):
    # Every value here is plain-safe: names, emails and teams are letters, dots and @.
    for r in records:
        if map:
            f.write(f"{pad}u{r['id']}:\n")
        f.write(f"{pad}{'  ' if map else '- '}id: {r['id']}\n{pad}  name: {r['name']}\n{pad}  email: {r['email']}\n{pad}  age: {r['age']}\n"
                f"{pad}  active: {'true' if r['active'] else 'false'}\n{pad}  score: {r['score']}\n{pad}  team: {r['team']}\n")


def write_yaml(path, records):
    with open(path, "w") as f:
        yaml_items(f, records)


def write_yaml_path(path, records):
    with open(path, "w") as f:
        f.write("apiVersion: v1\nitems:\n")
        yaml_items(f, records)
        f.write("kind: List\nmetadata:\n  resourceVersion: \"\"\n")


def write_yaml_map_path(path, records):
    with open(path, "w") as f:
        f.write("apiVersion: v1\ndata:\n  users:\n")
        yaml_items(f, records, "    ", map=True)
        f.write("kind: Users\n")


def write_yaml_sections(path, records):
    with open(path, "w") as f:
        for k, part in enumerate(tenths(records)):
            f.write(f"s{k}:\n")
            yaml_items(f, part, "  " if k % 2 else "")


def write_yaml_section_objects(path, records):
    with open(path, "w") as f:
        for k, part in enumerate(tenths(records)):
            f.write(f"- name: s{k}\n  title: Section {k}\n  items:\n")
            yaml_items(f, part, "    " if k % 2 else "  ")
            f.write(f"  open: {'true' if k % 2 == 0 else 'false'}\n")


def write_csv_cr(path, records):
    with open(path, "w", newline="") as f:
        f.write("id,name,email,age,active,score,team\r")
        for r in records:
            f.write(f"{r['id']},\"{r['name']}\r{r['id']}\",{r['email']},{r['age']},{'true' if r['active'] else 'false'},"
                    f"{r['score']},{r['team']}\r")


def write_yaml_ls(path, records):
    with open(path, "w") as f:
        for r in records:
            yaml_items(f, [r])
            f.write(f"  note: \"one\u2028two {r['id']}\"\n")


SHAPES = {
    "list": ("spill", "ndjson", write_ndjson, [], "unsorted NDJSON"),
    "sections": ("spill-sections", "json", write_sections, [], "an object of 10 lists"),
    "section-objects": ("spill-objects", "json", write_section_objects, [], "a list of 10 section objects"),
    "yaml": ("spill-yaml", "yaml", write_yaml, [], "a YAML block sequence"),
    "yaml-path": ("spill-yaml-path", "yaml", write_yaml_path, ["--path", "/items"], "a YAML list at --path /items"),
    "yaml-map-path": ("spill-yaml-map", "yaml", write_yaml_map_path, ["--path", "/data/users"], "a YAML map at --path /data/users"),
    "yaml-sections": ("spill-yaml-sections", "yaml", write_yaml_sections, [], "a YAML object of 10 lists"),
    "yaml-section-objects": ("spill-yaml-objects", "yaml", write_yaml_section_objects, [], "a YAML list of 10 section objects"),
    "csv-cr": ("spill-csv-cr", "csv", write_csv_cr, [], "CSV rows ending with a lone CR"),
    "yaml-ls": ("spill-yaml-ls", "yaml", write_yaml_ls, [], "a YAML block sequence with U+2028 in quoted text"),
}


def measure(command, out):
    """Runs command with its standard output to `out`; (seconds, peak MiB, status)."""
    env = dict(os.environ, LC_ALL="C")
    with open(out, "wb") as f:
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], stdout=f, stderr=subprocess.PIPE, text=True, env=env)
    seconds, kib = r.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024, r.returncode


def main():
    folder, count = sys.argv[1], int(sys.argv[2])
    limit = option("--limit", "1G")
    runs = int(option("--runs", "3"))
    binary = option("--binary", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "listdiff"))
    shape = option("--shape", "list")
    if shape not in SHAPES:
        sys.exit(f"--shape: one of {', '.join(SHAPES)}")
    os.makedirs(folder, exist_ok=True)
    stem, ext, write, options, what = SHAPES[shape]
    if "--given" in sys.argv and shape.endswith("section-objects"):
        options = [*options, "--section-key", "name", "--items", "items"]
        what += ", --section-key name --items items"
    old_path = os.path.join(folder, f"{stem}-old-{count}.{ext}")
    new_path = os.path.join(folder, f"{stem}-new-{count}.{ext}")
    if not (os.path.exists(old_path) and os.path.exists(new_path)):
        rng = random.Random(count + 7)
        old = [record(rng, i) for i in range(count)]
        rng.shuffle(old)
        new = edit(rng, old, count)
        write(old_path, old)
        write(new_path, new)
        del old, new
    scratch = tempfile.mkdtemp(prefix="listdiff-spill-bench-")
    sorted_old, sorted_new = os.path.join(scratch, "old.ndjson"), os.path.join(scratch, "new.ndjson")
    ways = {"spill": [binary, "--memory-limit", limit, *options, "-f", "json", old_path, new_path]}
    if shape == "list":
        ways["sort + --sorted"] = None
    if "--no-memory" not in sys.argv:
        ways = {"in memory": [binary, "--memory-limit", "1T", *options, "-f", "json", old_path, new_path], **ways}
    times = {name: [] for name in ways}
    peaks = {name: [] for name in ways}
    outputs = {name: os.path.join(scratch, name.replace(" ", "-").replace("+", "") + ".json") for name in ways}
    for _ in range(runs):
        for name, command in ways.items():
            if command is None:
                # sort(1) by the id after the first colon, both files, then the streaming diff.
                total, peak = 0.0, 0.0
                for source, target in ((old_path, sorted_old), (new_path, sorted_new)):
                    s, m, _ = measure(["sort", "-t:", "-k2,2n", "-S", "50%", "-T", scratch, source], target)
                    total, peak = total + s, max(peak, m)
                s, m, status = measure([binary, "--sorted", "-f", "json", sorted_old, sorted_new], outputs[name])
                times[name].append(total + s)
                peaks[name].append(max(peak, m))
            else:
                s, m, status = measure(command, outputs[name])
                times[name].append(s)
                peaks[name].append(m)
            if status not in (0, 1):
                sys.exit(f"{name} failed with status {status}")
    same = None
    if "in memory" in outputs:
        with open(outputs["in memory"], "rb") as a, open(outputs["spill"], "rb") as b:
            same = a.read() == b.read()
    print(f"{count} records, {what} ({os.path.getsize(old_path) >> 20} MiB + {os.path.getsize(new_path) >> 20} MiB), "
          f"--memory-limit {limit}, median of {runs}")
    print("| way | time | peak memory |")
    print("| --- | ---: | ---: |")
    for name in ways:
        print(f"| {name} | {statistics.median(times[name]):.2f} s | {statistics.median(peaks[name]):.0f} MiB |")
    if same is not None:
        print(f"spilled changeset byte for byte the one in memory: {'yes' if same else 'NO'}")
    for f in os.listdir(scratch):
        os.remove(os.path.join(scratch, f))
    os.rmdir(scratch)
    if same is False:
        sys.exit(1)


if __name__ == "__main__":
    main()
