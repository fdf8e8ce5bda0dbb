/* test_nvcc_steps.c: `nvcc --dryrun` read into steps (nvcc's variables, its quoting, the
 * redirections --threads adds, the intermediates), the chains that run them side by side,
 * the device front ends rewritten to write their own module id, the compiles refused (run by
 * nvcc whole), and the depfile syntax the runner reads and writes. The transcripts are
 * nvcc 13.0's and 11.8's for two architectures, shortened (fewer -D, short paths). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/strbuf.h"
#include "standards/ninja.h"
#include "toolchain/nvcc_steps.h"

/* nvcc 13.0, two architectures, --threads 2: the host pass first, each tool's output
 * redirected, cicc by $CICC_PATH. */
static const char dry130[] =
    "#$ _NVVM_BRANCH_=nvvm\n"
    "#$ _SPACE_= \n"
    "#$ CICC_PATH=/cuda/bin/../nvvm/bin\n"
    "#$ PATH=/cuda/bin/../nvvm/bin:/cuda/bin:/usr/bin\n"
    "#$ INCLUDES=\"-I/cuda/include\"  \n"
    "#$ SYSTEM_INCLUDES=\"-isystem\" \"/cuda/include/cccl\"  \n"
    "#$ gcc -std=c++17 -frandom-seed=\"k.cu\" -E -x c++ -D \"X=a b\" \"-I/cuda/include\" "
    "\"k.cu\" -o \"o/k.o.cpp4.ii\"  > /tmp/tmpxft_1_stdout 2>/tmp/tmpxft_1_stderr\n"
    "#$ gcc -D__CUDA_ARCH__=800 -E -x c++ \"k.cu\" -o \"o/k.o.compute_80.cpp1.ii\"  > "
    "/tmp/tmpxft_2_stdout 2>/tmp/tmpxft_2_stderr\n"
    "#$ gcc -D__CUDA_ARCH__=900 -E -x c++ \"k.cu\" -o \"o/k.o.compute_90.cpp1.ii\"\n"
    "#$ cudafe++ --c++17 --orig_src_file_name \"k.cu\" --gen_c_file_name "
    "\"o/k.o.compute_90.cudafe1.cpp\" --stub_file_name \"k.o.compute_90.cudafe1.stub.c\" "
    "--gen_module_id_file --module_id_file_name \"o/k.o.module_id\" \"o/k.o.cpp4.ii\"\n"
    "#$ \"$CICC_PATH/cicc\" --c++17 -arch compute_80 --include_file_name \"k.o.fatbin.c\" "
    "--module_id_file_name \"o/k.o.module_id\" --gen_c_file_name "
    "\"o/k.o.compute_80.cudafe1.c\" --stub_file_name \"o/k.o.compute_80.cudafe1.stub.c\" "
    "\"o/k.o.compute_80.cpp1.ii\" -o \"o/k.o.compute_80.ptx\"\n"
    "#$ \"$CICC_PATH/cicc\" --c++17 -arch compute_90 --module_id_file_name "
    "\"o/k.o.module_id\" --stub_file_name \"o/k.o.compute_90.cudafe1.stub.c\" "
    "\"o/k.o.compute_90.cpp1.ii\" -o \"o/k.o.compute_90.ptx\"\n"
    "#$ ptxas -arch=sm_80 -m64  \"o/k.o.compute_80.ptx\"  -o \"o/k.o.compute_80.cubin\" \n"
    "#$ ptxas -arch=sm_90 -m64  \"o/k.o.compute_90.ptx\"  -o \"o/k.o.compute_90.cubin\" \n"
    "#$ fatbinary --create=\"o/k.o.fatbin\" --cicc-cmdline=\"-ftz=0 -fmad=1 \" "
    "\"--image3=kind=elf,sm=80,file=o/k.o.compute_80.cubin\" "
    "\"--image3=kind=elf,sm=90,file=o/k.o.compute_90.cubin\" "
    "--embedded-fatbin=\"o/k.o.fatbin.c\"\n"
    "#$ gcc -c -x c++ -Wno-psabi -m64 \"o/k.o.compute_90.cudafe1.cpp\" -o \"o/k.o\"\n"
    "#$ rm /tmp/tmpxft_1_stderr\n"
    "#$ rm o/k.o.compute_80.cpp1.ii\n"
    "#$ rm o/k.o.compute_90.cpp1.ii\n"
    "#$ rm o/k.o.cpp4.ii\n"
    "#$ rm o/k.o.compute_90.cudafe1.cpp\n"
    "#$ rm o/k.o.compute_80.cudafe1.c\n"
    "#$ rm o/k.o.compute_80.cudafe1.stub.c\n"
    "#$ rm o/k.o.compute_90.cudafe1.stub.c\n"
    "#$ rm o/k.o.compute_80.ptx\n"
    "#$ rm o/k.o.compute_90.ptx\n"
    "#$ rm o/k.o.compute_80.cubin\n"
    "#$ rm o/k.o.compute_90.cubin\n"
    "#$ rm o/k.o.module_id\n"
    "#$ rm o/k.o.fatbin.c\n"
    "#$ rm o/k.o.fatbin\n"
    "nvcc warning : an architecture is deprecated\n";

