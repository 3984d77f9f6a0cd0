#!/usr/bin/env bash
# A store written only through short `suite docs` processes (issue 9): import N orders, then B separate
# `suite docs batch -` processes of S user documents each, then time a range query with order-by and limit 5 over R
# processes — against the same query on a store that only had the import.
#
#   Tools/cli-pending-scenario.sh [path/to/suite]
#
# Defaults: the release binary (`swift build -c release --product suite`), N=100000, B=40, S=500, R=10; override
# with the environment (ORDERS, BATCHES, BATCH_SIZE, RUNS, WORK_DIR). Needs python3 (data, timing, and a read-only
# count with its sqlite3 module). Prints wall-clock and CPU milliseconds per process (CPU time is the steadier figure
# on a busy machine), the pending change rows and runs of both stores, and `suite docs stats`' pending count when the
# binary reports it.
set -euo pipefail

SUITE="${1:-$(swift build -c release --show-bin-path)/suite}"
ORDERS="${ORDERS:-100000}"
BATCHES="${BATCHES:-40}"
BATCH_SIZE="${BATCH_SIZE:-500}"
RUNS="${RUNS:-10}"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/cli-pending.XXXXXX)}"
QUERY=(docs query orders --where 'total >= 100' --order-by total --limit 5)

[ -x "$SUITE" ] || { echo "error: no suite binary at $SUITE" >&2; exit 1; }
mkdir -p "$WORK_DIR"
echo "suite: $SUITE"
echo "work directory: $WORK_DIR"

python3 - "$WORK_DIR" "$ORDERS" "$BATCHES" "$BATCH_SIZE" <<'PY'
import json, random, sys
work, orders, batches, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(1)
statuses = ["pending", "paid", "packed", "shipped", "delivered"]
products = ["Ceramic pour-over coffee dripper, white", "Stainless steel milk frothing pitcher 600 ml",
            "Organic single-origin whole bean coffee, Ethiopia Yirgacheffe 1 kg", "Reusable paper filters x100",
            "Burr grinder with 40 grind settings and timer", "Insulated travel mug, matte black, 350 ml"]
categories = ["coffee & tea", "brewing equipment", "kitchen accessories", "gifts and bundles"]
cities = ["Lyon", "Porto", "Leipzig", "Bologna", "Utrecht", "Gothenburg", "Ghent", "Krakow"]
# Orders shaped like Tools/Benchmarks' OrderGenerator: customer, status, total, createdAt, 3 items, shipping.
with open(f"{work}/orders.jsonl", "w") as out:
    for i in range(orders):
        items, total = [], 0.0
        for _ in range(3):
            quantity, price = rng.randint(1, 4), rng.randint(500, 20499) / 100
            total += quantity * price
            items.append({"sku": f"SKU-{rng.randint(100000, 999999)}", "name": rng.choice(products),
                          "quantity": quantity, "unitPrice": price, "category": rng.choice(categories)})
        data = {"customer": f"customer-{10000000 + i % 1000}", "status": rng.choice(statuses),
                "total": round(total, 2), "createdAt": 1767225600 + i * 60, "items": items,
                "shipping": {"name": "Ada Lovelace", "street": f"{rng.randint(1, 200)} Rue de la Republique",
                             "city": rng.choice(cities), "postalCode": str(rng.randint(10000, 99999)),
                             "country": "EU", "email": f"customer{i % 1000}@example.org"}}
        out.write(json.dumps({"id": f"o{i}", "data": data}) + "\n")
# User documents: a dozen indexed values each (top-level fields, a tags array, an address map).
for b in range(batches):
    writes = []
    for j in range(size):
        n = b * size + j
        writes.append({"op": "set", "path": f"users/u{n}", "data": {
            "name": f"User {n}", "email": f"user{n}@example.org", "age": 18 + n % 60, "points": n % 1000,
            "city": rng.choice(cities), "active": n % 3 != 0, "tags": [f"t{n % 7}", f"t{n % 11}"],
            "address": {"street": f"{n % 200} Main St", "postalCode": str(10000 + n % 90000)}}})
    with open(f"{work}/batch-{b}.json", "w") as out:
        json.dump(writes, out)
