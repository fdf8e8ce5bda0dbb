#!/usr/bin/env bash
# toml_corpus.sh: proves the TOML parser against the toml-test 1.0 corpus (every valid file
# decodes to its expected JSON, every invalid file is rejected) and prints the counts.
set -euo pipefail

cd "${CUWHEEL_SOURCE_DIR:-$(dirname "$0")/../..}"
: "${CUWHEEL:?set CUWHEEL to the cuwheel binary}"
# The copy in the repository is the default so a fresh clone tests the same files everywhere.
corpus="${TOML_TEST_DIR:-tests/toml-test}"
if [ ! -d "$corpus/valid" ]; then
	echo "toml_corpus: no corpus at $corpus" >&2
	exit 1
fi
exec python3 tests/integration/toml_compare.py "$CUWHEEL" "$corpus"
