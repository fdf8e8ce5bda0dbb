/* tinyraster.c: the binding stub of tinyraster._C, CPython C API only; the same source builds per
 * Python and as abi3 (-DPy_LIMITED_API=0x030A0000), and is the only file that includes Python.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <string.h>

#include "tinyraster.h"

/* Python 3.10's limited API has no Py_buffer (PyObject_GetBuffer joined it in 3.11), so the abi3
 * build reads an argument through a memoryview's Python attributes and copies its bytes with
 * tobytes(); the per-Python build borrows the exporter's memory through Py_buffer. */
#if defined(Py_LIMITED_API) && Py_LIMITED_API + 0 < 0x030B0000
#define TR_USE_MEMORYVIEW 1
#else
#define TR_USE_MEMORYVIEW 0
#endif

/* The element types arguments may hold. */
enum arg_kind {
	ARG_F32 = 1, /* numpy float32, struct 'f' */
	ARG_I32 = 2, /* numpy int32, struct 'i' (or 'l' where long has 4 bytes) */
	ARG_F16 = 4, /* numpy float16, struct 'e' */
};

/* One array argument, read and checked; its memory stays valid until arg_release. */
struct arg {
	const char *name;
	enum arg_kind kind;
	const void *data;
	int ndim;
	Py_ssize_t shape[3];
	Py_ssize_t count; /* elements */
#if TR_USE_MEMORYVIEW
	PyObject *copy; /* bytes holding the data */
#else
	Py_buffer view;
	int has_view;
#endif
};

static const char *kind_name(int kinds)
{
	switch (kinds) {
	case ARG_F32:
		return "float32 (format 'f')";
	case ARG_I32:
		return "int32 (format 'i')";
	case ARG_F32 | ARG_F16:
		return "float32 or float16 (format 'f' or 'e')";
	default:
		return "?";
	}
}

/* The kind a struct format and itemsize denote, or 0. Byte-order prefixes are accepted only
 * when they mean native little-endian order. */
static int format_kind(const char *fmt, Py_ssize_t itemsize)
{
	if (fmt[0] == '@' || fmt[0] == '=' || fmt[0] == '<')
		fmt++;
	if (fmt[0] == '\0' || fmt[1] != '\0')
		return 0;
	switch (fmt[0]) {
	case 'f':
		return itemsize == 4 ? ARG_F32 : 0;
	case 'e':
		return itemsize == 2 ? ARG_F16 : 0;
	case 'i':
	case 'l':
		return itemsize == 4 ? ARG_I32 : 0;
	default:
		return 0;
	}
}

static Py_ssize_t kind_size(int kind)
{
	return kind == ARG_F16 ? 2 : 4;
}

/* Fill a from the exporter's format, itemsize, shape and contiguity; set the exception. */
static int arg_describe(struct arg *a, PyObject *obj, int kinds, const char *fmt,
                        Py_ssize_t itemsize, int ndim, const Py_ssize_t *shape, int contiguous,
                        Py_ssize_t nbytes)
{
	/* bytes and bytearray carry no element type: take them as raw native-endian storage of
	 * the (first) accepted type, as a flat array. */
	int raw = PyBytes_Check(obj) || PyByteArray_Check(obj);
	if (raw) {
		a->kind = (enum arg_kind)(kinds & ARG_F32 ? ARG_F32 : kinds);
		Py_ssize_t size = kind_size(a->kind);
		if (nbytes % size) {
			PyErr_Format(PyExc_ValueError,
			             "%s: %zd bytes is not a whole number of %zd-byte %s elements",
			             a->name, nbytes, size, kind_name(a->kind));
			return -1;
		}
		a->ndim = 1;
		a->shape[0] = a->count = nbytes / size;
		return 0;
	}
	int kind = format_kind(fmt, itemsize);
	if (!(kind & kinds)) {
		PyErr_Format(PyExc_TypeError,
		             "%s: expected %s elements, got format '%s' with itemsize %zd", a->name,
		             kind_name(kinds), fmt, itemsize);
		return -1;
	}
	a->kind = (enum arg_kind)kind;
	if (ndim < 1 || ndim > 3) {
		PyErr_Format(PyExc_ValueError, "%s: expected 1 to 3 dimensions, got %d", a->name,
		             ndim);
		return -1;
	}
	if (!contiguous) {
		PyErr_Format(
		    PyExc_ValueError,
		    "%s: must be C-contiguous (numpy.ascontiguousarray makes a copy that is)",
		    a->name);
		return -1;
	}
	a->ndim = ndim;
	a->count = 1;
	for (int i = 0; i < ndim; i++) {
		a->shape[i] = shape[i];
		a->count *= shape[i];
	}
	return 0;
}

