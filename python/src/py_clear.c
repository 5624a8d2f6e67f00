/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_clear.c - clear, clear_hint, clear_batched, populate and populate_many
 * on any writable buffer.
 *
 * Every call takes the buffer with PyObject_GetBuffer(PyBUF_WRITABLE), so a
 * read-only object is refused before a byte is written, and holds that
 * export until the library returns: while the GIL is released, a bytearray
 * cannot be resized nor an mmap closed under the clear (both refuse while
 * exported). clear() takes strided views too and zeroes exactly their
 * elements; the other calls work on one extent and refuse a view with gaps.
 */
#include "py_module.h"

#include <errno.h>

/* Ask for strides so that non-contiguous views (numpy slices, memoryview
 * steps) are described exactly; exporters that need suboffsets refuse. */
#define PCI_PY_BUF_FLAGS (PyBUF_WRITABLE | PyBUF_STRIDES)

/* A strided view reduced to contiguous runs: run bytes at base plus every
 * combination of idx[d] * strides[d], 0 <= idx[d] < shape[d]. Strides are
 * made positive and sorted from largest to smallest, and inner dimensions
 * whose elements lie back to back are merged into the run, so a contiguous
 * buffer (C or Fortran order, or reversed) becomes a single run. */
struct runs {
    char *base;
    size_t run;
    int ndim;
    Py_ssize_t shape[PyBUF_MAX_NDIM];
    Py_ssize_t strides[PyBUF_MAX_NDIM];
};

static void plan_runs(const Py_buffer *v, struct runs *r)
{
    r->base = v->buf;
    r->ndim = 0;
    if (v->shape == NULL || v->strides == NULL) {
        /* The protocol reads missing strides (or shape) as one C-ordered
         * block; some exporters (ctypes) leave them out even when asked. */
        r->run = (size_t)v->len;
        return;
    }
    for (int d = 0; d < v->ndim; d++) {
        Py_ssize_t n = v->shape[d], s = v->strides[d];
        /* A dimension of one element, or one that repeats the same
         * element (stride 0), adds no bytes of its own. */
        if (n == 1 || s == 0)
            continue;
        if (s < 0) {
            /* Walk it from its lowest address: same bytes, positive step. */
            r->base += (n - 1) * s;
            s = -s;
        }
        int i = r->ndim++;
        while (i > 0 && r->strides[i - 1] < s) {
            r->strides[i] = r->strides[i - 1];
            r->shape[i] = r->shape[i - 1];
            i--;
        }
        r->strides[i] = s;
        r->shape[i] = n;
    }
    r->run = (size_t)v->itemsize;
    while (r->ndim > 0 && (size_t)r->strides[r->ndim - 1] == r->run) {
        r->run *= (size_t)r->shape[r->ndim - 1];
        r->ndim--;
    }
}

enum clear_kind { CLEAR_WARM, CLEAR_COLD, CLEAR_PARALLEL };

static int clear_one(enum clear_kind kind, int threads, char *p, size_t n)
{
    switch (kind) {
    case CLEAR_COLD: return pc_clear_cold(p, n);
    case CLEAR_PARALLEL: return pc_clear_parallel(p, n, threads);
    case CLEAR_WARM: break;
    }
    return pc_clear(p, n);
}

/* Clear every run of r (called without the GIL). */
static int clear_runs(const struct runs *r, enum clear_kind kind, int threads)
{
    Py_ssize_t idx[PyBUF_MAX_NDIM] = {0};
    char *p = r->base;
    for (;;) {
        int ret = clear_one(kind, threads, p, r->run);
        if (ret < 0)
            return ret;
        int d = r->ndim - 1;
        for (; d >= 0; d--) {
            p += r->strides[d];
            if (++idx[d] < r->shape[d])
                break;
            p -= r->shape[d] * r->strides[d];
            idx[d] = 0;
        }
        if (d < 0)
            return 0;
    }
}

/* The pending exception, taken out (3.12 deprecates PyErr_Fetch). */
static PyObject *save_error(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != NULL && tb != NULL)
        PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
#endif
}

static void restore_error(PyObject *exc)
{
    if (exc == NULL)
        return;
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc,
                  PyException_GetTraceback(exc));
#endif
}

