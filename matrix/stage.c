/* stage.c: building the staged tree of a cell. */
#include "matrix/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/os.h"

bool stage_copy_file(struct diag *d, const char *src, const char *dest)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		diag_errno(d, src, "cannot open");
		return false;
	}
	struct stat st;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_path(d, DIAG_ERROR, src, "is not a regular file");
		close(in);
		return false;
	}
	mode_t mode = (st.st_mode & 0111) ? 0755 : 0644;
	int out = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		diag_errno(d, dest, "cannot create");
		close(in);
		return false;
	}
	char buf[1 << 16];
	bool ok = true;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_errno(d, src, "cannot read");
			ok = false;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				diag_errno(d, dest, "cannot write");
				ok = false;
				break;
			}
			off += w;
		}
		if (!ok)
			break;
	}
	if (fchmod(out, mode) != 0 && ok) {
		diag_errno(d, dest, "cannot set the mode of");
		ok = false;
	}
	if (close(out) != 0 && ok) {
		diag_errno(d, dest, "cannot close");
		ok = false;
	}
	close(in);
	return ok;
}

static bool stage_dir(struct arena *a, struct diag *d, const char *src, const char *dest,
                      bool hidden, int depth)
{
	if (depth > 64) {
		diag_path(d, DIAG_ERROR, src, "package tree is nested too deeply");
		return false;
	}
	if (!os_mkdir_p(d, dest))
		return false;
	struct strv names = {0};
	if (!os_list_dir(a, src, &names)) {
		diag_errno(d, src, "cannot list");
		return false;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		size_t len = strlen(n);
		if ((n[0] == '.' && !hidden) || !strcmp(n, "__pycache__") ||
		    (len > 4 && !strcmp(n + len - 4, ".pyc")))
			continue;
		char *s = os_join(a, src, n), *t = os_join(a, dest, n);
		struct stat st;
		if (lstat(s, &st) != 0) {
			diag_errno(d, s, "cannot stat");
			return false;
		}
		if (S_ISLNK(st.st_mode)) {
			diag_path(d, DIAG_ERROR, s,
			          "symbolic links are not staged into wheels "
			          "(wheels cannot hold them); replace it with a file");
			return false;
		}
		bool ok = S_ISDIR(st.st_mode) ? stage_dir(a, d, s, t, hidden, depth + 1)
		                              : stage_copy_file(d, s, t);
		if (!ok)
			return false;
	}
	return true;
}

bool stage_tree(struct arena *a, struct diag *d, const char *project_dir, const char *out_dir,
                const struct strv *packages, bool hidden, const struct stage_file *files,
                size_t n_files)
{
	if (!os_rm_rf(d, out_dir) || !os_mkdir_p(d, out_dir))
		return false;
	bool ok = true;
	for (size_t i = 0; ok && i < packages->n; i++) {
		const char *rel = packages->v[i];
		const char *base = strrchr(rel, '/');
		base = base ? base + 1 : rel;
		char *src = rel[0] == '/' ? arena_strdup(a, rel) : os_join(a, project_dir, rel);
		ok = stage_dir(a, d, src, os_join(a, out_dir, base), hidden, 0);
	}
	for (size_t i = 0; ok && i < n_files; i++) {
		char *dest = os_join(a, out_dir, files[i].dest);
		char *slash = strrchr(dest, '/');
		*slash = '\0';
		ok = os_mkdir_p(d, dest);
		*slash = '/';
		ok = ok && stage_copy_file(d, files[i].src, dest);
	}
	if (!ok) {
		struct diag quiet = {0};
		os_rm_rf(&quiet, out_dir);
	}
	return ok;
}
