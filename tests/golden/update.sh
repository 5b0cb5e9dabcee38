#!/bin/sh
# Rewrites every golden file (tests/golden/<case>.golden) from what the built binary prints now.
# Run it only for a change that is meant, then read `git diff tests/golden` before committing.
# Usage: tests/golden/update.sh [BUILD_DIR]   (default: build)
set -eu
build=${1:-build}
cmake --build "$build" --target e2e_golden
COLOSSALAI_UPDATE_GOLDEN=1 "$build/tests/e2e/golden/e2e_golden" --gtest_filter='Cases/Golden.*:Completions/GoldenInstalled.*'
