# build_wheels.sh: the job's cells (CELLS) linked against the imported kernels, packed, audited
# and, unless a GPU job tests them (NO_TEST), tested.
# after: source_args.sh jobs_from_memory.sh
args=()
for id in $CELLS; do args+=(--only "$id"); done
if [ -n "${NO_TEST:-}" ]; then args+=(--no-test); fi
cuwheel "${src[@]}" build "${sdist[@]}" -j "$jobs" --stage wheels --import kernels-out \
  "${args[@]}"
