//! Builds libpageclear for the crate, or finds an installed one.
//!
//! Default: compile the library from the C sources the crate carries
//! (`c/`, links into the repository: CMakeLists.txt, include/, src/) with
//! the `cc` crate. The source lists, definitions, include directories and
//! compile options are read from CMakeLists.txt by a small CMake evaluator
//! (build/cmake.rs), so this build compiles what the CMake build compiles,
//! on every architecture, and follows it when files are added.
//!
//! Feature `pkg-config`: link the libpageclear that `pkg-config pageclear`
//! finds (PKG_CONFIG_PATH, PAGECLEAR_STATIC=1 for the static library), of
//! the same MAJOR.MINOR version as the header the crate declares.
//!
//! Either way, the header in use is parsed (build/header.rs) to generate the
//! declaration and layout checks that the crate's tests run.

#[path = "build/cmake.rs"]
mod cmake;
#[path = "build/header.rs"]
mod header;

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let c_root = manifest.join("c");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=c/CMakeLists.txt");
    println!("cargo:rerun-if-changed=c/include");
    println!("cargo:rerun-if-changed=c/src");

    let include_dir = if cfg!(feature = "pkg-config") {
        link_installed(&c_root)
    } else {
        build_from_source(&c_root);
        c_root.join("include")
    };
    println!("cargo:include={}", include_dir.display());
    generate_checks(&include_dir, &out);
}

/// The header's PC_VERSION_MAJOR/MINOR: the library version the crate's
/// declarations describe.
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
    // Same MAJOR.MINOR: the declarations in src/lib.rs are this header's.
    let lib = pkg_config::Config::new()
        .range_version(
            format!("{major}.{minor}").as_str()..format!("{major}.{}", minor + 1).as_str(),
        )
        .probe("pageclear")
        .unwrap_or_else(|e| panic!("pageclear-sys (feature pkg-config): {e}"));
    lib.include_paths
        .iter()
        .find(|p| p.join("pageclear.h").is_file())
        .cloned()
        .unwrap_or_else(|| {
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

fn build_from_source(c_root: &Path) {
    let cmakelists = c_root.join("CMakeLists.txt");
    let text = fs::read_to_string(&cmakelists).unwrap_or_else(|e| {
        panic!(
            "pageclear-sys: cannot read {} ({e}); the crate must carry the C sources",
            cmakelists.display()
        )
    });
    let probe = cc::Build::new();
    let compiler = probe.get_compiler();
    let compiler_id = if compiler.is_like_clang() {
        "Clang"
    } else if compiler.is_like_gnu() {
        "GNU"
    } else {
        "Other"
    };
    let arch = env::var("CARGO_CFG_TARGET_ARCH").expect("CARGO_CFG_TARGET_ARCH");
    let os = env::var("CARGO_CFG_TARGET_OS").expect("CARGO_CFG_TARGET_OS");
    let system = if os == "linux" {
        "Linux".to_string()
    } else {
        os
    };
    let root = c_root.to_str().expect("a UTF-8 path to the C sources");
    let project = cmake::Project::evaluate(
        &text,
        &[
            ("CMAKE_SYSTEM_PROCESSOR", arch.as_str()),
            ("CMAKE_SYSTEM_NAME", system.as_str()),
            ("CMAKE_C_COMPILER_ID", compiler_id),
            ("CMAKE_CURRENT_SOURCE_DIR", root),
            ("CMAKE_SOURCE_DIR", root),
            (
                "CMAKE_CURRENT_BINARY_DIR",
                env::var("OUT_DIR").unwrap().as_str(),
            ),
        ],
    )
    .unwrap_or_else(|e| panic!("pageclear-sys: CMakeLists.txt: {e}"));

    let groups = project
        .static_library()
        .unwrap_or_else(|e| panic!("pageclear-sys: {e}"));
    let std = project.c_standard();
    let (opt, ndebug) = project.build_type();

    let mut objects = Vec::new();
    for g in &groups {
        let mut b = cc::Build::new();
        b.std(&std).pic(true);
        if !opt.is_empty() {
            b.opt_level_str(opt);
        }
        b.cargo_metadata(false);
        if ndebug {
            b.define("NDEBUG", None);
        }
        for d in &g.definitions {
            match d.split_once('=') {
                Some((k, v)) => b.define(k, v),
                None => b.define(d, None),
            };
        }
        for dir in &g.includes {
            b.include(dir);
        }
        for o in &g.options {
            // -Werror stays a CMake/CI gate: a newer compiler's new warning
            // must not break the build of a crate that depends on this one.
            if o != "-Werror" {
                b.flag(o);
            }
        }
        for s in &g.sources {
            let p = c_root.join(s);
            assert!(
                p.is_file(),
                "CMakeLists.txt lists {s}, which the crate does not carry"
            );
            b.file(p);
        }
        objects.extend(b.compile_intermediates());
    }
    let mut ar = cc::Build::new();
    ar.objects(&objects);
    ar.compile("pageclear");
    println!("cargo:rustc-link-lib=pthread");
}

/// Parse the header in use and write the two halves of the declaration and
/// layout check (see build/header.rs); compile the C half into its own
/// archive, which only the crate's tests reference.
fn generate_checks(include_dir: &Path, out: &Path) {
    let path = include_dir.join("pageclear.h");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let _ = header_version(&text);
    let h = header::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let layout = out.join("pageclear_sys_layout.c");
    fs::write(&layout, header::layout_c(&h, "pageclear_sys_layout")).expect("write layout.c");
    let rs = header::check_rs(&h, "::pageclear_sys")
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    fs::write(out.join("header_check.rs"), rs).expect("write header_check.rs");
    cc::Build::new()
        .file(&layout)
        .include(include_dir)
        .warnings(false)
        .compile("pageclear_sys_layout");
    // For the tests: which header the checks were generated from.
    println!("cargo:rustc-env=PAGECLEAR_SYS_HEADER={}", path.display());
}
