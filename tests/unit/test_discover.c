/* test_discover.c: discovery on fake machines: toolkit trees with a shell-script nvcc, fake
 * interpreters that print probe JSON, the explicit tables, the provisioned-toolkit contract and
 * the probe and nvcc caches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/os-file.h"
#include "matrix/discover_project.h"
#include "toolchain/probe.h"

extern char **environ;

struct fx {
	struct arena a;
	struct diag d;
	char *tmp;     /* the fake machine */
	char *sysroot; /* tmp/root: its /usr/local and /opt */
	char *cache;   /* tmp/cache: $CUWHEEL_CACHE_DIR */
	char *probes;  /* tmp/probes: the probe cache dir */
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

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int n = 0, ch;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* A toolkit tree at root whose nvcc says `release` and lists sm_<each of sms>. */
static void fake_toolkit(struct fx *f, const char *root, const char *release, const char *full,
                         const char *sms, const char *count_file)
{
	struct strbuf sb = {0};
	sb_printf(&sb,
	          "#!/bin/sh\n"
	          "echo \"$1\" >> '%s'\n"
	          "case \"$1\" in\n"
	          "--version) printf 'nvcc: NVIDIA (R) Cuda compiler driver\\n"
	          "Cuda compilation tools, release %s, V%s\\nBuild cuda_%s\\n' ;;\n"
	          "--list-gpu-code) for s in %s; do echo sm_$s; done ;;\n"
	          "--list-gpu-arch) for s in %s; do echo compute_$s; done ;;\n"
	          "--help) [ -f \"${0%%/*}/help.txt\" ] || exit 1\n"
	          "  while IFS= read -r l; do echo \"$l\"; done < \"${0%%/*}/help.txt\" ;;\n"
	          "*) exit 1 ;;\n"
	          "esac\n",
	          count_file, release, full, release, sms, sms);
	write_file(os_join(&f->a, root, "bin/nvcc"), sb_str(&sb), 0755);
	sb_release(&sb);
	/* NVIDIA's nvcc reads bin/nvcc.profile beside itself; without one, discovery takes the
	 * nvcc for a wrapper and asks it for its real directory. */
	write_file(os_join(&f->a, root, "bin/nvcc.profile"), "TOP = $(_HERE_)/..\n", 0644);
	write_file(os_join(&f->a, root, "include/cuda_runtime.h"), "/* fake */\n", 0644);
	write_file(os_join(&f->a, root, "lib64/libcudart_static.a"), "!<arch>\n", 0644);
}

/* An interpreter that appends to count_file and prints probe JSON for 3.<minor>, after some
 * noise, with a torch answer when the probe asks for torch. */
static const char *fake_python(struct fx *f, const char *name, int major, int minor,
                               const char *count_file)
{
	const char *path = arena_printf(&f->a, "%s/py/%s", f->tmp, name);
	const char *inc = arena_printf(&f->a, "%s/py/include-%d.%d", f->tmp, major, minor);
	write_file(os_join(&f->a, inc, "Python.h"), "/* fake */\n", 0644);
	struct strbuf sb = {0};
	sb_printf(&sb,
	          "#!/bin/sh\n"
	          "echo run >> '%s'\n"
	          "echo 'some noise a sitecustomize printed'\n"
	          "T=''\n"
	          "for a in \"$@\"; do [ \"$a\" = torch ] && T=',\"torch\":{\"present\":true,"
	          "\"version\":\"2.11.0+cu130\",\"cuda\":\"13.0\",\"cxx11_abi\":1,"
	          "\"include_dirs\":[\"/t/include\"],\"lib_dir\":\"/t/lib\","
	          "\"pybind11_compiler_type\":\"_gcc\",\"pybind11_stdlib\":\"_libstdcpp\","
	          "\"pybind11_build_abi\":\"_cxxabi1018\"}'; done\n"
	          "printf '\\n@@cuwheel-probe@@{\"version\":\"%d.%d.7\",\"major\":%d,\"minor\":%d,"
	          "\"implementation\":\"cpython\",\"abiflags\":\"\",\"gil_disabled\":false,"
	          "\"ext_suffix\":\".cpython-%d%d-x86_64-linux-gnu.so\",\"soabi\":\"x\","
	          "\"include\":\"%s\",\"purelib\":\"%s\",\"platform\":\"linux-x86_64\","
	          "\"executable\":\"%s\"%%s}\\n' \"$T\"\n",
	          count_file, major, minor, major, minor, major, minor, inc, f->tmp, path);
	write_file(path, sb_str(&sb), 0755);
	sb_release(&sb);
	return path;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/cuwheel-test-discover.XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	f->tmp = arena_strdup(&f->a, tmpl);
	f->sysroot = os_join(&f->a, f->tmp, "root");
	f->cache = os_join(&f->a, f->tmp, "cache");
	f->probes = os_join(&f->a, f->tmp, "probes");
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, f->sysroot, "usr/local")));
	/* Nothing of the real machine may leak in: an empty PATH and HOME, no CUDA variables. */
	setenv("PATH", os_join(&f->a, f->tmp, "emptybin"), 1);
	setenv("HOME", os_join(&f->a, f->tmp, "home"), 1);
	setenv("CUWHEEL_CACHE_DIR", f->cache, 1);
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

