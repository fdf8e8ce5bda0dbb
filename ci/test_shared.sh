# test_shared.sh: the leg's shared wheels (SHARED: each one's name up to its platform tag) on
# this job's Python and torch; no wheel, or none this Python and torch can test, fails.
# after: source_args.sh
wheels=()
# shellcheck disable=SC2153 # DIST is the workflow's, not a misspelt SDIST
for prefix in $SHARED; do
  for w in "$DIST/$prefix"*.whl; do
    if [ -e "$w" ]; then wheels+=("$w"); fi
  done
done
if [ "${#wheels[@]}" -eq 0 ]; then
  echo "::error::no shared wheel of this leg in $DIST"
  exit 1
fi
cuwheel "${src[@]}" test "${sdist[@]}" "${wheels[@]}"
