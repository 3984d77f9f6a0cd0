#!/usr/bin/env bash
# A store written only through short `suite docs` processes (issue 9): import N orders, then B separate
# `suite docs batch -` processes of S user documents each, then time a range query with order-by and limit 5 over R
# processes — against the same query on a store that only had the import.
#
#   Tools/cli-pending-scenario.sh [path/to/suite]
#
# Defaults: the release binary (`swift build -c release --product suite`), N=100000, B=40, S=500, R=10; override
# with the environment (ORDERS, BATCHES, BATCH_SIZE, RUNS, WORK_DIR). Needs python3 (data generation).
# Prints per-process times in milliseconds, and `suite docs stats` (pending index operations, when the binary
# reports them) for both stores.
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

# Times RUNS query processes on data directory $1; prints each time and the median.
time_query() {
    local dir="$1" times=() start end
    for _ in $(seq "$RUNS"); do
        start=$(millis)
        "$SUITE" --data-dir "$dir" "${QUERY[@]}" >/dev/null
        end=$(millis)
        times+=($((end - start)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
        printf "  query ms: min %d  median %d  max %d  (", a[1], a[int((NR + 1) / 2)], a[NR]
        for (i = 1; i <= NR; i++) printf "%s%d", (i > 1 ? " " : ""), a[i]; print ")" }'
}

for store in imported batched; do
    dir="$WORK_DIR/$store"
    rm -rf "$dir"
    start=$(millis)
    "$SUITE" --data-dir "$dir" docs import orders "$WORK_DIR/orders.jsonl" >/dev/null 2>&1
    echo "[$store] import of $ORDERS orders: $(($(millis) - start)) ms"
done

dir="$WORK_DIR/batched"
batch_times=()
for b in $(seq 0 $((BATCHES - 1))); do
    start=$(millis)
    "$SUITE" --data-dir "$dir" docs batch - <"$WORK_DIR/batch-$b.json" >/dev/null
    batch_times+=($(($(millis) - start)))
done
printf '%s\n' "${batch_times[@]}" | sort -n | awk -v b="$BATCHES" -v s="$BATCH_SIZE" '{ a[NR] = $1; t += $1 } END {
    printf "[batched] %d batch processes of %d users: total %d ms, median %d, max %d ms\n", b, s, t,
    a[int((NR + 1) / 2)], a[NR] }'

for store in imported batched; do
    echo "[$store] ${QUERY[*]}"
    time_query "$WORK_DIR/$store"
done
for store in imported batched; do
    echo "[$store] suite docs stats:"
    "$SUITE" --data-dir "$WORK_DIR/$store" docs stats | grep -i "pending" | sed 's/^/  /' || echo "  (no pending count)"
done
