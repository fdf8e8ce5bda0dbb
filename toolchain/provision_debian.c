/* provision_debian.c: the Debian source: NVIDIA's CUDA compilers as Debian's archive packages
 * them (nvidia-cuda-toolkit, nvidia-cuda-dev, CCCL from main), downloaded by apt-get under a
 * private configuration in <cache>/debian (never /etc/apt, no dpkg -i, no root needed), each
 * .deb checked against the lock's sha256, and only what a toolkit root needs extracted. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-sys.h"
#include "base/strbuf.h"
#include "standards/digest.h"
#include "toolchain/provision_internal.h"

/* Where a package's files go in the root: a member of the .deb (a file or a whole directory)
 * and its place in NVIDIA's installer layout. Debian splits nvcc (usr/lib/nvidia-cuda-toolkit)
 * from the tools it calls (usr/bin); its nvcc.profile points at /etc and /usr/include, so
 * cuwheel writes its own. */
static const struct {
	const char *package, *member, *to;
} deb_map[] = {
    {"nvidia-cuda-toolkit", "usr/lib/nvidia-cuda-toolkit/bin/nvcc", "bin/nvcc"},
    {"nvidia-cuda-toolkit", "usr/lib/nvidia-cuda-toolkit/bin/crt", "bin/crt"},
    {"nvidia-cuda-toolkit", "usr/lib/nvidia-cuda-toolkit/bin/cicc", "nvvm/bin/cicc"},
    {"nvidia-cuda-toolkit", "usr/lib/nvidia-cuda-toolkit/libdevice", "nvvm/libdevice"},
    {"nvidia-cuda-toolkit", "usr/bin/cudafe++", "bin/cudafe++"},
    {"nvidia-cuda-toolkit", "usr/bin/ptxas", "bin/ptxas"},
    {"nvidia-cuda-toolkit", "usr/bin/fatbinary", "bin/fatbinary"},
    {"nvidia-cuda-toolkit", "usr/bin/nvlink", "bin/nvlink"},
    {"nvidia-cuda-toolkit", "usr/bin/bin2c", "bin/bin2c"},
    {"nvidia-cuda-toolkit", "usr/bin/nvprune", "bin/nvprune"},
    {"nvidia-cuda-toolkit", "usr/bin/cuobjdump", "bin/cuobjdump"},
    {"nvidia-cuda-toolkit", "usr/bin/cu++filt", "bin/cu++filt"},
    /* Of nvidia-cuda-dev's 2.5-2.7 GB only the headers and the static runtime (about 18 MB):
     * the rest are static math libraries a kernel archive does not link. */
    {"nvidia-cuda-dev", "usr/include", "include"},
    {"nvidia-cuda-dev", "usr/lib/x86_64-linux-gnu/libcudart_static.a", "lib64/libcudart_static.a"},
    {"nvidia-cuda-dev", "usr/lib/x86_64-linux-gnu/libcudadevrt.a", "lib64/libcudadevrt.a"},
    {"nvidia-cuda-dev", "usr/lib/x86_64-linux-gnu/libculibos.a", "lib64/libculibos.a"},
    /* CCCL: 12.4's cuda_fp16.h includes <nv/target>. */
    {"libcu++-dev", "usr/include/cuda", "include/cuda"},
    {"libcu++-dev", "usr/include/nv", "include/nv"},
    {"libcub-dev", "usr/include/cub", "include/cub"},
    {"libthrust-dev", "usr/include/thrust", "include/thrust"},
};

static const struct provision_piece deb_pieces[] = {
    {"bin/nvcc", "nvidia-cuda-toolkit", true},
    {"bin/nvcc.profile", "nvidia-cuda-toolkit", false},
    {"bin/cudafe++", "nvidia-cuda-toolkit", true},
    {"bin/ptxas", "nvidia-cuda-toolkit", true},
    {"bin/fatbinary", "nvidia-cuda-toolkit", true},
    {"bin/nvlink", "nvidia-cuda-toolkit", true},
    {"bin/crt/link.stub", "nvidia-cuda-toolkit", false},
    {"nvvm/bin/cicc", "nvidia-cuda-toolkit", true},
    {"nvvm/libdevice/libdevice.10.bc", "nvidia-cuda-toolkit", false},
    {"include/crt/host_config.h", "nvidia-cuda-dev", false},
    {"include/cuda_runtime.h", "nvidia-cuda-dev", false},
    {"lib64/libcudart_static.a", "nvidia-cuda-dev", false},
    {"lib64/libcudadevrt.a", "nvidia-cuda-dev", false},
    {"include/cuda/std/version", "libcu++-dev", false},
    {"include/thrust/version.h", "libthrust-dev", false},
    {"include/cub/version.cuh", "libcub-dev", false},
};

