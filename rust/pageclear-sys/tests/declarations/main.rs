// SPDX-License-Identifier: MIT OR Apache-2.0
//! The declarations of src/lib.rs against the header they bind, as the C
//! compiler sees them, without parsing C. From the lists of lists.rs (which
//! compile only if they are src/lib.rs's declarations):
//! - a C file generated from them is compiled against the header in use
//!   (the crate's copy, or the installed one with feature `pkg-config`):
//!   static assertions that each struct's size, alignment and field offsets
//!   are Rust's, that each field, function and typedef has the C spelling
//!   of the listed Rust type, and that each constant has Rust's value; and
//!   per struct an initialiser with one value per listed field, a field
//!   the list lacks making it an error;
//! - every name the header declares (found line by line: `PC_API`
//!   functions, `#define`s, enum constants, structs, enums, typedefs) is in
//!   the lists.
//!
//! `checks_fail_when_the_header_differs` shows each check failing on a
//! changed copy of the header.

mod lists;

use lists::{Function, OPAQUE, constants, enums, functions, structs, typedefs};
use pageclear_sys::{PC_VERSION_MAJOR, PC_VERSION_MINOR, PC_VERSION_PATCH, pc_version};
use std::collections::BTreeSet;
use std::ffi::CStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C spelling of a Rust type of the lists.
fn c_type(rust: &str) -> String {
    let rust = rust.trim();
    if let Some(t) = rust.strip_prefix("*const ") {
        return format!("{} const *", c_type(t));
    }
    if let Some(t) = rust.strip_prefix("*mut ") {
        return format!("{} *", c_type(t));
    }
    if let Some((t, n)) = rust
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']')?.split_once(';'))
    {
        return format!("{}[{}]", c_type(t), n.trim());
    }
    let enums: Vec<&str> = enums().into_iter().map(|e| e.0).collect();
    let mut structs: Vec<&str> = structs().into_iter().map(|s| s.0).collect();
    structs.extend(OPAQUE);
    let typedefs: Vec<&str> = typedefs().into_iter().map(|t| t.0).collect();
    match rust {
        "" | "()" | "c_void" => "void".into(),
        "c_char" => "char".into(),
        "c_int" => "int".into(),
        "c_uint" => "unsigned int".into(),
        "usize" => "size_t".into(),
        _ if enums.contains(&rust) => format!("enum {rust}"),
        _ if structs.contains(&rust) => format!("struct {rust}"),
        _ if typedefs.contains(&rust) => rust.into(),
        _ => panic!("no C spelling for the Rust type {rust}: add one to c_type"),
    }
}

/// The C spelling of a pointer to a function of the listed type.
fn c_fn_pointer((_, params, ret): &Function) -> String {
    let p: Vec<String> = params.iter().map(|p| c_type(p)).collect();
    let p = if p.is_empty() {
        "void".into()
    } else {
        p.join(", ")
    };
    format!("{} (*)({p})", c_type(ret))
}

/// A C literal of a Rust value.
fn c_value(v: i128) -> String {
    if v < 0 {
        format!("({v}LL)")
    } else {
        format!("{v}ULL")
    }
}

