/* test_probe_limits.c: what is read from a probe or a tool is bounded and ends when the
 * program does: real fake-tool scripts in a temp dir (a 300 MB nvcc, a wrapper that leaves a
 * background child holding stdout, an interpreter whose answer holds escape sequences). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "matrix/discover_project.h"
#include "toolchain/probe.h"

extern char **environ;

struct fx {
	struct arena a;
	struct diag d;
	char *tmp;
	char *sysroot;
	struct config cfg;
};

static void write_file(const char *path, const char *text, mode_t mode)
{
	struct diag d = {0};
	char *dir = strdup(path);
	*strrchr(dir, '/') = '\0';
	assert_true(os_mkdir_p(&d, dir));
	free(dir);
	assert_true(os_write_atomic(&d, path, text, strlen(text), mode));
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* True when pid is gone or a zombie. */
static bool process_dead(int pid)
{
	if (kill(pid, 0) != 0)
		return true;
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return true;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] == 'Z';
}

static bool pidfile_process_dies(const char *pidfile)
{
	FILE *pf = fopen(pidfile, "r");
	if (!pf)
		return false;
	int pid = 0;
	bool read = fscanf(pf, "%d", &pid) == 1;
	fclose(pf);
	if (!read || pid <= 0)
		return false;
	for (int i = 0; i < 200; i++) {
		if (process_dead(pid))
			return true;
		usleep(20000);
	}
	return false;
}

/* A toolkit tree at root whose nvcc runs `extra` (shell) after answering --version. */
static void fake_toolkit(struct fx *f, const char *root, const char *release, const char *extra)
{
	const char *nvcc =
	    arena_printf(&f->a,
	                 "#!/bin/sh\n"
	                 "case \"$1\" in\n"
	                 "--version) printf 'nvcc: NVIDIA (R) Cuda compiler driver\\n"
	                 "Cuda compilation tools, release %s, V%s.88\\n'; %s ;;\n"
	                 "-dryrun) echo \"#\\$ _HERE_=${0%%/*}\" ;;\n"
	                 "--list-gpu-code) echo sm_90 ;;\n"
	                 "--list-gpu-arch) echo compute_90 ;;\n"
	                 "*) exit 1 ;;\n"
	                 "esac\n",
	                 release, release, extra);
	write_file(os_join(&f->a, root, "bin/nvcc"), nvcc, 0755);
	write_file(os_join(&f->a, root, "bin/nvcc.profile"), "TOP = $(_HERE_)/..\n", 0644);
	write_file(os_join(&f->a, root, "include/cuda_runtime.h"), "/* fake */\n", 0644);
	write_file(os_join(&f->a, root, "lib64/libcudart_static.a"), "!<arch>\n", 0644);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/cuwheel-test-probe-limits.XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	f->tmp = arena_strdup(&f->a, tmpl);
	f->sysroot = os_join(&f->a, f->tmp, "root");
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, f->sysroot, "usr/local")));
	/* Nothing of the real machine may leak in (the scripts name /bin tools by path). */
	setenv("PATH", os_join(&f->a, f->tmp, "emptybin"), 1);
	setenv("HOME", os_join(&f->a, f->tmp, "home"), 1);
	setenv("CUWHEEL_CACHE_DIR", os_join(&f->a, f->tmp, "cache"), 1);
	setenv("CUWHEEL_PROBE_TIMEOUT", "120", 1);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	unsetenv("PYENV_ROOT");
	unsetenv("PYENV_VERSION");
	unsetenv("UV_PYTHON_INSTALL_DIR");
	unsetenv("XDG_DATA_HOME");
	f->cfg.project_dir = f->tmp;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct diag d = {0};
	os_rm_rf(&d, f->tmp);
	arena_free(&f->a);
	free(f);
	return 0;
}

static bool run_discover(struct fx *f, struct discovery *ds)
{
	struct discover_opts o = {.sysroot = f->sysroot};
	f->cfg.env = (const char *const *)environ;
	return discover_with(&f->a, &f->d, &f->cfg, NULL, &o, ds);
}

static const char *looked_at(const struct discovery *ds, const char *where)
{
	for (size_t i = 0; i < ds->n_looked; i++)
		if (strcmp(ds->looked[i].where, where) == 0)
			return ds->looked[i].result;
	return NULL;
}

/* A tool that exits while the `sleep` it left in the background holds its stdout: reading
 * ends right after the exit (not at the 120 s timeout, nor never), with the tool's output and
 * exit status, and the sleep is killed with the tool's process group. */
