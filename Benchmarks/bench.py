#!/usr/bin/env python3
"""End-to-end benchmark: listdiff (release build) against the plain Python baseline.

For each size, generates old/new files (cached in Benchmarks/data), then runs
`listdiff --format json OLD NEW` and `baseline.py OLD NEW id`, each --runs times,
alternating, and reports the median wall time, the peak resident memory, and the ratio
baseline/listdiff measured in the same run (the machines are shared and noisy: compare
ratios, not seconds). With --sorted it also runs the streaming merge on the same records
as key-sorted NDJSON (`listdiff --sorted --format json OLD.ndjson NEW.ndjson`).

With --shapes it prints instead the scale table per shape and format: the same records as
a plain JSON list, NDJSON, block-style YAML, an object of 10 lists, a map of records
(each keyed by its member name), a list of 10 section objects, a nested key, a composite key (on the same records, and on records with two
more members), a list of 10 order lines in each record (compared by index, then with
--array-key /lines=sku), --duplicates match, high churn (10% deletes, 10%
inserts, 20% updates, 20% moves), `listdiff apply` of the plain list's changeset,
`listdiff merge` of the plain list with two 1% edits of it, `listdiff invert` of the
changeset, `listdiff compose` of it with the next one (new to next, generate.py --next), and
NEW with 1% of its records re-keyed, without and with --renames (generate.py --renames). Each
row gives the median time, the peak memory against the inputs, the time against the plain
list's in the same run, the time against `cat` of the row's inputs (the floor: reading them),
against libyaml's bare event parse of them for the YAML rows (yaml-parse.c), and the Python
baseline's time on the plain list of the same records (on the churn files for churn) against
listdiff's. All of them are measured in the same run, alternating. With --against BINARY,
each case is also run by that listdiff (another build: main's, for a before and after) right
after this one, and the last column gives this one's time against it.

With --algebra it times, on the plain list, the diff (`--format json OLD NEW`), `invert` of its
changeset and `compose` of it with the next one (NEW to next-COUNT.json), and prints each
against the diff measured in the same run, and against the diff each stands for (NEW to OLD
for invert; OLD to next for compose, whose changes are those of both steps).

With --html it writes the HTML report (`--format html`) of the plain list (4% of the records
changed: 40,000 changes at 1M) and of the list whose updated_at differs in every record (about
as many changes as records), and prints the time to write it and the JSON changeset, their
sizes, and the report in headless Chromium (selenium and chromedriver): the time from the
start of navigation until its first page of changes is drawn (the page's own clock), the
wall time of the whole load, and the time a filter click and a search over every change take.

With --apply it times `listdiff apply -o FILE OLD CHANGESET` of the plain list's changeset
against the diff that makes it, `listdiff --format json -o FILE OLD NEW`, alternating, each
writing its file as users run it (a temporary file, synced, renamed over the last run's), and
prints the median wall time and CPU time (user and system, all threads), the peak memory
against OLD and the changeset, and apply's times over the diff's. With --against BINARY,
that listdiff's apply is timed in the same runs (a build of main, say), and both must write
the same bytes.

With --renames it diffs the plain list's OLD against NEW with 1% of its records given new
keys (half of them with a field changed too; generate.py --renames), without and with
`--renames`, alternating, and prints both medians, their ratio, the renames found and the
peak memory. The --shapes table has the same two rows.

With --core it times the diff's core path: the plain list and the high-churn files of the same
size (`--format json OLD NEW`), each beside `cat` of its two files, and the Python baseline on
the churn files, alternating, and prints the median wall and CPU time, the peak memory
against the inputs, churn over plain, each diff over its `cat`, and the baseline over
listdiff. With --against BINARY, that listdiff's two diffs are timed in the same runs (a
build of main, for a before and after), and both must write the same bytes.

With --yaml it times the block-style YAML diff (`listdiff --format json old-N.yaml
new-N.yaml`), libyaml's bare event parse of both files (yaml-parse.c) and the JSON diff of
the same records, alternating, and prints each one's median wall time and CPU time (user
and system, every thread) against the parse and the JSON diff measured in the same run.
With --against BINARY, that listdiff's YAML diff is timed too (main's build, for a before
and after).
"""
import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")