static size_t argc_of(const char **argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	return n;
}

static bool has(const char **argv, const char *w)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], w))
			return true;
	return false;
}

static void reads_nvcc_13(void **state)
{
	struct arena a = {0};
	struct nvcc_steps s;
	const char *why = NULL;
	assert_true(nvcc_steps_parse(&a, dry130, &s, &why));
	assert_int_equal(s.n, 10);
	assert_int_equal(s.temps.n, 15);
	assert_int_equal(s.notes.n, 1);
	assert_string_equal(s.notes.v[0], "nvcc warning : an architecture is deprecated");
	/* the variables, quotes removed and words joined */
	assert_true(strv_contains(&s.env, "_SPACE_="));
	assert_true(strv_contains(&s.env, "INCLUDES=-I/cuda/include"));
	assert_true(strv_contains(&s.env, "SYSTEM_INCLUDES=-isystem /cuda/include/cccl"));
	/* quotes, a quoted word with a space, the redirections dropped */
	const char **host = s.steps[0].argv;
	assert_string_equal(host[2], "-frandom-seed=k.cu");
	assert_true(has(host, "X=a b"));
	assert_string_equal(host[argc_of(host) - 1], "o/k.o.cpp4.ii");
	/* $CICC_PATH expanded */
	assert_string_equal(s.steps[4].argv[0], "/cuda/bin/../nvvm/bin/cicc");
	assert_string_equal(s.steps[8].argv[2], "--cicc-cmdline=-ftz=0 -fmad=1 ");
	arena_free(&a);
}

static void chains_and_module_ids(void **state)
{
	struct arena a = {0};
	struct nvcc_steps s;
	const char *why = NULL;
	assert_true(nvcc_steps_parse(&a, dry130, &s, &why));
	assert_true(nvcc_steps_schedule(&a, &s, "o/k.o", &why));
	/* host: -E, cudafe++; each architecture: -E, cicc, ptxas; then fatbinary, gcc -c */
	assert_int_equal(s.nchains, 3);
	size_t want[] = {0, 1, 2, 0, 1, 2, 1, 2, NVCC_JOIN, NVCC_JOIN};
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.steps[i].chain, want[i]);
	/* both cicc write their own module id and keep nvcc's argv to run again */
	for (size_t i = 4; i <= 5; i++) {
		const struct nvcc_step *st = &s.steps[i];
		assert_non_null(st->own_id);
		assert_string_equal(st->shared_id, "o/k.o.module_id");
		assert_int_equal(st->id_writer, 3);
		assert_true(has(st->argv, "--gen_module_id_file"));
		assert_true(has(st->argv, st->own_id));
		assert_false(has(st->argv, "o/k.o.module_id"));
		assert_false(has(st->original, "--gen_module_id_file"));
		assert_true(has(st->original, "o/k.o.module_id"));
		assert_true(strv_contains(&s.temps, st->own_id));
	}
	assert_null(s.steps[3].own_id);
	/* the wrong object is refused */
	struct nvcc_steps t;
	assert_true(nvcc_steps_parse(&a, dry130, &t, &why));
	assert_false(nvcc_steps_schedule(&a, &t, "o/other.o", &why));
	arena_free(&a);
}

