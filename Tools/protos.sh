#!/usr/bin/env bash
# Regenerates Modules/FirestoreProtocol/Generated/ from the .proto files in Modules/FirestoreProtocol/Protos/:
# SwiftProtobuf messages for every file, grpc-swift-2 client and server code for firestore.proto only.
#
#   Tools/protos.sh          regenerate in place (only files whose bytes change are rewritten)
#   Tools/protos.sh --check  regenerate into a temporary directory and fail if Generated/ differs
#
# The protoc plugins are built once, from pinned tags, into .build-protos/ (git-ignored by `.build-*/`).
# Both plugins write `// swift-format-ignore-file` at the top of every file, so `make lint` and `make format` skip
# Generated/ without being told to.
set -euo pipefail

SWIFT_PROTOBUF_VERSION=1.39.0      # protoc-gen-swift, and the SwiftProtobuf the generated code is written for
GRPC_SWIFT_PROTOBUF_VERSION=2.4.1  # protoc-gen-grpc-swift-2
GRPC_SWIFT_VERSION=2.4.3           # GRPCCodeGen, the library protoc-gen-grpc-swift-2 renders the service code with

SWIFT_OPTIONS="Visibility=Package,UseAccessLevelOnImports=true,FileNaming=PathToUnderscores"
GRPC_OPTIONS="Visibility=Package,Server=true,Client=true,UseAccessLevelOnImports=true,FileNaming=PathToUnderscores"
GRPC_PROTOS=(google/firestore/v1/firestore.proto)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
protos="$root/Modules/FirestoreProtocol/Protos"
generated="$root/Modules/FirestoreProtocol/Generated"
scratch="$root/.build-protos"
swift="${SWIFT:-swift}"

check=false
case "${1:-}" in
    "") ;;
    --check) check=true ;;
    *) echo "usage: $0 [--check]" >&2; exit 64 ;;
esac

# MARK: - protoc

if ! command -v protoc >/dev/null; then
    echo "installing: protobuf-compiler" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq protobuf-compiler >/dev/null
fi
# The well-known types (timestamp.proto, struct.proto, ...) ship next to protoc.
wkt_include=""
for dir in /usr/include /usr/local/include; do
    if [ -f "$dir/google/protobuf/timestamp.proto" ]; then wkt_include="$dir"; break; fi
done
[ -n "$wkt_include" ] || { echo "error: google/protobuf/timestamp.proto not found next to protoc" >&2; exit 1; }

# MARK: - Plugins

# build_plugin NAME URL TAG PRODUCT [PACKAGE=VERSION ...]: clones URL at TAG into $scratch/NAME, pins the listed
# dependencies, builds PRODUCT in release mode and prints the binary's path. A stamp file records what was built,
# so a second run with the same pins builds nothing.
build_plugin() {
    local name=$1 url=$2 tag=$3 product=$4
    shift 4
    local dir="$scratch/$name" stamp="$scratch/$name.stamp"
    local want="$url $tag $product $*"
    if [ ! -x "$dir/.build/release/$product" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        echo "building $product ($name $tag)" >&2
        rm -rf "$dir" "$stamp"
        mkdir -p "$scratch"
        git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$tag" "$url" "$dir"
        if [ $# -gt 0 ]; then
            (cd "$dir" && "$swift" package resolve >&2)
            local pin
            for pin in "$@"; do
                (cd "$dir" && "$swift" package resolve "${pin%%=*}" --version "${pin#*=}" >&2)
            done
        fi
        (cd "$dir" && "$swift" build -c release --product "$product" >&2)
        echo "$want" >"$stamp"
    fi
    echo "$dir/.build/release/$product"
}

protoc_gen_swift=$(build_plugin swift-protobuf https://github.com/apple/swift-protobuf.git \
    "$SWIFT_PROTOBUF_VERSION" protoc-gen-swift)
protoc_gen_grpc=$(build_plugin grpc-swift-protobuf https://github.com/grpc/grpc-swift-protobuf.git \
    "$GRPC_SWIFT_PROTOBUF_VERSION" protoc-gen-grpc-swift-2 \
    "swift-protobuf=$SWIFT_PROTOBUF_VERSION" "grpc-swift-2=$GRPC_SWIFT_VERSION")

# MARK: - Generate

out=$(mktemp -d "${TMPDIR:-/tmp}/suite-protos.XXXXXX")
trap 'rm -rf "$out"' EXIT

cd "$protos"
all_protos=()
while IFS= read -r file; do all_protos+=("$file"); done < <(find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort)

protoc -I . -I "$wkt_include" \
    --plugin=protoc-gen-swift="$protoc_gen_swift" \
    --swift_out="$out" --swift_opt="$SWIFT_OPTIONS" \
    "${all_protos[@]}"
protoc -I . -I "$wkt_include" \
    --plugin=protoc-gen-grpc-swift-2="$protoc_gen_grpc" \
    --grpc-swift-2_out="$out" --grpc-swift-2_opt="$GRPC_OPTIONS" \
    "${GRPC_PROTOS[@]}"

# MARK: - Install or compare

if $check; then
    if diff -r "$out" "$generated" >&2; then
        echo "Generated/ is up to date"
    else
        echo "error: Generated/ differs from what Tools/protos.sh produces; run it and commit the result" >&2
        exit 1
    fi
    exit 0
fi

mkdir -p "$generated"
for file in "$generated"/*.swift; do  # drop files whose .proto is gone
    [ -e "$file" ] || continue
    [ -e "$out/$(basename "$file")" ] || rm "$file"
done
for file in "$out"/*.swift; do  # rewrite only what changed, so mtimes (and incremental builds) stay put
    target="$generated/$(basename "$file")"
    cmp -s "$file" "$target" || cp "$file" "$target"
done
echo "generated $(ls "$out" | wc -l | tr -d ' ') files in ${generated#"$root"/}"