/* Replace the pending error with one that names the argument and its type; returns -1. */
static int raise_not_buffer(PyObject *obj, const char *name)
{
	PyErr_Clear();
	PyObject *type = PyObject_Type(obj);
	PyErr_Format(PyExc_TypeError,
	             "%s: expected an object with the buffer protocol (numpy array, array.array, "
	             "memoryview, bytearray), got %R",
	             name, type);
	Py_XDECREF(type);
	return -1;
}

#if TR_USE_MEMORYVIEW
static Py_ssize_t attr_ssize(PyObject *o, const char *name)
{
	PyObject *v = PyObject_GetAttrString(o, name);
	if (!v)
		return -1;
	Py_ssize_t r = PyLong_AsSsize_t(v);
	Py_DECREF(v);
	return r;
}

/* Read obj through a memoryview; fills a and sets a->copy, or sets the exception. */
static int arg_get(struct arg *a, PyObject *obj, const char *name, int kinds)
{
	memset(a, 0, sizeof *a);
	a->name = name;
	PyObject *mv = PyMemoryView_FromObject(obj);
	if (!mv) {
		return raise_not_buffer(obj, name);
	}
	int rc = -1;
	PyObject *fmt_o = NULL, *shape_o = NULL, *contig_o = NULL;
	Py_ssize_t shape[3] = {0, 0, 0};
	const char *fmt;
	Py_ssize_t itemsize = attr_ssize(mv, "itemsize");
	Py_ssize_t ndim = attr_ssize(mv, "ndim");
	Py_ssize_t nbytes = attr_ssize(mv, "nbytes");
	if (PyErr_Occurred())
		goto out;
	fmt_o = PyObject_GetAttrString(mv, "format");
	shape_o = PyObject_GetAttrString(mv, "shape");
	contig_o = PyObject_GetAttrString(mv, "c_contiguous");
	if (!fmt_o || !shape_o || !contig_o || !(fmt = PyUnicode_AsUTF8AndSize(fmt_o, NULL)))
		goto out;
	for (Py_ssize_t i = 0; i < ndim && i < 3; i++) {
		shape[i] = PyLong_AsSsize_t(PyTuple_GetItem(shape_o, i));
		if (PyErr_Occurred())
			goto out;
	}
	int contiguous = PyObject_IsTrue(contig_o);
	if (contiguous < 0 ||
	    arg_describe(a, obj, kinds, fmt, itemsize, (int)ndim, shape, contiguous, nbytes))
		goto out;
	a->copy = PyObject_CallMethod(mv, "tobytes", NULL);
	if (!a->copy || !(a->data = PyBytes_AsString(a->copy)))
		goto out;
	rc = 0;
out:
	Py_XDECREF(fmt_o);
	Py_XDECREF(shape_o);
	Py_XDECREF(contig_o);
	/* Give the exporter's buffer back now (a bytearray stays locked while viewed), keeping
	 * any pending error: a method must not be called with an exception set. */
	PyObject *et, *ev, *tb;
	PyErr_Fetch(&et, &ev, &tb);
	PyObject *r = PyObject_CallMethod(mv, "release", NULL);
	Py_XDECREF(r);
	if (et) {
		PyErr_Clear(); /* the error already pending is the one to report */
		PyErr_Restore(et, ev, tb);
	} else if (!r) {
		rc = -1;
	}
	Py_DECREF(mv);
	return rc;
}