/* nvcc 11.8 runs the first cicc before cudafe++: that cicc writes the id, the rest read it. */
static void module_id_written_by_the_first_device_pass(void **state)
{
	static const char dry118[] =
	    "#$ PATH=/cuda/bin:/usr/bin\n"
	    "#$ gcc -D__CUDA_ARCH__=750 -E -x c++ \"k.cu\" -o \"o/k.o.compute_75.cpp1.ii\"\n"
	    "#$ cicc --gen_module_id_file --module_id_file_name \"o/k.o.module_id\" "
	    "\"o/k.o.compute_75.cpp1.ii\" -o \"o/k.o.compute_75.ptx\"\n"
	    "#$ ptxas -arch=sm_75 \"o/k.o.compute_75.ptx\" -o \"o/k.o.compute_75.cubin\"\n"
	    "#$ gcc -E -x c++ \"k.cu\" -o \"o/k.o.cpp4.ii\"\n"
	    "#$ cudafe++ --module_id_file_name \"o/k.o.module_id\" --gen_c_file_name "
	    "\"o/k.o.cudafe1.cpp\" \"o/k.o.cpp4.ii\"\n"
	    "#$ fatbinary --create=\"o/k.o.fatbin\" "
	    "\"--image3=kind=elf,sm=75,file=o/k.o.compute_75.cubin\"\n"
	    "#$ gcc -c -x c++ \"o/k.o.cudafe1.cpp\" -o \"o/k.o\"\n"
	    "#$ rm o/k.o.compute_75.cpp1.ii\n"
	    "#$ rm o/k.o.compute_75.ptx\n"
	    "#$ rm o/k.o.compute_75.cubin\n"
	    "#$ rm o/k.o.cpp4.ii\n"
	    "#$ rm o/k.o.cudafe1.cpp\n"
	    "#$ rm o/k.o.module_id\n"
	    "#$ rm o/k.o.fatbin\n";
	struct arena a = {0};
	struct nvcc_steps s;
	const char *why = NULL;
	assert_true(nvcc_steps_parse(&a, dry118, &s, &why));
	assert_true(nvcc_steps_schedule(&a, &s, "o/k.o", &why));
	assert_int_equal(s.nchains, 2);
	size_t want[] = {0, 0, 0, 1, 1, 0, NVCC_JOIN};
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.steps[i].chain, want[i]);
	assert_non_null(s.steps[4].own_id);
	assert_int_equal(s.steps[4].id_writer, 1);
	assert_null(s.steps[1].own_id);
	arena_free(&a);
}

/* Without -objtemp nvcc keeps its intermediates in /tmp and lists no `rm` for most: what a step
 * writes with -o and every tmpxft_ file are intermediates still, so that cicc waits for the
 * device -E, ptxas for cicc, and the runner removes them all. */
