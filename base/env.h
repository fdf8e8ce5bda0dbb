/* env.h: the environment as a value. cli/main.c takes the process's environ once (struct
 * cli's env) and passes it down: to struct config (config_load), to option structs and to
 * parameters. Nothing else reads the process environment; an env is a NULL-terminated list of
 * "NAME=value" strings, or NULL for an empty one.
 *
 * Which lookup a variable uses: an empty value means "unset" (env_nonempty) for the paths and
 * choices cuwheel reads: HOME, TMPDIR, XDG_*, PYENV_*, UV_*, CUDA_HOME, CUDA_PATH, CC, CXX,
 * SOURCE_DATE_EPOCH, PIP_*, GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, CI, and every CUWHEEL_*
 * path, tool and file. The exceptions take the value as it is (env_value): PATH (set but empty
 * searches nothing; unset falls back to the default search path), NO_COLOR for diagnostics
 * (set at all turns colour off), and the ones compared with a value or read as a number
 * (TERM, GITHUB_ACTIONS, CUWHEEL_NVCC_THREADS), where empty and unset act alike. */
#ifndef CUWHEEL_BASE_ENV_H
#define CUWHEEL_BASE_ENV_H

/* Returns the value of name in env ("" when set empty), or NULL when it is unset or env is
 * NULL. Only an entry "name=..." matches: "NAMEX=1" is not NAME. */
const char *env_value(const char *const *env, const char *name);
/* Returns the value of name in env, or NULL when it is unset, empty or env is NULL. */
const char *env_nonempty(const char *const *env, const char *name);

#endif
