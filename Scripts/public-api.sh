#!/usr/bin/env bash
# ListDiffKit's public API, one declaration per line, from the compiler's symbol graph.
# With --check (CI runs it), fails when the API differs from Tests/PublicAPITests/public-api.txt,
# so that every change to the public API is seen in review; with no argument, rewrites that file.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-symbol-graph --minimum-access-level public >/dev/null
graph="$(find .build -path '*/symbolgraph/ListDiffKit.symbols.json' | head -n 1)"
listed="Tests/PublicAPITests/public-api.txt"
if [ "${1:-}" = "--check" ]; then
    if ! swift Scripts/public-api.swift "$graph" | diff -u "$listed" -; then
        echo "the public API differs from $listed: if the change is meant, run Scripts/public-api.sh and commit the file" >&2
        exit 1
    fi
else
    swift Scripts/public-api.swift "$graph" >"$listed"
fi
