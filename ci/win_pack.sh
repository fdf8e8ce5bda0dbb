# win_pack.sh: the Windows runner's staged trees packed and audited into wheels.
# after: source_args.sh
cuwheel "${src[@]}" build "${sdist[@]}" --stage win-pack --import win-out