/* Discovery with the process's environment as setup() and the tests set it (read here: setenv
 * may move environ). */
static bool run_discover(struct fx *f, const char *cache, struct discovery *ds)
{
	struct discover_opts o = {.sysroot = f->sysroot};
	f->cfg.env = (const char *const *)environ;
	return discover_with(&f->a, &f->d, &f->cfg, cache, &o, ds);
}

/* The result recorded for where, or NULL. */
static const char *looked_at(const struct discovery *ds, const char *where)
{
	for (size_t i = 0; i < ds->n_looked; i++)
		if (strcmp(ds->looked[i].where, where) == 0)
			return ds->looked[i].result;
	return NULL;
}

static void test_fake_toolkit_in_usr_local_found_with_version_and_targets(void **state)
{
	struct fx *f = *state;
	const char *root = os_join(&f->a, f->sysroot, "usr/local/cuda-12.4");
	fake_toolkit(f, root, "12.4", "12.4.131", "50 60 70 75 80 86 89 90 90a",
	             os_join(&f->a, f->tmp, "nvcc-runs"));
	struct discovery ds;
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(ds.n_toolkits, 1);
	const struct toolkit *tk = &ds.toolkits[0];
	assert_string_equal(tk->version, "12.4.131");
	assert_int_equal(tk->major, 12);
	assert_int_equal(tk->minor, 4);
	assert_string_equal(tk->found_by, "/usr/local/cuda-*");
	assert_string_equal(tk->root, os_realpath(&f->a, root));
	assert_int_equal(tk->n_sm, 8); /* 90a folds into 90 */
	assert_int_equal(tk->sm[0], 50);
	assert_int_equal(tk->sm[7], 90);
	assert_int_equal(tk->n_compute, 8);
	assert_true(toolkit_has_sm(tk, 86));
	assert_false(toolkit_has_sm(tk, 100));
	assert_true(tk->has_cudart_static);
	assert_non_null(tk->lib_dir);
	assert_non_null(tk->include_dir);
	assert_ptr_equal(discover_toolkit(&ds, "12.4"), tk);
	assert_ptr_equal(discover_toolkit(&ds, "12.4.131"), tk);
	assert_null(discover_toolkit(&ds, "13.0"));
	assert_string_equal(looked_at(&ds, root), "found 12.4.131");
	assert_string_equal(looked_at(&ds, "PATH"), "no nvcc on PATH");
}

static void test_toolkits_sorted_newest_first_and_deduplicated_by_root(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "nvcc-runs");
	const char *old = os_join(&f->a, f->sysroot, "usr/local/cuda-11.8");
	const char *new = os_join(&f->a, f->sysroot, "opt/cuda-13.0");
	fake_toolkit(f, old, "11.8", "11.8.89", "35 50 90", runs);
	fake_toolkit(f, new, "13.0", "13.0.88", "75 121", runs);
	/* /usr/local/cuda -> cuda-11.8 and CUDA_HOME pointing at it are the same toolkit. */
	assert_int_equal(symlink(old, os_join(&f->a, f->sysroot, "usr/local/cuda")), 0);
	setenv("CUDA_HOME", old, 1);
	struct discovery ds;
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(ds.n_toolkits, 2);
	assert_string_equal(ds.toolkits[0].version, "13.0.88");
	assert_string_equal(ds.toolkits[0].found_by, "/opt/cuda*");
	assert_string_equal(ds.toolkits[1].version, "11.8.89");
	assert_string_equal(ds.toolkits[1].found_by, "CUDA_HOME");
	const char *dup = looked_at(&ds, os_join(&f->a, f->sysroot, "usr/local/cuda"));
	assert_non_null(dup);
	assert_non_null(strstr(dup, "duplicate of"));
}