def measure(argv, cpu=False):
    """Wall seconds and peak RSS in MiB of one run, output discarded (and, with `cpu`, its
    CPU seconds: user and system, every thread)."""
    elapsed, cpu_seconds, peak = measure_cpu(argv)
    return (elapsed, peak, cpu_seconds) if cpu else (elapsed, peak)


def measure_cpu(argv):
    """Wall seconds, CPU seconds (user and system, all threads) and peak RSS in MiB of one
    run, output discarded."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{argv[0]} failed with status {code}: {proc.stderr.read().decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


SHAPES = [
    # (name, old and new file names from the size, extra arguments)
    ("plain JSON list", lambda n: (f"old-{n}.json", f"new-{n}.json"), []),
    ("NDJSON", lambda n: (f"old-{n}.ndjson", f"new-{n}.ndjson"), []),
    ("YAML, block style", lambda n: (f"old-{n}.yaml", f"new-{n}.yaml"), []),
    # The plain list's records as CSV, read back with the same types.
    ("CSV, --csv-types infer", lambda n: (f"old-{n}.csv", f"new-{n}.csv"), ["--csv-types", "infer"]),
    ("object of 10 lists", lambda n: (f"objects-old-{n}.json", f"objects-new-{n}.json"), []),
    # The same records as a map, each keyed by its member name (no moves: members have no order).
    ("map of records", lambda n: (f"map-old-{n}.json", f"map-new-{n}.json"), []),
    ("list of 10 section objects", lambda n: (f"sections-old-{n}.json", f"sections-new-{n}.json"), []),
    ("nested key user.id", lambda n: (f"nested-old-{n}.json", f"nested-new-{n}.json"), ["--key", "user.id"]),
    # The same records as the plain list, keyed by two of their fields: the key's own cost.
    ("composite key team, id", lambda n: (f"old-{n}.json", f"new-{n}.json"), ["--key", "team", "--key", "id"]),
    # Records with two more members (region and n), so about 30% more to read than the plain list's.
    ("composite key region, n", lambda n: (f"composite-old-{n}.json", f"composite-new-{n}.json"),
     ["--key", "region", "--key", "n"]),
    # Each record holds a list of 10 order lines; updated records rotate theirs and change
    # one. Compared by index, then matched by key.
    ("nested list by index", lambda n: (f"lines-old-{n}.json", f"lines-new-{n}.json"), []),
    ("nested list, --array-key", lambda n: (f"lines-old-{n}.json", f"lines-new-{n}.json"),
     ["--array-key", "/lines=sku"]),
    ("--duplicates match", lambda n: (f"old-{n}.json", f"new-{n}.json"), ["--duplicates", "match"]),
    ("high churn", lambda n: (f"churn-old-{n}.json", f"churn-new-{n}.json"), []),
    # Comparison rules on the plain list: a field left out, and the order of records ignored.
    ("--ignore /email", lambda n: (f"old-{n}.json", f"new-{n}.json"), ["--ignore", "/email"]),
    ("--unordered", lambda n: (f"old-{n}.json", f"new-{n}.json"), ["--unordered"]),
    # The plain list with an updated_at that differs in every record, left out: every matched
    # record's bytes differ, and each is hashed again under the rules.
    ("--ignore /updated_at, all touched", lambda n: (f"volatile-old-{n}.json", f"volatile-new-{n}.json"),
     ["--ignore", "/updated_at"]),
    # The plain list's NEW with 1% of its records given new keys (half with a field changed
    # too): without --renames each is a delete and an insert; with it, a rename.
    ("1% re-keyed", lambda n: (f"old-{n}.json", f"renamed-new-{n}.json"), []),
    ("1% re-keyed, --renames", lambda n: (f"old-{n}.json", f"renamed-new-{n}.json"), ["--renames"]),
]


# Subcommands timed in the table (the other rows are diffs, with --format json added).
COMMANDS = (["apply"], ["merge"], ["invert"], ["compose"])


def chain_changeset(binary, size):
    """The changeset from new-SIZE.json to next-SIZE.json (generated if missing)."""
    nxt = os.path.join(DATA, f"next-{size}.json")
    if not os.path.exists(nxt):
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA, "--next"], check=True)
    out = os.path.join(DATA, f"changes-next-{size}.json")
    with open(out, "wb") as f:
        subprocess.run([binary, "--format", "json", os.path.join(DATA, f"new-{size}.json"), nxt], stdout=f)
    return out


def renames(binary, sizes, runs):
    """The plain list's OLD against NEW with 1% of its records re-keyed (half with a field
    changed too; generate.py --renames), diffed without and with --renames, alternating."""
    print(f"{'records':>9}  {'without s':>9} {'--renames s':>11} {'ratio':>6} {'renamed':>8} {'peak MiB':>8}")
    for size in sizes:
        old, new = os.path.join(DATA, f"old-{size}.json"), os.path.join(DATA, f"renamed-new-{size}.json")
        if not os.path.exists(new):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA, "--renames"], check=True)
        without, with_renames, peak = [], [], 0
        for _ in range(runs):
            without.append(measure([binary, "--format", "json", old, new])[0])
            t, m = measure([binary, "--renames", "--format", "json", old, new])
            with_renames.append(t)
            peak = max(peak, m)
        made = subprocess.run([binary, "--renames", "--stat", "--format", "json", old, new], capture_output=True, text=True)
        renamed = json.loads(made.stdout)["summary"]["renamed"]
        a, b = statistics.median(without), statistics.median(with_renames)
        print(f"{size:>9}  {a:>9.3f} {b:>11.3f} {b / a:>5.2f}x {renamed:>8} {peak:>8.0f}")


def plain_changeset(binary, size):
    """The plain list's OLD and NEW (generated if missing) and the changeset between them."""
    old, new = (os.path.join(DATA, f"{side}-{size}.json") for side in ("old", "new"))
    if not (os.path.exists(old) and os.path.exists(new)):
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA], check=True)
    changes = os.path.join(DATA, f"changes-{size}.json")
    with open(changes, "wb") as f:
        subprocess.run([binary, "--format", "json", old, new], stdout=f)
    return old, new, changes


