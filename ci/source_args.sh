# source_args.sh: the arguments of every cuwheel call of a job: the project and its config
# before the command (global options), its sdist after it (an operand of the command).
# shellcheck disable=SC2034 # src and sdist are for the command that follows this
src=(-C "$PROJECT")
if [ -n "$CONFIG" ]; then src+=(--config "$GITHUB_WORKSPACE/$CONFIG"); fi
sdist=()
if [ -n "$SDIST" ]; then sdist=("$GITHUB_WORKSPACE/$SDIST"); fi
