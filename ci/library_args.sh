# library_args.sh: the libraries the package loads by path (LIBRARIES: the config's modules with
# loaded-by = "path", space-separated), each an option of the audit that cuwheel index and
# retag run: no PyInit_ is asked of them.
read -r -a modules <<< "$LIBRARIES"
library_args=()
for m in "${modules[@]}"; do library_args+=(--library "$m"); done
