/* cmd_internal_canon.c: `cuwheel internal canon`, the step build.ninja runs a compile with
 * device line info through: the compile sees the project and the build dir at fixed paths
 * (base/sandbox.h, sandbox_canon_argv), ptxas is given each source's time, and the depfile
 * names the real paths after. */
#include <stdio.h>
#include <string.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/sandbox.h"
#include "base/strbuf.h"
#include "cli/internal.h"
#include "standards/ninja.h"

enum canon_option { CANON_BWRAP, CANON_PROJECT, CANON_BUILD_DIR, CANON_DEPFILE, CANON_NVCC };

const struct cli_option internal_canon_options[] = {
    {"bwrap", 0, "PATH", CANON_BWRAP, "bubblewrap (required)"},
    {"project", 0, "DIR", CANON_PROJECT, "the project, absolute (required)"},
    {"build-dir", 0, "DIR", CANON_BUILD_DIR, "the build dir, absolute (required)"},
    {"depfile", 0, "FILE", CANON_DEPFILE, "the depfile the command writes, rewritten after"},
    {"nvcc", 0, "PATH", CANON_NVCC, "the nvcc the command runs: its ptxas gets the shim"},
    {0},
};

/* The depfile written in the canonical places, rewritten to name the real ones: a path that
 * starts with SANDBOX_CANON_PROJECT "/" names the project (absolute), one that starts with
 * SANDBOX_CANON_BUILD "/" is relative to the build dir (where ninja runs). A path starts at the
 * start of the text or after a space, a tab or a newline. */
static bool canon_depfile(struct cli *c, const char *depfile, const char *project)
{
	struct source src;
	if (!os_read_file(&c->arena, &c->diag, depfile, &src))
		return false;
	static const char proj[] = SANDBOX_CANON_PROJECT "/", build[] = SANDBOX_CANON_BUILD "/";
	struct strbuf sb = {0};
	for (size_t i = 0; i < src.len;) {
		bool start = i == 0 || strchr(" \t\n", src.text[i - 1]);
		if (start && src.len - i >= sizeof(proj) - 1 &&
		    !memcmp(src.text + i, proj, sizeof(proj) - 1)) {
			ninja_depfile_path(&sb, project);
			sb_putc(&sb, '/');
			i += sizeof(proj) - 1;
		} else if (start && src.len - i >= sizeof(build) - 1 &&
		           !memcmp(src.text + i, build, sizeof(build) - 1)) {
			i += sizeof(build) - 1;
		} else {
			sb_putc(&sb, src.text[i++]);
		}
	}
	bool ok = os_write_atomic(&c->diag, depfile, sb.buf ? sb.buf : "", sb.len, 0644);
	sb_release(&sb);
	return ok;
}

/* Where the real ptxas is seen in the sandbox, and the time every source gets in the line
 * info (1980-01-01 00:00 UTC, the earliest a zip member can have: wheels' members have it). */
#define CANON_PTXAS       "/cuwheel/ptxas"
#define CANON_SOURCE_TIME "315532800"

/* The shim bound over ptxas in the sandbox. ptxas records each source's modification time and
 * size in the line info, from the file named by the PTX's .file directive when the directive
 * gives none (cicc gives none): a checkout's or an unpacked sdist's times would reach the
 * wheel. The shim gives each directive a fixed time (and size 0, unknown) and runs ptxas. */
static const char ptxas_shim[] =
    "#!/bin/sh\n"
    "# Written by cuwheel (internal canon): each .file of the PTX gets a fixed time.\n"
    "for a; do\n"
    "  case $a in\n"
    "  *.ptx) sed -i -E 's/^([[:space:]]*\\.file[[:space:]]+[0-9]+[[:space:]]+"
    "\"([^\"\\\\]|\\\\.)*\")[[:space:]]*$/\\1, " CANON_SOURCE_TIME ", 0/' \"$a\" || exit 1 ;;\n"
    "  esac\n"
    "done\n"
    "exec " CANON_PTXAS " \"$@\"\n";

/* The ptxas nvcc runs when none lies beside its real path (a distribution's layout: Debian's
 * nvidia-cuda-toolkit has /usr/bin/nvcc, a script that runs
 * /usr/lib/nvidia-cuda-toolkit/bin/nvcc, and ptxas in /usr/bin): the first one on the PATH
 * nvcc runs its tools with, which `nvcc -dryrun` prints (`#$ PATH=...`: its nvcc.profile's
 * dirs, then the caller's PATH), by its real path. NULL when there is none. */
