/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * numa.c - the NUMA nodes that have CPUs, read from sysfs, so the
 * parallel workers can be spread over them.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numa.h"

/* Parse a cpulist such as "0-3,8,10-11" into *set. Returns CPUs found. */
int pci_parse_cpulist(const char *s, cpu_set_t *set)
{
    int n = 0;
    CPU_ZERO(set);
    while (*s != '\0' && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s || a < 0)
            return -1;
        b = a;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a)
                return -1;
            s = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++) {
            CPU_SET((int)c, set);
            n++;
        }
        if (*s == ',')
            s++;
        else if (*s != '\0' && *s != '\n')
            return -1;
    }
    return n;
}

int pci_numa_read(const char *root, struct pci_numa *out)
{
    DIR *d = opendir(root);
    struct dirent *e;
    out->nodes = 0;
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL && out->nodes < PCI_NUMA_MAX) {
        char *end;
        if (strncmp(e->d_name, "node", 4) != 0)
            continue;
        long id = strtol(e->d_name + 4, &end, 10);
        if (end == e->d_name + 4 || *end != '\0' || id < 0 || id > 1 << 20)
            continue;
        char path[512], line[4096];
        snprintf(path, sizeof(path), "%s/%s/cpulist", root, e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        int ok = fgets(line, sizeof(line), f) != NULL;
        fclose(f);
        if (ok && pci_parse_cpulist(line, &out->cpus[out->nodes]) > 0)
            out->id[out->nodes++] = (int)id; /* memory-only nodes have no
                                                CPUs to place work on */
    }
    closedir(d);
    return out->nodes;
}

static struct pci_numa machine;
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static void read_machine(void)
{
    if (pci_numa_read("/sys/devices/system/node", &machine) == 0)
        machine.nodes = 1; /* no sysfs view: treat as one node, no pinning */
}

const struct pci_numa *pci_numa(void)
{
    pthread_once(&machine_once, read_machine);
    return &machine;
}