/// The C half of the check: static assertions of what Rust says.
fn check_c() -> String {
    let mut c = String::from("#include <stddef.h>\n#include <pageclear.h>\n");
    c.push_str("#define SAME(a, b) __builtin_types_compatible_p(a, b)\n");
    let mut assert = |cond: String, what: String| {
        let _ = writeln!(c, "_Static_assert({cond}, \"{what} in Rust\");");
    };
    for (s, size, align, fields) in structs() {
        assert(
            format!("sizeof(struct {s}) == {size}"),
            format!("{s}: size {size}"),
        );
        assert(
            format!("_Alignof(struct {s}) == {align}"),
            format!("{s}: alignment {align}"),
        );
        for (f, t, off) in &fields {
            let ct = c_type(t);
            assert(
                format!("offsetof(struct {s}, {f}) == {off}"),
                format!("{s}.{f}: offset {off}"),
            );
            assert(
                format!("SAME(__typeof__(((struct {s} *)0)->{f}), {ct})"),
                format!("{s}.{f}: {t}"),
            );
        }
    }
    for (e, size, constants) in enums() {
        assert(
            format!("sizeof(enum {e}) == {size}"),
            format!("enum {e}: size {size}"),
        );
        for (k, v) in constants {
            assert(format!("({k}) == {}", c_value(v)), format!("{k}: {v}"));
        }
    }
    for (k, v) in constants() {
        assert(format!("({k}) == {}", c_value(v)), format!("{k}: {v}"));
    }
    for t in typedefs() {
        let want = c_fn_pointer(&t);
        assert(format!("SAME({}, {want})", t.0), format!("{}: {want}", t.0));
    }
    for f in functions() {
        let want = c_fn_pointer(&f);
        assert(
            format!("SAME(__typeof__(&{}), {want})", f.0),
            format!("{}: {want}", f.0),
        );
    }
    // One value per listed field: a field the list lacks has none, which
    // -Werror=missing-field-initializers makes an error.
    for (s, _, _, fields) in structs() {
        let values: Vec<&str> = fields
            .iter()
            .map(|f| if f.1.starts_with('[') { "{0}" } else { "0" })
            .collect();
        let _ = writeln!(c, "struct {s} pc_fields_{s} = {{ {} }};", values.join(", "));
    }
    c
}

/// Compile the C half against the header in `include`, with the compiler
/// the build script uses; the compiler's messages on failure.
fn compile_check(include: &Path, name: &str) -> Result<(), String> {
    let cc = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/cc.txt")).unwrap();
    let mut words = cc.trim_end_matches('\n').split('\t');
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.c"));
    std::fs::write(&file, check_c()).unwrap();
    let out = Command::new(words.next().unwrap())
        .args(words)
        .args([
            "-std=gnu11",
            "-fsyntax-only",
            "-Werror=missing-field-initializers",
            "-I",
        ])
        .arg(include)
        .arg(&file)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The names a header declares, found line by line.
fn header_names(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("PC_API ") {
            let paren = rest
                .find('(')
                .expect("a PC_API declaration's name and '(' on one line");
            names.insert(rest[..paren].rsplit([' ', '*']).next().unwrap().to_string());
        } else if let Some(rest) = line.strip_prefix("#define ") {
            names.insert(ident(rest));
        } else if let Some(rest) = line.strip_prefix("struct ").or(line.strip_prefix("enum ")) {
            let name = ident(rest);
            let after = rest[name.len()..].trim();
            if after.starts_with('{') || after == ";" {
                names.insert(name);
            }
        } else if let Some(at) = line.strip_prefix("typedef ").and_then(|l| l.find("(*")) {
            names.insert(ident(&line["typedef ".len() + at + 2..]));
        } else if line.starts_with("PC_") && line.contains('=') {
            names.insert(ident(line));
        }
    }
    names.retain(|n| n.starts_with("pc_") || n.starts_with("PC_"));
    names.remove("PC_API");
    names
}

fn listed_names() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = OPAQUE.iter().map(|s| s.to_string()).collect();
    names.extend(structs().into_iter().map(|s| s.0.to_string()));
    for (e, _, constants) in enums() {
        names.insert(e.to_string());
        names.extend(constants.into_iter().map(|c| c.0.to_string()));
    }
    names.extend(constants().into_iter().map(|c| c.0.to_string()));
    names.extend(
        typedefs()
            .into_iter()
            .chain(functions())
            .map(|f| f.0.to_string()),
    );
    names
}

fn header_in_use() -> (PathBuf, String) {
    let dir = PathBuf::from(env!("PAGECLEAR_SYS_INCLUDE"));
    let text = std::fs::read_to_string(dir.join("pageclear.h")).unwrap();
    (dir, text)
}