static void test_explicit_toolkit_table_found_missing_and_mismatch_warn(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "nvcc-runs");
	const char *good = os_join(&f->a, f->tmp, "toolkits/cuda-12.6");
	const char *liar = os_join(&f->a, f->tmp, "toolkits/cuda-says-12.1");
	fake_toolkit(f, good, "12.6", "12.6.85", "50 90", runs);
	fake_toolkit(f, liar, "12.1", "12.1.105", "50 90", runs);
	struct str_pair pairs[] = {
	    {"12.6", good},
	    {"11.8", liar},
	    {"13.0", os_join(&f->a, f->tmp, "nowhere")},
	};
	f->cfg.toolkits = (struct str_pairs){pairs, 3};
	struct discovery ds;
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(ds.n_toolkits, 1);
	assert_string_equal(ds.toolkits[0].found_by, "explicit");
	assert_string_equal(ds.toolkits[0].version, "12.6.85");
	assert_int_equal(f->d.warnings, 2);
	assert_non_null(strstr(looked_at(&ds, "toolkits.\"11.8\""), "version mismatch"));
	assert_non_null(strstr(looked_at(&ds, "toolkits.\"13.0\""), "does not exist"));
}

static void test_provisioned_toolkit_needs_its_marker_file(void **state)
{
	struct fx *f = *state;
	const char *dir = os_join(&f->a, f->cache, "toolkits/13.1.80");
	fake_toolkit(f, dir, "13.1", "13.1.80", "75 80 90 100 120",
	             os_join(&f->a, f->tmp, "nvcc-runs"));
	struct discovery ds;
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(ds.n_toolkits, 0);
	assert_non_null(strstr(looked_at(&ds, dir), "incomplete"));

	write_file(os_join(&f->a, dir, "cuwheel-toolkit.json"), "{}\n", 0644);
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(ds.n_toolkits, 1);
	assert_string_equal(ds.toolkits[0].found_by, "cache");
	assert_string_equal(ds.toolkits[0].version, "13.1.80");
}

/* The options cuwheel adds are the ones this toolkit's nvcc --help and cudafe++ know; the gcc
 * it accepts comes from its crt/host_config.h. */
static void test_nvcc_options_and_host_gcc_read_from_the_toolkit(void **state)
{
	struct fx *f = *state;
	const char *old = os_join(&f->a, f->sysroot, "usr/local/cuda-11.8");
	const char *cur = os_join(&f->a, f->sysroot, "usr/local/cuda-12.4");
	const char *runs = os_join(&f->a, f->tmp, "runs");
	fake_toolkit(f, old, "11.8", "11.8.89", "75 80 90", runs);
	fake_toolkit(f, cur, "12.4", "12.4.131", "75 80 90", runs);
	write_file(os_join(&f->a, cur, "bin/help.txt"),
	           "--objdir-as-tempdir                                 (-objtemp)\n"
	           "--threads <number>                                  (-t)\n",
	           0644);
	write_file(os_join(&f->a, cur, "bin/cudafe++"),
	           "\x7f"
	           "ELF...orig_src_path_name...",
	           0755);
	write_file(os_join(&f->a, old, "include/crt/host_config.h"),
	           "#error -- unsupported GNU version! gcc versions later than 11 are not "
	           "supported! The nvcc flag '-allow-unsupported-compiler' ...\n",
	           0644);
	struct discovery ds;
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(ds.n_toolkits, 2);
	const struct toolkit *t124 = &ds.toolkits[0], *t118 = &ds.toolkits[1];
	assert_string_equal(t118->version, "11.8.89");
	assert_int_equal(t124->nvcc_lacks, TOOLCHAIN_LACKS_RANDOM_SEED);
	assert_int_equal(t118->nvcc_lacks, TOOLCHAIN_LACKS_THREADS | TOOLCHAIN_LACKS_OBJTEMP |
	                                       TOOLCHAIN_LACKS_ORIG_SRC |
	                                       TOOLCHAIN_LACKS_RANDOM_SEED);
	assert_int_equal(t124->host.max_gcc, 0); /* no host_config.h: no limit */
	assert_int_equal(t118->host.max_gcc, 11);
	/* PATH is empty here: no compiler at all, so the reason names the package. */
	assert_non_null(t118->host.error);
	assert_non_null(strstr(t118->host.error,
	                       "no host compiler for CUDA 11.8.89: it accepts gcc "
	                       "11 and older"));
	assert_non_null(
	    strstr(t118->host.error, "install Debian's g++-11 (apt-get install g++-11)"));
	/* From the cache the second time: the same answers, no nvcc run. */
	int before = count_lines(runs);
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), before);
	assert_int_equal(ds.toolkits[0].nvcc_lacks, 8);
	assert_int_equal(ds.toolkits[1].nvcc_lacks, 15);
}