static void arg_release(struct arg *a)
{
	Py_CLEAR(a->copy);
}
#else
static int arg_get(struct arg *a, PyObject *obj, const char *name, int kinds)
{
	memset(a, 0, sizeof *a);
	a->name = name;
	if (PyObject_GetBuffer(obj, &a->view, PyBUF_FULL_RO) < 0) {
		return raise_not_buffer(obj, name);
	}
	a->has_view = 1;
	Py_buffer *v = &a->view;
	if (arg_describe(a, obj, kinds, v->format ? v->format : "B", v->itemsize, v->ndim, v->shape,
	                 PyBuffer_IsContiguous(v, 'C'), v->len)) {
		PyBuffer_Release(v);
		a->has_view = 0;
		return -1;
	}
	a->data = v->buf;
	return 0;
}

static void arg_release(struct arg *a)
{
	if (a->has_view)
		PyBuffer_Release(&a->view);
	a->has_view = 0;
}
#endif

static void shape_str(const struct arg *a, char *buf, size_t len)
{
	switch (a->ndim) {
	case 1:
		snprintf(buf, len, "[%zd]", a->shape[0]);
		break;
	case 2:
		snprintf(buf, len, "[%zd, %zd]", a->shape[0], a->shape[1]);
		break;
	default:
		snprintf(buf, len, "[%zd, %zd, %zd]", a->shape[0], a->shape[1], a->shape[2]);
	}
}

/* Check that a is [rows, cols] (or flat with rows * cols elements, cols given) and return rows
 * in *rows; rows < 0 means "any". */
static int arg_rows(const struct arg *a, Py_ssize_t cols, Py_ssize_t want_rows, const char *what,
                    int *rows)
{
	char got[96];
	shape_str(a, got, sizeof got);
	Py_ssize_t r = -1;
	if (a->ndim == 2 && a->shape[1] == cols)
		r = a->shape[0];
	else if (a->ndim == 1 && a->count % cols == 0)
		r = a->count / cols;
	if (r < 0 || (want_rows >= 0 && r != want_rows)) {
		PyErr_Format(PyExc_ValueError, "%s: expected shape %s, got %s", a->name, what, got);
		return -1;
	}
	if (r > INT_MAX / 4) {
		PyErr_Format(PyExc_ValueError, "%s: too many rows (%zd)", a->name, r);
		return -1;
	}
	*rows = (int)r;
	return 0;
}

/* A new bytearray of n bytes, and its storage in *data. */
static PyObject *out_alloc(Py_ssize_t n, void **data)
{
	PyObject *ba = PyByteArray_FromStringAndSize(NULL, n);
	if (ba)
		*data = PyByteArray_AsString(ba);
	return ba;
}

/* memoryview(ba).cast(fmt, shape): what numpy.asarray turns into a shaped array. Steals ba. */
static PyObject *out_view(PyObject *ba, const char *fmt, int ndim, Py_ssize_t d0, Py_ssize_t d1,
                          Py_ssize_t d2)
{
	PyObject *mv = PyMemoryView_FromObject(ba);
	Py_DECREF(ba);
	if (!mv)
		return NULL;
	PyObject *shape =
	    ndim == 2 ? Py_BuildValue("(nn)", d0, d1) : Py_BuildValue("(nnn)", d0, d1, d2);
	PyObject *r = shape ? PyObject_CallMethod(mv, "cast", "sO", fmt, shape) : NULL;
	/* memoryview learnt the float16 format 'e' in Python 3.12: before, hand back the binary16
	 * bits as uint16 'H', which the Python layer turns into float16 when numpy is there. */
	if (!r && shape && strcmp(fmt, "e") == 0 && PyErr_ExceptionMatches(PyExc_ValueError)) {
		PyErr_Clear();
		r = PyObject_CallMethod(mv, "cast", "sO", "H", shape);
	}
	Py_XDECREF(shape);
	Py_DECREF(mv);
	return r;
}