static char *ptxas_on_nvcc_path(struct cli *c, const char *nvcc)
{
	struct arena *a = &c->arena;
	const char *argv[] = {nvcc, "-dryrun", "-E", "-x", "cu", "/dev/null", NULL};
	struct os_run r = {.argv = argv, .capture = true, .timeout_s = 60};
	struct strbuf out = {0};
	struct diag quiet = {0}; /* no ptxas found: no shim, as before */
	int status = 1;
	bool ran = os_run(&quiet, &r, &out, &status);
	const char *text = sb_to_arena(&out, a);
	if (!ran || status != 0)
		return NULL;
	static const char key[] = "#$ PATH=";
	const char *p = text;
	while (p && strncmp(p, key, sizeof(key) - 1) != 0)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (!p)
		return NULL;
	p += sizeof(key) - 1;
	const char *env[] = {arena_printf(a, "PATH=%.*s", (int)strcspn(p, "\r\n"), p), NULL};
	char *ptxas = os_which(a, env, "ptxas");
	return ptxas ? os_realpath(a, ptxas) : NULL;
}

/* The ptxas of nvcc (beside its real path, else on the PATH nvcc runs its tools with), and
 * the shim written into the build dir: pushed onto binds as (SRC, DEST) pairs. Nothing when
 * no ptxas is found: the sources' times then reach the line info. False + diagnostic when the
 * shim cannot be written. */
static bool ptxas_binds(struct cli *c, const char *nvcc, const char *build, struct strv *binds)
{
	struct arena *a = &c->arena;
	char *real = nvcc ? os_realpath(a, nvcc) : NULL;
	char *ptxas = NULL;
	if (real) {
		char *dir = arena_strndup(a, real, (size_t)(strrchr(real, '/') - real));
		ptxas = os_realpath(a, os_join(a, *dir ? dir : "/", "ptxas"));
		if (!ptxas || !os_is_exec(ptxas))
			ptxas = ptxas_on_nvcc_path(c, real);
	}
	if (!ptxas || !os_is_exec(ptxas))
		return true;
	const char *dir = os_join(a, build, "canon");
	const char *shim = os_join(a, dir, "ptxas");
	struct source old;
	struct diag quiet = {0}; /* a shim not yet written is written */
	bool same = os_read_file(a, &quiet, shim, &old) && old.len == sizeof(ptxas_shim) - 1 &&
	            !memcmp(old.text, ptxas_shim, old.len);
	if (!same && !(os_mkdir_p(&c->diag, dir) &&
	               os_write_atomic(&c->diag, shim, ptxas_shim, sizeof(ptxas_shim) - 1, 0755)))
		return false;
	strv_push(a, binds, ptxas);
	strv_push(a, binds, CANON_PTXAS);
	strv_push(a, binds, shim);
	strv_push(a, binds, ptxas);
	return true;
}

int internal_canon(struct cli *c, int argc, char **argv)
{
	const char *bwrap = NULL, *project = NULL, *build = NULL, *depfile = NULL, *nvcc = NULL;
	struct cli_args p;
	cli_args_init(&p, c, "internal", internal_canon_options, CLI_ARGS_LAST, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case CANON_BWRAP:
			bwrap = p.value;
			break;
		case CANON_PROJECT:
			project = p.value;
			break;
		case CANON_BUILD_DIR:
			build = p.value;
			break;
		case CANON_DEPFILE:
			depfile = p.value;
			break;
		case CANON_NVCC:
			nvcc = p.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (!bwrap || !project || !build || project[0] != '/' || build[0] != '/' || p.next >= argc)
		return cli_usage(
		    c, "internal",
		    "canon needs --bwrap PATH --project DIR --build-dir DIR (absolute) "
		    "and a command");
	struct strv cmd = {0}, binds = {0};
	if (!ptxas_binds(c, nvcc, build, &binds))
		return CLI_FAIL;
	strv_push(&c->arena, &binds, NULL);
	if (!sandbox_canon_argv(&c->arena, bwrap, project, build, (const char *const *)binds.v,
	                        &cmd)) {
		diag_errno(&c->diag, "/",
		           "cannot list the root directory for the compile's sandbox");
		return CLI_FAIL;
	}
	for (int i = p.next; i < argc; i++)
		strv_push(&c->arena, &cmd, argv[i]);
	strv_push(&c->arena, &cmd, NULL);
	struct os_run r = {.argv = cmd.v};
	int status = 1;
	if (!os_run(&c->diag, &r, NULL, &status))
		return CLI_FAIL;
	if (status != 0)
		return status;
	return depfile && !canon_depfile(c, depfile, project) ? CLI_FAIL : CLI_OK;
}