static void intermediates_nvcc_removes_itself(void **state)
{
	static const char dry[] =
	    "#$ PATH=/cuda/bin:/usr/bin\n"
	    "#$ gcc -D__CUDA_ARCH__=750 -E -x c++ \"k.cu\" -o \"/tmp/tmpxft_51_0-7_k.cpp1.ii\"\n"
	    "#$ gcc -E -x c++ \"k.cu\" -o \"/tmp/tmpxft_51_0-5_k.cpp4.ii\"\n"
	    "#$ cudafe++ --gen_c_file_name \"/tmp/tmpxft_51_0-6_k.cudafe1.cpp\" --stub_file_name "
	    "\"tmpxft_51_0-6_k.cudafe1.stub.c\" --gen_module_id_file --module_id_file_name "
	    "\"/tmp/tmpxft_51_0-4_k.module_id\" \"/tmp/tmpxft_51_0-5_k.cpp4.ii\"\n"
	    "#$ cicc -arch compute_75 --module_id_file_name \"/tmp/tmpxft_51_0-4_k.module_id\" "
	    "--stub_file_name \"/tmp/tmpxft_51_0-6_k.cudafe1.stub.c\" "
	    "\"/tmp/tmpxft_51_0-7_k.cpp1.ii\" -o \"/tmp/tmpxft_51_0-6_k.ptx\"\n"
	    "#$ ptxas -arch=sm_75 \"/tmp/tmpxft_51_0-6_k.ptx\" -o \"/tmp/tmpxft_51_0-8_k.cubin\"\n"
	    "#$ fatbinary \"--image3=kind=elf,sm=75,file=/tmp/tmpxft_51_0-8_k.cubin\" "
	    "\"--image3=kind=ptx,sm=75,file=/tmp/tmpxft_51_0-6_k.ptx\" "
	    "--embedded-fatbin=\"/tmp/tmpxft_51_0-3_k.fatbin.c\"\n"
	    "#$ rm /tmp/tmpxft_51_0-3_k.fatbin\n"
	    "#$ gcc -c -x c++ \"/tmp/tmpxft_51_0-6_k.cudafe1.cpp\" -o \"k.o\"\n";
	struct arena a = {0};
	struct nvcc_steps s;
	const char *why = NULL;
	assert_true(nvcc_steps_parse(&a, dry, &s, &why));
	assert_true(nvcc_steps_schedule(&a, &s, "k.o", &why));
	assert_int_equal(s.nchains, 2);
	size_t want[] = {0, 1, 1, 0, 0, 0, NVCC_JOIN};
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.steps[i].chain, want[i]);
	static const char *const removed[] = {
	    "/tmp/tmpxft_51_0-7_k.cpp1.ii",     "/tmp/tmpxft_51_0-5_k.cpp4.ii",
	    "/tmp/tmpxft_51_0-6_k.cudafe1.cpp", "/tmp/tmpxft_51_0-6_k.cudafe1.stub.c",
	    "/tmp/tmpxft_51_0-6_k.ptx",         "/tmp/tmpxft_51_0-8_k.cubin",
	    "/tmp/tmpxft_51_0-3_k.fatbin.c",    "/tmp/tmpxft_51_0-3_k.fatbin"};
	for (size_t i = 0; i < sizeof(removed) / sizeof(*removed); i++)
		assert_true(strv_contains(&s.temps, removed[i]));
	assert_false(strv_contains(&s.temps, "k.o"));
	assert_false(strv_contains(&s.temps, "tmpxft_51_0-6_k.cudafe1.stub.c"));
	arena_free(&a);
}

/* Lines and commands not read here: the runner then runs nvcc whole. */
static void refusals(void **state)
{
	static const char *const bad[] = {
	    "#$ gcc -E \"$UNSET/x\" -o o.ii\n",     /* a variable nvcc did not set */
	    "#$ gcc `id` -o o.ii\n",                /* command substitution */
	    "#$ gcc -E x.cu -o o.ii ; rm -rf x\n",  /* a list */
	    "#$ gcc \"-DX=1 -o o.ii\n",             /* an unterminated quote */
	    "#$ -- Filter Dependencies -- > o.d\n", /* a step nvcc runs itself */
	    "#$ gcc 'single' -o o.ii\n",            /* sh's single quotes */
	    "nvcc fatal : no input files\n",        /* no step at all */
	};
	struct arena a = {0};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct nvcc_steps s;
		const char *why = NULL;
		assert_false(nvcc_steps_parse(&a, bad[i], &s, &why));
		assert_non_null(why);
	}
	/* two steps writing a module id, or one read before any writes it */
	static const char *const shapes[] = {
	    "#$ cicc --gen_module_id_file --module_id_file_name m -o o.ptx\n"
	    "#$ cudafe++ --gen_module_id_file --module_id_file_name m x.ii\n"
	    "#$ gcc -c x.cpp -o k.o\n",
	    "#$ cicc --module_id_file_name m -o o.ptx\n#$ gcc -c x.cpp -o k.o\n",
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(*shapes); i++) {
		struct nvcc_steps s;
		const char *why = NULL;
		assert_true(nvcc_steps_parse(&a, shapes[i], &s, &why));
		assert_false(nvcc_steps_schedule(&a, &s, "k.o", &why));
		assert_non_null(why);
	}
	arena_free(&a);
}

static bool args_ok(struct arena *a, const char *const *argv, struct strv *dry, const char **dep,
                    const char **obj)
{
	const char *why = NULL;
	*dry = (struct strv){0};
	bool ok = nvcc_steps_args(a, argv, dry, dep, obj, &why);
	assert_true(ok || why != NULL);
	return ok;
}

