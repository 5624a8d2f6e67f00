/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_pool.c - the zeroed-page pool as two types: _Pool owns a struct pc_pool;
 * _Block is one allocation from it, a writable buffer exporter.
 *
 * Lifetime: a _Block holds a reference to its _Pool, so the Python pool
 * object outlives every array or memoryview made from its memory. close()
 * (or the end of a with block) refuses new allocations at once but destroys
 * the C pool, which unmaps its memory, only when the last block is gone:
 * an array that outlives the pool object or the with block stays valid.
 *
 * fork(): the C pool is not carried into a child (its mutex may be held by
 * a parent thread that does not exist there, and a background pool's
 * worker is missing). A child is recognised by its pid: it is refused new
 * allocations and stats, and its frees and its close are no-ops, so blocks
 * it inherited stay mapped (as copies) until it exits.
 */
#include "py_module.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    PyObject_HEAD
    struct pc_pool *pool; /* NULL once destroyed (or given up in a child) */
    pid_t pid;            /* the process that created the pool */
    Py_ssize_t live;      /* blocks not yet freed + allocations in flight */
    int closed;
} PoolObject;

typedef struct {
    PyObject_HEAD
    PoolObject *owner; /* strong reference */
    void *ptr;
    Py_ssize_t len;
} BlockObject;

static PyTypeObject pool_type, block_type;

/* Names of enum pc_pool_policy, indexed by value. The header has no name
 * function for policies; these are the enumerators' own words. */
static const char *const policy_names[] = {"init_on_alloc", "init_on_free",
                                           "background"};
#define PCI_PY_NPOLICIES (sizeof policy_names / sizeof policy_names[0])

/* The backings are named by the library (pc_backing_name); AUTO..4K are
 * the enumerators in order. */
static int parse_backing(const char *name, enum pc_backing *out)
{
    for (int b = PC_BACKING_AUTO; b <= PC_BACKING_4K; b++) {
        if (strcmp(name, pc_backing_name((enum pc_backing)b)) == 0) {
            *out = (enum pc_backing)b;
            return 0;
        }
    }
    return -1;
}

static int in_creator(const PoolObject *p)
{
    return getpid() == p->pid;
}

/* Destroy the C pool once it is closed and no block remains. */
static void maybe_destroy(PoolObject *p)
{
    if (p->pool == NULL || !p->closed || p->live != 0)
        return;
    struct pc_pool *cp = p->pool;
    p->pool = NULL;
    if (!in_creator(p))
        return; /* a child leaves its copy of the mapping alone */
    Py_BEGIN_ALLOW_THREADS
    pc_pool_destroy(cp);
    Py_END_ALLOW_THREADS
}

static int check_usable(PoolObject *p, const char *what)
{
    if (p->closed) {
        PyErr_Format(PyExc_ValueError, "%s: the pool is closed", what);
        return -1;
    }
    if (!in_creator(p)) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s: this pool was created in process %ld; after "
                     "fork() a child must not use its parent's pool: "
                     "create a new Pool in the child",
                     what, (long)p->pid);
        return -1;
    }
    return 0;
}

static int parse_capacity(PyObject *obj, size_t *out)
{
    if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        if (s == NULL)
            return -1;
        int ret = pc_parse_size(s, out);
        if (ret < 0) {
            PyErr_Format(PyExc_ValueError,
                         "Pool: capacity %R is not a size (e.g. 4096, "
                         "\"64M\", \"1G\")", obj);
            return -1;
        }
    } else if (pci_py_size(obj, "Pool: capacity", out) < 0) {
        return -1;
    }
    if (*out == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "Pool: capacity must be at least one byte");
        return -1;
    }
    return 0;
}

/* Names of enum pc_pool_tracking, indexed by value. */
static const char *const tracking_names[] = {"auto", "off", "written"};
#define PCI_PY_NTRACKING (sizeof tracking_names / sizeof tracking_names[0])

/* tracking= and resident_max= into o; -1 with an exception set. */
static int parse_tracking(const char *tracking, PyObject *resident_obj,
                          struct pc_pool_opts *o)
{
    size_t i = 0;
    while (i < PCI_PY_NTRACKING && strcmp(tracking, tracking_names[i]) != 0)
        i++;
    if (i == PCI_PY_NTRACKING) {
        PyErr_Format(PyExc_ValueError,
                     "Pool: tracking must be \"auto\", \"off\" or "
                     "\"written\", not \"%s\"", tracking);
        return -1;
    }
    o->tracking = (enum pc_pool_tracking)i;
    if (resident_obj == NULL)
        return 0;
    if (PyLong_Check(resident_obj) && PyLong_AsLong(resident_obj) == 0)
        return 0; /* 0: no bound (parse_capacity refuses 0) */
    return parse_capacity(resident_obj, &o->resident_max);
}