static void test_nvcc_answers_cached_until_nvcc_changes(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "nvcc-runs");
	const char *root = os_join(&f->a, f->sysroot, "usr/local/cuda-12.8");
	fake_toolkit(f, root, "12.8", "12.8.61", "75 100 120", runs);
	struct discovery ds;
	assert_true(run_discover(f, f->probes, &ds));
	/* --version, --list-gpu-code, --list-gpu-arch, --help (which options it knows) */
	assert_int_equal(count_lines(runs), 4);
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 4);
	assert_int_equal(ds.toolkits[0].n_sm, 3);
	struct timespec ts[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	assert_int_equal(utimensat(AT_FDCWD, os_join(&f->a, root, "bin/nvcc"), ts, 0), 0);
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 8);
}

static void test_probe_cache_reused_until_interpreter_mtime_changes(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "py-runs");
	const char *py = fake_python(f, "python3.12", 3, 12, runs);
	struct str_pair pairs[] = {{"3.12", py}};
	f->cfg.pythons = (struct str_pairs){pairs, 1};
	struct discovery ds;
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 1);
	assert_int_equal(ds.n_pythons, 1);
	assert_string_equal(ds.pythons[0].version, "3.12.7");
	assert_string_equal(ds.pythons[0].found_by, "explicit");
	assert_string_equal(ds.pythons[0].platform, "linux_x86_64");
	assert_true(os_exists(probe_cache_path(&f->a, f->probes, py)));

	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 1); /* reused */
	assert_string_equal(ds.pythons[0].ext_suffix, ".cpython-312-x86_64-linux-gnu.so");
	assert_non_null(strstr(looked_at(&ds, py), "cached"));

	struct timespec ts[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	assert_int_equal(utimensat(AT_FDCWD, py, ts, 0), 0);
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 2); /* rebuilt */

	/* Asking for torch is part of the key: it probes again, once. */
	f->cfg.matrix.torch.n = 1;
	assert_true(run_discover(f, f->probes, &ds));
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 3);
	const struct torch_info *t = &ds.pythons[0].torch;
	assert_true(t->present);
	assert_string_equal(t->version_short, "2.11");
	assert_string_equal(t->cuda, "13.0");
	assert_int_equal(t->cxx11_abi, 1);
	assert_int_equal(t->include_dirs.n, 1);
	assert_string_equal(t->pybind11_build_abi, "_cxxabi1018");

	/* A cache file of another format version is rebuilt. */
	write_file(probe_cache_path(&f->a, f->probes, py), "{\"format\": 0}\n", 0644);
	assert_true(run_discover(f, f->probes, &ds));
	assert_int_equal(count_lines(runs), 4);
}

