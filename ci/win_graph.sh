# win_graph.sh: build.ninja and probe.py for the Windows runner, for the leg's cells.
# after: source_args.sh
cuwheel "${src[@]}" build "${sdist[@]}" --stage win-graph --export win-out --only "*-$LEG"