/* Relative to nvcc itself, so the root can live anywhere (the cache, a CI runner's copy). */
static const char nvcc_profile[] =
    "\n"
    "TOP              = $(_HERE_)/..\n"
    "\n"
    "CICC_PATH        = $(TOP)/nvvm/bin\n"
    "NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice\n"
    "\n"
    "LD_LIBRARY_PATH += $(TOP)/lib:\n"
    "PATH            += $(CICC_PATH):$(_HERE_):\n"
    "\n"
    "INCLUDES        +=  \"-I$(TOP)/include\" $(_SPACE_)\n"
    "\n"
    "LIBRARIES        =+ $(_SPACE_) \"-L$(TOP)/lib64/stubs\" \"-L$(TOP)/lib64\"\n"
    "\n"
    "CUDAFE_FLAGS    +=\n"
    "PTXAS_FLAGS     +=\n";

/* The private apt configuration of one suite: <cache>/debian/<suite>/. */
struct apt {
	const char *dir;
	struct strv opts; /* the -o options every apt-get call gets */
};

/* The last lines of a command's output, for messages. */
static const char *tail_lines(const char *text, int lines)
{
	const char *t = text + strlen(text);
	for (int n = 0; t > text; t--)
		if (t[-1] == '\n' && ++n > lines)
			break;
	return t;
}

/* Writes the suite's .sources file and an empty dpkg status, and fills the options that keep
 * apt-get off the system's configuration and state. */
static bool apt_setup(struct arena *a, struct diag *d, const char *cache,
                      const struct provision_set *s, struct apt *apt)
{
	char *suite = arena_strdup(a, s->suite);
	for (char *c = suite; *c; c++)
		*c = *c == ' ' ? '+' : *c;
	/* Another architecture's indexes get their own state: apt-get knows one at a time. */
	const char *arch = s->arch ? s->arch : "amd64";
	apt->dir = s->arch ? arena_printf(a, "%s/debian/%s-%s", cache, suite, arch)
	                   : arena_printf(a, "%s/debian/%s", cache, suite);
	char *parts = os_join(a, apt->dir, "sources.list.d");
	char *state = os_join(a, apt->dir, "state");
	char *acache = os_join(a, apt->dir, "cache");
	char *status = os_join(a, apt->dir, "status");
	if (!os_mkdir_p(d, parts) || !os_mkdir_p(d, os_join(a, state, "lists/partial")) ||
	    !os_mkdir_p(d, os_join(a, acache, "archives/partial")))
		return false;
	char *src = arena_printf(a,
	                         "# Written by cuwheel from its lock for %s; apt-get reads it "
	                         "only with cuwheel's private options.\n"
	                         "Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\n"
	                         "Signed-By: %s\n",
	                         s->version, s->uri, s->suite, s->components, s->keyring);
	if (!os_write_atomic(d, os_join(a, parts, "cuwheel.sources"), src, strlen(src), 0644) ||
	    (!os_exists(status) && !os_write_atomic(d, status, "", 0, 0644)))
		return false;
	const char *o[] = {
	    "Dir::Etc::SourceList=/dev/null",
	    arena_printf(a, "Dir::Etc::SourceParts=%s", parts),
	    "Dir::Etc::Preferences=/dev/null",
	    "Dir::Etc::PreferencesParts=/dev/null",
	    arena_printf(a, "Dir::State=%s", state),
	    arena_printf(a, "Dir::State::status=%s", status),
	    arena_printf(a, "Dir::Cache=%s", acache),
	    arena_printf(a, "APT::Architecture=%s", arch),
	    arena_printf(a, "APT::Architectures::=%s", arch),
	    "Acquire::Languages=none",
	    /* apt drops to the _apt user to download, who cannot enter root's ~/.cache. */
	    geteuid() == 0 ? "APT::Sandbox::User=root" : NULL,
	};
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++) {
		if (!o[i])
			continue;
		strv_push(a, &apt->opts, "-o");
		strv_push(a, &apt->opts, o[i]);
	}
	return true;
}