static void test_pythons_one_per_version_old_and_broken_ones_explained(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "py-runs");
	const char *explicit = fake_python(f, "explicit-3.11", 3, 11, runs);
	/* pyenv versions: another 3.11 (a duplicate), a 3.7 (too old), a 3.13, one that fails. */
	const char *pyenv = os_join(&f->a, f->tmp, "home/.pyenv/versions");
	const char *p311 = fake_python(f, "pyenv-3.11", 3, 11, runs);
	const char *p37 = fake_python(f, "pyenv-3.7", 3, 7, runs);
	const char *p313 = fake_python(f, "pyenv-3.13", 3, 13, runs);
	const char *broken = os_join(&f->a, pyenv, "3.14-dev/bin/python3");
	write_file(broken, "#!/bin/sh\necho 'boom: no such module' >&2\nexit 1\n", 0755);
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, pyenv, "3.11.7/bin")));
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, pyenv, "custom-build/bin")));
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, pyenv, "3.6.15/bin")));
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, pyenv, "3.13.0/bin")));
	assert_true(os_mkdir_p(&f->d, os_join(&f->a, pyenv, "empty")));
	assert_int_equal(symlink(p311, os_join(&f->a, pyenv, "3.11.7/bin/python3")), 0);
	assert_int_equal(symlink(p37, os_join(&f->a, pyenv, "custom-build/bin/python3")), 0);
	write_file(os_join(&f->a, pyenv, "3.6.15/bin/python3"), "#!/bin/sh\nexit 7\n", 0755);
	assert_int_equal(symlink(p313, os_join(&f->a, pyenv, "3.13.0/bin/python3")), 0);
	struct str_pair pairs[] = {{"3.11", explicit}};
	f->cfg.pythons = (struct str_pairs){pairs, 1};
	struct discovery ds;
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(ds.n_pythons, 2);
	assert_string_equal(ds.pythons[0].version, "3.13.7"); /* newest first */
	assert_string_equal(ds.pythons[0].found_by, "pyenv");
	assert_string_equal(ds.pythons[1].path, explicit); /* explicit beats pyenv */
	assert_ptr_equal(discover_python(&ds, "3.11"), &ds.pythons[1]);
	assert_null(discover_python(&ds, "3.11t"));
	assert_null(discover_python(&ds, "3.12"));
	const char *dup = looked_at(&ds, os_join(&f->a, pyenv, "3.11.7/bin/python3"));
	assert_non_null(strstr(dup, "duplicate of"));
	/* The probe says 3.7; for 3.6.15 pyenv's directory name says it, and it is not run. */
	assert_string_equal(looked_at(&ds, os_join(&f->a, pyenv, "custom-build/bin/python3")),
	                    "Python 3.7 skipped: cuwheel needs CPython >= 3.8");
	const char *old = looked_at(&ds, os_join(&f->a, pyenv, "3.6.15"));
	assert_non_null(old);
	assert_non_null(strstr(old, "Python 3.6 skipped"));
	assert_int_equal(count_lines(runs), 4); /* explicit, 3.11, 3.7, 3.13: not 3.6 */
	assert_string_equal(looked_at(&ds, broken), "probe failed: exit 1: boom: no such module");
	assert_string_equal(looked_at(&ds, os_join(&f->a, pyenv, "empty")), "no bin/python3");
	assert_int_equal(f->d.warnings, 0);
}

static void test_real_interpreter_probe_script_runs_isolated(void **state)
{
	struct fx *f = *state;
	const char *py = "/usr/bin/python3";
	if (!os_is_exec(py))
		skip();
	struct probe_job job = {.path = py, .torch = true};
	probe_run(&f->a, &f->d, NULL, &job, 1, 0, 300);
	assert_true(job.ok);
	assert_string_equal(job.info.implementation, "cpython");
	assert_int_equal(job.info.major, 3);
	assert_non_null(job.info.ext_suffix);
	assert_non_null(strstr(job.info.ext_suffix, ".so"));
	assert_non_null(job.info.include_dir);
	/* torch was asked for: either present, or absent with the reason. */
	assert_true(job.info.torch.present || job.info.torch.error);
}

/* True when pid is gone or a zombie (killed; whoever adopted it has not reaped it yet). */
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

/* An interpreter that never answers (a sitecustomize or an import that hangs) is killed with
 * its process group after the timeout, and its error says so: discovery does not hang. */
