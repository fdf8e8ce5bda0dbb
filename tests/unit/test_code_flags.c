/* test_code_flags.c: code_flags_scan finds every argument that makes gcc, clang, nvcc or the
 * linker run a program or load code, in each spelling (=VALUE or the next argument, one or two
 * dashes) and carried by every forwarding form (-Xcompiler, -Xlinker, -Wl, -Wp, -Wa,
 * -Xpreprocessor, -Xclang, --compiler-options=...), names the right argument, and leaves the
 * ordinary flags of real projects alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "toolchain/code_flags.h"

#define N(a) (sizeof(a) / sizeof(*(a)))

/* The index named for args (NULL-terminated), or -1 when none is refused. */
static long hit_of(enum code_flags_for who, const char *const *args)
{
	size_t n = 0;
	while (args[n])
		n++;
	struct code_flag_hit h;
	if (!code_flags_scan(args, n, who, 0, &h))
		return -1;
	assert_non_null(h.why);
	assert_true(h.next > h.at && h.next <= n);
	return (long)h.at;
}

#define CC(expect, ...)                                                                            \
	assert_int_equal(hit_of(CODE_FLAGS_CC, (const char *const[]){__VA_ARGS__, NULL}), expect)
#define NV(expect, ...)                                                                            \
	assert_int_equal(hit_of(CODE_FLAGS_NVCC, (const char *const[]){__VA_ARGS__, NULL}), expect)

static void host_compiler_forms_are_found(void **state)
{
	(void)state;
	CC(1, "-O3", "-wrapper", "/bin/sh,-c,touch /tmp/x");
	CC(0, "-fplugin=./evil.so");
	CC(0, "-fplugin", "./evil.so");
	CC(0, "-fpass-plugin=./p.so");
	CC(0, "-iplugindir=/tmp");
	CC(0, "-specs=./evil.specs");
	CC(0, "--specs=./evil.specs");
	CC(0, "-specs", "./evil.specs");
	CC(0, "-B/tmp/bin");
	CC(0, "-B", "/tmp/bin");
	CC(0, "--prefix=/tmp/bin");
	CC(0, "@args.rsp");
	CC(0, "-fuse-ld=/tmp/ld");
	CC(0, "--ld-path=/tmp/ld");
	CC(0, "--gcc-toolchain=/tmp/gcc");
	CC(0, "-ccc-gcc-name");
	/* carried to the linker, the preprocessor, the assembler, clang's cc1 */
	CC(1, "-shared", "-Wl,-O1,-plugin,/tmp/p.so");
	CC(0, "-Wl,--plugin=/tmp/p.so");
	CC(0, "-Wl,@/tmp/args");
	CC(0, "-Wl,-run,sh");
	CC(0, "-Wl,--load-pass-plugin=/tmp/p.so");
	CC(1, "-Xlinker", "-plugin");
	CC(1, "-Xlinker", "@/tmp/args");
	CC(0, "-Wp,-fplugin=/tmp/p.so");
	CC(1, "-Xpreprocessor", "-fplugin=/tmp/p.so");
	CC(0, "-Wa,@/tmp/args");
	CC(1, "-Xassembler", "@/tmp/args");
	CC(1, "-Xclang", "-load");
	CC(1, "-Xclang", "-plugin");
}

static void nvcc_forms_are_found(void **state)
{
	(void)state;
	NV(0, "-ccbin", "/tmp/evil-g++");
	NV(0, "-ccbin=/tmp/evil-g++");
	NV(0, "--compiler-bindir", "/tmp/evil-g++");
	NV(0, "--compiler-bindir=/tmp/evil-g++");
	NV(0, "-compiler-bindir=/tmp/evil-g++");
	NV(0, "--options-file", "x");
	NV(0, "-optf=x");
	NV(0, "--run");
	NV(0, "--run-args", "x");
	NV(1, "-Xcompiler", "-fPIC,-fplugin=/tmp/p.so");
	NV(1, "-Xcompiler", "-wrapper");
	NV(0, "-Xcompiler=-fPIC,-wrapper,/bin/sh");
	NV(0, "--compiler-options=-B/tmp");
	NV(1, "--compiler-options", "-specs=/tmp/s");
	NV(0, "-Xcompiler=-Wl,-plugin,/tmp/p.so");
	NV(1, "-Xlinker", "-plugin,/tmp/p.so");
	NV(0, "--linker-options=--plugin=/tmp/p.so");
	NV(1, "-Xptxas", "@/tmp/args");
	NV(0, "-Xnvlink=@/tmp/args");
	/* forwarded to the host compiler as unknown options */
	NV(1, "--forward-unknown-to-host-compiler", "-fplugin=/tmp/p.so");
	NV(0, "-wrapper", "/bin/sh");
}

static void ordinary_flags_pass(void **state)
{
	(void)state;
	CC(-1, "-O3", "-std=c++17", "-fopenmp", "-DAT_PARALLEL_OPENMP", "-Wno-sign-compare",
	   "-fvisibility=hidden", "-I", "include", "-fPIC", "-march=native", "-ffast-math",
	   "-fno-strict-aliasing", "-g0", "-DPLUGIN=1", "-fuse-ld=lld", "-Wall");
	CC(-1, "-Wl,-O1,--as-needed,-rpath,$ORIGIN/lib,-z,now", "-Xlinker", "--no-undefined",
	   "-lstdc++", "-L/usr/lib", "-Wl,-Bstatic,-lfoo,-Bdynamic", "-s", "-Wl,-plugin-opt=O3");
	NV(-1, "-O3", "--use_fast_math", "--expt-relaxed-constexpr", "-diag-suppress", "20012,186",
	   "-lineinfo", "-Xcompiler", "-fPIC,-O3,-fopenmp", "-Xptxas", "-v", "--threads", "4",
	   "-gencode", "arch=compute_90,code=sm_90", "-Xcompiler=-Wall", "-std=c++17",
	   "--extended-lambda", "-U__CUDA_NO_HALF_OPERATORS__", "-Xcudafe", "--diag_suppress=177",
	   "-rdc=true", "-Xnvlink", "--suppress-stack-size-warning");
}

static void scan_resumes_past_a_value(void **state)
{
	(void)state;
	const char *args[] = {"-wrapper", "-fplugin=x.so", "-O2", "@f"};
	struct code_flag_hit h;
	assert_true(code_flags_scan(args, N(args), CODE_FLAGS_CC, 0, &h));
	assert_int_equal(h.at, 0);
	assert_int_equal(h.next, 2); /* -fplugin=x.so is -wrapper's value */
	assert_true(strstr(h.why, "-wrapper") != NULL);
	assert_true(code_flags_scan(args, N(args), CODE_FLAGS_CC, h.next, &h));
	assert_int_equal(h.at, 3);
	assert_false(code_flags_scan(args, N(args), CODE_FLAGS_CC, 4, &h));
	/* a carrier at the end carries nothing */
	const char *tail[] = {"-O2", "-Xlinker"};
	assert_false(code_flags_scan(tail, N(tail), CODE_FLAGS_CC, 0, &h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(host_compiler_forms_are_found),
	    cmocka_unit_test(nvcc_forms_are_found),
	    cmocka_unit_test(ordinary_flags_pass),
	    cmocka_unit_test(scan_resumes_past_a_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