/* Runs apt-get with the private options and args in cwd; false + diagnostic naming what failed
 * (the command and apt's own last lines). */
static bool apt_run(struct arena *a, struct diag *d, const struct apt *apt, const char *const *args,
                    const char *cwd, const char *what, const char **said)
{
	struct strv argv = {0};
	strv_push(a, &argv, "apt-get");
	strv_push(a, &argv, "-q");
	for (size_t i = 0; i < apt->opts.n; i++)
		strv_push(a, &argv, apt->opts.v[i]);
	for (size_t i = 0; args[i]; i++)
		strv_push(a, &argv, args[i]);
	strv_push(a, &argv, NULL);
	struct os_run r = {.argv = argv.v, .capture = true, .cwd = cwd};
	struct strbuf out = {0};
	int status;
	/* Another apt-get holds the private state's lock: one that an install killed with
	 * SIGKILL left running in its own process group. Wait for it (at most 2 minutes) rather
	 * than fail: it ends on its own. */
	for (int tries = 0;; tries++) {
		sb_reset(&out);
		if (!os_run(d, &r, &out, &status)) {
			sb_release(&out);
			return false;
		}
		if (status == 0 || !strstr(sb_str(&out), "Could not get lock") || tries >= 60)
			break;
		if (tries == 0)
			diag_msg(
			    d, DIAG_NOTE,
			    "another apt-get holds the lock of cuwheel's private apt state (an "
			    "earlier install that was killed): waiting for it");
		os_sleep_ms(2000);
	}
	const char *text = sb_str(&out);
	/* apt-get update exits 0 when an index could not be fetched: its "W: Failed to fetch" /
	 * "E: ..." lines say so. */
	bool failed = status != 0 || strstr(text, "\nE: ") || !strncmp(text, "E: ", 3) ||
	              strstr(text, "Failed to fetch") || strstr(text, "\nErr:");
	if (failed) {
		diag_msg(d, DIAG_ERROR, "%s failed (apt-get exit %d): %s", what, status,
		         os_argv_str(a, argv.v));
		diag_msg(d, DIAG_NOTE, "apt-get said:\n%s", tail_lines(text, 8));
	}
	if (said)
		*said = arena_strdup(a, text);
	sb_release(&out);
	return !failed;
}

/* Makes <debs>/<basename of the pool path> hold the pinned .deb: kept from an earlier install
 * when its sha256 still matches, else downloaded by apt-get (into a directory of this process's
 * own: a toolkit and a Python install may fetch at once) and checked. */
static bool fetch_deb(struct arena *a, struct diag *d, const struct apt *apt,
                      const struct provision_set *s, const struct provision_pkg *p,
                      const char *debs, const struct provision_deb_for *f, const char **out)
{
	const char *base = strrchr(p->filename, '/') ? strrchr(p->filename, '/') + 1 : p->filename;
	char *dest = os_join(a, debs, base);
	*out = dest;
	if (os_exists(dest)) {
		char *have = file_sha256_hex(a, d, dest, NULL);
		if (have && strcmp(have, p->sha256) == 0)
			return true;
		if (!os_rm_rf(d, dest)) /* a partial or damaged copy: fetch it again */
			return false;
	}
	char *dl = arena_printf(a, "%s/.download-%ld", debs, (long)getpid());
	if (!os_rm_rf(d, dl) || !os_mkdir_p(d, dl))
		return false;
	const char *args[] = {"download", arena_printf(a, "%s=%s", p->name, p->version), NULL};
	const char *said = NULL;
	if (!apt_run(
	        a, d, apt, args, dl,
	        arena_printf(a, "downloading %s %s from Debian %s", p->name, p->version, s->suite),
	        &said)) {
		/* Sid and experimental move on: a pinned version disappears from the archive. */
		if (said && (strstr(said, "was not found") || strstr(said, "Unable to locate")))
			diag_msg(d, DIAG_HINT,
			         "Debian %s no longer carries %s %s, which %s pins: regenerate the "
			         "lock with %s",
			         s->suite, p->name, p->version, f->lock, f->regen);
		os_rm_rf(d, dl);
		return false;
	}
	struct strv got = {0};
	if (!os_list_dir(a, dl, &got) || got.n != 1) {
		diag_path(d, DIAG_ERROR, dl, "apt-get download left %zu files, expected one .deb",
		          got.n);
		return false;
	}
	char *file = os_join(a, dl, got.v[0]);
	char *sha = file_sha256_hex(a, d, file, NULL);
	if (!sha)
		return false;
	if (strcmp(sha, p->sha256) != 0) {
		diag_path(d, DIAG_ERROR, file,
		          "sha256 mismatch: %s %s from Debian %s is %s, %s pins %s", p->name,
		          p->version, s->suite, sha, f->lock, p->sha256);
		diag_msg(d, DIAG_HINT,
		         "the archive changed or the download was tampered with; regenerate the "
		         "lock with %s only if the new package is trusted",
		         f->regen);
		os_rm_rf(d, dl);
		return false;
	}
	if (!os_rename(file, dest)) {
		diag_errno(d, dest, "cannot move the downloaded .deb to");
		return false;
	}
	return os_rm_rf(d, dl);
}