/* Raise what a failed C call wrote: a bad input is a ValueError, anything else RuntimeError. */
static PyObject *raise_err(int stage, const char *err)
{
	PyErr_SetString(stage == 1 ? PyExc_ValueError : PyExc_RuntimeError, err);
	return NULL;
}

typedef int (*raster_fn)(const float *, int, const int32_t *, int, const float *, int, int, float,
                         int, int32_t *, float *, char *, size_t);
typedef int (*interp_fn)(const void *, enum tr_dtype, int, int, const int32_t *, int,
                         const int32_t *, const float *, int, int, void *, char *, size_t);

static PyObject *do_rasterize(PyObject *args, PyObject *kwargs, raster_fn fn)
{
	static char *kwlist[] = {
	    "V", "F", "width", "height", "D", "occlusion_truncation", "use_depth_prior", NULL};
	PyObject *Vo, *Fo, *Do = Py_None;
	int width, height, use_prior = 0;
	float trunc = 1e-6f;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOii|Ofp:rasterize", kwlist, &Vo, &Fo,
	                                 &width, &height, &Do, &trunc, &use_prior))
		return NULL;
	if (width <= 0 || height <= 0) {
		PyErr_Format(PyExc_ValueError, "width and height must be positive, got %d x %d",
		             width, height);
		return NULL;
	}
	if (use_prior && Do == Py_None) {
		PyErr_SetString(
		    PyExc_ValueError,
		    "use_depth_prior=True needs a depth prior D of shape [height, width]");
		return NULL;
	}
	struct arg V, F, D;
	int n_verts, n_faces, d_rows;
	memset(&D, 0, sizeof D);
	if (arg_get(&V, Vo, "V", ARG_F32))
		return NULL;
	if (arg_get(&F, Fo, "F", ARG_I32)) {
		arg_release(&V);
		return NULL;
	}
	PyObject *result = NULL, *ids_ba = NULL, *bary_ba = NULL;
	if (use_prior && arg_get(&D, Do, "D", ARG_F32))
		goto out;
	if (arg_rows(&V, 4, -1, "[N, 4]", &n_verts) || arg_rows(&F, 3, -1, "[M, 3]", &n_faces))
		goto out;
	if (use_prior) {
		char what[64];
		snprintf(what, sizeof what, "[%d, %d] (height, width)", height, width);
		if (arg_rows(&D, width, height, what, &d_rows))
			goto out;
	}
	void *ids, *bary;
	Py_ssize_t npix = (Py_ssize_t)width * height;
	if (!(ids_ba = out_alloc(npix * 4, &ids)) || !(bary_ba = out_alloc(npix * 12, &bary)))
		goto out;
	char err[512] = "";
	int stage = 0;
	Py_BEGIN_ALLOW_THREADS if (tr_check_mesh(n_verts, F.data, n_faces, width, height, err,
	                                         sizeof err)) stage = 1;
	else if (fn(V.data, n_verts, F.data, n_faces, use_prior ? D.data : NULL, width, height,
	            trunc, use_prior, ids, bary, err, sizeof err)) stage = 2;
	Py_END_ALLOW_THREADS if (stage)
	{
		raise_err(stage, err);
		goto out;
	}
	PyObject *ids_v = out_view(ids_ba, "i", 2, height, width, 0);
	PyObject *bary_v = out_view(bary_ba, "f", 3, height, width, 3);
	ids_ba = bary_ba = NULL;
	if (ids_v && bary_v)
		result = PyTuple_Pack(2, ids_v, bary_v);
	Py_XDECREF(ids_v);
	Py_XDECREF(bary_v);
out:
	Py_XDECREF(ids_ba);
	Py_XDECREF(bary_ba);
	arg_release(&V);
	arg_release(&F);
	arg_release(&D);
	return result;
}