static void compile_arguments(void **state)
{
	struct arena a = {0};
	struct strv dry;
	const char *dep, *obj;
	const char *const graph[] = {"/cuda/bin/nvcc", "-O3", "--threads", "2",  "-MD",   "-MF",
	                             "o/k.o.d",        "-c",  "k.cu",      "-o", "o/k.o", NULL};
	assert_true(args_ok(&a, graph, &dry, &dep, &obj));
	assert_string_equal(dep, "o/k.o.d");
	assert_string_equal(obj, "o/k.o");
	const char *const want[] = {"/cuda/bin/nvcc", "-O3", "-c", "k.cu", "-o", "o/k.o", NULL};
	assert_int_equal(dry.n, 6);
	for (size_t i = 0; i < dry.n; i++)
		assert_string_equal(dry.v[i], want[i]);
	const char *const threads_eq[] = {"nvcc", "--threads=4", "-c", "k.cu", "-o", "k.o", NULL};
	assert_true(args_ok(&a, threads_eq, &dry, &dep, &obj));
	assert_null(dep);
	assert_int_equal(dry.n, 5);
	/* refused: no -c, no -o, stopping early, other dependency output, keeping files, and
	 * characters the dry run may not quote */
	const char *const *const refused[] = {
	    (const char *const[]){"nvcc", "k.cu", "-o", "k", NULL},
	    (const char *const[]){"nvcc", "-c", "k.cu", NULL},
	    (const char *const[]){"nvcc", "-E", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-MMD", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "--keep", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-DX=$HOME", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-DX=\"s\"", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-DX=a\\b", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-DX='a'", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-DX=\n", "-c", "k.cu", "-o", "k.o", NULL},
	    (const char *const[]){"nvcc", "-c", "k.cu", "-o", NULL},
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		assert_false(args_ok(&a, refused[i], &dry, &dep, &obj));
	arena_free(&a);
}

static void preprocessing_gets_a_depfile(void **state)
{
	struct arena a = {0};
	const char *pre[] = {"gcc", "-E", "k.cu", "-o", "o/k.ii", NULL};
	const char *dep = NULL;
	const char **v = nvcc_steps_with_depfile(&a, pre, &dep);
	assert_string_equal(dep, "o/k.ii.d");
	assert_int_equal(argc_of(v), 8);
	assert_string_equal(v[5], "-MD");
	assert_string_equal(v[6], "-MF");
	assert_string_equal(v[7], "o/k.ii.d");
	const char *cc[] = {"gcc", "-c", "k.cpp", "-o", "k.o", NULL};
	assert_ptr_equal(nvcc_steps_with_depfile(&a, cc, &dep), cc);
	assert_null(dep);
	arena_free(&a);
}

static void depfile_syntax(void **state)
{
	struct arena a = {0};
	struct strv deps = {0};
	static const char gcc_d[] = "o/k.ii: k.cu /a\\ b/x.h \\\n /c/d\\#e.h $$f.h\n"
	                            "x.h:\n";
	ninja_depfile_prereqs(&a, gcc_d, sizeof(gcc_d) - 1, &deps);
	static const char nvcc_d[] = "o/k.o : k.cu \\\r\n    /c/d\\#e.h \\\n    /g.h\n";
	ninja_depfile_prereqs(&a, nvcc_d, sizeof(nvcc_d) - 1, &deps);
	const char *want[] = {"k.cu", "/a b/x.h", "/c/d#e.h", "$f.h", "/g.h"};
	assert_int_equal(deps.n, 5);
	for (size_t i = 0; i < deps.n; i++)
		assert_string_equal(deps.v[i], want[i]);
	struct strbuf sb = {0};
	ninja_depfile_path(&sb, "/a b/#x$\\y");
	assert_string_equal(sb_str(&sb), "/a\\ b/\\#x$$\\\\y");
	sb_release(&sb);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reads_nvcc_13),
	    cmocka_unit_test(chains_and_module_ids),
	    cmocka_unit_test(module_id_written_by_the_first_device_pass),
	    cmocka_unit_test(intermediates_nvcc_removes_itself),
	    cmocka_unit_test(refusals),
	    cmocka_unit_test(compile_arguments),
	    cmocka_unit_test(preprocessing_gets_a_depfile),
	    cmocka_unit_test(depfile_syntax),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