static void test_output_read_ends_when_the_tool_exits_despite_a_background_child(void **state)
{
	struct fx *f = *state;
	const char *pidfile = os_join(&f->a, f->tmp, "bg.pid");
	const char *tool = os_join(&f->a, f->tmp, "wrapper");
	write_file(tool,
	           arena_printf(&f->a,
	                        "#!/bin/sh\n/bin/sleep 1000 &\necho $! > '%s'\n"
	                        "echo 'the answer'\nexit 3\n",
	                        pidfile),
	           0755);
	for (int probe = 0; probe <= 1; probe++) {
		const char *argv[] = {tool, NULL};
		struct os_run r = {.argv = argv, .capture = true, .timeout_s = 120, .probe = probe};
		struct strbuf out = {0};
		int st = 0;
		double t0 = now_s();
		assert_true(os_run(&f->d, &r, &out, &st));
		double took = now_s() - t0;
		if (took > 5)
			fail_msg("reading took %.1f s", took);
		assert_int_equal(st, 3);
		assert_string_equal(sb_str(&out), "the answer\n");
		assert_true(pidfile_process_dies(pidfile));
		sb_release(&out);
		unlink(pidfile);
	}
}

/* A probe printing 300 MB is refused after 1 MiB (OS_STATUS_TOO_MUCH_OUTPUT) in well under a
 * second's worth of its output, keeping at most 1 MiB, and its process group is killed. */
static void test_probe_printing_300_mb_refused_with_bounded_memory(void **state)
{
	struct fx *f = *state;
	const char *tool = os_join(&f->a, f->tmp, "flood");
	write_file(tool, "#!/bin/sh\n/usr/bin/head -c 300000000 /dev/zero | /usr/bin/tr '\\0' x\n",
	           0755);
	const char *argv[] = {tool, NULL};
	struct os_run r = {.argv = argv, .capture = true, .timeout_s = 120, .probe = true};
	struct strbuf out = {0};
	int st = 0;
	long rss0 = maxrss_kb();
	double t0 = now_s();
	assert_true(os_run(&f->d, &r, &out, &st));
	double took = now_s() - t0;
	assert_int_equal(st, OS_STATUS_TOO_MUCH_OUTPUT);
	assert_int_equal(out.len, OS_OUTPUT_MAX);
	if (took > 5)
		fail_msg("refusing took %.1f s", took);
	long grew = maxrss_kb() - rss0;
	if (grew > 16 * 1024)
		fail_msg("memory grew by %ld kB", grew);
	sb_release(&out);
}

/* A tool (not a probe) printing 3 MiB: its first OS_OUTPUT_MAX bytes and last OS_OUTPUT_TAIL
 * bytes are kept around a line saying how many were left out; it runs to its end. */
static void test_tool_output_keeps_head_and_tail(void **state)
{
	struct fx *f = *state;
	const char *tool = os_join(&f->a, f->tmp, "chatty");
	write_file(tool,
	           "#!/bin/sh\n/usr/bin/head -c 3145728 /dev/zero | /usr/bin/tr '\\0' y\n"
	           "echo\necho 'the last line'\nexit 1\n",
	           0755);
	const char *argv[] = {tool, NULL};
	struct os_run r = {.argv = argv, .capture = true};
	struct strbuf out = {0};
	int st = 0;
	assert_true(os_run(&f->d, &r, &out, &st));
	assert_int_equal(st, 1);
	const char *s = sb_str(&out);
	assert_int_equal(strspn(s, "y"), OS_OUTPUT_MAX);
	size_t total = 3145728 + 1 + strlen("the last line\n");
	char *note = arena_printf(&f->a, "\n[cuwheel: %zu bytes of output left out]\n",
	                          total - OS_OUTPUT_MAX - OS_OUTPUT_TAIL);
	assert_non_null(strstr(s, note));
	assert_true(out.len == OS_OUTPUT_MAX + strlen(note) + OS_OUTPUT_TAIL);
	assert_string_equal(s + out.len - strlen("y\nthe last line\n"), "y\nthe last line\n");
	sb_release(&out);
}

/* The 300 MB nvcc in /usr/local/cuda-13.0 is refused quickly with a reason naming the
 * command, and the working 13.0 in /opt/cuda is the toolkit found: a broken root does not
 * shadow it. */
