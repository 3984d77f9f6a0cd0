#!/usr/bin/env bash
# The "Ready for apps" check: a package made by someone new, depending on ONE Suite module, builds (Cache, Sync and
# Analytics without SwiftNIO) and works against the real servers.
#
#   SUITE_BIN_DIR=.build/debug bash Tools/consumer-check.sh      (make test runs it)
#
# 1. Writes a fresh consumer package in a temporary directory: `.package(path:)` on this repository and six executable
#    targets, each depending on exactly one Suite product; their main.swift files are Tools/consumer-check/<Target>/,
#    each the module README's first example with loopback addresses and paths from the command line, checking its
#    own results (exit 1 with a message on a mismatch).
# 2. Builds them one at a time into one scratch path (shared dependencies build once), timing each: Cache, Sync and
#    Analytics first, each followed by a check that no SwiftNIO / AsyncHTTPClient module was compiled.
# 3. Runs each against the real thing: nginx (Cache), `suite serve` (Sync), `analytics-receiver` (Analytics),
#    temporary directories (Documents, StorageAccounting, WorkTracking). The servers are stopped at exit.
# 4. Prints a line per module and "N passed, N failed"; exits 1 on any failure. Nothing is skipped: a missing server
#    or binary is a failure.
#
# Environment: SWIFT (swift), SUITE_BIN_DIR (the repository's .build/debug: `suite` and `analytics-receiver`),
# CONSUMER_SCRATCH (a scratch path to keep between runs; by default a fresh one, removed at exit, so the times are a
# newcomer's first build), ANALYTICS_EVENTS (how many events AnalyticsConsumer logs, 250).
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOURCES="$REPO_ROOT/Tools/consumer-check"
SWIFT=${SWIFT:-swift}
SUITE_BIN_DIR=${SUITE_BIN_DIR:-$REPO_ROOT/.build/debug}
ANALYTICS_EVENTS=${ANALYTICS_EVENTS:-250}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/suite-consumers.XXXXXX")
PACKAGE="$WORK/package"
SCRATCH=${CONSUMER_SCRATCH:-$WORK/scratch}
LOGS="$WORK/logs"
mkdir -p "$PACKAGE" "$LOGS"

# Consumer target → the one Suite product it depends on, in build order: the three that must build without NIO first.
TARGETS=(CacheConsumer SyncConsumer AnalyticsConsumer DocumentsConsumer StorageConsumer WorkConsumer)
declare -A PRODUCT=(
    [CacheConsumer]=Cache [SyncConsumer]=Sync [AnalyticsConsumer]=Analytics
    [DocumentsConsumer]=Documents [StorageConsumer]=StorageAccounting [WorkConsumer]=WorkTracking
)
declare -A MUST_BE_NIO_FREE=([CacheConsumer]=1 [SyncConsumer]=1 [AnalyticsConsumer]=1)
# Module names SwiftNIO, swift-nio-ssl, swift-nio-http2/extras and AsyncHTTPClient build: NIO*, _NIO*, CNIO*,
# AsyncHTTPClient, CAsyncHTTPClient.
NIO_MODULE_PATTERN='^(_?C?NIO|C?AsyncHTTPClient)'

# Results per target, for the summary.
declare -A BUILD_SECONDS=() NIO_FREE=() RUN_OK=()

# MARK: - Processes and cleanup

SERVER_PIDS=()

cleanup() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # through the EXIT trap: servers stopped, temporary files removed

log() { printf '== %s\n' "$*"; }
problem() { printf 'consumer-check: %s\n' "$*" >&2; }

# Seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# A free TCP port on 127.0.0.1 (the kernel's choice; the server that takes it may still race another process, so
# starters retry).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits up to $2 seconds for `curl $1` to succeed.
wait_for_http() {
    local url=$1 seconds=$2 i
    for ((i = 0; i < seconds * 10; i++)); do
        curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# Waits up to $2 seconds for file $1 to hold a non-empty line.
wait_for_file() {
    local file=$1 seconds=$2 i
    for ((i = 0; i < seconds * 10; i++)); do
        [[ -s $file ]] && return 0
        sleep 0.1
    done
    return 1
}

# A field of the JSON object on stdin, by a Python subscript path such as '["data"]["points"]'.
json_field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

# MARK: - The consumer package

write_package() {
    local platforms identity target
    # The repository's own platforms line, so the consumer asks for what Suite supports.
    platforms=$(grep -m1 -o 'platforms: \[[^]]*\]' "$REPO_ROOT/Package.swift")
    # A path dependency's identity is its folder's name.
    identity=$(basename "$REPO_ROOT")
    {
        printf '// swift-tools-version: 6.1\n'
        printf '// A new app'"'"'s package: each target depends on one Suite module, as its README says.\n'
        printf 'import PackageDescription\n\n'
        printf 'let package = Package(\n'
        printf '    name: "Consumers",\n'
        printf '    %s,\n' "$platforms"
        printf '    dependencies: [.package(path: "%s")],\n' "$REPO_ROOT"
        printf '    targets: [\n'
        for target in "${TARGETS[@]}"; do
            printf '        .executableTarget(name: "%s", dependencies: [.product(name: "%s", package: "%s")]),\n' \
                "$target" "${PRODUCT[$target]}" "$identity"
        done
        printf '    ]\n)\n'
    } >"$PACKAGE/Package.swift"
    for target in "${TARGETS[@]}"; do
        mkdir -p "$PACKAGE/Sources/$target"
        cp "$SOURCES/$target/main.swift" "$PACKAGE/Sources/$target/main.swift"
    done
}

# MARK: - Builds and the NIO check

# Builds one product into the shared scratch path, recording its time.
build_one() {
    local target=$1 start status=0
    start=$(now)
    "$SWIFT" build --package-path "$PACKAGE" --scratch-path "$SCRATCH" --product "$target" \
        >"$LOGS/build-$target.log" 2>&1 || status=$?
    BUILD_SECONDS[$target]=$(elapsed "$start")
    if ((status != 0)); then
        problem "$target did not build (${BUILD_SECONDS[$target]} s); the end of its log:"
        tail -n 40 "$LOGS/build-$target.log" >&2
        return 1
    fi
    # Warnings a newcomer sees in their own code.
    grep -E "Sources/$target/.*warning:" "$LOGS/build-$target.log" | sort -u | sed 's/^/   /' || true
    log "$target built in ${BUILD_SECONDS[$target]} s"
}

# Every module compiled into the scratch path's debug folder, one name a line. SwiftPM makes a `<Module>.build` folder
# for every target of the graph when it plans a build (a module map, an output file map), NIO's included, so a folder
# alone proves nothing: a module counts as compiled when its folder holds object files (`*.o`, C sources in subfolders
# too) or `Modules/<Module>.swiftmodule` exists. Checkouts are not looked at: resolution clones every package.
compiled_modules() {
    local debug=$1
    {
        find "$debug" -mindepth 2 -path "$debug/*.build/*" -name '*.o' -printf '%P\n' | cut -d/ -f1 | sed 's/\.build$//'
        find "$debug/Modules" -maxdepth 1 -name '*.swiftmodule' -printf '%f\n' 2>/dev/null | sed 's/\.swiftmodule$//'
    } | sort -u
}

# Asserts that building `target` compiled no NIO module and linked no NIO symbol; prints what it looked at.
check_nio_free() {
    local target=$1 debug modules nio symbols
    debug=$("$SWIFT" build --package-path "$PACKAGE" --scratch-path "$SCRATCH" --show-bin-path)
    modules=$(compiled_modules "$debug")
    # The check looks in the right place only if it sees what was just built: the product's module and the consumer.
    if ! grep -qx "${PRODUCT[$target]}" <<<"$modules" || ! grep -qx "$target" <<<"$modules"; then
        problem "NIO check: $debug does not hold ${PRODUCT[$target]} and $target; the build layout changed"
        return 1
    fi
    nio=$(grep -E "$NIO_MODULE_PATTERN" <<<"$modules" | tr '\n' ' ' || true)
    # Swift symbols name their module with its length (7NIOCore, 15AsyncHTTPClient); C ones start CNIO.
    symbols=$(nm "$debug/$target" 2>/dev/null | grep -cE '[0-9](_?NIO[A-Z][A-Za-z0-9]*|AsyncHTTPClient)|CNIO' || true)
    echo "   NIO check ($debug): $(wc -l <<<"$modules") modules compiled so far" \
        "(of $(find "$debug" -maxdepth 1 -type d -name '*.build' | wc -l) target folders planned);" \
        "NIO ones: ${nio:-none}; NIO symbols in $target: $symbols"
    [[ -z $nio && $symbols -eq 0 ]]
}

# MARK: - Servers

# nginx serving www/fresh/ with `Cache-Control: max-age=60` (as Tests/SuiteTestSupport/NginxServer.swift does).
# Sets NGINX_URL.
start_nginx() {
    local nginx dir=$WORK/nginx port attempt pid
    nginx=$(command -v nginx || true)
    [[ -z $nginx && -x /usr/sbin/nginx ]] && nginx=/usr/sbin/nginx
    if [[ -z $nginx ]]; then
        problem "nginx is not installed: run \`bash Tools/install-deps.sh\` (Debian package nginx-light)"
        return 1
    fi
    mkdir -p "$dir/www/fresh"
    printf 'Hello from nginx, for the consumer check.\n' >"$dir/www/fresh/hello.txt"
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 64; }
http {
    access_log $dir/access.log;
    client_body_temp_path $dir/tmp-body;
    proxy_temp_path $dir/tmp-proxy;
    fastcgi_temp_path $dir/tmp-fastcgi;
    uwsgi_temp_path $dir/tmp-uwsgi;
    scgi_temp_path $dir/tmp-scgi;
    default_type text/plain;
    etag on;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
        location /fresh/ { add_header Cache-Control "max-age=60"; }
    }
}
EOF
        "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >/dev/null 2>&1 &
        pid=$!
        SERVER_PIDS+=("$pid")
        if wait_for_http "http://127.0.0.1:$port/fresh/hello.txt" 5; then
            NGINX_URL="http://127.0.0.1:$port/fresh/hello.txt"
            log "nginx on 127.0.0.1:$port (attempt $attempt)"
            return 0
        fi
        kill -KILL "$pid" 2>/dev/null || true
    done
    problem "nginx did not start: $(tail -n 5 "$dir/error.log" 2>/dev/null)"
    return 1
}

