#!/usr/bin/env python3
"""listdiff on Apache Spark: the changeset of two datasets too big for one machine.

Reads OLD and NEW in any format Spark reads (Parquet, JSON lines, CSV), writes each row as
a JSON record, and numbers the rows in the datasets' order. Each record's shard comes from
the listdiff binary itself (`listdiff hash --shards N`), so the key hash is listdiff's, not a
copy of it. Both sides are repartitioned by shard; on each executor, the shard's OLD and NEW
records and their positions are piped through `listdiff --partition I/N --shard-positions`,
and the driver joins the shards' changesets with `listdiff join`. The result is the
changeset `listdiff -f json OLD NEW` writes for the same records exported as NDJSON
(`df.toJSON()` in order), byte for byte. A summary (counts, shards, seconds) is written
beside it.

    spark-submit Examples/spark/listdiff_spark.py --old old.parquet --new new.parquet \\
        --key id --partitions 64 --listdiff ./listdiff --output changes.json --summary summary.json

Options after `--` go to the shards' diffs (`--unordered`, `--ignore /updated_at`,
`--duplicates match`, ...). The binary is shipped to the executors with the job.

Under `--unordered` the rows are not numbered: no record moves and NEW is a bag, so each
shard's records stand after those of the shards before it (`--pre-split`), and the
changeset is the one `listdiff -f json --unordered` writes for the records in shard order
(which `--export-ndjson` then writes).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="OLD dataset (path or glob Spark reads)")
    parser.add_argument("--new", required=True, help="NEW dataset")
    parser.add_argument("--format", default=None, help="parquet, json or csv (default: from the OLD path's extension)")
    parser.add_argument("--csv-infer-schema", action="store_true", help="CSV: infer column types (default: strings)")
    parser.add_argument("--key", action="append", required=True, help="key field (give it again for a composite key)")
    parser.add_argument("--partitions", type=int, default=4, help="shards, one Spark partition each (default 4)")
    parser.add_argument("--listdiff", default=shutil.which("listdiff") or "listdiff", help="the listdiff binary")
    parser.add_argument("--label-old", default=None, help="OLD's name in the changeset (default: --old)")
    parser.add_argument("--label-new", default=None, help="NEW's name in the changeset (default: --new)")
    parser.add_argument("--output", required=True, help="where the joined changeset goes (a local file on the driver)")
    parser.add_argument("--summary", default=None, help="where the summary goes (JSON; default: standard output)")
    parser.add_argument("--export-ndjson", default=None, metavar="DIR",
                        help="also write the records the shards diff, in order, as DIR/old.ndjson and DIR/new.ndjson "
                             "(on the driver: for a check against 'listdiff -f json' where they fit one machine)")
    parser.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[PARTITIONS])")
    parser.add_argument("--driver-memory", default=None, metavar="SIZE",
                        help="the driver's memory in local mode, such as 8g (under spark-submit, its own option)")
    parser.add_argument("diff_options", nargs="*", help="after --: options for the shards' diffs")
    return parser.parse_args(argv)


def read(spark, path, fmt, infer):
    fmt = fmt or {"parquet": "parquet", "csv": "csv"}.get(path.rsplit(".", 1)[-1], "json")
    reader = spark.read.format(fmt)
    if fmt == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true" if infer else "false")
    return reader.load(path)


def run(command, what):
    done = subprocess.run(command, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (what, done.returncode, done.stderr.decode(errors="replace").strip()))
    return done.stdout


def main(argv):
    args = parse(argv)
    from pyspark import SparkConf, SparkFiles, StorageLevel
    from pyspark.sql import SparkSession

    started = time.time()
    builder = SparkSession.builder.appName("listdiff")
    # Under spark-submit the master is set; run by python3 alone, local mode.
    if args.master or not SparkConf().contains("spark.master"):
        builder = builder.master(args.master or "local[%d]" % args.partitions)
    if args.driver_memory:
        builder = builder.config("spark.driver.memory", args.driver_memory)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    binary = os.path.abspath(args.listdiff)
    sc.addFile(binary)
    name = os.path.basename(binary)
    n = args.partitions
    keys = [option for key in args.key for option in ("--key", key)]
    extra = list(args.diff_options)
    # Under --unordered no record moves and NEW is a bag: the rows need no numbers. Each
    # shard's records stand after those of the shards before it (--pre-split), so the
    # changeset is the diff of the records in shard order.
    unordered = "--unordered" in extra

    def executor_binary():
        path = SparkFiles.get(name)
        if not os.access(path, os.X_OK):
            os.chmod(path, 0o755)
        return path

    # Each side's rows as JSON records, numbered in the dataset's order (not under
    # --unordered, which needs no numbers).
    sides = []
    for tag, path in ((0, args.old), (1, args.new)):
        rows = read(spark, path, args.format, args.csv_infer_schema).toJSON()
        # (toJSON gives an RDD of strings, or in later releases a DataFrame of them.)
        if hasattr(rows, "rdd"):
            rows = rows.rdd.map(lambda row: row[0])
        records = rows.map(lambda row: (row, 0)) if unordered else rows.zipWithIndex()
        sides.append((tag, records))
        if args.export_ndjson and not unordered:
            os.makedirs(args.export_ndjson, exist_ok=True)
            with open(os.path.join(args.export_ndjson, ("old", "new")[tag] + ".ndjson"), "w", encoding="utf-8") as out:
                for record in rows.toLocalIterator():
                    out.write(record + "\n")

    def sharded(tag):
        def shard(rows):
            rows = list(rows)
            if not rows:
                return
            with tempfile.TemporaryDirectory() as scratch:
                text = os.path.join(scratch, "records.ndjson")
                with open(text, "w", encoding="utf-8") as out:
                    for record, _ in rows:
                        out.write(record + "\n")
                shards = run(
                    [executor_binary(), "hash", "--shards", str(n), "--input-format", "ndjson"] + keys + [text],
                    "listdiff hash").split()
            if len(shards) != len(rows):
                raise RuntimeError("listdiff hash gave %d shards for %d records" % (len(shards), len(rows)))
            for (record, position), s in zip(rows, shards):
                yield ((int(s), tag, position), record)
        return shard

    counts = None if unordered else [records.count() for _, records in sides]
    keyed = sc.union([records.mapPartitions(sharded(tag)) for tag, records in sides])
    # One partition per shard, OLD's records then NEW's, each in its dataset's order.
    grouped = keyed.repartitionAndSortWithinPartitions(numPartitions=n, partitionFunc=lambda k: k[0])
    if unordered and args.export_ndjson:
        # The records in shard order, as the shards diff them: kept, so that the diff and
        # the export read one order.
        grouped = grouped.persist(StorageLevel.MEMORY_AND_DISK)
        os.makedirs(args.export_ndjson, exist_ok=True)
        paths = [os.path.join(args.export_ndjson, side + ".ndjson") for side in ("old", "new")]
        outs = [open(path, "w", encoding="utf-8") for path in paths]
        for (_, tag, _), record in grouped.toLocalIterator():
            outs[tag].write(record + "\n")
        for out in outs:
            out.close()
    label_old, label_new = args.label_old or args.old, args.label_new or args.new

    def diff_shard(index, rows):
        with tempfile.TemporaryDirectory() as scratch:
            paths = [os.path.join(scratch, "old.ndjson"), os.path.join(scratch, "new.ndjson")]
            files = [open(p, "w", encoding="utf-8") for p in paths]
            positions = [[], []]
            for (s, tag, position), record in rows:
                if s != index:
                    raise RuntimeError("record of shard %d in partition %d" % (s, index))
                files[tag].write(record + "\n")
                positions[tag].append(position)
            for f in files:
                f.close()
            if unordered:
                where = ["--pre-split"]
            else:
                placed = os.path.join(scratch, "positions.json")
                with open(placed, "w") as out:
                    json.dump({"old": {"records": counts[0], "positions": positions[0]},
                               "new": {"records": counts[1], "positions": positions[1]}}, out)
                where = ["--shard-positions", placed]
            changeset = run(
                [executor_binary(), "--partition", "%d/%d" % (index, n)] + where
                + ["--input-format", "ndjson", "-f", "json", "--label", label_old, "--label", label_new]
                + keys + extra + paths, "listdiff --partition %d/%d" % (index, n))
        yield (index, changeset)

    with tempfile.TemporaryDirectory() as scratch:
        # Every shard is diffed at once on the executors, and kept there (spilling to their
        # disks); then the changesets come to the driver one shard at a time, each written
        # to a file as it comes. The driver holds one shard's changeset at most, where
        # collect() would hold them all (and stop at spark.driver.maxResultSize).
        diffs = grouped.mapPartitionsWithIndex(diff_shard).persist(StorageLevel.MEMORY_AND_DISK)
        diffs.count()
        written = []
        for index, changeset in diffs.toLocalIterator():
            path = os.path.join(scratch, "shard-%d.json" % index)
            with open(path, "wb") as out:
                out.write(changeset)
            written.append(path)
        diffed = time.time()
        diffs.unpersist()
        run([binary, "join", "-o", args.output] + written, "listdiff join")
    joined = time.time()
    with open(args.output, encoding="utf-8") as f:
        result = json.load(f)
    summary = {
        "old": label_old, "new": label_new, "records": result["records"], "shards": n,
        "summary": result["summary"], "fingerprints": result.get("fingerprints"),
        "seconds": {"diff": round(diffed - started, 3), "join": round(joined - diffed, 3), "total": round(joined - started, 3)},
    }
    text = json.dumps(summary, indent=2) + "\n"
    if args.summary:
        with open(args.summary, "w") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
