#!/usr/bin/env bash
# Regenerates man/listdiff.1 from the command's own help (argument-parser's generate-manual plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --allow-writing-to-package-directory generate-manual \
    --configuration debug --date 2026-11-21 --authors "the listdiff team" >/dev/null
cp .build/plugins/GenerateManual/outputs/listdiff/listdiff.1 man/listdiff.1
echo "man/listdiff.1 regenerated"