# `suite serve` on a free port with its own data directory, HOME and XDG folders, and a token for user ana.
# Sets SUITE_URL, SUITE_TOKEN.
start_suite() {
    local suite=$SUITE_BIN_DIR/suite dir=$WORK/suite-serve pid port
    if [[ ! -x $suite ]]; then
        problem "$suite is missing: build it (\`swift build --product suite\`) or set SUITE_BIN_DIR"
        return 1
    fi
    mkdir -p "$dir/data"
    # No user configuration leaks in (as Tests/SuiteTestSupport's SuiteRunner does).
    suite_command() {
        HOME=$dir XDG_DATA_HOME=$dir/xdg-data XDG_CONFIG_HOME=$dir/xdg-config \
            "$suite" --data-dir "$dir/data" "$@"
    }
    SUITE_TOKEN=$(suite_command users add ana --json | json_field '["token"]') || {
        problem "suite users add ana failed"
        return 1
    }
    suite_command serve --port 0 --json >"$dir/serve.out" 2>"$dir/serve.err" &
    pid=$!
    SERVER_PIDS+=("$pid")
    if ! wait_for_file "$dir/serve.out" 30; then
        problem "suite serve did not report its port: $(tail -n 5 "$dir/serve.err")"
        return 1
    fi
    port=$(head -n 1 "$dir/serve.out" | json_field '["port"]')
    SUITE_URL="http://127.0.0.1:$port"
    wait_for_http "$SUITE_URL/healthz" 10 || {
        problem "suite serve does not answer on $SUITE_URL/healthz"
        return 1
    }
    log "suite serve on $SUITE_URL (data in $dir/data)"
}

