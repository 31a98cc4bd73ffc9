#!/usr/bin/env python3
"""End-to-end benchmark: listdiff (release build) against the plain Python baseline.

For each size, generates old/new files (cached in Benchmarks/data), then runs
`listdiff --format json OLD NEW` and `baseline.py OLD NEW id`, each --runs times,
alternating, and reports the median wall time, the peak resident memory, and the ratio
baseline/listdiff measured in the same run (the machines are shared and noisy: compare
ratios, not seconds). With --sorted it also runs the streaming merge on the same records
as key-sorted NDJSON (`listdiff --sorted --format json OLD.ndjson NEW.ndjson`).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")


def measure(argv):
    """Wall seconds and peak RSS in MiB of one run, output discarded."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{argv[0]} failed with status {code}: {proc.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--sorted", action="store_true", help="also time --sorted on the NDJSON form")
    args = parser.parse_args()

    subprocess.run(["swift", "build", "-c", "release", "--product", "listdiff"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    binary = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip() + "/listdiff"

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