/* Moves src onto dst: a rename, or entry by entry when dst is a directory already. */
static bool move_into(struct arena *a, struct diag *d, const char *src, const char *dst)
{
	if (!os_is_dir(dst)) {
		char *parent = arena_strdup(a, dst);
		*strrchr(parent, '/') = '\0';
		if (!os_mkdir_p(d, parent))
			return false;
		if (!os_rename(src, dst)) {
			diag_errno(d, dst, "cannot move into place");
			return false;
		}
		return true;
	}
	struct strv ents = {0};
	if (!os_list_dir(a, src, &ents)) {
		diag_errno(d, src, "cannot list");
		return false;
	}
	for (size_t i = 0; i < ents.n; i++) {
		char *to = os_join(a, dst, ents.v[i]);
		if (os_exists(to) && !os_is_dir(to)) {
			diag_path(d, DIAG_ERROR, to, "two Debian packages bring this file");
			return false;
		}
		if (!move_into(a, d, os_join(a, src, ents.v[i]), to))
			return false;
	}
	return true;
}

bool provision_debian_extract(struct arena *a, struct diag *d, const struct provision_pkg *p,
                              const char *deb, const char *staging, const char *const *members,
                              const char *const *to, size_t n)
{
	if (n == 0)
		return true; /* a package the lock pins that brings nothing cuwheel needs */
	char *x = os_join(a, staging, ".extract");
	if (!os_rm_rf(d, x) || !os_mkdir_p(d, x))
		return false;
	struct strv tar = {0};
	const char *fixed[] = {"tar", "-x", "-f", "-", "--no-same-owner", "-C", x};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		strv_push(a, &tar, fixed[i]);
	for (size_t i = 0; i < n; i++)
		strv_push(a, &tar, arena_printf(a, "./%s", members[i]));
	strv_push(a, &tar, NULL);
	const char *from[] = {"dpkg-deb", "--fsys-tarfile", deb, NULL};
	struct os_run r = {.argv = tar.v, .capture = true};
	struct strbuf out = {0};
	int st_from, st;
	bool ok = os_run_pipe(d, from, &r, &out, &st_from, &st);
	if (ok && (st_from != 0 || st != 0)) {
		diag_path(d, DIAG_ERROR, deb,
		          "cannot extract %s %s (dpkg-deb exit %d, tar exit %d): %s", p->name,
		          p->version, st_from, st, tail_lines(sb_str(&out), 6));
		ok = false;
	}
	sb_release(&out);
	for (size_t i = 0; ok && i < n; i++)
		ok = move_into(a, d, os_join(a, x, members[i]), os_join(a, staging, to[i]));
	return ok && os_rm_rf(d, x);
}

/* Extracts the members of one .deb that deb_map names (`dpkg-deb --fsys-tarfile | tar -x`:
 * the whole data archive is read, only those are written) and moves them into the layout. */