static void test_hung_interpreter_killed_after_the_timeout(void **state)
{
	struct fx *f = *state;
	const char *pidfile = os_join(&f->a, f->tmp, "grandchild.pid");
	const char *py = os_join(&f->a, f->tmp, "hung/python3");
	write_file(
	    py, arena_printf(&f->a, "#!/bin/sh\n/bin/sleep 600 &\necho $! > '%s'\nwait\n", pidfile),
	    0755);
	struct probe_job job = {.path = py};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	probe_run(&f->a, &f->d, NULL, &job, 1, 0, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_false(job.ok);
	assert_non_null(job.error);
	if (!strstr(job.error, "no answer in 1 s (CUWHEEL_PROBE_TIMEOUT): killed"))
		fail_msg("error: %s", job.error);
	assert_true(t1.tv_sec - t0.tv_sec < 10);
	/* The sleep the script started, in its process group, was killed too. */
	FILE *pf = fopen(pidfile, "r");
	assert_non_null(pf);
	int pid = 0;
	assert_int_equal(fscanf(pf, "%d", &pid), 1);
	fclose(pf);
	bool dead = false;
	for (int i = 0; i < 100 && !(dead = process_dead(pid)); i++)
		usleep(20000);
	assert_true(dead);

	const char *bad;
	const char *env[] = {"CUWHEEL_PROBE_TIMEOUT=7", NULL};
	assert_int_equal(probe_timeout(env, &bad), 7);
	assert_null(bad);
	const char *env2[] = {"CUWHEEL_PROBE_TIMEOUT=soon", NULL};
	assert_int_equal(probe_timeout(env2, &bad), 300);
	assert_string_equal(bad, "soon");
	const char *env3[] = {NULL};
	assert_int_equal(probe_timeout(env3, &bad), 300);
}

static void test_no_cache_dir_given_means_probe_every_time(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "py-runs");
	struct str_pair pairs[] = {{"3.10", fake_python(f, "python3.10", 3, 10, runs)}};
	f->cfg.pythons = (struct str_pairs){pairs, 1};
	struct discovery ds;
	assert_true(run_discover(f, NULL, &ds));
	assert_true(run_discover(f, NULL, &ds));
	assert_int_equal(count_lines(runs), 2);
	assert_false(os_exists(f->probes));
}

/* Discovery reads the environment it is given (cfg->env), never the process's: the cache dir,
 * CUDA_HOME and HOME come from the list, whatever the process has. */
static void test_discovery_reads_the_passed_environment_not_the_process(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "nvcc-runs");
	const char *mine = os_join(&f->a, f->tmp, "toolkits/cuda-12.6");
	const char *theirs = os_join(&f->a, f->tmp, "toolkits/cuda-13.0");
	fake_toolkit(f, mine, "12.6", "12.6.85", "50 90", runs);
	fake_toolkit(f, theirs, "13.0", "13.0.88", "75 90", runs);
	/* NVIDIA's nvcc has its nvcc.profile beside it (discover_toolkit.c: not a wrapper). */
	write_file(os_join(&f->a, mine, "bin/nvcc.profile"), "\n", 0644);
	write_file(os_join(&f->a, theirs, "bin/nvcc.profile"), "\n", 0644);
	const char *other_cache = os_join(&f->a, f->tmp, "other-cache");
	const char *env[] = {arena_printf(&f->a, "CUWHEEL_CACHE_DIR=%s", other_cache),
	                     arena_printf(&f->a, "CUDA_HOME=%s", mine),
	                     arena_printf(&f->a, "PATH=%s/emptybin", f->tmp), NULL};
	setenv("CUDA_HOME", theirs, 1); /* the process's: must not be seen */
	assert_string_equal(getenv("CUWHEEL_CACHE_DIR"), f->cache);

	assert_string_equal(cuwheel_cache_dir(&f->a, env), other_cache);
	assert_string_equal(cuwheel_cache_dir(&f->a, (const char *const *)environ), f->cache);
	static const char *const xdg[] = {"CUWHEEL_CACHE_DIR=", "XDG_CACHE_HOME=/x", "HOME=/h",
	                                  NULL};
	assert_string_equal(cuwheel_cache_dir(&f->a, xdg), "/x/cuwheel"); /* empty: unset */
	static const char *const home[] = {"HOME=/h", NULL};
	assert_string_equal(cuwheel_cache_dir(&f->a, home), "/h/.cache/cuwheel");
	assert_string_equal(cuwheel_cache_dir(&f->a, NULL), "/tmp/cuwheel-cache");
	assert_string_equal(discover_cache_dir(&f->a, &(struct config){.env = env}),
	                    os_join(&f->a, other_cache, "probes"));

	f->cfg.env = env;
	struct discover_opts o = {.sysroot = f->sysroot};
	struct discovery ds;
	assert_true(discover_with(&f->a, &f->d, &f->cfg, NULL, &o, &ds));
	assert_int_equal(ds.n_toolkits, 1);
	assert_string_equal(ds.toolkits[0].found_by, "CUDA_HOME");
	assert_string_equal(ds.toolkits[0].version, "12.6.85");
	assert_non_null(looked_at(&ds, os_join(&f->a, other_cache, "toolkits")));
	assert_null(looked_at(&ds, os_join(&f->a, f->cache, "toolkits")));

	/* An empty list: no CUDA_HOME, no PATH, whatever the process has. */
	static const char *const none[] = {NULL};
	f->cfg.env = none;
	assert_true(discover_with(&f->a, &f->d, &f->cfg, NULL, &o, &ds));
	assert_int_equal(ds.n_toolkits, 0);
	assert_string_equal(looked_at(&ds, "$CUDA_HOME"), "not set");
	assert_null(looked_at(&ds, os_join(&f->a, f->tmp, "home/.pyenv/versions")));
}

