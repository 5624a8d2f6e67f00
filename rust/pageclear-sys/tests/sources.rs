// SPDX-License-Identifier: MIT OR Apache-2.0
//! src/sources.list is the one list of the library's sources and flags,
//! read by CMakeLists.txt and by the build script. Checked here: the tree
//! against the list; what the build script compiled against the list; and,
//! in the repository with cmake installed, what CMake compiles against the
//! list (x86-64, arm64, another CPU, PC_PORTABLE_ONLY; gcc and clang) and
//! against what the build script compiled (files and flags).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn c_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("c")
}

/// The list's entries as (group, when, item), read independently of the
/// build script and CMake.
fn entries() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(c_root().join("src/sources.list")).unwrap();
    let lines = text.lines().map(str::trim);
    let lines = lines.filter(|l| !l.is_empty() && !l.starts_with('#'));
    lines
        .map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [g, w, i] => (g.to_string(), w.to_string(), i.to_string()),
            _ => panic!("src/sources.list: {l:?}"),
        })
        .collect()
}

/// What the list gives a build with these tags: each file with its group,
/// and each group's flags.
type Selection = (BTreeMap<String, String>, BTreeMap<String, BTreeSet<String>>);

fn selection(tags: &[&str]) -> Selection {
    let (mut files, mut flags) = (BTreeMap::new(), BTreeMap::<_, BTreeSet<_>>::new());
    for (g, w, i) in entries() {
        if w != "any" && !tags.contains(&w.as_str()) {
            continue;
        }
        if i.starts_with('-') {
            flags.entry(g).or_default().insert(i);
        } else {
            assert!(files.insert(i.clone(), g).is_none(), "{i} twice");
        }
    }
    (files, flags)
}

/// Every flag the list names.
fn list_flags() -> BTreeSet<String> {
    entries()
        .into_iter()
        .map(|e| e.2)
        .filter(|i| i.starts_with('-'))
        .collect()
}

fn c_files(dir: &Path, rel: &str, out: &mut BTreeSet<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = format!("{rel}/{}", e.file_name().to_str().unwrap());
        if e.path().is_dir() {
            c_files(&e.path(), &name, out);
        } else if name.ends_with(".c") {
            out.insert(name);
        }
    }
}

#[test]
fn every_c_file_is_listed_once_for_its_architecture() {
    let mut tree = BTreeSet::new();
    c_files(&c_root().join("src"), "src", &mut tree);
    let mut listed = BTreeSet::new();
    for (g, w, i) in entries() {
        assert!(["objects", "primitives"].contains(&g.as_str()), "group {g}");
        let tags = ["any", "x86_64", "aarch64", "portable", "gcc"];
        assert!(tags.contains(&w.as_str()), "tag {w}");
        if i.starts_with('-') {
            continue;
        }
        assert!(listed.insert(i.clone()), "{i} listed twice");
        // An architecture's directory (src/arch/x86_64, src/arch/aarch64)
        // is compiled for that architecture, and only it is.
        let dir = ["x86_64", "aarch64"]
            .into_iter()
            .find(|a| i.starts_with(&format!("src/arch/{a}/")));
        match dir {
            Some(arch) => assert_eq!(w, arch, "{i}"),
            None => assert!(w == "any" || w == "portable", "{i}: {w}"),
        }
    }
    assert_eq!(tree, listed, "C files under src/ and in src/sources.list");
    for arch in ["x86_64", "aarch64", "portable"] {
        let (files, flags) = selection(&[arch]);
        assert!(files.contains_key("src/clear.c"), "{arch}: {files:?}");
        assert!(flags["primitives"].contains("-fno-builtin"), "{arch}");
    }
}

/// The build script's record of what it compiled: file -> command line.
fn compiled() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/compiled.txt")).unwrap();
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split('\t').map(String::from);
        m.insert(words.next().unwrap(), words.collect());
    }
    m
}

fn target_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x86_64",
        "aarch64" => "aarch64",
        _ => "portable",
    }
}

#[test]
#[cfg_attr(feature = "pkg-config", ignore = "the library is not built")]
fn build_script_compiled_the_list_for_this_target() {
    let compiled = compiled();
    let (files, flags) = selection(&[target_arch()]);
    assert_eq!(
        compiled.keys().collect::<Vec<_>>(),
        files.keys().collect::<Vec<_>>()
    );
    for (file, group) in &files {
        let args: BTreeSet<&str> = compiled[file].iter().map(String::as_str).collect();
        for f in &flags[group] {
            assert!(args.contains(f.as_str()), "{file}: no {f}");
        }
        // Flags of the other group (that this group does not share) are
        // not in this one's command.
        let (_, all) = selection(&[target_arch(), "gcc"]);
        for (g, fl) in &all {
            for f in fl.iter().filter(|f| g != group && !all[group].contains(*f)) {
                assert!(!args.contains(f.as_str()), "{file}: {f}");
            }
        }
    }
}

/// Flags of one command that describe the compilation, not where files are.
fn describing_flags<'a>(words: impl Iterator<Item = &'a str>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut words = words.skip(1);
    while let Some(w) = words.next() {
        if ["-o", "-c", "-I", "-isystem"].contains(&w) {
            words.next();
        } else if w.starts_with('-') && !w.starts_with("-I") {
            out.insert(w.to_string());
        }
    }
    out
}

/// The repository around the crate, if c/ links into one.
fn repository() -> Option<PathBuf> {
    let repo = c_root()
        .join("src")
        .canonicalize()
        .ok()?
        .parent()?
        .to_path_buf();
    (repo.join("CMakeLists.txt").is_file() && repo.join("cli").is_dir()).then_some(repo)
}