static bool extract_deb(struct arena *a, struct diag *d, const struct provision_pkg *p,
                        const char *deb, const char *staging)
{
	const char *members[sizeof(deb_map) / sizeof(deb_map[0])];
	const char *to[sizeof(deb_map) / sizeof(deb_map[0])];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(deb_map) / sizeof(deb_map[0]); i++)
		if (strcmp(deb_map[i].package, p->name) == 0) {
			members[n] = deb_map[i].member;
			to[n++] = deb_map[i].to;
		}
	return provision_debian_extract(a, d, p, deb, staging, members, to, n);
}

static int pkg_size_cmp(const void *x, const void *y)
{
	const struct provision_pkg *p = *(const struct provision_pkg *const *)x;
	const struct provision_pkg *q = *(const struct provision_pkg *const *)y;
	return (p->size > q->size) - (p->size < q->size);
}

bool provision_debian_fetch(struct arena *a, struct diag *d, const struct provision_opts *o,
                            const struct provision_set *s, const struct provision_deb_for *f,
                            const char ***files)
{
	static const struct {
		const char *tool, *package;
	} tools[] = {{"apt-get", "apt"}, {"dpkg-deb", "dpkg"}, {"tar", "tar"}};
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!os_which(a, o->env, tools[i].tool)) {
			diag_msg(d, DIAG_ERROR,
			         "cannot provision %s from Debian's archive: %s is not on PATH "
			         "(Debian's %s package)",
			         f->what, tools[i].tool, tools[i].package);
			diag_msg(d, DIAG_HINT, "%s", f->elsewhere);
			return false;
		}
	if (!os_exists(s->keyring)) {
		diag_path(d, DIAG_ERROR, s->keyring,
		          "cannot provision %s: Debian's archive keyring is missing (Debian's "
		          "debian-archive-keyring package); apt-get checks the indexes with it",
		          f->what);
		return false;
	}
	struct apt apt = {0};
	if (!apt_setup(a, d, o->cache_dir, s, &apt))
		return false;
	int64_t total = 0;
	for (size_t i = 0; i < s->n_pkgs; i++)
		total += s->pkgs[i].size > 0 ? s->pkgs[i].size : 0;
	diag_msg(d, DIAG_NOTE, "fetching %zu packages (%.0f MB) for %s from Debian %s (%s)",
	         s->n_pkgs, (double)total / 1e6, f->what, s->suite, s->uri);
	const char *update[] = {"update", NULL};
	if (!apt_run(
	        a, d, &apt, update, NULL,
	        arena_printf(a, "reading Debian %s's package indexes from %s", s->suite, s->uri),
	        NULL))
		return false;
	/* Smallest first: a wrong pin or a broken mirror shows before the big downloads. */
	const struct provision_pkg **order = arena_calloc(a, s->n_pkgs, sizeof(*order));
	for (size_t i = 0; i < s->n_pkgs; i++)
		order[i] = &s->pkgs[i];
	qsort(order, s->n_pkgs, sizeof(*order), pkg_size_cmp);
	char *debs = arena_printf(a, "%s/debian/debs", o->cache_dir);
	if (!os_mkdir_p(d, debs))
		return false;
	*files = arena_calloc(a, s->n_pkgs, sizeof(**files));
	for (size_t i = 0; i < s->n_pkgs; i++)
		if (!fetch_deb(a, d, &apt, s, order[i], debs, f, &(*files)[order[i] - s->pkgs]))
			return false;
	return true;
}

static bool debian_assemble(struct arena *a, struct diag *d, const struct provision_opts *o,
                            const struct provision_set *s, const char *staging)
{
	struct provision_deb_for f = {
	    .what = arena_printf(a, "CUDA %s", s->version),
	    .lock = "the toolkit lock",
	    .regen = "tools/update-toolkit-lock",
	    .elsewhere = arena_printf(a,
	                              "run on a Debian or Ubuntu machine, or install CUDA %s and "
	                              "point [tool.cuwheel.toolkits] at it",
	                              s->minor),
	};
	const char **files;
	if (!provision_debian_fetch(a, d, o, s, &f, &files))
		return false;
	for (size_t i = 0; i < s->n_pkgs; i++)
		if (!extract_deb(a, d, &s->pkgs[i], files[i], staging))
			return false;
	char *lib = os_join(a, staging, "lib");
	if (!os_exists(lib) && !os_symlink("lib64", lib)) {
		diag_errno(d, lib, "cannot create symlink");
		return false;
	}
	if (!os_write_atomic(d, os_join(a, staging, "bin/nvcc.profile"), nvcc_profile,
	                     sizeof(nvcc_profile) - 1, 0644))
		return false;
	if (!provision_check_root(a, d, staging, s, deb_pieces,
	                          sizeof(deb_pieces) / sizeof(deb_pieces[0])))
		return false;
	/* The .debs were kept only so an interrupted install need not fetch them again: once the
	 * root is whole they are 0.9-1 GB of nothing. */
	for (size_t i = 0; i < s->n_pkgs; i++)
		if (!os_rm_rf(d, files[i]))
			return false;
	return true;
}