# Tools/AnalyticsReceiver on a free port (it writes the port to a file). Sets RECEIVER_URL.
start_receiver() {
    local receiver=$SUITE_BIN_DIR/analytics-receiver dir=$WORK/receiver pid
    if [[ ! -x $receiver ]]; then
        problem "$receiver is missing: build it (\`swift build --product analytics-receiver\`) or set SUITE_BIN_DIR"
        return 1
    fi
    mkdir -p "$dir"
    "$receiver" --port-file "$dir/port" >"$dir/out.log" 2>&1 </dev/null &
    pid=$!
    SERVER_PIDS+=("$pid")
    if ! wait_for_file "$dir/port" 10; then
        problem "analytics-receiver did not start listening: $(tail -n 5 "$dir/out.log")"
        return 1
    fi
    RECEIVER_URL="http://127.0.0.1:$(tr -d '[:space:]' <"$dir/port")"
    log "analytics-receiver on $RECEIVER_URL"
}

# MARK: - Runs

# Runs a built consumer with arguments, its output indented; fails if it exits non-zero or hangs (120 s).
run_consumer() {
    local target=$1 bin status=0
    shift
    bin=$("$SWIFT" build --package-path "$PACKAGE" --scratch-path "$SCRATCH" --show-bin-path)/$target
    timeout 120 "$bin" "$@" >"$LOGS/run-$target.log" 2>&1 || status=$?
    sed 's/^/   /' "$LOGS/run-$target.log" | tail -n 15
    if ((status != 0)); then
        problem "$target exited with status $status"
        return 1
    fi
}

run_documents() {
    mkdir -p "$WORK/documents"
    run_consumer DocumentsConsumer "$WORK/documents"
}

run_cache() {
    local content
    start_nginx || return 1
    content=$(cat "$WORK/nginx/www/fresh/hello.txt")
    mkdir -p "$WORK/cache"
    run_consumer CacheConsumer "$WORK/cache" "$NGINX_URL" "$content"$'\n' || return 1
    # nginx's side: the consumer fetched three times (two sends, one URLRequest) and reached the origin once.
    local requests
    requests=$(grep -c 'GET /fresh/hello.txt' "$WORK/nginx/access.log" || true)
    echo "   nginx served /fresh/hello.txt $requests time(s) (readiness probe included)"
    ((requests == 2)) || {
        problem "nginx answered $requests requests for the file, expected 2 (the probe and one miss)"
        return 1
    }
}

run_sync() {
    local document points
    start_suite || return 1
    mkdir -p "$WORK/sync"
    run_consumer SyncConsumer "$WORK/sync" "$SUITE_URL" "$SUITE_TOKEN" || return 1
    # The server's side, through its JSON API.
    document=$(curl -fsS -H "Authorization: Bearer $SUITE_TOKEN" "$SUITE_URL/v1/docs/users/ana") || {
        problem "GET $SUITE_URL/v1/docs/users/ana failed"
        return 1
    }
    echo "   the server's users/ana: $document"
    points=$(json_field '["data"]["points"]' <<<"$document") || return 1
    [[ $points == 1 ]] || {
        problem "the server has users/ana.points = $points, expected 1"
        return 1
    }
}