def apply(binary, sizes, runs, against):
    """`apply -o FILE` of the plain list's changeset against the diff that makes it (`--format
    json -o FILE OLD NEW`), alternating; with `against`, that binary's apply too."""
    print(f"{'records':>9}  {'case':<28} {'wall s':>7} {'cpu s':>7} {'peak MiB':>9} {'mem/(OLD+cs)':>12} "
          f"{'wall/diff':>9} {'cpu/diff':>9}")
    for size in sizes:
        old, new, changes = plain_changeset(binary, size)
        # Each writes its file as users run it: a temporary file beside it, synced, renamed
        # over the one the run before wrote.
        cases = [("diff --format json -o", [binary, "--format", "json", "-o", os.path.join(DATA, "apply-diff.json"), old, new]),
                 ("apply -o", [binary, "apply", "-o", os.path.join(DATA, "apply-new.json"), old, changes])]
        if against:
            cases.append(("apply -o, --against",
                          [against, "apply", "-o", os.path.join(DATA, "apply-against.json"), old, changes]))
        times = {name: [] for name, _ in cases}
        cpu = {name: [] for name, _ in cases}
        memory = {name: 0 for name, _ in cases}
        for _ in range(runs):
            for name, argv in cases:
                t, c, m = measure_cpu(argv)
                times[name].append(t)
                cpu[name].append(c)
                memory[name] = max(memory[name], m)
        if against:
            with open(os.path.join(DATA, "apply-new.json"), "rb") as a, open(os.path.join(DATA, "apply-against.json"), "rb") as b:
                if a.read() != b.read():
                    sys.exit("the two binaries' apply wrote different bytes")
        inputs = (os.path.getsize(old) + os.path.getsize(changes)) / 2**20
        diff_t, diff_c = statistics.median(times[cases[0][0]]), statistics.median(cpu[cases[0][0]])
        for name, _ in cases:
            t, c = statistics.median(times[name]), statistics.median(cpu[name])
            print(f"{size:>9}  {name:<28} {t:>7.3f} {c:>7.3f} {memory[name]:>9.0f} {memory[name] / inputs:>11.2f}x "
                  f"{t / diff_t:>8.2f}x {c / diff_c:>8.2f}x")


