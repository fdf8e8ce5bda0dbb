/* cmd_init.c: `cuwheel init`: a [tool.cuwheel] config derived from the project's setup.py (run
 * under the recorder in a throwaway copy, capture_run.c), every value commented with its
 * origin. */
#include "cli/init.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/path.h"
#include "init/capture.h"
#include "init/init_config.h"
#include "packager/sdist.h"
#include "standards/toml.h"
#include "toolchain/discover.h"

enum init_option { INIT_SETUP_ENV, INIT_OUTPUT, INIT_TIMEOUT, INIT_UNSANDBOXED };

static const struct cli_option init_options[] = {
    {"setup-env", 0, "K=V", INIT_SETUP_ENV,
     "an environment switch setup.py reads (FORCE_CUDA=1, TORCH_CUDA_ARCH_LIST=...);\n"
     "repeatable. setup.py sees these and nothing else of cuwheel's environment\n"
     "but PATH, CUDA_HOME, CUDA_PATH, CC and CXX"},
    {"output", 'o', "FILE", INIT_OUTPUT,
     "where to write the config (default: NAME.cuwheel.toml in the current\n"
     "directory, NAME the project's; '-' prints it); an existing file is kept"},
    {"timeout", 0, "SECONDS", INIT_TIMEOUT, "how long setup.py may run (default 600)"},
    {"unsandboxed", 0, NULL, INIT_UNSANDBOXED,
     "run setup.py without the sandbox (where none can be made here; also\n"
     "CUWHEEL_UNSANDBOXED=1): it then reads your files, writes where you can\n"
     "and may leave processes running"},
    {0},
};

const struct cli_help cmd_init_help = {
    .text =
        "usage: cuwheel init [SDIST.tar.gz | DIR] [--setup-env K=V]... [-o FILE] [--timeout S]\n"
        "                    [--unsandboxed]\n"
        "\n"
        "Reads the build from the project's setup.py instead of asking for it: runs setup.py\n"
        "with one Python found here that has torch (the newest), in a throwaway copy of the\n"
        "project, inside a bubblewrap sandbox (the filesystem read-only but for the copy, the\n"
        "home dirs, /tmp and /run hidden, no network, every process it starts killed when it\n"
        "ends; refused where bwrap cannot make one, unless --unsandboxed), with a time limit\n"
        "and its output capped, and with setuptools.setup (and distutils') replaced by a\n"
        "recorder. Every Extension/CUDAExtension/CppExtension, the build_ext class and its\n"
        "options, packages and entry points are recorded; the preprocessor then splits each\n"
        "extension's sources into kernels (no Python header: compiled once per toolkit) and\n"
        "the rest (per Python). The config written says where each value came from\n"
        "(setup.py:41 extra_compile_args[\"nvcc\"]) and holds a matrix to edit.\n"
        "\n"
        "DIR (default: the project, -C DIR) or SDIST.tar.gz (unpacked into the build dir's\n"
        "sdist/). `cuwheel build` and `plan` of a project with no [tool.cuwheel] anywhere\n"
        "run the same capture on the fly (and say so in one line).\n",
    .groups = {{NULL, init_options}},
    .more = "Exit status: 0 written, 1 error (the capture's cause named), 2 usage.\n",
};

int cmd_init(struct cli *c, int argc, char **argv)
{
	struct arena *a = &c->arena;
	struct strv setenv = {0};
	const char *out = NULL, *operand = NULL;
	int timeout = 0;
	struct cli_args p;
	cli_args_init(&p, c, "init", init_options, CLI_ARGS_IN_TURN, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case INIT_SETUP_ENV:
			if (!strchr(p.value, '=') || p.value[0] == '=')
				return cli_usage(c, "init", "--setup-env wants K=V, not '%s'",
				                 p.value);
			strv_push(a, &setenv, p.value);
			break;
		case INIT_OUTPUT:
			out = p.value;
			break;
		case INIT_UNSANDBOXED:
			c->unsandboxed = true;
			break;
		case INIT_TIMEOUT:
			if (!cli_parse_int(c, "init", "--timeout", p.value, &timeout))
				return CLI_USAGE;
			break;
		case CLI_ARG_OPERAND:
			if (operand)
				return cli_usage(c, "init", "unexpected argument '%s'", p.value);
			operand = p.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next < argc)
		return cli_usage(c, "init", "unexpected argument '%s'", argv[p.next]);
	strv_push(a, &setenv, NULL);
	struct capture_request q = {.setenv = setenv.v,
	                            .build_dir = cli_default_build_dir(c),
	                            .timeout_s = timeout,
	                            .header = "Written by `cuwheel init` from setup.py."};
	const char *from = operand ? operand : c->project_dir;
	if (operand && operand[0] != '/' && strcmp(c->project_dir, "."))
		from = os_join(a, c->project_dir, operand);
	if (operand && cli_is_sdist(operand)) {
		struct sdist_limits lim;
		sdist_default_limits(&lim);
		if (!sdist_unpack(a, &c->diag, from, os_join(a, q.build_dir, "sdist"), &lim,
		                  &q.tree))
			return CLI_FAIL;
		q.sdist = operand;
	} else {
		q.tree = from;
	}
	struct capture_result res;
	if (!cli_capture_config(c, &q, &res))
		return CLI_FAIL;
	if (out && !strcmp(out, "-")) {
		fputs(res.text, stdout);
		return fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
	}
	if (!out) {
		const char *name = NULL;
		for (size_t i = 0; i < res.cap.meta.n; i++)
			if (!strcmp(res.cap.meta.v[i].key, "name"))
				name = res.cap.meta.v[i].value;
		out = arena_printf(a, "%s.cuwheel.toml", name && *name ? name : "project");
		for (char *s = (char *)out; *s; s++)
			if (*s == '/')
				*s = '_';
	}
	const char *path =
	    out[0] == '/' || !strcmp(c->project_dir, ".") ? out : os_join(a, c->project_dir, out);
	if (os_exists(path)) {
		diag_path(&c->diag, DIAG_ERROR, path, "exists: cuwheel init does not overwrite it");
		diag_msg(&c->diag, DIAG_HINT, "remove it, or write elsewhere with -o FILE");
		return CLI_FAIL;
	}
	if (!os_write_atomic(&c->diag, path, res.text, strlen(res.text), 0644))
		return CLI_FAIL;
	fprintf(stderr,
	        "cuwheel: wrote %s from setup.py (run with %s, %s); review it, then: cuwheel plan "
	        "%s--config %s\n",
	        esc_str(a, ESC_TERM, path), esc_str(a, ESC_TERM, res.python), res.mode,
	        operand && cli_is_sdist(operand)
	            ? arena_printf(a, "%s ", esc_str(a, ESC_TERM, operand))
	            : "",
	        esc_str(a, ESC_TERM, out)); /* out may be named from setup.py's metadata */
	return CLI_OK;
}