int pci_py_get_buffer(PyObject *obj, Py_buffer *v, const char *what,
                      int contiguous)
{
    if (PyObject_GetBuffer(obj, v, PCI_PY_BUF_FLAGS) < 0) {
        /* Exporters differ in how they refuse a writable request (numpy:
         * ValueError, bytes: BufferError). If the object does export a
         * read-only buffer, say so with one exception type. */
        PyObject *saved = save_error();
        Py_buffer ro;
        if (PyObject_GetBuffer(obj, &ro, PyBUF_STRIDES) == 0) {
            PyBuffer_Release(&ro);
            Py_XDECREF(saved);
            PyErr_Format(PyExc_BufferError,
                         "%s: the buffer of %.100s is read-only", what,
                         Py_TYPE(obj)->tp_name);
        } else {
            PyErr_Clear();
            restore_error(saved);
        }
        return -1;
    }
    if (contiguous && v->len > 0 && !PyBuffer_IsContiguous(v, 'A')) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError,
                     "%s needs a contiguous buffer; this view has gaps "
                     "between its elements (clear() takes strided views)",
                     what);
        return -1;
    }
    return 0;
}

static PyObject *py_clear(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"buf", "threads", "cold", NULL};
    PyObject *obj, *threads_obj = NULL;
    int cold = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$Op:clear", kwlist, &obj,
                                     &threads_obj, &cold))
        return NULL;
    if (threads_obj != NULL && pci_py_threads(threads_obj, "clear", &threads) < 0)
        return NULL;
    if (cold && threads != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "clear: cold=True clears on the calling thread "
                        "(the library has no cold parallel clear); "
                        "use threads=1");
        return NULL;
    }
    enum clear_kind kind = cold ? CLEAR_COLD
                           : threads == 1 ? CLEAR_WARM : CLEAR_PARALLEL;
    Py_buffer v;
    if (pci_py_get_buffer(obj, &v, "clear", 0) < 0)
        return NULL;
    int ret = 0;
    if (v.len > 0) {
        struct runs r;
        plan_runs(&v, &r);
        Py_BEGIN_ALLOW_THREADS
        ret = clear_runs(&r, kind, threads);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v);
    if (ret < 0)
        return pci_py_error(ret, cold ? "pc_clear_cold"
                                 : threads == 1 ? "pc_clear"
                                                : "pc_clear_parallel");
    Py_RETURN_NONE;
}

static PyObject *py_clear_hint(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj, *offset_obj;
    if (!PyArg_ParseTuple(args, "OO:clear_hint", &obj, &offset_obj))
        return NULL;
    size_t offset;
    if (pci_py_size(offset_obj, "clear_hint: offset", &offset) < 0)
        return NULL;
    Py_buffer v;
    if (pci_py_get_buffer(obj, &v, "clear_hint", 1) < 0)
        return NULL;
    if (offset >= (size_t)v.len) {
        PyErr_Format(PyExc_ValueError,
                     "clear_hint: offset %zu is outside the buffer's %zd "
                     "bytes", offset, v.len);
        PyBuffer_Release(&v);
        return NULL;
    }
    int ret;
    char *base = v.buf;
    Py_BEGIN_ALLOW_THREADS
    ret = pc_clear_hint(base, (size_t)v.len, base + offset);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    if (ret < 0)
        return pci_py_error(ret, "pc_clear_hint");
    Py_RETURN_NONE;
}

/* State shared with the resched callback. The clear runs without the GIL;
 * before each unit the callback takes it back (on the same thread, from the
 * state Py_BEGIN_ALLOW_THREADS saved), lets pending signal handlers run
 * (Ctrl-C raises KeyboardInterrupt there), calls the Python callback, and
 * releases it again. */
struct batch_ctx {
    PyThreadState *ts;
    PyObject *callback; /* or NULL */
    int failed;         /* a Python exception is set: report it */
};

static int resched(void *arg, size_t done, size_t total)
{
    struct batch_ctx *c = arg;
    int stop = 0;
    PyEval_RestoreThread(c->ts);
    if (PyErr_CheckSignals() < 0) {
        c->failed = stop = 1;
    } else if (c->callback != NULL) {
        PyObject *r = PyObject_CallFunction(c->callback, "nn",
                                            (Py_ssize_t)done,
                                            (Py_ssize_t)total);
        int truth = r != NULL ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
        if (truth < 0)
            c->failed = stop = 1;
        else
            stop = truth;
    }
    c->ts = PyEval_SaveThread();
    return stop;
}