def algebra(binary, sizes, runs):
    """The diff, invert and compose on the plain list, each against the diff in the same run."""
    print(f"{'records':>9}  {'case':<34} {'time s':>7} {'peak MiB':>9} {'vs diff':>8} {'vs direct':>9}")
    for size in sizes:
        old, new, changes = plain_changeset(binary, size)
        chain = chain_changeset(binary, size)
        nxt = os.path.join(DATA, f"next-{size}.json")
        # Each is set against the diff it stands for: invert against the diff of NEW and OLD,
        # compose against the diff of OLD and next (about twice the changes of one step).
        cases = [
            ("diff --format json", [binary, "--format", "json", old, new], None),
            ("diff NEW OLD", [binary, "--format", "json", new, old], None),
            ("invert", [binary, "invert", changes], "diff NEW OLD"),
            ("diff OLD next", [binary, "--format", "json", old, nxt], None),
            ("compose", [binary, "compose", changes, chain], "diff OLD next"),
        ]
        times = {name: [] for name, _, _ in cases}
        memory = {name: 0 for name, _, _ in cases}
        for _ in range(runs):
            for name, argv, _ in cases:  # alternating, as in the table
                t, m = measure(argv)
                times[name].append(t)
                memory[name] = max(memory[name], m)
        diff = statistics.median(times["diff --format json"])
        for name, _, direct in cases:
            t = statistics.median(times[name])
            versus = f"{t / statistics.median(times[direct]):>7.2f}x" if direct else f"{'-':>8}"
            print(f"{size:>9}  {name:<34} {t:>7.3f} {memory[name]:>9.0f} {t / diff:>7.2f}x {versus}")


