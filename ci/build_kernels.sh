# build_kernels.sh: the leg's kernels, once per toolkit (and torch), exported for its wheel jobs.
# after: source_args.sh jobs_from_memory.sh
cuwheel "${src[@]}" build "${sdist[@]}" -j "$jobs" --stage kernels --export kernels-out \
  --only "*-$LEG"
