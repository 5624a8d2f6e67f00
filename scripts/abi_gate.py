#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The ABI gate: a shared library against the recorded ABI (docs/abi.md).

    abi_gate.py dump LIB HEADERS OUT    write LIB's ABI (abidw) to OUT
    abi_gate.py check RECORD LIB HEADERS
                                        compare LIB with the RECORD: exit 0
                                        if every change is compatible, 1
                                        (with abidiff's report) if not

HEADERS is the directory of the library's public headers: a type they do
not define (an opaque struct's layout, the internals) is not ABI.

abidiff (Debian's abigail-tools) judges, with two allowances, the changes
the size contract and the version script make compatible:
  - functions added at a version node after 1.0 (abi/abidiff.abignore);
  - members appended to a struct past its recorded size. abidiff 2.2 has
    no suppression that says exactly that: `has_data_member_inserted_*`
    hides every change of the struct it names, a field's type changed or
    fields reordered included. So this script first compares each struct
    of the record with the new one itself (every recorded member still
    there with the same name, offset and type, enums gaining constants
    only; the new members starting at or past the recorded size), and
    writes the suppression for the structs that pass alone. Any other
    change to a struct reaches abidiff unsuppressed and fails.
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC_SUPPRESSIONS = os.path.join(HERE, "..", "abi", "abidiff.abignore")

# What the record keeps: the exported functions and the types the public
# headers define, not where they were compiled (locations, paths) nor
# private types, so that it changes only when the ABI does; ids are hashes
# of the types, stable across builds.
ABIDW = ["abidw", "--no-show-locs", "--no-corpus-path", "--no-comp-dir-path",
         "--no-elf-needed", "--drop-undefined-syms", "--type-id-style", "hash",
         "--drop-private-types"]

TYPE_TAGS = {"type-decl", "typedef-decl", "qualified-type-def", "pointer-type-def",
             "reference-type-def", "array-type-def", "enum-decl", "class-decl",
             "union-decl", "function-type"}


def dump(lib, headers, out):
    subprocess.run(ABIDW + ["--headers-dir", headers, "--out-file", out, lib], check=True)


class Corpus:
    """The types of an abidw file, by id, and its structs by name."""

    def __init__(self, path):
        self.types = {}
        self.structs = {}
        for e in ET.parse(path).getroot().iter():
            if e.tag in TYPE_TAGS and "id" in e.attrib:
                self.types.setdefault(e.get("id"), e)
            if (e.tag == "class-decl" and e.get("is-struct") == "yes" and e.get("name")
                    and e.get("is-declaration-only") != "yes"):
                self.structs.setdefault(e.get("name"), e)


def members(struct):
    """(name, offset in bits, type id) of each data member, in order."""
    out = []
    for m in struct.findall("data-member"):
        v = m.find("var-decl")
        out.append((v.get("name"), int(m.get("layout-offset-in-bits")), v.get("type-id")))
    return out


class Compare:
    """Whether a type of the old corpus is still usable as the new one."""

    def __init__(self, old, new):
        self.old, self.new = old, new

    def same(self, oid, nid):
        o, n = self.old.types.get(oid), self.new.types.get(nid)
        if o is None or n is None or o.tag != n.tag:
            return False
        check = getattr(self, "_" + o.tag.replace("-", "_"), None)
        return check is not None and check(o, n)

    @staticmethod
    def _attrs(o, n, *names):
        return all(o.get(a) == n.get(a) for a in names)

    def _type_decl(self, o, n):
        return self._attrs(o, n, "name", "size-in-bits")

    def _typedef_decl(self, o, n):
        return self._attrs(o, n, "name") and self.same(o.get("type-id"), n.get("type-id"))

    def _qualified_type_def(self, o, n):
        return (self._attrs(o, n, "const", "volatile", "restrict")
                and self.same(o.get("type-id"), n.get("type-id")))

    def _pointer_type_def(self, o, n):
        # A pointer to a struct or union: the same one, by name (its own
        # changes are checked as that struct's).
        po, pn = self.old.types.get(o.get("type-id")), self.new.types.get(n.get("type-id"))
        if po is not None and pn is not None and po.tag in ("class-decl", "union-decl"):
            return po.tag == pn.tag and self._attrs(po, pn, "name") and bool(po.get("name"))
        return self.same(o.get("type-id"), n.get("type-id"))

    _reference_type_def = _pointer_type_def

    def _array_type_def(self, o, n):
        lens = [[s.get("length") for s in a.findall("subrange")] for a in (o, n)]
        return (self._attrs(o, n, "size-in-bits", "dimensions") and lens[0] == lens[1]
                and self.same(o.get("type-id"), n.get("type-id")))

    def _enum_decl(self, o, n):
        # Constants may be added, never changed or removed.
        new = {e.get("name"): e.get("value") for e in n.findall("enumerator")}
        return (self._attrs(o, n, "name")
                and self.same(o.find("underlying-type").get("type-id"),
                              n.find("underlying-type").get("type-id"))
                and all(new.get(e.get("name")) == e.get("value")
                        for e in o.findall("enumerator")))

    def _function_type(self, o, n):
        po, pn = o.findall("parameter"), n.findall("parameter")
        ro, rn = o.find("return"), n.find("return")
        return (len(po) == len(pn) and all(self.same(a.get("type-id"), b.get("type-id"))
                                           for a, b in zip(po, pn))
                and self.same(ro.get("type-id"), rn.get("type-id")))

    def _class_decl(self, o, n):
        # Held by value: nothing may change, not even at the end.
        mo, mn = members(o), members(n)
        return (self._attrs(o, n, "name", "size-in-bits") and len(mo) == len(mn)
                and all(a[:2] == b[:2] and self.same(a[2], b[2]) for a, b in zip(mo, mn)))

    _union_decl = _class_decl

    def appended(self, name):
        """The recorded size of struct name if it only gained members past
        it, else None (unchanged, gone, or changed otherwise)."""
        o, n = self.old.structs[name], self.new.structs.get(name)
        if n is None:
            return None
        size = int(o.get("size-in-bits"))
        mo, mn = members(o), members(n)
        if len(mn) <= len(mo) or int(n.get("size-in-bits")) <= size:
            return None
        kept = all(a[:2] == b[:2] and self.same(a[2], b[2]) for a, b in zip(mo, mn))
        past = all(off >= size for _, off, _ in mn[len(mo):])
        return size if kept and past else None


def suppressions(old, new, out):
    """Write the suppression of each struct that only grew at its end;
    return their names with the bytes they grew by."""
    cmp = Compare(old, new)
    grown = []
    with open(out, "w") as f:
        f.write("# Generated by scripts/abi_gate.py: structs that only gained members\n"
                "# past their recorded size (the size contract makes that compatible).\n")
        for name in sorted(old.structs):
            size = cmp.appended(name)
            if size is None:
                continue
            f.write("[suppress_type]\n  type_kind = struct\n  name = %s\n"
                    "  has_data_member_inserted_between = {%d, end}\n"
                    "  has_size_change = yes\n\n" % (name, size))
            grown.append("%s (+%d bytes)" % (
                name, (int(new.structs[name].get("size-in-bits")) - size) // 8))
    return grown


def added_symbols(record, new):
    def syms(path):
        root = ET.parse(path).getroot()
        return {"%s@%s" % (s.get("name"), s.get("version")) for s in root.iter("elf-symbol")
                if s.get("is-defined") == "yes"}
    return sorted(syms(new) - syms(record))


def check(record, lib, headers):
    with tempfile.TemporaryDirectory() as tmp:
        new = os.path.join(tmp, "new.abi")
        dump(lib, headers, new)
        gen = os.path.join(tmp, "appended.abignore")
        grown = suppressions(Corpus(record), Corpus(new), gen)
        cmd = ["abidiff", "--no-default-suppression", "--suppressions", STATIC_SUPPRESSIONS,
               "--suppressions", gen, record, new]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        added = added_symbols(record, new)
    if r.returncode != 0:
        sys.stdout.write(r.stdout)
        print("abi_gate: %s is not compatible with %s (abidiff exit status %d, above)"
              % (lib, record, r.returncode))
        return 1
    print("abi_gate: %s is compatible with %s" % (lib, record))
    for what, items in (("grew at the end", grown), ("added", added)):
        if items:
            print("  %s: %s" % (what, ", ".join(items)))
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "dump":
        dump(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 5 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4])
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
