# fail_missing.sh: fails the run when a cell is missing (ci/index_select.py lists them).
if [ -s missing-cells.txt ]; then
  while read -r line; do echo "::error::missing: $line"; done < missing-cells.txt
  exit 1
fi
