# test_wheels.sh: every wheel of the dist dir on every Python (and torch) here it is for.
# after: source_args.sh
# shellcheck disable=SC2153 # DIST is the workflow's, not a misspelt SDIST
cuwheel "${src[@]}" test "${sdist[@]}" "$DIST"/*.whl