PY

millis() { echo $(($(date +%s%N) / 1000000)); }

# Runs the query RUNS times on each data directory given, alternating between them (so a busy machine slows both
# alike); prints wall-clock and CPU (user + system) milliseconds per process: min, median, max.
time_queries() {
    python3 - "$RUNS" "$SUITE" "$@" -- "${QUERY[@]}" <<'TIMING'
import os, resource, subprocess, sys, time
args = sys.argv[1:]
runs, suite, dirs, query = int(args[0]), args[1], args[2:args.index("--")], args[args.index("--") + 1:]
results = {d: ([], []) for d in dirs}
for _ in range(runs):
    for d in dirs:
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run([suite, "--data-dir", d] + query, check=True, stdout=subprocess.DEVNULL)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        results[d][0].append(wall * 1000)
        results[d][1].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
def line(values):
    values = sorted(values)
    return f"min {values[0]:.0f}  median {values[len(values) // 2]:.0f}  max {values[-1]:.0f}"
for d in dirs:
    print(f"[{os.path.basename(d)}] query: wall ms {line(results[d][0])} | cpu ms {line(results[d][1])}")
TIMING
}

for store in imported batched; do
    dir="$WORK_DIR/$store"
    rm -rf "$dir"
    start=$(millis)
    "$SUITE" --data-dir "$dir" docs import orders "$WORK_DIR/orders.jsonl" >/dev/null 2>&1
    echo "[$store] import of $ORDERS orders: $(($(millis) - start)) ms"
done

# The batch processes, one after another; wall-clock and CPU milliseconds per process.
python3 - "$SUITE" "$WORK_DIR" "$BATCHES" "$BATCH_SIZE" <<'BATCHES'
import resource, subprocess, sys, time
suite, work, batches, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
wall, cpu = [], []
for b in range(batches):
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    with open(f"{work}/batch-{b}.json") as batch:
        subprocess.run([suite, "--data-dir", f"{work}/batched", "docs", "batch", "-"], stdin=batch, check=True,
                       stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall.append((time.perf_counter() - start) * 1000)
    cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
def line(values):
    return f"total {sum(values):.0f}  median {sorted(values)[len(values) // 2]:.0f}  max {max(values):.0f}"
print(f"[batched] {batches} batch processes of {size} users: wall ms {line(wall)} | cpu ms {line(cpu)}")
BATCHES

# Read-only, with SQLite itself: change rows whose index operations are pending, and the index runs.
python3 - "$WORK_DIR" <<'COUNT'
import sqlite3, sys
for store in ["imported", "batched"]:
    db = sqlite3.connect(f"file:{sys.argv[1]}/{store}/documents.sqlite?mode=ro", uri=True)
    flushed = db.execute("SELECT flushed_through FROM index_state").fetchone()[0]
    rows = db.execute("SELECT count(*) FROM changes WHERE id > ? AND index_ops IS NOT NULL", (flushed,)).fetchone()[0]
    runs = db.execute("SELECT count(*) FROM index_runs WHERE tier >= 0").fetchone()[0]
    print(f"[{store}] change rows with pending index operations: {rows}; index runs: {runs}")
COUNT

echo "query (x$RUNS per store, alternating): ${QUERY[*]}"
time_queries "$WORK_DIR/imported" "$WORK_DIR/batched"
# Last: with this change, `suite docs stats` prints the pending count (and, closing the store, may flush them).
for store in imported batched; do
    echo "[$store] suite docs stats: $("$SUITE" --data-dir "$WORK_DIR/$store" docs stats | grep -i "pending" || echo "(no pending count)")"
done
