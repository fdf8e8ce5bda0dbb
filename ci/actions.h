/* actions.h: the third-party actions the workflow uses, pinned by commit. A tag can be moved
 * to other code; a commit cannot. Each SHA below is the commit its tag points to, read with
 * `git show-ref --tags` / `git rev-parse TAG^{commit}` from a mirror of the action's
 * repository (2026-11-24; the Pages and PyPI ones 2026-11-26); to upgrade one, change both
 * columns together. */
#ifndef CUWHEEL_CI_ACTIONS_H
#define CUWHEEL_CI_ACTIONS_H

/*      name          repository@commit                                               tag */
#define CI_ACTIONS(X)                                                                              \
	X(CHECKOUT, "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1")         \
	X(PYTHON, "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0")       \
	X(UPLOAD, "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "v7.0.0")    \
	X(DOWNLOAD, "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c",          \
	  "v8.0.1")                                                                                \
	X(CACHE_RESTORE, "actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae",         \
	  "v5.0.5")                                                                                \
	X(CACHE_SAVE, "actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5")     \
	X(MSVC, "ilammy/msvc-dev-cmd@0b201ec74fa43914dc39ae48a89fd1d8cb592756", "v1.13.0")         \
	X(CUDA_WIN, "Jimver/cuda-toolkit@3d45d157f327c09c04b50ee6ccdea2d9d017ec76", "v0.2.35")     \
	X(PAGES_UPLOAD, "actions/upload-pages-artifact@fc324d3547104276b827a68afc52ff2a11cc49c9",  \
	  "v5.0.0")                                                                                \
	X(PAGES_DEPLOY, "actions/deploy-pages@cd2ce8fcbc39b97be8ca5fce6e763baed58fa128", "v5.0.0") \
	X(PYPI_PUBLISH, "pypa/gh-action-pypi-publish@81e9d935c883d0b210363ab89cf05f3894778450",    \
	  "v1.8.14")

enum ci_action {
#define X(e, use, tag) CI_ACTION_##e,
	CI_ACTIONS(X)
#undef X
	    CI_ACTION_COUNT
};

#endif
