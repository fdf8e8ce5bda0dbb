/* test_audit.c: the audit's pieces: policy table questions, fatbin parsing, ELF reading, the
 * --require-arch parser. Whole wheels are tested in tests/integration/audit_cases.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/os-file.h"
#include "packager/audit.h"
#include "packager/elf.h"
#include "packager/manylinux.h"

static int setup_arena(void **state)
{
	*state = calloc(1, sizeof(struct arena));
	return *state ? 0 : -1;
}

static int teardown_arena(void **state)
{
	arena_free(*state);
	free(*state);
	return 0;
}

static void policy_names_and_aliases_resolve(void **state)
{
	(void)state;
	const struct ml_policy *p = manylinux_find("manylinux2014");
	assert_non_null(p);
	assert_string_equal(p->name, "manylinux_2_17");
	assert_int_equal(p->glibc_major, 2);
	assert_int_equal(p->glibc_minor, 17);
	assert_string_equal(manylinux_find("manylinux1")->name, "manylinux_2_5");
	assert_string_equal(manylinux_find("manylinux2010")->name, "manylinux_2_12");
	assert_null(manylinux_find("manylinux_2_99"));
	size_t n;
	const struct ml_policy *all = manylinux_policies(&n);
	assert_true(n > 10);
	assert_string_equal(all[0].name, "linux");
	for (size_t i = 2; i < n; i++)
		assert_true(all[i].priority < all[i - 1].priority);
}

static void glibc_2_34_needs_manylinux_2_34(void **state)
{
	(void)state;
	const char *v[] = {"GLIBC_2.2.5", "GLIBC_2.34", "GLIBCXX_3.4"};
	const char *blocker;
	const struct ml_policy *p = manylinux_for_versions("x86_64", v, 3, &blocker);
	assert_non_null(p);
	assert_string_equal(p->name, "manylinux_2_34");
	assert_string_equal(blocker, "GLIBC_2.34");
}

static void old_symbols_give_manylinux1(void **state)
{
	(void)state;
	const char *v[] = {"GLIBC_2.2.5", "GLIBC_2.3.4", "CXXABI_1.3", "GCC_3.0"};
	const char *blocker;
	const struct ml_policy *p = manylinux_for_versions("x86_64", v, 4, &blocker);
	assert_string_equal(p->name, "manylinux_2_5");
	assert_null(blocker);
}

static void unknown_prefixes_are_ignored_like_auditwheel(void **state)
{
	(void)state;
	/* libcudart's own version names have no '_' prefix any policy knows. */
	const char *v[] = {"libcudart.so.12", "CUDA_12.0"};
	const char *blocker;
	assert_string_equal(manylinux_for_versions("x86_64", v, 2, &blocker)->name,
	                    "manylinux_2_5");
}

static void glibc_private_fits_no_policy(void **state)
{
	(void)state;
	const char *v[] = {"GLIBC_PRIVATE"};
	const char *blocker;
	assert_null(manylinux_for_versions("x86_64", v, 1, &blocker));
	assert_string_equal(blocker, "GLIBC_PRIVATE");
}

static void aarch64_starts_at_manylinux2014(void **state)
{
	(void)state;
	const char *v[] = {"GLIBC_2.17"};
	const char *blocker;
	assert_string_equal(manylinux_for_versions("aarch64", v, 1, &blocker)->name,
	                    "manylinux_2_17");
	assert_null(manylinux_arch(manylinux_find("manylinux_2_5"), "aarch64"));
}