run_analytics() {
    local stats unique ours
    start_receiver || return 1
    mkdir -p "$WORK/analytics"
    run_consumer AnalyticsConsumer "$WORK/analytics" "$RECEIVER_URL/v1/batch" "$ANALYTICS_EVENTS" || return 1
    # The collector's side: N distinct message_deleted records (besides the session_start the manager records).
    stats=$(curl -fsS "$RECEIVER_URL/stats") || return 1
    ours=$(curl -fsS "$RECEIVER_URL/events" | python3 -c '
import json, sys
print(sum(1 for line in sys.stdin if line.strip() and json.loads(line).get("name") == "message_deleted"))')
    unique=$(json_field '["unique"]' <<<"$stats")
    echo "   receiver stats: $stats; message_deleted records: $ours"
    [[ $ours == "$ANALYTICS_EVENTS" && $unique -ge $ANALYTICS_EVENTS ]] || {
        problem "the receiver holds $ours message_deleted records ($unique unique in all), expected $ANALYTICS_EVENTS"
        return 1
    }
}

# A small tree under chats/{groupId}/; the expected totals come from stat(1), not from the module.
run_storage() {
    local root=$WORK/storage/appdata items=0 logical=0 allocated=0 video=0 file size blocks
    mkdir -p "$root/chats/chat-42" "$root/chats/chat-7" "$WORK/storage/data"
    head -c 70000 /dev/urandom >"$root/chats/chat-42/c1.mp4"
    head -c 1234 /dev/urandom >"$root/chats/chat-42/c2.jpg"
    head -c 9000 /dev/urandom >"$root/chats/chat-7/c3.mp4"
    printf 'hello' >"$root/chats/chat-7/c4.txt"
    while IFS= read -r file; do
        read -r size blocks < <(stat -c '%s %b' "$file")
        items=$((items + 1))
        logical=$((logical + size))
        allocated=$((allocated + blocks * 512))
        [[ $file == */chat-42/c1.mp4 ]] && video=$((blocks * 512))
    done < <(find "$root" -type f)
    run_consumer StorageConsumer "$WORK/storage/data" "$root" "$items" "$logical" "$allocated" "$video"
}

run_work() {
    mkdir -p "$WORK/work"
    run_consumer WorkConsumer "$WORK/work"
}

run_target() {
    case $1 in
        DocumentsConsumer) run_documents ;;
        CacheConsumer) run_cache ;;
        SyncConsumer) run_sync ;;
        AnalyticsConsumer) run_analytics ;;
        StorageConsumer) run_storage ;;
        WorkConsumer) run_work ;;
    esac
}

# MARK: - Main

main() {
    local target start passed=0 failed=0 ok nio
    log "consumer package in $PACKAGE, scratch path $SCRATCH, servers from $SUITE_BIN_DIR"
    write_package

    # Resolution fetches every package of Suite's graph (NIO too); only what a product needs is built.
    start=$(now)
    if ! "$SWIFT" package --package-path "$PACKAGE" --scratch-path "$SCRATCH" resolve >"$LOGS/resolve.log" 2>&1; then
        problem "swift package resolve failed:"
        tail -n 20 "$LOGS/resolve.log" >&2
        exit 1
    fi
    RESOLVE_SECONDS=$(elapsed "$start")
    log "dependencies resolved in $RESOLVE_SECONDS s"

    # Builds, one at a time; the NIO check right after each of the three that must not need it.
    for target in "${TARGETS[@]}"; do
        log "building $target (product ${PRODUCT[$target]})"
        if build_one "$target"; then
            RUN_OK[$target]=pending
            if [[ -n ${MUST_BE_NIO_FREE[$target]:-} ]]; then
                if check_nio_free "$target"; then NIO_FREE[$target]=yes; else NIO_FREE[$target]=no; fi
            fi
        else
            RUN_OK[$target]="no (build failed)"
        fi
    done

    # Runs, each against its server.
    for target in "${TARGETS[@]}"; do
        [[ ${RUN_OK[$target]} == pending ]] || continue
        log "running $target"
        if run_target "$target"; then RUN_OK[$target]=OK; else RUN_OK[$target]=FAILED; fi
    done

    echo
    echo "Consumer check (a new package depending on one module; dependencies resolved in $RESOLVE_SECONDS s):"
    for target in "${TARGETS[@]}"; do
        nio=${NIO_FREE[$target]:-n/a}
        ok=1
        [[ ${RUN_OK[$target]} == OK ]] || ok=0
        [[ $nio == no ]] && ok=0
        printf '  %-18s build %7s s   NIO-free %-4s   run %s\n' \
            "${PRODUCT[$target]}" "${BUILD_SECONDS[$target]:-?}" "$nio" "${RUN_OK[$target]}"
        if ((ok)); then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    done
    echo "(builds in this order into one scratch path: the first includes every shared dependency)"
    echo "$passed passed, $failed failed"
    ((failed == 0))
}

main "$@"