#[test]
fn declarations_match_the_header_in_use() {
    let (dir, _) = header_in_use();
    if let Err(e) = compile_check(&dir, "declarations") {
        panic!(
            "src/lib.rs and {} disagree:\n{e}",
            dir.join("pageclear.h").display()
        );
    }
}

#[test]
fn every_name_the_header_declares_is_listed() {
    let (dir, text) = header_in_use();
    let header = header_names(&text);
    assert!(
        header.contains("pc_clear") && header.contains("pc_host") && header.contains("PC_NEVER")
    );
    assert_eq!(
        header,
        listed_names(),
        "names of {} and of the lists",
        dir.display()
    );
}

/// The header in use with `from` (which must occur once) replaced by `to`.
fn changed_header(from: &str, to: &str) -> String {
    let (_, text) = header_in_use();
    assert_eq!(text.matches(from).count(), 1, "{from:?} in the header");
    text.replace(from, to)
}

#[test]
fn checks_fail_when_the_header_differs() {
    let cases = [
        (
            "size_t unit;\n    enum pc_preempt",
            "unsigned unit;\n    enum pc_preempt",
            "pc_batch.unit",
        ),
        (
            "size_t allocs, frees;",
            "size_t frees, allocs;",
            "pc_pool_stats.allocs",
        ),
        ("char vendor[16];", "char vendor[32];", "pc_host.vendor"),
        (
            "enum pc_pool_tracking tracking; /* AUTO",
            "enum pc_pool_tracking tracking; int extra; /* AUTO",
            "extra",
        ),
        (
            "int pc_clear(void *addr, size_t len)",
            "int pc_clear(void *addr, unsigned len)",
            "pc_clear",
        ),
        (
            "size_t pc_impl_count(void)",
            "int pc_impl_count(void)",
            "pc_impl_count",
        ),
        (
            "pc_pool_create(const struct",
            "pc_pool_create(struct",
            "pc_pool_create",
        ),
        ("int pc_tuning_set(", "int pc_tuning_put(", "pc_tuning_set"),
        (
            "size_t done, size_t total",
            "size_t done, unsigned total",
            "pc_resched_fn",
        ),
        ("((size_t)4096)", "((size_t)8192)", "PC_PAGE_SIZE"),
        ("PC_BACKING_4K = 4", "PC_BACKING_4K = 5", "PC_BACKING_4K"),
    ];
    for (i, (from, to, named)) in cases.into_iter().enumerate() {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("changed-{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pageclear.h"), changed_header(from, to)).unwrap();
        match compile_check(&dir, &format!("changed-{i}")) {
            Ok(()) => panic!("{from:?} -> {to:?}: the check passed"),
            Err(e) => assert!(
                e.contains(named),
                "{from:?} -> {to:?}: not about {named}:\n{e}"
            ),
        }
    }
    let end = "#ifdef __cplusplus\n}";
    let added = [
        (
            end,
            "PC_API int pc_new(int x);\n#ifdef __cplusplus\n}",
            "pc_new",
        ),
        (
            end,
            "struct pc_new { int a; };\n#ifdef __cplusplus\n}",
            "pc_new",
        ),
        (
            "#define PC_NEVER",
            "#define PC_NEW 1\n#define PC_NEVER",
            "PC_NEW",
        ),
        (
            "PC_BACKING_4K = 4",
            "PC_BACKING_4K = 4,\n    PC_BACKING_NEW = 5",
            "PC_BACKING_NEW",
        ),
    ];
    for (from, to, name) in added {
        let new: Vec<String> = header_names(&changed_header(from, to))
            .difference(&listed_names())
            .cloned()
            .collect();
        assert_eq!(new, [name], "{to:?}");
    }
}

#[test]
fn library_version_is_the_headers() {
    // SAFETY: pc_version returns a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(pc_version()) }.to_str().unwrap();
    let want = format!("{PC_VERSION_MAJOR}.{PC_VERSION_MINOR}.{PC_VERSION_PATCH}");
    assert_eq!(v, want);
}