/// Configure the repository with CMake; each library source with the
/// describing flags of its compile command.
fn cmake_units(repo: &Path, name: &str, args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cmake-{name}"));
    let _ = std::fs::remove_dir_all(&build);
    let out = Command::new("cmake")
        .arg("-S")
        .arg(repo)
        .arg("-B")
        .arg(&build)
        .args(["-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DPC_TESTS=OFF"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cmake {args:?}: {err}");
    let json = std::fs::read_to_string(build.join("compile_commands.json")).unwrap();
    // CMake writes one "command" and one "file" line per entry.
    let (mut units, mut cmd) = (BTreeMap::new(), String::new());
    for line in json.lines().map(str::trim) {
        if let Some(c) = line.strip_prefix("\"command\": \"") {
            cmd = c.trim_end_matches(['"', ',']).replace("\\\"", "\"");
        } else if let Some(f) = line.strip_prefix("\"file\": \"") {
            let f = Path::new(f.trim_end_matches(['"', ',']));
            // The library's units only: the preload compiles one file of
            // src/ (the cpuid reader) into itself, with its own flags.
            let library = ["pageclear_objects.dir", "pageclear_primitives.dir"];
            if let Some(rel) = f.strip_prefix(repo).ok().and_then(|r| r.to_str())
                && rel.starts_with("src/")
                && library.iter().any(|t| cmd.contains(t))
            {
                units.insert(rel.to_string(), describing_flags(cmd.split_whitespace()));
            }
        }
    }
    units
}

/// CMake's units against the list's selection for these tags.
fn assert_cmake_follows_the_list(units: &BTreeMap<String, BTreeSet<String>>, tags: &[&str]) {
    let (files, flags) = selection(tags);
    assert_eq!(
        units.keys().collect::<Vec<_>>(),
        files.keys().collect::<Vec<_>>(),
        "{tags:?}: files"
    );
    for (file, group) in &files {
        let got: BTreeSet<_> = units[file].intersection(&list_flags()).cloned().collect();
        assert_eq!(got, flags[group], "{tags:?}: list flags of {file}");
    }
}

#[test]
fn cmake_compiles_what_the_list_and_the_build_script_say() {
    let Some(repo) = repository() else {
        eprintln!("skipped: not in the repository");
        return;
    };
    if Command::new("cmake").arg("--version").output().is_err() {
        eprintln!("skipped: no cmake");
        return;
    }
    // Other architectures: CMake told it cross-compiles for them (only
    // configured, so the host's compiler does).
    for (compiler, gcc) in [("gcc", "gcc"), ("clang", "")] {
        if Command::new(compiler).arg("--version").output().is_err() {
            eprintln!("skipped {compiler}: not installed");
            continue;
        }
        let cc = format!("-DCMAKE_C_COMPILER={compiler}");
        for (cpu, arch) in [
            ("aarch64", "aarch64"),
            ("riscv64", "portable"),
            ("x86_64", "x86_64"),
        ] {
            let p = format!("-DCMAKE_SYSTEM_PROCESSOR={cpu}");
            let args = [cc.as_str(), "-DCMAKE_SYSTEM_NAME=Linux", p.as_str()];
            let units = cmake_units(&repo, &format!("{compiler}-{cpu}"), &args);
            assert_cmake_follows_the_list(&units, &[arch, gcc]);
        }
        let args = [cc.as_str(), "-DPC_PORTABLE_ONLY=ON"];
        let units = cmake_units(&repo, &format!("{compiler}-portable-only"), &args);
        assert_cmake_follows_the_list(&units, &["portable", gcc]);
        assert!(units.values().all(|f| f.contains("-DPC_PORTABLE_ONLY=1")));
    }
    if cfg!(feature = "pkg-config") {
        return;
    }
    // This target (named: the test may run under an emulator) with the
    // build script's compiler: the same files with the same flags (-Werror aside: a CMake/CI gate only). Compared are the
    // flags either side names; the cc crate's own (-ffunction-sections, -g,
    // ...) are neither's.
    let compiled = compiled();
    let cc = format!(
        "-DCMAKE_C_COMPILER={}",
        compiled.values().next().unwrap()[0]
    );
    let cpu = format!("-DCMAKE_SYSTEM_PROCESSOR={}", std::env::consts::ARCH);
    let args = [cc.as_str(), "-DCMAKE_SYSTEM_NAME=Linux", cpu.as_str()];
    let units = cmake_units(&repo, "build-script", &args);
    assert_eq!(
        units.keys().collect::<Vec<_>>(),
        compiled.keys().collect::<Vec<_>>()
    );
    let mut named = list_flags();
    named.extend(units.values().flatten().cloned());
    named.remove("-Werror");
    // Where an installed library finds the profiles shipped with the
    // command: CMake's install prefix. The crate installs no data; its
    // library keeps the built-in path (src/tuning/profile_load.c).
    named.retain(|f| !f.starts_with("-DPCI_PROFILES_DIR="));
    for (file, cmd) in &compiled {
        let ours = describing_flags(cmd.iter().map(String::as_str));
        let ours: BTreeSet<_> = ours.intersection(&named).cloned().collect();
        let theirs: BTreeSet<_> = units[file].intersection(&named).cloned().collect();
        assert_eq!(ours, theirs, "flags of {file}: build script, CMake");
        assert!(theirs.contains("-std=gnu11") && theirs.contains("-D_GNU_SOURCE"));
    }
}