static PyObject *do_interpolate(PyObject *args, PyObject *kwargs, interp_fn fn)
{
	static char *kwlist[] = {"attr", "face_ids", "bary", "F", NULL};
	PyObject *Ao, *Io, *Bo, *Fo;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO:interpolate", kwlist, &Ao, &Io, &Bo,
	                                 &Fo))
		return NULL;
	struct arg A, I, B, F;
	memset(&I, 0, sizeof I);
	memset(&B, 0, sizeof B);
	memset(&F, 0, sizeof F);
	PyObject *result = NULL, *out_ba = NULL;
	if (arg_get(&A, Ao, "attr", ARG_F32 | ARG_F16))
		return NULL;
	if (arg_get(&I, Io, "face_ids", ARG_I32) || arg_get(&B, Bo, "bary", ARG_F32) ||
	    arg_get(&F, Fo, "F", ARG_I32))
		goto out;
	int n_faces, n_verts, n_chan;
	if (A.ndim == 1) {
		n_chan = 1;
	} else if (A.ndim == 2 && A.shape[1] > 0 && A.shape[1] <= INT_MAX / 4) {
		n_chan = (int)A.shape[1];
	} else {
		char got[96];
		shape_str(&A, got, sizeof got);
		PyErr_Format(PyExc_ValueError, "attr: expected shape [N, C] or [N], got %s", got);
		goto out;
	}
	if (arg_rows(&A, n_chan, -1, "[N, C]", &n_verts) || arg_rows(&F, 3, -1, "[M, 3]", &n_faces))
		goto out;
	if (I.ndim != 2) {
		char got[96];
		shape_str(&I, got, sizeof got);
		PyErr_Format(PyExc_ValueError, "face_ids: expected shape [H, W], got %s", got);
		goto out;
	}
	if (I.shape[0] > INT_MAX / 4 || I.shape[1] > INT_MAX / 4) {
		PyErr_SetString(PyExc_ValueError, "face_ids: image too large");
		goto out;
	}
	int height = (int)I.shape[0], width = (int)I.shape[1];
	if (B.ndim != 3 || B.shape[0] != height || B.shape[1] != width || B.shape[2] != 3) {
		char got[96];
		shape_str(&B, got, sizeof got);
		PyErr_Format(PyExc_ValueError,
		             "bary: expected shape [%d, %d, 3] to match face_ids, got %s", height,
		             width, got);
		goto out;
	}
	enum tr_dtype dtype = A.kind == ARG_F16 ? TR_DTYPE_F16 : TR_DTYPE_F32;
	Py_ssize_t esize = A.kind == ARG_F16 ? 2 : 4;
	void *out;
	if (!(out_ba = out_alloc((Py_ssize_t)width * height * n_chan * esize, &out)))
		goto out;
	char err[512] = "";
	int stage = 0;
	Py_BEGIN_ALLOW_THREADS if (tr_check_mesh(n_verts, F.data, n_faces, width, height, err,
	                                         sizeof err) ||
	                           tr_check_face_ids(I.data, width, height, n_faces, err,
	                                             sizeof err)) stage = 1;
	else if (fn(A.data, dtype, n_verts, n_chan, F.data, n_faces, I.data, B.data, width, height,
	            out, err, sizeof err)) stage = 2;
	Py_END_ALLOW_THREADS if (stage)
	{
		raise_err(stage, err);
		goto out;
	}
	result = out_view(out_ba, dtype == TR_DTYPE_F16 ? "e" : "f", 3, height, width, n_chan);
	out_ba = NULL;
out:
	Py_XDECREF(out_ba);
	arg_release(&A);
	arg_release(&I);
	arg_release(&B);
	arg_release(&F);
	return result;
}

static PyObject *py_rasterize(PyObject *self, PyObject *args, PyObject *kwargs)
{
	(void)self;
	return do_rasterize(args, kwargs, tr_rasterize_cuda);
}