static void test_flooding_nvcc_refused_and_does_not_shadow_a_working_toolkit(void **state)
{
	struct fx *f = *state;
	const char *bad = os_join(&f->a, f->sysroot, "usr/local/cuda-13.0");
	const char *good = os_join(&f->a, f->sysroot, "opt/cuda");
	fake_toolkit(f, bad, "13.0", "/usr/bin/head -c 300000000 /dev/zero | /usr/bin/tr '\\0' x");
	fake_toolkit(f, good, "13.0", ":");
	struct discovery ds;
	long rss0 = maxrss_kb();
	double t0 = now_s();
	assert_true(run_discover(f, &ds));
	double took = now_s() - t0;
	if (took > 10)
		fail_msg("discovery took %.1f s", took);
	long grew = maxrss_kb() - rss0;
	if (grew > 16 * 1024)
		fail_msg("memory grew by %ld kB", grew);
	assert_int_equal(ds.n_toolkits, 1);
	assert_string_equal(ds.toolkits[0].root, os_realpath(&f->a, good));
	const char *why = looked_at(&ds, bad);
	assert_non_null(why);
	if (!strstr(why, "nvcc --version printed more than 1048576 bytes"))
		fail_msg("looked: %s", why);
}

/* A wrapper nvcc (no nvcc.profile) that leaves `sleep 1000 &` holding stdout does not stall
 * discovery for the probe timeout (120 s here). */
static void test_wrapper_nvcc_with_a_background_child_does_not_stall_discovery(void **state)
{
	struct fx *f = *state;
	const char *real = os_join(&f->a, f->sysroot, "opt/cuda-real");
	fake_toolkit(f, real, "13.0", ":");
	const char *wrapper = os_join(&f->a, f->sysroot, "usr/local/cuda-13.0");
	const char *pidfile = os_join(&f->a, f->tmp, "bg.pid");
	write_file(os_join(&f->a, wrapper, "bin/nvcc"),
	           arena_printf(&f->a,
	                        "#!/bin/sh\n/bin/sleep 1000 &\necho $! >> '%s'\n"
	                        "exec '%s/bin/nvcc' \"$@\"\n",
	                        pidfile, real),
	           0755);
	write_file(os_join(&f->a, wrapper, "include/cuda_runtime.h"), "/* fake */\n", 0644);
	struct discovery ds;
	double t0 = now_s();
	assert_true(run_discover(f, &ds));
	double took = now_s() - t0;
	if (took > 10)
		fail_msg("discovery took %.1f s", took);
	assert_true(pidfile_process_dies(pidfile));
	assert_int_equal(ds.n_toolkits, 1); /* the wrapper led to the real toolkit */
	assert_string_equal(ds.toolkits[0].root, os_realpath(&f->a, real));
}

/* An interpreter whose probe answer or error carries escape sequences: the answer is refused
 * and the error is shown escaped (no ESC, no CR reaches the message). */
static void test_interpreter_escape_sequences_refused_or_escaped(void **state)
{
	struct fx *f = *state;
	const char *liar = os_join(&f->a, f->tmp, "py/liar");
	write_file(liar,
	           "#!/bin/sh\nprintf '\\n@@cuwheel-probe@@{\"version\":\"3.12.1\\\\u001b[31m\","
	           "\"major\":3,\"minor\":12}\\n'\n",
	           0755);
	const char *broken = os_join(&f->a, f->tmp, "py/broken");
	write_file(
	    broken,
	    "#!/bin/sh\nprintf '\\033]8;;http://x/\\033\\\\\\r::error title=x::y\\n'\nexit 1\n",
	    0755);
	struct probe_job jobs[] = {{.path = liar}, {.path = broken}};
	probe_run(&f->a, &f->d, NULL, jobs, 2, 0, 30);
	assert_false(jobs[0].ok);
	if (!strstr(jobs[0].error, "holds a control character"))
		fail_msg("error: %s", jobs[0].error);
	assert_false(jobs[1].ok);
	assert_null(strpbrk(jobs[1].error, "\033\r\n"));
	if (!strstr(jobs[1].error, "\\x1b]8;;http://x/\\x1b\\\\"))
		fail_msg("error: %s", jobs[1].error);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_output_read_ends_when_the_tool_exits_despite_a_background_child),
	    T(test_probe_printing_300_mb_refused_with_bounded_memory),
	    T(test_tool_output_keeps_head_and_tail),
	    T(test_flooding_nvcc_refused_and_does_not_shadow_a_working_toolkit),
	    T(test_wrapper_nvcc_with_a_background_child_does_not_stall_discovery),
	    T(test_interpreter_escape_sequences_refused_or_escaped),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
