/* test_record.c: RECORD hashes (urlsafe base64, no padding), CSV rendering and parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "standards/record.h"

static void sha(const char *s, unsigned char md[32])
{
	unsigned n;
	EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
}

static void hash_is_urlsafe_b64_without_padding(void **state)
{
	(void)state;
	struct arena a = {0};
	unsigned char md[32];
	sha("", md);
	assert_string_equal(record_hash_str(&a, md),
	                    "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
	/* A digest whose base64 holds both '-' and '_' (and would end in '=' padded). */
	memset(md, 0xfb, sizeof(md));
	md[31] = 0xff;
	const char *h = record_hash_str(&a, md);
	assert_int_equal(strlen(h), 7 + 43);
	assert_null(strchr(h, '/'));
	assert_null(strchr(h, '+'));
	assert_non_null(strchr(h, '-'));
	assert_non_null(strchr(h + 7, '_'));
	assert_true(h[strlen(h) - 1] != '=');
	arena_free(&a);
}

/* The urlsafe encoder cuwheel wrote by hand before libcrypto's: the reference the library's
 * output must equal byte for byte (RECORD hashes and the audit's digests did not change). */
static void b64url_by_hand(const unsigned char *d, size_t n, char *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char *o = out;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) |
		             (i + 2 < n ? d[i + 2] : 0);
		*o++ = al[v >> 18 & 63];
		*o++ = al[v >> 12 & 63];
		if (i + 1 < n)
			*o++ = al[v >> 6 & 63];
		if (i + 2 < n)
			*o++ = al[v & 63];
	}
	*o = 0;
}

static void b64url_equals_the_hand_written_encoder_for_every_length(void **state)
{
	(void)state;
	struct arena a = {0};
	unsigned char d[130];
	char want[200];
	uint32_t x = 2463534242u; /* xorshift: every byte value, reproducibly */
	for (int round = 0; round < 8; round++) {
		for (size_t i = 0; i < sizeof(d); i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			d[i] = round == 0 ? 0xff : round == 1 ? 0xfb : (unsigned char)x;
		}
		for (size_t n = 0; n <= sizeof(d); n++) {
			b64url_by_hand(d, n, want);
			assert_string_equal(record_b64url(&a, d, n), want);
		}
	}
	assert_string_equal(record_b64url(&a, (const unsigned char *)"\xfb\xff", 2), "-_8");
	assert_string_equal(record_b64url(&a, (const unsigned char *)"", 0), "");
	arena_free(&a);
}

static void render_lists_rows_then_record_itself(void **state)
{
	(void)state;
	struct arena a = {0};
	struct record r = {0};
	unsigned char md[32];
	sha("x = 1\n", md);
	record_add(&a, &r, "pkg/__init__.py", md, 6);
	record_add(&a, &r, "pkg/a,b \"q\".txt", md, 6);
	size_t len;
	char *t = record_render(&a, &r, "pkg-1.0.dist-info/RECORD", &len);
	assert_string_equal(
	    t, "pkg/__init__.py,sha256=nia_NpkRxFwkPGhBR7I_yeHc_PJX0pmhxjIBam_NM_Q,6\n"
	       "\"pkg/a,b \"\"q\"\".txt\",sha256=nia_NpkRxFwkPGhBR7I_yeHc_PJX0pmhxjIBam_NM_Q,6\n"
	       "pkg-1.0.dist-info/RECORD,,\n");
	assert_int_equal(len, strlen(t));
	arena_free(&a);
}

static void parse_round_trips_quoted_rows(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	const char *t =
	    "a.py,sha256=abc,3\r\n\"b,\"\"c\"\".py\",sha256=def,10\n\nx.dist-info/RECORD,,\n";
	struct record r = {0};
	assert_true(record_parse(&a, &d, "RECORD", t, strlen(t), &r));
	assert_int_equal(r.n, 3);
	assert_string_equal(r.v[1].path, "b,\"c\".py");
	assert_int_equal(r.v[1].size, 10);
	assert_null(r.v[2].hash);
	assert_false(r.v[2].has_size);
	assert_non_null(record_find(&r, "a.py"));
	assert_null(record_find(&r, "zz"));
	arena_free(&a);
}

static void parse_rejects_bad_rows(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	const char *bad[] = {"a.py,sha256=abc\n", "a.py,sha256=abc,x1\n", "a.py,md5=abc,3\n",
	                     "\"a.py,sha256=abc,3\n", "a.py,sha256=a,-1\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct record r = {0};
		d.errors = 0;
		assert_false(record_parse(&a, &d, "RECORD", bad[i], strlen(bad[i]), &r));
		assert_int_equal(d.errors, 1);
	}
	arena_free(&a);
}

/* record_find is a binary search over an index record_parse builds: it must answer as a scan
 * in RECORD order would, for every lookup (first row of a duplicate path, absent paths between
 * and around present ones), and after record_add (index stale) until record_index. */
static void find_answers_as_a_scan_would(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	const char *t = "m/b.py,sha256=b1,1\nm/a.py,sha256=a1,2\nm/b.py,sha256=b2,3\n"
	                "m/c/d.py,sha256=d,4\nm/a.py,sha256=a2,5\nx.dist-info/RECORD,,\n";
	struct record r = {0};
	assert_true(record_parse(&a, &d, "RECORD", t, strlen(t), &r));
	assert_non_null(r.sorted);
	static const struct {
		const char *path;
		const char *hash; /* NULL: absent; "" : the RECORD row (no hash) */
	} cases[] = {
	    {"m/a.py", "sha256=a1"},
	    {"m/b.py", "sha256=b1"},
	    {"m/c/d.py", "sha256=d"},
	    {"x.dist-info/RECORD", ""},
	    {"", NULL},
	    {"m/", NULL},
	    {"m/a.p", NULL},
	    {"m/a.pyc", NULL},
	    {"m/c", NULL},
	    {"zzz", NULL},
	    {"M/a.py", NULL},
	    {"a", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct record_row *row = record_find(&r, cases[i].path);
		if (!cases[i].hash) {
			assert_null(row);
			continue;
		}
		assert_non_null(row);
		assert_string_equal(row->hash ? row->hash : "", cases[i].hash);
	}
	unsigned char md[32];
	sha("new", md);
	record_add(&a, &r, "m/new.py", md, 3);
	assert_null(r.sorted); /* stale: a scan until indexed again */
	assert_non_null(record_find(&r, "m/new.py"));
	record_index(&a, &r);
	assert_non_null(record_find(&r, "m/new.py"));
	assert_string_equal(record_find(&r, "m/b.py")->hash, "sha256=b1");
	struct record empty = {0};
	record_index(&a, &empty);
	assert_null(record_find(&empty, "m/a.py"));
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hash_is_urlsafe_b64_without_padding),
	    cmocka_unit_test(b64url_equals_the_hand_written_encoder_for_every_length),
	    cmocka_unit_test(render_lists_rows_then_record_itself),
	    cmocka_unit_test(parse_round_trips_quoted_rows),
	    cmocka_unit_test(parse_rejects_bad_rows),
	    cmocka_unit_test(find_answers_as_a_scan_would),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