def yaml_parse():
    """libyaml's bare event parse (yaml-parse.c), built once into the data folder."""
    out = os.path.join(DATA, "yaml-parse")
    source = os.path.join(HERE, "yaml-parse.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(source):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "yaml-0.1"], check=True, capture_output=True,
                               text=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", out, source] + flags, check=True)
    return out


def core(binary, sizes, runs, against, baseline):
    """The diff's core path: the plain list and the high-churn files of the same size, each
    beside `cat` of its two files and (churn) the Python baseline, alternating, wall and CPU
    time; with `against`, another listdiff binary's two diffs too, which must write the same
    bytes. Prints each binary's churn over plain, plain over cat, and the baseline over churn."""
    print(f"{'records':>9}  {'case':<24} {'wall s':>7} {'cpu s':>7} {'peak MiB':>9} {'mem/inputs':>10} "
          f"{'vs plain':>8} {'vs cat':>7} {'Python/it':>9}")
    for size in sizes:
        files = {"plain": [os.path.join(DATA, f"{side}-{size}.json") for side in ("old", "new")],
                 "churn": [os.path.join(DATA, f"churn-{side}-{size}.json") for side in ("old", "new")]}
        if not all(os.path.exists(f) for f in files["plain"]):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA], check=True)
        if not all(os.path.exists(f) for f in files["churn"]):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA, "--churn"], check=True)
        binaries = [("", binary)] + ([(", --against", against)] if against else [])
        if against:
            # (Compared as files: held here, they would count in every child's peak memory.)
            for kind in files:
                outputs = [os.path.join(DATA, f"core-{kind}-{n}.json") for n in range(2)]
                for (_, b), out in zip(binaries, outputs):
                    with open(out, "wb") as f:
                        subprocess.run([b, "--format", "json"] + files[kind], stdout=f)
                if not filecmp.cmp(outputs[0], outputs[1], shallow=False):
                    sys.exit(f"the two binaries wrote different {kind} changesets")
        cases = [(f"{kind} diff{suffix}", [b, "--format", "json"] + files[kind], kind)
                 for suffix, b in binaries for kind in ("plain", "churn")]
        cases += [(f"cat {kind}", ["cat"] + files[kind], kind) for kind in ("plain", "churn")]
        if baseline:
            cases.append(("Python baseline, churn", [sys.executable, os.path.join(HERE, "baseline.py")] + files["churn"] + ["id"], "churn"))
        wall = {name: [] for name, _, _ in cases}
        cpu = {name: [] for name, _, _ in cases}
        memory = {name: 0 for name, _, _ in cases}
        for _ in range(runs):
            for name, argv, _ in cases:  # alternating
                t, c, m = measure_cpu(argv)
                wall[name].append(t)
                cpu[name].append(c)
                memory[name] = max(memory[name], m)
        med = {name: statistics.median(wall[name]) for name in wall}
        for name, argv, kind in cases:
            inputs = sum(os.path.getsize(f) for f in files[kind]) / 2**20
            suffix = name.split(" diff", 1)[1] if " diff" in name else None
            versus = cat = python = "-"
            if suffix is not None:
                versus = f"{med[name] / med['plain diff' + suffix]:.2f}x"
                cat = f"{med[name] / med['cat ' + kind]:.1f}x"
                if kind == "churn" and baseline:
                    python = f"{med['Python baseline, churn'] / med[name]:.1f}x"
            print(f"{size:>9}  {name:<24} {med[name]:>7.3f} {statistics.median(cpu[name]):>7.3f} {memory[name]:>9.0f} "
                  f"{memory[name] / inputs:>9.2f}x {versus:>8} {cat:>7} {python:>9}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def yaml(binary, sizes, runs, against):
    """The block-style YAML diff against libyaml's bare event parse of both files and the
    JSON diff of the same records, alternating, wall and CPU time; with `against`, another
    listdiff binary's YAML diff too (main's, for a before and after)."""
    parse = yaml_parse()
    print(f"{'records':>9}  {'case':<22} {'wall s':>7} {'vs libyaml':>10} {'vs JSON':>8} {'cpu s':>7} {'vs libyaml':>10} {'vs JSON':>8}")
    for size in sizes:
        old, new = (os.path.join(DATA, f"{side}-{size}.yaml") for side in ("old", "new"))
        if not (os.path.exists(old) and os.path.exists(new)):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA], check=True)
        cases = [("libyaml's parse", [parse, old, new])]
        if against:
            cases.append(("YAML diff, --against", [against, "--format", "json", old, new]))
        cases.append(("YAML diff", [binary, "--format", "json", old, new]))
        cases.append(("JSON diff", [binary, "--format", "json"] + [os.path.join(DATA, f"{side}-{size}.json") for side in ("old", "new")]))
        wall = {name: [] for name, _ in cases}
        cpu = {name: [] for name, _ in cases}
        for _ in range(runs):
            for name, argv in cases:  # alternating
                t, _, c = measure(argv, cpu=True)
                wall[name].append(t)
                cpu[name].append(c)
        w0, c0 = statistics.median(wall[cases[0][0]]), statistics.median(cpu[cases[0][0]])
        wj, cj = statistics.median(wall["JSON diff"]), statistics.median(cpu["JSON diff"])
        for name, _ in cases:
            w, c = statistics.median(wall[name]), statistics.median(cpu[name])
            print(f"{size:>9}  {name:<22} {w:>7.2f} {w / w0:>9.2f}x {w / wj:>7.1f}x {c:>7.2f} {c / c0:>9.2f}x {c / cj:>7.1f}x")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def browser_times(page, runs):
    """Medians over `runs` loads of `page` in headless Chromium, in ms: the page's clock at its
    first page drawn, the wall time of the load, a filter click, and a search (typed to drawn,
    with the page's 120 ms pause after typing)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    ready, wall, click, search = [], [], [], []
    try:
        for _ in range(runs):
            driver.get("about:blank")
            start = time.perf_counter()
            driver.get("file://" + page)
            wall.append((time.perf_counter() - start) * 1000)
            ready.append(float(driver.execute_script("return document.documentElement.getAttribute('data-ready')")))
            click.append(driver.execute_script(
                "var t = performance.now(); document.getElementById('kind-u').click(); return performance.now() - t"))
            driver.execute_script("document.getElementById('kind-u').click()")  # all kinds again, for the search
            search.append(driver.execute_async_script("""
                var done = arguments[arguments.length - 1], box = document.getElementById('search');
                var status = document.getElementById('status'), t = performance.now();
                new MutationObserver(function () { done(performance.now() - t); }).observe(status, {childList: true, characterData: true, subtree: true});
                box.value = 'hopper9';
                box.dispatchEvent(new Event('input'));
            """))
    finally:
        driver.quit()
    return [statistics.median(v) for v in (ready, wall, click, search)]


def html(binary, sizes, runs):
    """The HTML report against the JSON changeset, and in headless Chromium."""
    print(f"{'records':>9}  {'case':<28} {'changes':>8} {'json s':>7} {'html s':>7} {'json MiB':>9} {'html MiB':>9} "
          f"{'ratio':>6} {'drawn ms':>9} {'load ms':>8} {'filter ms':>9} {'search ms':>9}")
    for size in sizes:
        if not all(os.path.exists(os.path.join(DATA, f)) for f in (f"old-{size}.json", f"volatile-old-{size}.json")):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA], check=True)
        cases = [("plain list, 4% changed", f"old-{size}.json", f"new-{size}.json"),
                 ("updated_at in every record", f"volatile-old-{size}.json", f"volatile-new-{size}.json")]
        for name, old, new in cases:
            old, new = os.path.join(DATA, old), os.path.join(DATA, new)
            outputs = {fmt: os.path.join(DATA, f"report-{size}-{len(name)}.{fmt}") for fmt in ("json", "html")}
            times = {fmt: [] for fmt in outputs}
            for _ in range(runs):
                for fmt, out in outputs.items():
                    times[fmt].append(measure([binary, "--format", fmt, "-o", out, old, new])[0])
            with open(outputs["json"]) as f:
                changes = len(json.load(f)["changes"])
            sizes_mib = {fmt: os.path.getsize(out) / 2**20 for fmt, out in outputs.items()}
            browser = browser_times(outputs["html"], runs)
            shown = " ".join(f"{v:>9.0f}" for v in browser) if browser else "selenium is not installed"
            print(f"{size:>9}  {name:<28} {changes:>8} {statistics.median(times['json']):>7.2f} "
                  f"{statistics.median(times['html']):>7.2f} {sizes_mib['json']:>9.1f} {sizes_mib['html']:>9.1f} "
                  f"{sizes_mib['html'] / sizes_mib['json']:>6.2f} {shown}")


def shapes(binary, sizes, runs, baseline, against=None):
    """The scale table per shape and format. Beside each row, measured in the same run: the
    floor (`cat` of the row's inputs), libyaml's bare event parse of them for the YAML rows,
    the Python baseline, and with `against`, another build's time on the same case."""
    parse = yaml_parse()
    print(f"{'records':>9}  {'case':<34} {'time s':>7} {'peak MiB':>9} {'mem/inputs':>10} {'vs plain':>8} "
          f"{'vs cat':>7} {'vs libyaml':>10} {'vs Python':>9}" + (f" {'vs against':>10}" if against else ""))
    for size in sizes:
        def path(name):
            return os.path.join(DATA, name)
        if not all(os.path.exists(path(f)) for f in (f"objects-old-{size}.json", f"old-{size}.yaml", f"volatile-old-{size}.json", f"old-{size}.csv", f"lines-old-{size}.json", f"map-old-{size}.json", f"theirs-{size}.json")):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA], check=True)
        if not os.path.exists(path(f"churn-old-{size}.json")):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA, "--churn"], check=True)
        if not os.path.exists(path(f"renamed-new-{size}.json")):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA, "--renames"], check=True)
        changes = path(f"changes-{size}.json")
        with open(changes, "wb") as f:
            subprocess.run([binary, "--format", "json", path(f"old-{size}.json"), path(f"new-{size}.json")], stdout=f)
        cases = [(name, [path(f) for f in files(size)], extra) for name, files, extra in SHAPES]
        cases.append(("apply of the changeset", [path(f"old-{size}.json"), changes], ["apply"]))
        # BASE, OURS and THEIRS: two 1% edits of the plain list, merged.
        cases.append(("merge, 1% on each side", [path(f"old-{size}.json"), path(f"new-{size}.json"),
                                                 path(f"theirs-{size}.json")], ["merge"]))
        cases.append(("invert of the changeset", [changes], ["invert"]))
        cases.append(("compose with the next changeset", [changes, chain_changeset(binary, size)], ["compose"]))
        times = {name: [] for name, _, _ in cases}
        before = {name: [] for name, _, _ in cases}
        memory = {name: 0 for name, _, _ in cases}
        floor = {name: [] for name, _, _ in cases}
        libyaml = {name: [] for name, files, _ in cases if all(f.endswith(".yaml") for f in files)}
        python = {"plain": [], "churn": []}
        for _ in range(runs):
            # Alternating cases within each run, so that a slow spell of the machine
            # falls on all of them.
            for name, files, extra in cases:
                argv = [binary] + (extra if extra in COMMANDS else extra + ["--format", "json"]) + files
                t, m = measure(argv)
                times[name].append(t)
                memory[name] = max(memory[name], m)
                if against:
                    before[name].append(measure([against] + argv[1:])[0])
                floor[name].append(measure(["cat"] + files)[0])
                if name in libyaml:
                    libyaml[name].append(measure([parse] + files)[0])
            if baseline:
                python["plain"].append(measure([sys.executable, os.path.join(HERE, "baseline.py"),
                                                path(f"old-{size}.json"), path(f"new-{size}.json"), "id"])[0])
                python["churn"].append(measure([sys.executable, os.path.join(HERE, "baseline.py"),
                                                path(f"churn-old-{size}.json"), path(f"churn-new-{size}.json"), "id"])[0])
        plain = statistics.median(times["plain JSON list"])
        for name, files, extra in cases:
            t = statistics.median(times[name])
            inputs = sum(os.path.getsize(f) for f in files) / 2**20
            if baseline:
                base = statistics.median(python["churn" if name == "high churn" else "plain"])
                versus = f"{base / t:>8.1f}x"
            else:
                versus = f"{'-':>9}"
            lib = f"{t / statistics.median(libyaml[name]):>9.2f}x" if name in libyaml else f"{'-':>10}"
            other = f" {t / statistics.median(before[name]):>9.2f}x" if against else ""
            print(f"{size:>9}  {name:<34} {t:>7.3f} {memory[name]:>9.0f} {memory[name] / inputs:>9.2f}x "
                  f"{t / plain:>7.2f}x {t / statistics.median(floor[name]):>6.1f}x {lib} {versus}{other}")
        ratio = statistics.median(times["1% re-keyed, --renames"]) / statistics.median(times["1% re-keyed"])
        print(f"{size:>9}  --renames costs {ratio:.2f}x the same diff without it")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--sorted", action="store_true", help="also time --sorted on the NDJSON form")
    parser.add_argument("--shapes", action="store_true", help="the scale table per shape and format")
    parser.add_argument("--algebra", action="store_true", help="invert and compose against the diff")
    parser.add_argument("--html", action="store_true", help="the HTML report's size and its time in headless Chromium")
    parser.add_argument("--renames", action="store_true", help="--renames against the same diff without it")
    parser.add_argument("--apply", action="store_true", help="apply -o against the diff -o of the same files")
    parser.add_argument("--yaml", action="store_true", help="the YAML diff against libyaml's parse and the JSON diff")
    parser.add_argument("--core", action="store_true", help="the plain diff and high churn, against cat and the Python baseline")
    parser.add_argument("--against", metavar="BINARY",
                        help="with --apply, --yaml, --core or --shapes: another listdiff binary timed alongside")
    args = parser.parse_args()

    subprocess.run(["swift", "build", "-c", "release", "--product", "listdiff"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    binary = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip() + "/listdiff"

    if args.html:
        html(binary, [int(s) for s in args.sizes.split(",")], args.runs)
        return
    if args.apply:
        apply(binary, [int(s) for s in args.sizes.split(",")], args.runs, args.against)
        return
    if args.algebra:
        algebra(binary, [int(s) for s in args.sizes.split(",")], args.runs)
        return
    if args.renames:
        renames(binary, [int(s) for s in args.sizes.split(",")], args.runs)
        return
    if args.core:
        core(binary, [int(s) for s in args.sizes.split(",")], args.runs, args.against, not args.no_baseline)
        return
    if args.yaml:
        yaml(binary, [int(s) for s in args.sizes.split(",")], args.runs, args.against)
        return
    if args.shapes:
        shapes(binary, [int(s) for s in args.sizes.split(",")], args.runs, not args.no_baseline, args.against)
        return

    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        old, new = (os.path.join(DATA, f"{side}-{size}.json") for side in ("old", "new"))
        sorted_old, sorted_new = (os.path.join(DATA, f"{side}-{size}.ndjson") for side in ("old", "new"))
        if not all(os.path.exists(p) for p in (old, new, sorted_old, sorted_new)):
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), str(size), DATA], check=True)
        input_mib = (os.path.getsize(old) + os.path.getsize(new)) / 2**20
        ours, theirs, streamed = [], [], []
        for _ in range(args.runs):
            ours.append(measure([binary, "--format", "json", old, new]))
            if args.sorted:
                streamed.append(measure([binary, "--sorted", "--format", "json", sorted_old, sorted_new]))
            if not args.no_baseline:
                theirs.append(measure([sys.executable, os.path.join(HERE, "baseline.py"), old, new, "id"]))
        t = statistics.median(r[0] for r in ours)
        m = max(r[1] for r in ours)
        row = {"records": size, "inputs_mib": input_mib, "listdiff_s": t, "listdiff_mib": m}
        if streamed:
            row["sorted_s"] = statistics.median(r[0] for r in streamed)
            row["sorted_mib"] = max(r[1] for r in streamed)
        if theirs:
            row["baseline_s"] = statistics.median(r[0] for r in theirs)
            row["baseline_mib"] = max(r[1] for r in theirs)
        rows.append(row)

    print(f"{'records':>9} {'inputs MiB':>10} {'listdiff s':>10} {'peak MiB':>9} {'baseline s':>10} {'peak MiB':>9} {'speed-up':>8} {'mem/inputs':>10}")
    for r in rows:
        base = f"{r['baseline_s']:>10.3f} {r['baseline_mib']:>9.0f} {r['baseline_s'] / r['listdiff_s']:>7.1f}x" if "baseline_s" in r else f"{'-':>10} {'-':>9} {'-':>8}"
        print(f"{r['records']:>9} {r['inputs_mib']:>10.1f} {r['listdiff_s']:>10.3f} {r['listdiff_mib']:>9.0f} {base} {r['listdiff_mib'] / r['inputs_mib']:>9.2f}x")
    if any("sorted_s" in r for r in rows):
        print(f"\n{'records':>9} {'--sorted s':>10} {'peak MiB':>9}")
        for r in rows:
            if "sorted_s" in r:
                print(f"{r['records']:>9} {r['sorted_s']:>10.3f} {r['sorted_mib']:>9.0f}")


if __name__ == "__main__":
    main()
