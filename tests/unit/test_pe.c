/* test_pe.c: the PE reader on a hand-built PE32+ DLL (imports and the names imported from each
 * DLL, delay imports, exports), and on hostile variants: every truncation, every single-byte
 * corruption, offsets out of range, a directory or a name table with no end, an export count
 * larger than the file; none may read out of bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "packager/pe.h"

#define IMG_SIZE 0x400
#define SEC_VA   0x1000u
#define SEC_RAW  0x200u
/* The last string of the image (PyInit__m) and the file offset of its end. */
#define LAST_OFF 0x380u
#define LAST_END (LAST_OFF + sizeof "PyInit__m")

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The file offset of an RVA inside the one section. */
static unsigned char *at(unsigned char *img, uint32_t rva)
{
	return img + SEC_RAW + (rva - SEC_VA);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* A PE32+ DLL for amd64: imports _PyLong_AsInt (and ordinal 5) from python312.dll through an
 * import lookup table and cudaMalloc from cudart64_12.dll through its import address table
 * only, delay-loads absent_fn from absent.dll, exports PyInit__m under the name _m.pyd. */
static void build(unsigned char *img)
{
	memset(img, 0, IMG_SIZE);
	img[0] = 'M';
	img[1] = 'Z';
	put32(img + 0x3c, 0x40);
	memcpy(img + 0x40, "PE\0\0", 4);
	unsigned char *coff = img + 0x44;
	put16(coff, PE_MACHINE_AMD64);
	put16(coff + 2, 1);
	put16(coff + 16, 240);
	put16(coff + 18, 0x2022);
	unsigned char *opt = coff + 20;
	put16(opt, 0x20b);
	put32(opt + 24, 0x80000000u);
	put32(opt + 28, 0x1);
	put32(opt + 60, 0x200);
	put32(opt + 108, 16);
	unsigned char *dirs = opt + 112;
	put32(dirs + 0 * 8, 0x1080); /* export */
	put32(dirs + 0 * 8 + 4, 40);
	put32(dirs + 1 * 8, 0x1000); /* import */
	put32(dirs + 1 * 8 + 4, 60);
	put32(dirs + 13 * 8, 0x1040); /* delay import */
	put32(dirs + 13 * 8 + 4, 64);
	unsigned char *sec = opt + 240;
	memcpy(sec, ".rdata", 6);
	put32(sec + 8, 0x1000);
	put32(sec + 12, SEC_VA);
	put32(sec + 16, 0x200);
	put32(sec + 20, SEC_RAW);
	put32(at(img, 0x1000), 0x10c8); /* import lookup table */
	put32(at(img, 0x1000) + 12, 0x1100);
	put32(at(img, 0x1014) + 12, 0x1110);
	put32(at(img, 0x1014) + 16, 0x10e0); /* import address table only */
	put32(at(img, 0x1040), 1);
	put32(at(img, 0x1040) + 4, 0x1120);
	put32(at(img, 0x1040) + 16, 0x10f0); /* delay import name table */
	put64(at(img, 0x10c8), 0x1150);
	put64(at(img, 0x10d0), 0x8000000000000005u); /* by ordinal: no name */
	put64(at(img, 0x10e0), 0x1160);
	put64(at(img, 0x10f0), 0x1170);
	put32(at(img, 0x1080) + 12, 0x1130);
	put32(at(img, 0x1080) + 24, 1);
	put32(at(img, 0x1080) + 32, 0x10c0);
	put32(at(img, 0x10c0), 0x1180);
	strcpy((char *)at(img, 0x1100), "python312.dll");
	strcpy((char *)at(img, 0x1110), "cudart64_12.dll");
	strcpy((char *)at(img, 0x1120), "absent.dll");
	strcpy((char *)at(img, 0x1130), "_m.pyd");
	strcpy((char *)at(img, 0x1152), "_PyLong_AsInt");
	strcpy((char *)at(img, 0x1162), "cudaMalloc");
	strcpy((char *)at(img, 0x1172), "absent_fn");
	strcpy((char *)at(img, 0x1180), "PyInit__m");
}

static void reads_machine_imports_delay_and_exports(void **state)
{
	(void)state;
	unsigned char img[IMG_SIZE];
	build(img);
	struct arena a = {0};
	struct pe_info pe;
	const char *err = NULL;
	assert_true(pe_is_pe(img, sizeof img));
	assert_true(pe_read_mem(&a, img, sizeof img, &pe, &err));
	assert_int_equal(pe.machine, PE_MACHINE_AMD64);
	assert_string_equal(pe.arch, "amd64");
	assert_true(pe.pe32plus);
	assert_true(pe.dll);
	assert_int_equal(pe.imports.n, 2);
	assert_string_equal(pe.imports.v[0], "python312.dll");
	assert_string_equal(pe.imports.v[1], "cudart64_12.dll");
	assert_int_equal(pe.import_names[0].n, 1);
	assert_string_equal(pe.import_names[0].v[0], "_PyLong_AsInt");
	assert_int_equal(pe.import_names[1].n, 1);
	assert_string_equal(pe.import_names[1].v[0], "cudaMalloc");
	assert_int_equal(pe.delay.n, 1);
	assert_string_equal(pe.delay.v[0], "absent.dll");
	assert_int_equal(pe.delay_names[0].n, 1);
	assert_string_equal(pe.delay_names[0].v[0], "absent_fn");
	assert_int_equal(pe.exports.n, 1);
	assert_string_equal(pe.exports.v[0], "PyInit__m");
	assert_string_equal(pe.dll_name, "_m.pyd");
	/* A bound import address table (a time stamp) holds addresses: no names, no error. */
	put32(at(img, 0x1014) + 4, 0xffffffffu);
	put64(at(img, 0x10e0), 0x7ff812345678u);
	assert_true(pe_read_mem(&a, img, sizeof img, &pe, &err));
	assert_int_equal(pe.import_names[1].n, 0);
	assert_int_equal(pe.import_names[0].n, 1);
	/* An old-style delay descriptor (no dlattrRva) holds VAs: image base + RVA, for the name,
	 * the name table and its entries. */
	put32(at(img, 0x1040), 0);
	put32(at(img, 0x1040) + 4, 0x80001120u);
	put32(at(img, 0x1040) + 16, 0x800010f0u);
	put64(at(img, 0x10f0), 0x80001170u);
	put32(img + 0x58 + 24, 0x80000000u);
	put32(img + 0x58 + 28, 0);
	assert_true(pe_read_mem(&a, img, sizeof img, &pe, &err));
	assert_string_equal(pe.delay.v[0], "absent.dll");
	assert_string_equal(pe.delay_names[0].v[0], "absent_fn");
	arena_free(&a);
}

static void refuses_what_is_not_pe(void **state)
{
	(void)state;
	unsigned char img[IMG_SIZE];
	build(img);
	struct arena a = {0};
	struct pe_info pe;
	const char *err = NULL;
	put32(img + 0x3c, 0xfffffff0u); /* e_lfanew far outside */
	assert_false(pe_is_pe(img, sizeof img));
	assert_false(pe_read_mem(&a, img, sizeof img, &pe, &err));
	assert_non_null(err);
	assert_false(pe_is_pe("MZ", 2));
	assert_false(pe_is_pe("\177ELF", 4));
	arena_free(&a);
}

static void refuses_offsets_out_of_range(void **state)
{
	(void)state;
	unsigned char img[IMG_SIZE];
	struct arena a = {0};
	struct pe_info pe;
	const char *err;
	struct {
		const char *what;
		unsigned off; /* file offset of a 32-bit field */
		uint32_t value;
		const char *want;
	} cases[] = {
	    {"import name RVA unmapped", SEC_RAW + 12, 0x9000, "names no DLL"},
	    {"import directory RVA past the section", 0x58 + 112 + 8, 0x11f0, "outside"},
	    {"delay name RVA unmapped", SEC_RAW + 0x44, 0xffffff00u, "names no DLL"},
	    {"export names more than the file holds", SEC_RAW + 0x80 + 24, 0x00800000u, "claims"},
	    {"export name table past the section", SEC_RAW + 0x80 + 24, 200, "outside"},
	    {"section raw data past the file", 0x58 + 240 + 20, 0x7ffffff0u, "outside"},
	    {"section count over the loader's limit", 0x44 + 2, 0xffff, "sections"},
	    {"optional header larger than the file", 0x44 + 16, 0xfff0, "truncated"},
	    {"import lookup table unmapped", SEC_RAW, 0x9000, "of python312.dll runs outside"},
	    {"import address table unmapped", SEC_RAW + 0x14 + 16, 0x9000, "of cudart64_12.dll"},
	    {"imported name unmapped", SEC_RAW + 0xc8, 0x9000, "import 0 of python312.dll names"},
	    {"delay name table unmapped", SEC_RAW + 0x40 + 16, 0x9000,
	     "of absent.dll runs outside"},
	    {"delay imported name unmapped", SEC_RAW + 0xf0, 0x9000, "of absent.dll names nothing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		build(img);
		if (cases[i].off == 0x44 + 2 || cases[i].off == 0x44 + 16)
			put16(img + cases[i].off, (unsigned)cases[i].value);
		else
			put32(img + cases[i].off, cases[i].value);
		err = NULL;
		bool ok = pe_read_mem(&a, img, sizeof img, &pe, &err);
		if (ok || !err || !strstr(err, cases[i].want))
			fail_msg("%s: read=%d err=%s", cases[i].what, ok, err ? err : "(none)");
	}
	/* An import directory whose descriptors never end. */
	build(img);
	memset(at(img, 0x1000), 0x11, 0x200);
	assert_false(pe_read_mem(&a, img, sizeof img, &pe, &err));
	/* A name table of imports by ordinal with no zero entry: it runs out of its section. */
	build(img);
	put32(at(img, 0x1000), 0x11f8);
	put64(at(img, 0x11f8), 0x8000000000000001u);
	assert_false(pe_read_mem(&a, img, sizeof img, &pe, &err));
	assert_non_null(strstr(err, "of python312.dll runs outside"));
	arena_free(&a);
}

static void survives_every_truncation_and_byte_flip(void **state)
{
	(void)state;
	unsigned char good[IMG_SIZE];
	build(good);
	size_t reads = 0;
	for (size_t n = 0; n < IMG_SIZE; n++) {
		/* A heap copy of exactly n bytes: ASan sees any read past it. */
		unsigned char *cut = malloc(n ? n : 1);
		memcpy(cut, good, n);
		struct arena a = {0};
		struct pe_info pe;
		const char *err = NULL;
		bool ok = pe_read_mem(&a, cut, n, &pe, &err);
		assert_true(ok || err != NULL);
		/* Readable exactly when the last string (PyInit__m and its NUL) is in. */
		assert_int_equal(ok, n >= LAST_END);
		reads += ok;
		arena_free(&a);
		free(cut);
	}
	assert_int_equal(reads, IMG_SIZE - LAST_END);
	unsigned char *img = malloc(IMG_SIZE);
	for (size_t i = 0; i < LAST_OFF; i++)
		for (unsigned v = 0; v < 256; v += 15) {
			memcpy(img, good, IMG_SIZE);
			img[i] = (unsigned char)v;
			struct arena a = {0};
			struct pe_info pe;
			const char *err = NULL;
			bool ok = pe_read_mem(&a, img, IMG_SIZE, &pe, &err);
			assert_true(ok || err != NULL);
			arena_free(&a);
		}
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reads_machine_imports_delay_and_exports),
	    cmocka_unit_test(refuses_what_is_not_pe),
	    cmocka_unit_test(refuses_offsets_out_of_range),
	    cmocka_unit_test(survives_every_truncation_and_byte_flip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