static PyObject *pool_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"capacity", "policy", "backing", "populate",
                             "tracking", "resident_max", NULL};
    PyObject *capacity_obj, *resident_obj = NULL;
    const char *policy = "init_on_alloc", *backing = "auto", *tracking = "auto";
    int populate = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$sspsO:Pool", kwlist,
                                     &capacity_obj, &policy, &backing,
                                     &populate, &tracking, &resident_obj))
        return NULL;
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    if (parse_capacity(capacity_obj, &o.capacity) < 0 ||
        parse_tracking(tracking, resident_obj, &o) < 0)
        return NULL;
    size_t i = 0;
    while (i < PCI_PY_NPOLICIES && strcmp(policy, policy_names[i]) != 0)
        i++;
    if (i == PCI_PY_NPOLICIES) {
        PyErr_Format(PyExc_ValueError,
                     "Pool: policy must be \"init_on_alloc\", "
                     "\"init_on_free\" or \"background\", not \"%s\"",
                     policy);
        return NULL;
    }
    o.policy = (enum pc_pool_policy)i;
    if (parse_backing(backing, &o.backing) < 0) {
        PyErr_Format(PyExc_ValueError,
                     "Pool: backing must be \"auto\", \"hugetlb-1G\", "
                     "\"hugetlb-2M\", \"thp\" or \"4K\", not \"%s\"",
                     backing);
        return NULL;
    }
    o.populate = populate;
    PoolObject *self = (PoolObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    struct pc_pool *cp;
    int err;
    Py_BEGIN_ALLOW_THREADS
    cp = pc_pool_create(&o);
    err = errno;
    Py_END_ALLOW_THREADS
    if (cp == NULL) {
        Py_DECREF(self);
        return pci_py_error(-err, "pc_pool_create");
    }
    self->pool = cp;
    self->pid = getpid();
    self->live = 0;
    self->closed = 0;
    return (PyObject *)self;
}

static void pool_dealloc(PoolObject *self)
{
    /* Every block holds a reference, so none is left here. */
    self->closed = 1;
    maybe_destroy(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *pool_alloc(PoolObject *self, PyObject *arg)
{
    size_t n;
    if (check_usable(self, "Pool.alloc") < 0 ||
        pci_py_size(arg, "Pool.alloc: n", &n) < 0)
        return NULL;
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "Pool.alloc: n must be at least one byte");
        return NULL;
    }
    if (n > PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "Pool.alloc: n is too large");
        return NULL;
    }
    BlockObject *b = PyObject_New(BlockObject, &block_type);
    if (b == NULL)
        return NULL;
    b->owner = NULL;
    b->ptr = NULL;
    /* Counted before the GIL is released, so a close() from another
     * thread defers the destroy until this allocation is settled. */
    self->live++;
    struct pc_pool *cp = self->pool;
    void *ptr;
    int err;
    Py_BEGIN_ALLOW_THREADS
    ptr = pc_pool_alloc(cp, n);
    err = errno;
    Py_END_ALLOW_THREADS
    if (ptr == NULL) {
        self->live--;
        maybe_destroy(self);
        Py_DECREF(b);
        if (err == ENOMEM)
            return PyErr_Format(PyExc_MemoryError,
                                "Pool.alloc: no free run of %zu bytes in "
                                "the pool (exhausted or fragmented)", n);
        return pci_py_error(-err, "pc_pool_alloc");
    }
    Py_INCREF(self);
    b->owner = self;
    b->ptr = ptr;
    b->len = (Py_ssize_t)n;
    return (PyObject *)b;
}

static PyObject *pool_close(PoolObject *self, PyObject *unused)
{
    (void)unused;
    self->closed = 1;
    maybe_destroy(self);
    Py_RETURN_NONE;
}

static const char *backing_or_unknown(enum pc_backing b)
{
    const char *s = pc_backing_name(b);
    return s != NULL ? s : "unknown";
}

static PyObject *pool_stats(PoolObject *self, PyObject *unused)
{
    (void)unused;
    if (check_usable(self, "Pool.stats") < 0)
        return NULL;
    struct pc_pool_stats st;
    int ret = pc_pool_stats(self->pool, &st);
    if (ret < 0)
        return pci_py_error(ret, "pc_pool_stats");
    const char *policy = (size_t)st.policy < PCI_PY_NPOLICIES
                             ? policy_names[st.policy]
                             : "unknown";
    const char *tracking = st.tracking == PC_POOL_TRACK_OFF ? "off"
                           : st.tracking == PC_POOL_TRACK_WRITTEN ? "written"
                                                                  : "unknown";
    return Py_BuildValue(
        "{s:s,s:s,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:s}", "backing",
        backing_or_unknown(st.backing), "policy", policy, "capacity",
        (Py_ssize_t)st.capacity, "in_use", (Py_ssize_t)st.in_use, "clean",
        (Py_ssize_t)st.clean, "dirty", (Py_ssize_t)st.dirty, "allocs",
        (Py_ssize_t)st.allocs, "frees", (Py_ssize_t)st.frees, "clears",
        (Py_ssize_t)st.clears, "cleared_bytes",
        (Py_ssize_t)st.cleared_bytes, "skipped_bytes",
        (Py_ssize_t)st.skipped_bytes, "dropped_bytes",
        (Py_ssize_t)st.dropped_bytes, "resident", (Py_ssize_t)st.resident,
        "tracking", tracking);
}

