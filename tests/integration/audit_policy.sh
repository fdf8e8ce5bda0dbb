#!/usr/bin/env bash
# audit_policy.sh: packager/manylinux_policy.c is what gen-policy.py makes from the JSON.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 "$root/packager/gen-policy.py" --check