static PyObject *py_rasterize_cpu(PyObject *self, PyObject *args, PyObject *kwargs)
{
	(void)self;
	return do_rasterize(args, kwargs, tr_rasterize_ref);
}

static PyObject *py_interpolate(PyObject *self, PyObject *args, PyObject *kwargs)
{
	(void)self;
	return do_interpolate(args, kwargs, tr_interpolate_cuda);
}

static PyObject *py_interpolate_cpu(PyObject *self, PyObject *args, PyObject *kwargs)
{
	(void)self;
	return do_interpolate(args, kwargs, tr_interpolate_ref);
}

static PyObject *py_device_count(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	int n;
	Py_BEGIN_ALLOW_THREADS n = tr_cuda_device_count(NULL, 0);
	Py_END_ALLOW_THREADS return PyLong_FromLong(n);
}

static PyObject *py_cuda_available(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	int n;
	Py_BEGIN_ALLOW_THREADS n = tr_cuda_device_count(NULL, 0);
	Py_END_ALLOW_THREADS return PyBool_FromLong(n > 0);
}

static PyObject *py_device_info(PyObject *self, PyObject *args, PyObject *kwargs)
{
	(void)self;
	static char *kwlist[] = {"device", NULL};
	int device = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i:device_info", kwlist, &device))
		return NULL;
	struct tr_device_info info;
	char err[512] = "";
	int rc;
	Py_BEGIN_ALLOW_THREADS rc = tr_cuda_device_info(device, &info, err, sizeof err);
	Py_END_ALLOW_THREADS if (rc) return raise_err(2, err);
	return Py_BuildValue("{s:s,s:(ii),s:i,s:n,s:i,s:i}", "name", info.name,
	                     "compute_capability", info.major, info.minor, "multiprocessors",
	                     info.multiprocessors, "total_memory", (Py_ssize_t)info.total_memory,
	                     "driver_version", info.driver_version, "runtime_version",
	                     info.runtime_version);
}

#define KW (METH_VARARGS | METH_KEYWORDS)
static PyMethodDef tr_methods[] = {
    {"rasterize", (PyCFunction)(void (*)(void))py_rasterize, KW,
     "rasterize(V, F, width, height, D=None, occlusion_truncation=1e-6, use_depth_prior=False)"
     " -> (face_ids, bary) on the GPU"},
    {"rasterize_cpu", (PyCFunction)(void (*)(void))py_rasterize_cpu, KW,
     "rasterize_cpu(...): rasterize with the C reference"},
    {"interpolate", (PyCFunction)(void (*)(void))py_interpolate, KW,
     "interpolate(attr, face_ids, bary, F) -> [H, W, C] on the GPU"},
    {"interpolate_cpu", (PyCFunction)(void (*)(void))py_interpolate_cpu, KW,
     "interpolate_cpu(...): interpolate with the C reference"},
    {"device_count", py_device_count, METH_NOARGS, "number of CUDA devices (0 without a driver)"},
    {"cuda_available", py_cuda_available, METH_NOARGS, "True when a CUDA device can be used"},
    {"device_info", (PyCFunction)(void (*)(void))py_device_info, KW,
     "device_info(device=0) -> dict: name, compute capability, memory, driver version"},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot tr_slots[] = {
#if !defined(Py_LIMITED_API) && PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if !defined(Py_LIMITED_API) && PY_VERSION_HEX >= 0x030D0000
    /* No module state and no Python objects touched without the GIL held: free-threading ok. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef tr_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tinyraster._C",
    .m_doc = "tinyraster's compiled core: CUDA kernels and their C reference.",
    .m_size = 0,
    .m_methods = tr_methods,
    .m_slots = tr_slots,
};

PyMODINIT_FUNC PyInit__C(void); /* the one exported symbol */

PyMODINIT_FUNC PyInit__C(void)
{
	return PyModuleDef_Init(&tr_module);
}