static PyObject *py_clear_batched(PyObject *self, PyObject *args,
                                  PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"buf", "unit", "callback", NULL};
    PyObject *obj, *unit_obj = Py_None, *callback = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO:clear_batched", kwlist,
                                     &obj, &unit_obj, &callback))
        return NULL;
    struct pc_batch b;
    pc_batch_init(&b);
    if (unit_obj != Py_None) {
        if (pci_py_size(unit_obj, "clear_batched: unit", &b.unit) < 0)
            return NULL;
        if (b.unit == 0) {
            PyErr_SetString(PyExc_ValueError,
                            "clear_batched: unit must be at least 1 byte "
                            "(None: the library's default unit)");
            return NULL;
        }
    }
    if (callback != Py_None && !PyCallable_Check(callback)) {
        PyErr_Format(PyExc_TypeError,
                     "clear_batched: callback must be callable or None, "
                     "not %.100s", Py_TYPE(callback)->tp_name);
        return NULL;
    }
    Py_buffer v;
    if (pci_py_get_buffer(obj, &v, "clear_batched", 1) < 0)
        return NULL;
    struct batch_ctx c = {NULL, callback != Py_None ? callback : NULL, 0};
    b.resched = resched;
    b.ctx = &c;
    size_t cleared = 0;
    int ret;
    c.ts = PyEval_SaveThread();
    ret = pc_clear_batched(v.buf, (size_t)v.len, &b, &cleared);
    PyEval_RestoreThread(c.ts);
    PyBuffer_Release(&v);
    if (c.failed)
        return NULL;
    if (ret < 0 && ret != -ECANCELED)
        return pci_py_error(ret, "pc_clear_batched");
    return PyLong_FromSize_t(cleared);
}

static PyObject *py_populate(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"buf", "threads", NULL};
    PyObject *obj, *threads_obj = NULL;
    int threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:populate", kwlist, &obj,
                                     &threads_obj))
        return NULL;
    if (threads_obj != NULL &&
        pci_py_threads(threads_obj, "populate", &threads) < 0)
        return NULL;
    Py_buffer v;
    if (pci_py_get_buffer(obj, &v, "populate", 1) < 0)
        return NULL;
    int ret = 0;
    if (v.len > 0) {
        void *base = v.buf;
        size_t len = (size_t)v.len;
        Py_BEGIN_ALLOW_THREADS
        ret = pc_populate(base, len, threads, 0);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v);
    if (ret < 0)
        return pci_py_error(ret, "pc_populate");
    Py_RETURN_NONE;
}

/* populate_many(bufs, *, threads=0): every buffer of the sequence, writable
 * and contiguous, populated in one pc_populate_many call. */
static PyObject *py_populate_many(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"bufs", "threads", NULL};
    PyObject *seq_obj, *threads_obj = NULL;
    int threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:populate_many", kwlist, &seq_obj,
                                     &threads_obj))
        return NULL;
    if (threads_obj != NULL && pci_py_threads(threads_obj, "populate_many", &threads) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(seq_obj, "populate_many: bufs must be a sequence of "
                                             "buffers");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), got = 0;
    Py_buffer *v = PyMem_Calloc(n ? (size_t)n : 1, sizeof(*v));
    struct pc_extent *e = PyMem_Calloc(n ? (size_t)n : 1, sizeof(*e));
    int ret = 0, ok = v != NULL && e != NULL;
    if (!ok)
        PyErr_NoMemory();
    for (; ok && got < n; got++) {
        if (pci_py_get_buffer(PySequence_Fast_GET_ITEM(seq, got), &v[got], "populate_many",
                              1) < 0)
            ok = 0;
        else
            e[got] = (struct pc_extent){v[got].buf, (size_t)v[got].len};
    }
    if (!ok)
        got--; /* the one that failed holds no buffer */
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        ret = pc_populate_many(e, (size_t)n, threads, 0);
        Py_END_ALLOW_THREADS
    }
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&v[i]);
    PyMem_Free(v);
    PyMem_Free(e);
    Py_DECREF(seq);
    if (!ok)
        return NULL;
    if (ret < 0)
        return pci_py_error(ret, "pc_populate_many");
    Py_RETURN_NONE;
}

PyMethodDef pci_py_clear_methods[] = {
    {"clear", PCI_PY_KW(py_clear), METH_VARARGS | METH_KEYWORDS,
     "clear(buf, *, threads=1, cold=False): zero a writable buffer."},
    {"clear_hint", py_clear_hint, METH_VARARGS,
     "clear_hint(buf, offset): zero buf, the pages around offset last."},
    {"clear_batched", PCI_PY_KW(py_clear_batched),
     METH_VARARGS | METH_KEYWORDS,
     "clear_batched(buf, *, unit=None, callback=None) -> int: zero buf in "
     "units; returns the bytes cleared."},
    {"populate", PCI_PY_KW(py_populate), METH_VARARGS | METH_KEYWORDS,
     "populate(buf, *, threads=0): fault buf in for writing, contents "
     "kept."},
    {"populate_many", PCI_PY_KW(py_populate_many), METH_VARARGS | METH_KEYWORDS,
     "populate_many(bufs, *, threads=0): populate every buffer of bufs "
     "together (since 1.1)."},
    {NULL, NULL, 0, NULL},
};
