// SPDX-License-Identifier: MIT OR Apache-2.0
//! Builds libpageclear for the crate, or finds an installed one.
//!
//! Default: compile the C sources the crate carries (`c/`, links into the
//! repository: include/, src/) with the `cc` crate, as `src/sources.list`
//! says: which files and flags make up each group (the library objects, the
//! primitives) for the target architecture and compiler. CMakeLists.txt
//! reads the same list; `tests/sources.rs` checks that both compile the same
//! files with the same flags.
//!
//! Feature `pkg-config`: link the libpageclear that `pkg-config pageclear`
//! finds (PKG_CONFIG_PATH, PAGECLEAR_STATIC=1 for the static library), of
//! the same MAJOR version as the header the crate declares and at least its
//! MINOR (docs/abi.md: a later 1.x library has every 1.0 function).
//!
//! For the tests, either way: `PAGECLEAR_SYS_INCLUDE` names the directory
//! of the header in use, and `OUT_DIR/cc.txt` the C compiler to check the
//! declarations against it with (`tests/declarations/`).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let c_root = manifest.join("c");
    println!("cargo:rerun-if-changed=c/include");
    println!("cargo:rerun-if-changed=c/src");

    let include_dir = if cfg!(feature = "pkg-config") {
        link_installed(&c_root)
    } else {
        build_from_source(&c_root, &out);
        c_root.join("include")
    };
    println!("cargo:include={}", include_dir.display());
    println!(
        "cargo:rustc-env=PAGECLEAR_SYS_INCLUDE={}",
        include_dir.display()
    );
    let cc = cc::Build::new().get_compiler();
    let line = command_line(cc.path(), cc.args());
    fs::write(out.join("cc.txt"), line + "\n").expect("write cc.txt");
}

/// A compiler and its arguments, tab-separated (paths may hold blanks).
fn command_line(path: &Path, args: &[std::ffi::OsString]) -> String {
    let mut s = path.display().to_string();
    for a in args {
        s.push('\t');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// The entries of src/sources.list that apply to a build with these tags,
/// as (group, item): an entry applies when its WHEN column is `any` or one
/// of the tags. A line that is not `GROUP WHEN ITEM` with a known group and
/// tag stops the build (CMake refuses the same lines).
fn entries<'a>(list: &'a str, tags: &[&str]) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    for line in list.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [group, when, item] = words[..] else {
            panic!("src/sources.list: cannot read {line:?}");
        };
        let known = ["any", "x86_64", "aarch64", "portable", "gcc"];
        if !["objects", "primitives"].contains(&group) || !known.contains(&when) {
            panic!("src/sources.list: cannot read {line:?}");
        }
        if when == "any" || tags.contains(&when) {
            out.push((group, item));
        }
    }
    out
}

fn build_from_source(c_root: &Path, out: &Path) {
    let path = c_root.join("src/sources.list");
    let list = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "pageclear-sys: cannot read {} ({e}); the crate must carry the C sources",
            path.display()
        )
    });
    // The tags CMakeLists.txt gives the same build.
    let arch = match env::var("CARGO_CFG_TARGET_ARCH").unwrap().as_str() {
        "x86_64" => "x86_64",
        "aarch64" => "aarch64",
        _ => "portable",
    };
    let mut tags = vec![arch];
    if cc::Build::new().get_compiler().is_like_gnu() {
        tags.push("gcc");
    }
    let entries = entries(&list, &tags);
    // The include path: src/ and the folder of every listed source
    // (src/tuning, src/pool, ...), as CMakeLists.txt has it, since a
    // source names an internal header by its name alone.
    let mut include_dirs = vec![c_root.join("src")];
    for &(_, item) in entries.iter().filter(|(_, i)| !i.starts_with('-')) {
        let dir = c_root.join(item).parent().map(Path::to_path_buf);
        if let Some(d) = dir.filter(|d| !include_dirs.contains(d)) {
            include_dirs.push(d);
        }
    }

    // For tests/sources.rs: each file with the command line compiling it.
    let mut compiled = String::new();
    let mut objects = Vec::new();
    for group in ["objects", "primitives"] {
        let mut b = cc::Build::new();
        // What CMakeLists.txt sets for the whole project: C11 with GNU
        // extensions, _GNU_SOURCE, position-independent code, and its
        // default Release optimisation whatever the Cargo profile (the
        // library's speed is the point). -Werror stays a CMake/CI gate: a
        // newer compiler's new warning must not break the build of a crate
        // that depends on this one.
        b.std("gnu11")
            .define("_GNU_SOURCE", None)
            .define("NDEBUG", None)
            .opt_level(3)
            .pic(true)
            .include(c_root.join("include"))
            .includes(&include_dirs)
            .cargo_metadata(false);
        let mut files = Vec::new();
        for &(g, item) in entries.iter().filter(|(g, _)| *g == group) {
            if item.starts_with('-') {
                b.flag(item);
            } else {
                let p = c_root.join(item);
                assert!(
                    p.is_file(),
                    "src/sources.list lists {item}, which the crate does not carry ({g})"
                );
                b.file(p);
                files.push(item);
            }
        }
        let cc = b.get_compiler();
        for f in files {
            let _ = writeln!(compiled, "{f}\t{}", command_line(cc.path(), cc.args()));
        }
        objects.extend(b.compile_intermediates());
    }
    fs::write(out.join("compiled.txt"), compiled).expect("write compiled.txt");
    cc::Build::new().objects(&objects).compile("pageclear");
    println!("cargo:rustc-link-lib=pthread");
}

/// The header's PC_VERSION_MAJOR/MINOR: the library version the crate's
/// declarations describe.
#[cfg(feature = "pkg-config")]
fn header_version(header: &str) -> (u32, u32) {
    let get = |name: &str| -> u32 {
        header
            .lines()
            .find_map(|l| l.trim().strip_prefix("#define ")?.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("pageclear.h has no numeric {name}"))
    };
    (get("PC_VERSION_MAJOR"), get("PC_VERSION_MINOR"))
}

#[cfg(feature = "pkg-config")]
fn link_installed(c_root: &Path) -> PathBuf {
    let bundled = fs::read_to_string(c_root.join("include/pageclear.h"))
        .expect("the crate's copy of pageclear.h");
    let (major, minor) = header_version(&bundled);
    // The declarations in src/lib.rs are this header's: any library of the
    // same MAJOR from this MINOR on exports them all (docs/abi.md).
    let lib = pkg_config::Config::new()
        .range_version(format!("{major}.{minor}").as_str()..format!("{}", major + 1).as_str())
        .probe("pageclear")
        .unwrap_or_else(|e| panic!("pageclear-sys (feature pkg-config): {e}"));
    let found = lib
        .include_paths
        .iter()
        .find(|p| p.join("pageclear.h").is_file());
    found.cloned().unwrap_or_else(|| {
        panic!(
            "pkg-config pageclear: no pageclear.h in {:?}",
            lib.include_paths
        )
    })
}

#[cfg(not(feature = "pkg-config"))]
fn link_installed(_: &Path) -> PathBuf {
    unreachable!("only called with the pkg-config feature")
}