/* toolchain/ knows no config: discover_run() is given the environment, the project dir and
 * the explicit tables, and resolves a relative explicit path against the project dir; the
 * config's wrapper (matrix/discover_project.c) asks for the same and finds the same. */
static void test_discover_run_takes_a_request_not_a_config(void **state)
{
	struct fx *f = *state;
	const char *runs = os_join(&f->a, f->tmp, "nvcc-runs");
	fake_toolkit(f, os_join(&f->a, f->tmp, "tk/cuda-12.6"), "12.6", "12.6.85", "50 90", runs);
	struct str_pair pairs[] = {{"12.6", "tk/cuda-12.6"}};
	const struct discover_request r = {
	    .env = (const char *const *)environ, .project_dir = f->tmp, .toolkits = {pairs, 1}};
	struct discover_opts o = {.sysroot = f->sysroot};
	struct discovery ds;
	assert_true(discover_run(&f->a, &f->d, &r, NULL, &o, &ds));
	assert_int_equal(ds.n_toolkits, 1);
	assert_string_equal(ds.toolkits[0].found_by, "explicit");
	assert_string_equal(ds.toolkits[0].version, "12.6.85");
	assert_string_equal(ds.toolkits[0].root,
	                    os_realpath(&f->a, os_join(&f->a, f->tmp, "tk/cuda-12.6")));

	f->cfg.toolkits = r.toolkits;
	struct discovery via_cfg;
	assert_true(run_discover(f, NULL, &via_cfg));
	assert_int_equal(via_cfg.n_toolkits, 1);
	assert_string_equal(via_cfg.toolkits[0].root, ds.toolkits[0].root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_fake_toolkit_in_usr_local_found_with_version_and_targets),
	    T(test_toolkits_sorted_newest_first_and_deduplicated_by_root),
	    T(test_explicit_toolkit_table_found_missing_and_mismatch_warn),
	    T(test_provisioned_toolkit_needs_its_marker_file),
	    T(test_nvcc_answers_cached_until_nvcc_changes),
	    T(test_nvcc_options_and_host_gcc_read_from_the_toolkit),
	    T(test_probe_cache_reused_until_interpreter_mtime_changes),
	    T(test_pythons_one_per_version_old_and_broken_ones_explained),
	    T(test_real_interpreter_probe_script_runs_isolated),
	    T(test_hung_interpreter_killed_after_the_timeout),
	    T(test_no_cache_dir_given_means_probe_every_time),
	    T(test_discovery_reads_the_passed_environment_not_the_process),
	    T(test_discover_run_takes_a_request_not_a_config),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
