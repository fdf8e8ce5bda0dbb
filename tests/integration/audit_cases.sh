#!/usr/bin/env bash
# audit_cases.sh: broken and good wheels through `cuwheel audit`, compared with auditwheel.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
py=$("$root/tools/test-venv")
exec "$py" "$root/tests/integration/audit_cases.py" "$@"
