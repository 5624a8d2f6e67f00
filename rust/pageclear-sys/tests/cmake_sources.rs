//! The build script compiles what CMakeLists.txt says, read by
//! build/cmake.rs. These tests check that reading: against the tree (every
//! C file is compiled on some architecture, architecture files only on
//! theirs) and, where cmake is installed and the crate sits in the
//! repository, against CMake's own compile commands.

#[path = "../build/cmake.rs"]
#[allow(dead_code)]
mod cmake;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn c_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("c")
}

fn evaluate(arch: &str, compiler: &str, extra: &[(&str, &str)]) -> cmake::Project {
    let text = std::fs::read_to_string(c_root().join("CMakeLists.txt")).unwrap();
    let root = c_root().to_str().unwrap().to_string();
    let mut preset = vec![
        ("CMAKE_SYSTEM_PROCESSOR", arch),
        ("CMAKE_SYSTEM_NAME", "Linux"),
        ("CMAKE_C_COMPILER_ID", compiler),
        ("CMAKE_CURRENT_SOURCE_DIR", root.as_str()),
    ];
    preset.extend_from_slice(extra);
    cmake::Project::evaluate(&text, &preset).unwrap()
}

fn sources(p: &cmake::Project) -> BTreeSet<String> {
    p.static_library()
        .unwrap()
        .into_iter()
        .flat_map(|g| g.sources)
        .collect()
}

fn c_files(dir: &Path, rel: &str, out: &mut BTreeSet<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = format!("{rel}/{}", e.file_name().to_str().unwrap());
        if e.file_type().unwrap().is_dir() || e.path().is_dir() {
            c_files(&e.path(), &name, out);
        } else if name.ends_with(".c") {
            out.insert(name);
        }
    }
}

#[test]
fn every_source_is_built_on_some_architecture_and_arch_files_only_on_theirs() {
    let configs = [
        ("x86_64", "x86_64"),
        ("aarch64", "aarch64"),
        ("riscv64", ""),
    ];
    let mut union = BTreeSet::new();
    for (arch, dir) in configs {
        let s = sources(&evaluate(arch, "GNU", &[]));
        assert!(
            s.contains("src/clear.c") && s.contains("src/generic/generic.c"),
            "{arch}: {s:?}"
        );
        for f in &s {
            assert!(c_root().join(f).is_file(), "{arch}: {f} does not exist");
            if let Some(rest) = f.strip_prefix("src/arch/") {
                let a = rest.split('/').next().unwrap();
                let generic = a.ends_with(".c");
                assert!(
                    if dir.is_empty() { generic } else { a == dir },
                    "{arch} compiles {f}"
                );
            }
        }
        union.extend(s);
    }
    let mut all = BTreeSet::new();
    c_files(&c_root().join("src"), "src", &mut all);
    assert_eq!(
        union, all,
        "C files no architecture compiles (or compiled files missing)"
    );
}

#[test]
fn portable_only_option_is_read() {
    let s = sources(&evaluate("x86_64", "GNU", &[("PC_PORTABLE_ONLY", "ON")]));
    assert!(s.contains("src/arch/generic_cpu.c"));
    assert!(!s.iter().any(|f| f.contains("x86_64")), "{s:?}");
    let p = evaluate("x86_64", "GNU", &[("PC_PORTABLE_ONLY", "ON")]);
    assert!(p.definitions.iter().any(|d| d == "PC_PORTABLE_ONLY=1"));
}

#[test]
fn primitives_get_their_flags_and_gcc_only_flags_follow_the_compiler() {
    for (compiler, want_gcc_flag) in [("GNU", true), ("Clang", false)] {
        let groups = evaluate("x86_64", compiler, &[]).static_library().unwrap();
        let prim = groups
            .iter()
            .find(|g| g.sources.iter().any(|s| s.contains("generic.c")))
            .unwrap();
        let lib = groups
            .iter()
            .find(|g| g.sources.iter().any(|s| s == "src/clear.c"))
            .unwrap();
        assert!(prim.options.iter().any(|o| o == "-fno-builtin"));
        assert!(!lib.options.iter().any(|o| o == "-fno-builtin"));
        let has = prim
            .options
            .iter()
            .any(|o| o == "-fno-tree-loop-distribute-patterns");
        assert_eq!(has, want_gcc_flag, "{compiler}: {:?}", prim.options);
        for g in &groups {
            assert!(g.options.iter().any(|o| o == "-fvisibility=hidden"));
            assert!(g.definitions.iter().any(|d| d == "_GNU_SOURCE"));
        }
    }
    let p = evaluate("x86_64", "GNU", &[]);
    assert_eq!(p.c_standard(), "gnu11");
    assert_eq!(p.build_type(), ("3", true));
}

