/* env.h: the environment as a value. cli/main.c takes the process's environ once (struct
 * cli's env) and passes it down: to struct config (config_load keeps it in cfg->env), to option
 * structs and to parameters; nothing else reads the process environment. An env is a
 * NULL-terminated list of "NAME=value" strings, or NULL for an empty one.
 *
 * Which lookup a variable uses: an empty value means "unset" (env_nonempty) for the paths,
 * tools and choices cuwheel reads: HOME, TMPDIR, XDG_*, PYENV_*, UV_*, CUDA_HOME, CUDA_PATH,
 * CC, CXX, SOURCE_DATE_EPOCH, PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, CI, GITHUB_WORKSPACE,
 * GITHUB_STEP_SUMMARY, CUWHEEL_CACHE_DIR, CUWHEEL_TOOLKIT_LOCK, CUWHEEL_TOOLKIT_WHEELS,
 * CUWHEEL_PYTHON, CUWHEEL_NINJA, CUWHEEL_AUDIT_TRACE, NO_COLOR for build progress, and PATH
 * where discovery scans it for Pythons. The value as it is (env_value): PATH for os_which and
 * the test venvs (empty: search nothing; unset: os_which's default path), NO_COLOR for
 * diagnostics (set at all turns colour off), and the ones compared with a value or read as a
 * number (TERM, GITHUB_ACTIONS, CUWHEEL_NVCC_THREADS: empty acts as unset). The CUWHEEL_*
 * overrides of [tool.cuwheel] are read by config_apply_env (matrix/config.c) by its own rules. */
#ifndef CUWHEEL_BASE_ENV_H
#define CUWHEEL_BASE_ENV_H

/* Returns the value of name in env ("" when set empty), or NULL when it is unset or env is
 * NULL. Only an entry "name=..." matches: "NAMEX=1" is not NAME. */
const char *env_value(const char *const *env, const char *name);
/* Returns the value of name in env, or NULL when it is unset, empty or env is NULL. */
const char *env_nonempty(const char *const *env, const char *name);

#endif
