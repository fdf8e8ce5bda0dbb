/* variants.c: the names of the template instantiations the .cu files compile, for
 * heavykernels.variants() (kept in step with the dispatch tables by hand). */
#include <stdio.h>
#include <string.h>

#include "hk.h"

static const char *const dtypes[] = {"float", "half", "bfloat16"};
static const char *const epis[] = {"none", "relu", "gelu", "silu"};

static char text[64 * 1024];

static size_t add(size_t at, const char *line)
{
	size_t n = strlen(line);
	if (at + n + 2 >= sizeof(text))
		return at;
	memcpy(text + at, line, n);
	text[at + n] = '\n';
	return at + n + 1;
}

const char *hk_variants(void)
{
	if (text[0])
		return text;
	static const int tiles[] = {16, 32, 64}, widths[] = {32, 64, 128, 256, 512, 1024},
	                 ln[] = {64, 128, 256, 512, 768, 1024, 2048, 4096},
	                 ch[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64}, vec[] = {1, 2, 4, 8};
	char line[96];
	size_t at = 0;
	for (int d = 0; d < 3; d++) {
		for (int t = 0; t < 3; t++)
			for (int e = 0; e < 4; e++)
				for (int b = 0; b < 2; b++) {
					snprintf(line, sizeof(line), "gemm<%s,%d,%s,%s>", dtypes[d],
					         tiles[t], epis[e], b ? "bias" : "nobias");
					at = add(at, line);
				}
		for (int l = 0; l < 2; l++) {
			for (int w = 0; w < 6; w++) {
				snprintf(line, sizeof(line), "softmax_warp<%s,%d,%s>", dtypes[d],
				         widths[w], l ? "log" : "exp");
				at = add(at, line);
			}
			snprintf(line, sizeof(line), "softmax_block<%s,%s>", dtypes[d],
			         l ? "log" : "exp");
			at = add(at, line);
		}
		for (int w = 0; w < 8; w++)
			for (int f = 0; f < 2; f++) {
				snprintf(line, sizeof(line), "layernorm_%s<%s,%d>",
				         f ? "bwd" : "fwd", dtypes[d], ln[w]);
				at = add(at, line);
			}
		for (int c = 0; c < 12; c++)
			for (int f = 0; f < 2; f++) {
				snprintf(line, sizeof(line), "rasterize_%s<%s,%d>",
				         f ? "bwd" : "fwd", dtypes[d], ch[c]);
				at = add(at, line);
			}
		snprintf(line, sizeof(line), "project_fwd<%s>", dtypes[d]);
		at = add(at, line);
		for (int v = 0; v < 4; v++)
			for (int e = 0; e < 4; e++)
				for (int r = 0; r < 2; r++) {
					snprintf(line, sizeof(line), "elementwise<%s,%d,%s,%s>",
					         dtypes[d], vec[v], epis[e],
					         r ? "residual" : "plain");
					at = add(at, line);
				}
	}
	text[at] = '\0';
	return text;
}