#[test]
fn evaluator_handles_conditions_loops_and_refuses_what_it_cannot_read() {
    let text = r#"
        set(A x) # comment
        option(OPT "doc" OFF)
        if(NOT OPT AND (A STREQUAL "x" OR FALSE))
          list(APPEND L one)
        elseif(1)
          list(APPEND L wrong)
        else()
          list(APPEND L wrong2)
        endif()
        foreach(i two three)
          list(APPEND L ${i})
        endforeach()
        if(P MATCHES "^(a|bb)$")
          list(APPEND L four)
        endif()
    "#;
    let p = cmake::Project::evaluate(text, &[("P", "bb")]).unwrap();
    assert_eq!(p.list("L"), ["one", "two", "three", "four"]);
    let p = cmake::Project::evaluate(text, &[("P", "bbb"), ("OPT", "ON")]).unwrap();
    assert_eq!(p.list("L"), ["wrong", "two", "three"]);
    assert!(cmake::Project::evaluate("if(X VERSION_LESS 3)\nendif()", &[]).is_err());
    assert!(cmake::Project::evaluate("if(X MATCHES \"a+\")\nendif()", &[]).is_err());
    assert!(cmake::Project::evaluate("if(X)\n", &[]).is_err());
}

/// Flags of one compile command that describe the compilation (not where
/// files are): everything but the compiler, -I, -o and -c.
fn describing_flags(cmd: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut it = cmd.split_whitespace().skip(1);
    while let Some(w) = it.next() {
        match w {
            "-o" | "-c" | "-I" | "-isystem" => {
                it.next();
            }
            _ if w.starts_with("-I") => {}
            _ if w.starts_with('-') => {
                out.insert(w.to_string());
            }
            _ => {}
        }
    }
    out
}

#[test]
fn same_files_and_flags_as_cmakes_compile_commands() {
    // Only in the repository (c/ links into it) and with cmake installed;
    // a packaged crate has no CMake project around it to compare with.
    let Ok(repo) = c_root().join("CMakeLists.txt").canonicalize() else {
        return;
    };
    let repo = repo.parent().unwrap().to_path_buf();
    if !repo.join("cli").is_dir() || Command::new("cmake").arg("--version").output().is_err() {
        eprintln!("skipped: not in the repository or no cmake");
        return;
    }
    for compiler in ["gcc", "clang"] {
        if Command::new(compiler).arg("--version").output().is_err() {
            eprintln!("skipped {compiler}: not installed");
            continue;
        }
        let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cmake-{compiler}"));
        let _ = std::fs::remove_dir_all(&build);
        let st = Command::new("cmake")
            .args(["-S", repo.to_str().unwrap(), "-B", build.to_str().unwrap()])
            .args(["-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DPC_TESTS=OFF"])
            .arg(format!("-DCMAKE_C_COMPILER={compiler}"))
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        let json = std::fs::read_to_string(build.join("compile_commands.json")).unwrap();
        // CMake writes one "command" and one "file" line per entry.
        let mut cmake_units = BTreeMap::new();
        let mut cmd = None;
        for line in json.lines().map(str::trim) {
            if let Some(c) = line.strip_prefix("\"command\": \"") {
                cmd = Some(c.trim_end_matches(['"', ',']).replace("\\\"", "\""));
            } else if let Some(f) = line.strip_prefix("\"file\": \"") {
                let f = f.trim_end_matches(['"', ',']);
                let rel = Path::new(f)
                    .strip_prefix(&repo)
                    .ok()
                    .and_then(|r| r.to_str());
                if let Some(rel) = rel.filter(|r| r.starts_with("src/")) {
                    cmake_units.insert(rel.to_string(), describing_flags(cmd.as_ref().unwrap()));
                }
            }
        }
        let id = if compiler == "gcc" { "GNU" } else { "Clang" };
        let p = evaluate(std::env::consts::ARCH, id, &[]);
        let (opt, ndebug) = p.build_type();
        let mut ours = BTreeMap::new();
        for g in p.static_library().unwrap() {
            for s in &g.sources {
                let mut f: BTreeSet<String> = g.options.iter().cloned().collect();
                f.extend(g.definitions.iter().map(|d| format!("-D{d}")));
                f.insert(format!("-std={}", p.c_standard()));
                f.insert(format!("-O{opt}"));
                if ndebug {
                    f.insert("-DNDEBUG".into());
                }
                f.insert("-fPIC".into());
                ours.insert(s.clone(), f);
            }
        }
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            cmake_units.keys().collect::<Vec<_>>(),
            "{compiler}: files"
        );
        for (file, flags) in &ours {
            assert_eq!(flags, &cmake_units[file], "{compiler}: flags of {file}");
        }
    }
}