static PyObject *pool_get_closed(PoolObject *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(self->closed);
}

static PyObject *pool_get_live(PoolObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromSsize_t(self->live);
}

static PyObject *pool_get_destroyed(PoolObject *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(self->pool == NULL);
}

static PyMethodDef pool_methods[] = {
    {"alloc", (PyCFunction)pool_alloc, METH_O,
     "alloc(n) -> _Block: n bytes reading as zero."},
    {"close", (PyCFunction)pool_close, METH_NOARGS,
     "close(): refuse new allocations; the C pool is destroyed when the "
     "last block is gone."},
    {"stats", (PyCFunction)pool_stats, METH_NOARGS,
     "stats() -> dict: the C pool's counters."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pool_getset[] = {
    {"closed", (getter)pool_get_closed, NULL, "close() was called.", NULL},
    {"live", (getter)pool_get_live, NULL,
     "Blocks not yet given back to the pool.", NULL},
    {"destroyed", (getter)pool_get_destroyed, NULL,
     "The C pool is gone (its memory unmapped, or given up in a child).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static void block_dealloc(BlockObject *self)
{
    PoolObject *p = self->owner;
    if (p != NULL) {
        if (p->pool != NULL && in_creator(p)) {
            struct pc_pool *cp = p->pool;
            void *ptr = self->ptr;
            int ret;
            Py_BEGIN_ALLOW_THREADS
            ret = pc_pool_free(cp, ptr);
            Py_END_ALLOW_THREADS
            if (ret < 0) {
                /* Only a bug in this module can get here. */
                pci_py_error(ret, "pc_pool_free");
                PyErr_WriteUnraisable((PyObject *)self);
            }
        }
        p->live--;
        maybe_destroy(p);
        Py_DECREF(p);
    }
    PyObject_Free(self);
}

static int block_getbuffer(BlockObject *self, Py_buffer *view, int flags)
{
    return PyBuffer_FillInfo(view, (PyObject *)self, self->ptr, self->len, 0,
                             flags);
}

static PyBufferProcs block_as_buffer = {
    .bf_getbuffer = (getbufferproc)block_getbuffer,
};

static PyObject *block_get_address(BlockObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromVoidPtr(self->ptr);
}

static PyGetSetDef block_getset[] = {
    {"address", (getter)block_get_address, NULL,
     "Start address of the allocation (for diagnostics).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static Py_ssize_t block_length(BlockObject *self)
{
    return self->len;
}

static PySequenceMethods block_as_sequence = {
    .sq_length = (lenfunc)block_length,
};

static PyTypeObject pool_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pageclear._pageclear._Pool",
    .tp_basicsize = sizeof(PoolObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_Pool(capacity, *, policy='init_on_alloc', backing='auto', "
              "populate=True, tracking='auto', resident_max=0): a pc_pool. "
              "Use pageclear.Pool.",
    .tp_new = pool_new,
    .tp_dealloc = (destructor)pool_dealloc,
    .tp_methods = pool_methods,
    .tp_getset = pool_getset,
};

static PyTypeObject block_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pageclear._pageclear._Block",
    .tp_basicsize = sizeof(BlockObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One allocation from a _Pool: a writable buffer. Its memory "
              "returns to the pool when the last reference goes.",
    .tp_dealloc = (destructor)block_dealloc,
    .tp_as_buffer = &block_as_buffer,
    .tp_as_sequence = &block_as_sequence,
    .tp_getset = block_getset,
};

int pci_py_pool_add_types(PyObject *module)
{
    if (PyType_Ready(&pool_type) < 0 || PyType_Ready(&block_type) < 0)
        return -1;
    Py_INCREF(&pool_type);
    if (PyModule_AddObject(module, "_Pool", (PyObject *)&pool_type) < 0) {
        Py_DECREF(&pool_type);
        return -1;
    }
    Py_INCREF(&block_type);
    if (PyModule_AddObject(module, "_Block", (PyObject *)&block_type) < 0) {
        Py_DECREF(&block_type);
        return -1;
    }
    return 0;
}
