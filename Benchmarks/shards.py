#!/usr/bin/env python3
"""Times a sharded diff against the whole diff, and the Spark job against both.

For COUNT records (generate.py's old-COUNT.json and new-COUNT.json in DIR), RUNS times each,
alternating: the whole diff (`listdiff -f json`); N shards (`--partition I/N`, one after the
other) and `listdiff join`; with --spark, the Spark job of Examples/spark in local mode with
N partitions on the same records as NDJSON. Prints the median seconds and peak memory of
each, and checks that every changeset is the whole diff's, byte for byte.

With --ndjson, the inputs are DIR/old-COUNT.ndjson and DIR/new-COUNT.ndjson as they are (any
NDJSON records keyed by `id`, such as spill.py's files linked under those names), which
every way reads; at 10M records generate.py's lists take too long to make and to convert.

With --shape objects or --shape sections, the inputs are the same records in sections, as
`bench.py --shapes` writes them: DIR/objects-old-COUNT.json (an object of 10 lists) or
DIR/sections-old-COUNT.json (a list of 10 section objects), and their -new- files.

Usage: shards.py DIR COUNT [--shards N] [--runs R] [--spark] [--ndjson] [--driver-memory SIZE]
                 [--listdiff PATH] [--shape list|objects|sections]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))


def timed(command, **kwargs):
    """Seconds and peak resident memory (MiB) of a command run to completion."""
    start = time.time()
    process = subprocess.Popen(command, **kwargs)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit("failed: %s" % " ".join(command))
    return time.time() - start, usage.ru_maxrss / 1024


def same(a, b):
    """Whether two files hold the same bytes (compared by cmp, which holds little)."""
    return subprocess.run(["cmp", "-s", a, b]).returncode == 0


def spark(args, d, n, b, export):
    """The Spark job's time on the records as NDJSON, in local mode."""
    ndjson = [os.path.join(d, "%s-%d.ndjson" % (side, n)) for side in ("old", "new")]
    command = [sys.executable, "-W", "ignore", os.path.join(here, "..", "Examples", "spark", "listdiff_spark.py"),
               "--old", ndjson[0], "--new", ndjson[1], "--format", "json", "--key", "id",
               "--partitions", str(args.shards), "--listdiff", b, "--output", os.path.join(d, "spark.json"),
               "--summary", os.path.join(d, "summary.json"), "--label-old", "OLD", "--label-new", "NEW"]
    if export:
        command += ["--export-ndjson", export]
    if args.driver_memory:
        command += ["--driver-memory", args.driver_memory]
    return timed(command, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("count", type=int)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--spark", action="store_true")
    parser.add_argument("--ndjson", action="store_true")
    parser.add_argument("--driver-memory", default=None)
    parser.add_argument("--listdiff", default=os.path.join(here, "..", ".build", "release", "listdiff"))
    parser.add_argument("--shape", choices=["list", "objects", "sections"], default="list")
    args = parser.parse_args()
    if args.shape != "list" and (args.spark or args.ndjson):
        parser.error("--shape %s goes without --spark and --ndjson, which read lists" % args.shape)
    d, n, b = args.dir, args.count, args.listdiff
    extension = "ndjson" if args.ndjson else "json"
    prefix = "" if args.shape == "list" else args.shape + "-"
    old, new = (os.path.join(d, "%sold-%d.%s" % (prefix, n, extension)),
                os.path.join(d, "%snew-%d.%s" % (prefix, n, extension)))
    whole_out = os.path.join(d, "whole.json")
    rows = {"whole": [], "shards": [], "join": [], "sharded total": [], "spark": [], "spark whole": []}
    # (A Spark job's peak memory is that of its largest process, the JVM.)
    if args.spark and not args.ndjson:
        # The same records as NDJSON, in order, which Spark reads as JSON lines. (In a child
        # process: a parent grown by reading them would lend its size to every child's peak.)
        convert = ("import json, sys\n"
                   "with open(sys.argv[1]) as f, open(sys.argv[2], 'w') as out:\n"
                   "    for record in json.load(f): out.write(json.dumps(record) + '\\n')\n")
        for side, path in (("old", old), ("new", new)):
            subprocess.run([sys.executable, "-c", convert, path, os.path.join(d, "%s-%d.ndjson" % (side, n))], check=True)
    for run in range(args.runs):
        rows["whole"].append(timed([b, "-f", "json", "-o", whole_out, old, new]))
        shard_times, shard_peak, paths = 0.0, 0.0, []
        for i in range(args.shards):
            path = os.path.join(d, "shard-%d.json" % i)
            t, m = timed([b, "--partition", "%d/%d" % (i, args.shards), "-f", "json", "-o", path, old, new])
            shard_times += t
            shard_peak = max(shard_peak, m)
            paths.append(path)
        rows["shards"].append((shard_times, shard_peak))
        joined = os.path.join(d, "joined.json")
        rows["join"].append(timed([b, "join", "-o", joined] + paths))
        rows["sharded total"].append((shard_times + rows["join"][-1][0], max(shard_peak, rows["join"][-1][1])))
        assert same(joined, whole_out), "the joined changeset is not the whole diff's"
        if args.spark:
            rows["spark"].append(spark(args, d, n, b, export=None))
    if args.spark:
        # Once more, with the records exported as NDJSON, as the shards diffed them: the
        # job's changeset must be the one the whole diff of those records writes.
        export = os.path.join(d, "export")
        spark(args, d, n, b, export=export)
        direct = os.path.join(d, "direct.json")
        rows["spark whole"].append(timed([b, "-f", "json", "--label", "OLD", "--label", "NEW", "-o", direct,
                                          os.path.join(export, "old.ndjson"), os.path.join(export, "new.ndjson")]))
        assert same(os.path.join(d, "spark.json"), direct), "the Spark job's changeset is not the diff's"
    print("%d records (%s), %d shards, %d runs (median seconds, max peak MiB); every changeset equal to the whole diff's"
          % (n, args.shape, args.shards, args.runs))
    for name, values in rows.items():
        if values:
            print("%-14s %8.2f s %8.0f MiB" % (name, statistics.median(v[0] for v in values), max(v[1] for v in values)))


if __name__ == "__main__":
    main()
