/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_present.c - clear_present: pc_clear_present on a contiguous writable
 * buffer, its report as a dict.
 */
#include "py_module.h"

#include <errno.h>

/* enum pc_present_why, by value. */
static const char *const why_names[] = {
    "proven", "no_scan", "refused", "no_maps", "file",
    "shared", "hugetlb", "userfaultfd", "no_uffd_info",
};
#define NWHY (sizeof(why_names) / sizeof(why_names[0]))

/* pc_present_report.used, bit by bit. */
static const struct {
    int bit;
    const char *name;
} used_names[] = {
    {PC_PRESENT_USED_PROCMAP_QUERY, "procmap_query"},
    {PC_PRESENT_USED_MAPS, "maps"},
    {PC_PRESENT_USED_SCAN, "scan"},
    {PC_PRESENT_USED_SMAPS, "smaps"},
    {PC_PRESENT_USED_POPULATE, "populate"},
};

static PyObject *used_tuple(int used)
{
    size_t n = sizeof(used_names) / sizeof(used_names[0]), k = 0;
    PyObject *t = PyTuple_New((Py_ssize_t)(n));
    if (t == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(used & used_names[i].bit))
            continue;
        PyObject *s = PyUnicode_FromString(used_names[i].name);
        if (s == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)k++, s);
    }
    if (_PyTuple_Resize(&t, (Py_ssize_t)k) < 0)
        return NULL;
    return t;
}

static PyObject *report_dict(const struct pc_present_report *r, int refused)
{
    PyObject *used = used_tuple(r->used);
    if (used == NULL)
        return NULL;
    PyObject *why = (unsigned)r->why < NWHY ? PyUnicode_FromString(why_names[r->why])
                                             : PyUnicode_FromFormat("unknown(%d)", (int)r->why);
    if (why == NULL) {
        Py_DECREF(used);
        return NULL;
    }
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:N,s:i,s:i,s:N,s:O}", "skipped",
                         (Py_ssize_t)r->skipped, "cleared", (Py_ssize_t)r->cleared, "populated",
                         (Py_ssize_t)r->populated, "unproven", (Py_ssize_t)r->unproven, "why",
                         why, "error", r->error, "populate_error", r->populate_error, "used",
                         used, "refused", refused ? Py_True : Py_False);
}

static PyObject *py_clear_present(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"buf", "no_fallback", "dry_run", "populate", NULL};
    PyObject *obj;
    int no_fallback = 0, dry_run = 0, populate = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$ppp:clear_present", kwlist, &obj,
                                     &no_fallback, &dry_run, &populate))
        return NULL;
    Py_buffer v;
    if (pci_py_get_buffer(obj, &v, "clear_present", 1) < 0)
        return NULL;
    int flags = (no_fallback ? PC_PRESENT_NO_FALLBACK : 0) | (dry_run ? PC_PRESENT_DRY_RUN : 0) |
                (populate ? PC_PRESENT_POPULATE : 0);
    struct pc_present_report r;
    memset(&r, 0, sizeof(r));
    int ret;
    void *base = v.buf;
    size_t len = (size_t)v.len;
    Py_BEGIN_ALLOW_THREADS
    ret = pc_clear_present(base, len, flags, &r);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    if (ret < 0 && ret != -ENOTSUP)
        return pci_py_error(ret, "pc_clear_present");
    return report_dict(&r, ret == -ENOTSUP);
}

PyMethodDef pci_py_present_methods[] = {
    {"clear_present", PCI_PY_KW(py_clear_present), METH_VARARGS | METH_KEYWORDS,
     "clear_present(buf, *, no_fallback=False, dry_run=False, populate=False) -> "
     "dict: zero a contiguous writable buffer, skipping (or, with populate, "
     "faulting in) the pages the kernel has not handed out (since 1.1)."},
    {NULL, NULL, 0, NULL},
};