/* True for a value that may go into a deb822 .sources line: no line breaks, no control
 * characters. */
static bool is_sources_value(const char *s, const char *allowed)
{
	return provision_is_token(s, allowed);
}

bool provision_debian_origin(struct arena *a, const char *uri, const char *keyring,
                             const char *suite, const char *components, struct provision_set *s)
{
	if (!uri || (strncmp(uri, "http://", 7) != 0 && strncmp(uri, "https://", 8) != 0) ||
	    !is_sources_value(uri, ":/._-~%+") || !keyring || keyring[0] != '/' ||
	    !is_sources_value(keyring, "/._-+") || !is_sources_value(suite, " -") ||
	    !is_sources_value(components, " -"))
		return false;
	s->source = PROVISION_DEBIAN;
	s->uri = arena_strdup(a, uri);
	s->keyring = arena_strdup(a, keyring);
	s->suite = arena_strdup(a, suite);
	s->components = arena_strdup(a, components);
	return true;
}

/* Appends the toolkits of the lock's "debian" section (schema 2) to out->sets. */
static bool debian_lock_read(struct arena *a, struct diag *d, const char *path, json_t *root,
                             struct provision_lock *out)
{
	json_t *deb = json_object_get(root, "debian");
	if (!deb)
		return true;
	const char *uri = provision_jstr(deb, "uri"), *keyring = provision_jstr(deb, "keyring");
	json_t *sets = json_object_get(deb, "toolkits");
	struct provision_set probe = {0};
	if (!provision_debian_origin(a, uri, keyring, "x", "x", &probe) || !json_is_array(sets)) {
		diag_path(d, DIAG_ERROR, path,
		          "\"debian\" needs an http(s) \"uri\", an absolute \"keyring\" and a "
		          "\"toolkits\" array");
		return false;
	}
	size_t n = json_array_size(sets);
	out->sets = arena_realloc(a, out->sets, out->n_sets, out->n_sets + n, sizeof(*out->sets));
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_array_get(sets, i);
		struct provision_set *s = &out->sets[out->n_sets];
		memset(s, 0, sizeof(*s));
		const char *suite = provision_jstr(t, "suite");
		const char *comps = provision_jstr(t, "components");
		json_t *pkgs = json_object_get(t, "packages");
		if (!provision_set_version(a, s, provision_jstr(t, "version")) ||
		    !provision_debian_origin(a, uri, keyring, suite, comps, s) ||
		    !json_is_array(pkgs) || json_array_size(pkgs) == 0) {
			diag_path(d, DIAG_ERROR, path,
			          "debian.toolkits[%zu]: needs a MAJOR.MINOR.PATCH \"version\", a "
			          "\"suite\", \"components\" and a non-empty \"packages\" array",
			          i);
			return false;
		}
		if (!provision_set_pkgs(a, d, path, "debian.toolkits", i, pkgs, true, s))
			return false;
		out->n_sets++;
	}
	return true;
}

static const char *debian_name(struct arena *a, const struct provision_set *s)
{
	return arena_printf(a, "Debian %s", s->suite);
}

static const char *debian_marker(struct arena *a, const struct provision_opts *o,
                                 const struct provision_set *s)
{
	return arena_printf(a, "debian %s", s->suite);
}

const struct provision_source_ops provision_debian = {
    .id = PROVISION_DEBIAN,
    .lock_read = debian_lock_read,
    .name = debian_name,
    .marker = debian_marker,
    .assemble = debian_assemble,
};