static void admits_and_whitelists(void **state)
{
	(void)state;
	const struct ml_policy *p34 = manylinux_find("manylinux_2_34");
	assert_true(manylinux_admits(p34, "x86_64", "GLIBC_2.34"));
	assert_false(manylinux_admits(p34, "x86_64", "GLIBC_2.35"));
	assert_true(manylinux_admits(p34, "x86_64", "SOMETHING_1.0"));
	assert_false(manylinux_whitelisted(manylinux_find("manylinux_2_17"), "libmvec.so.1"));
	assert_true(manylinux_whitelisted(manylinux_find("manylinux_2_24"), "libmvec.so.1"));
	assert_false(manylinux_whitelisted(p34, "libcudart.so.12"));
	assert_true(manylinux_blacklisted(p34, "libz.so.1", "_tr_init"));
	assert_false(manylinux_blacklisted(p34, "libz.so.1", "deflate"));
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes one fatbin entry (64-byte header + payload of size bytes) at p; returns its size. */
static size_t put_entry(unsigned char *p, int kind, int arch, uint64_t flags, size_t size)
{
	memset(p, 0, 64 + size);
	put_le(p, (uint64_t)kind, 2);
	put_le(p + 2, 0x101, 2);
	put_le(p + 4, 64, 4);
	put_le(p + 8, size, 8);
	put_le(p + 28, (uint64_t)arch, 4);
	put_le(p + 40, flags, 8);
	return 64 + size;
}

static size_t put_container(unsigned char *p, size_t body)
{
	put_le(p, 0xBA55ED50u, 4);
	put_le(p + 4, 1, 2);
	put_le(p + 6, 16, 2);
	put_le(p + 8, body, 8);
	return 16;
}

static void fatbin_entries_name_their_archs(void **state)
{
	unsigned char buf[1024] = {0};
	size_t off = 16, start = 0;
	off += put_entry(buf + off, 2, 75, 0x11, 16);
	off += put_entry(buf + off, 2, 90, 0x100011, 8); /* sm_90a */
	off += put_entry(buf + off, 1, 120, 0x8011, 24); /* compressed PTX */
	put_container(buf + start, off - start - 16);
	off += 8; /* zero padding between containers */
	start = off;
	off += 16;
	off += put_entry(buf + off, 2, 75, 0x11, 8);      /* duplicate: merged */
	off += put_entry(buf + off, 2, 100, 0x200011, 8); /* sm_100f */
	put_container(buf + start, off - start - 16);
	struct elf_cubin *c = NULL;
	size_t n = 0;
	const char *err;
	assert_true(elf_parse_fatbin(*state, buf, off, &c, &n, &err));
	assert_int_equal(n, 4);
	const char *want[] = {"sm_75", "sm_90a", "sm_100f", "compute_120"};
	for (size_t i = 0; i < n; i++)
		assert_string_equal(elf_cubin_name(*state, &c[i]), want[i]);
	assert_true(c[3].compressed);
	assert_false(c[0].compressed);
}

static void truncated_fatbin_is_reported(void **state)
{
	unsigned char buf[256] = {0};
	size_t off = 16 + put_entry(buf + 16, 2, 80, 0x11, 16);
	put_container(buf, 4096); /* claims more than there is */
	struct elf_cubin *c = NULL;
	size_t n = 0;
	const char *err;
	assert_false(elf_parse_fatbin(*state, buf, off, &c, &n, &err));
	assert_non_null(strstr(err, "truncated"));
}

static void elf_reader_sees_needed_and_versions(void **state)
{
	struct source src;
	struct diag d = {0};
	assert_true(os_read_file(*state, &d, "/proc/self/exe", &src));
	struct elf_info e;
	const char *err;
	assert_true(elf_read_mem(*state, (void *)src.text, src.len, &e, &err));
	assert_true(strv_contains(&e.needed, "libc.so.6"));
	assert_true(e.n_verneeds > 0);
	bool glibc = false;
	for (size_t i = 0; i < e.n_verneeds; i++)
		glibc |= strcmp(e.verneeds[i].lib, "libc.so.6") == 0 &&
		         strncmp(e.verneeds[i].version, "GLIBC_2.", 8) == 0;
	assert_true(glibc);
	/* Some undefined symbol carries a GLIBC version that names libc.so.6 as its provider
	 * (which one depends on the build: ASan intercepts calloc, for instance). */
	bool found = false;
	for (size_t i = 0; i < e.n_undefs; i++)
		if (e.undefs[i].version && strncmp(e.undefs[i].version, "GLIBC_", 6) == 0) {
			assert_non_null(e.undefs[i].lib);
			found |= strcmp(e.undefs[i].lib, "libc.so.6") == 0;
		}
	assert_true(found);
	assert_non_null(e.arch);
	assert_false(e.has_fatbin);
}

static void non_elf_is_refused(void **state)
{
	char junk[] = "#!/bin/sh\necho hi\n";
	struct elf_info e;
	const char *err;
	assert_false(elf_is_elf(junk, sizeof junk));
	assert_false(elf_read_mem(*state, junk, sizeof junk, &e, &err));
	assert_non_null(err);
}

static void arch_names(void **state)
{
	(void)state;
	assert_string_equal(elf_arch_name(62 /* EM_X86_64 */, 2, true), "x86_64");
	assert_string_equal(elf_arch_name(183 /* EM_AARCH64 */, 2, true), "aarch64");
	assert_null(elf_arch_name(62, 1, true));
}

static void require_arch_lists_parse(void **state)
{
	struct arch *a;
	size_t n;
	const char *err;
	assert_true(
	    cuda_arch_parse_list(*state, "75,80,90a,120+PTX", ARCH_SPELL_NVCC, &a, &n, &err));
	assert_int_equal(n, 4);
	assert_int_equal(a[0].major, 7);
	assert_int_equal(a[0].minor, 5);
	assert_int_equal(a[2].suffix, 'a');
	assert_int_equal(a[3].major, 12);
	assert_true(a[3].ptx);
	assert_true(
	    cuda_arch_parse_list(*state, "7.5;8.6+PTX sm_100f", ARCH_SPELL_NVCC, &a, &n, &err));
	assert_int_equal(n, 3);
	assert_int_equal(a[1].minor, 6);
	assert_true(a[1].ptx);
	assert_int_equal(a[2].suffix, 'f');
	assert_false(cuda_arch_parse_list(*state, "75,ampere", ARCH_SPELL_NVCC, &a, &n, &err));
	assert_non_null(strstr(err, "ampere"));
	assert_false(cuda_arch_parse_list(*state, " , ", ARCH_SPELL_NVCC, &a, &n, &err));
}

static void missing_wheel_fails_cleanly(void **state)
{
	struct diag d = {0};
	struct audit_result r;
	struct audit_opts o = {0};
	assert_false(audit_wheel(*state, &d, "/nonexistent/x-1.0-py3-none-any.whl", &o, &r));
	assert_int_equal(d.errors, 1);
	assert_false(r.ok);
	assert_true(r.n_findings >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(policy_names_and_aliases_resolve),
	    cmocka_unit_test(glibc_2_34_needs_manylinux_2_34),
	    cmocka_unit_test(old_symbols_give_manylinux1),
	    cmocka_unit_test(unknown_prefixes_are_ignored_like_auditwheel),
	    cmocka_unit_test(glibc_private_fits_no_policy),
	    cmocka_unit_test(aarch64_starts_at_manylinux2014),
	    cmocka_unit_test(admits_and_whitelists),
	    cmocka_unit_test(arch_names),
	    cmocka_unit_test_setup_teardown(fatbin_entries_name_their_archs, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(truncated_fatbin_is_reported, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(elf_reader_sees_needed_and_versions, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(non_elf_is_refused, setup_arena, teardown_arena),
	    cmocka_unit_test_setup_teardown(require_arch_lists_parse, setup_arena, teardown_arena),
	    cmocka_unit_test_setup_teardown(missing_wheel_fails_cleanly, setup_arena,
	                                    teardown_arena),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
