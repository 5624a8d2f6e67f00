// SPDX-License-Identifier: MIT OR Apache-2.0
//! Host facts, selection names, primitives, sizes and profiles.

use pageclear::{Cache, ErrorKind, Tuning};

#[test]
fn host_facts_are_consistent_with_the_other_queries() {
    let h = pageclear::host();
    assert!(!h.vendor.is_empty());
    assert_eq!(h.unit, pageclear::default_unit());
    assert!(h.numa_nodes >= 1);
    assert!(h.vector_max > 0);
    assert!(!h.profile_status.is_empty() || h.profile.is_none());
    // Every feature is one word, and the architecture is among them.
    assert!(h.features.iter().all(|f| !f.is_empty() && !f.contains(' ')));
    let arch = match std::env::consts::ARCH {
        "x86_64" => Some("x86-64"),
        "aarch64" => Some("aarch64"),
        _ => None,
    };
    if let Some(a) = arch {
        assert!(h.features.iter().any(|f| f == a), "{:?}", h.features);
    }
    if let Some(forced) = &h.forced {
        assert!(pageclear::primitive(forced).is_some());
    }
}

#[test]
fn selected_names_are_supported_primitives() {
    let prims = pageclear::primitives();
    for len in [0, 1, 64, 4096, 1 << 20, 64 << 20, 1 << 30, usize::MAX] {
        for name in [pageclear::selected(len), pageclear::selected_cold(len)] {
            let p = prims
                .iter()
                .find(|p| p.name == name)
                .unwrap_or_else(|| panic!("{name}"));
            assert!(p.supported, "{name} selected but not supported");
        }
        let t = pageclear::selected_temporal(len);
        let p = prims.iter().find(|p| p.name == t).unwrap();
        assert_ne!(
            p.cache,
            Cache::NonTemporal,
            "{t} for the hint neighbourhood"
        );
    }
}

#[test]
fn primitives_table_is_indexed_and_findable() {
    let prims = pageclear::primitives();
    assert!(
        prims
            .iter()
            .any(|p| p.name == "generic" && p.arch == "any" && p.supported)
    );
    for (i, p) in prims.iter().enumerate() {
        assert_eq!(p.index, i);
        assert!(!p.description.is_empty());
        assert_eq!(pageclear::primitive(p.name), Some(*p));
    }
    assert_eq!(pageclear::primitive("nope"), None);
    assert_eq!(pageclear::primitive("gen\0eric"), None);
}

#[test]
fn sizes_parse_as_the_library_says() {
    assert_eq!(pageclear::parse_size("4096"), Ok(4096));
    assert_eq!(pageclear::parse_size("4K"), Ok(4096));
    assert_eq!(pageclear::parse_size("1GiB"), Ok(1 << 30));
    assert_eq!(pageclear::parse_size("3mb"), Ok(3 << 20));
    for bad in ["", "K", "1X", "-1", "1 K K"] {
        assert_eq!(
            pageclear::parse_size(bad).unwrap_err().kind(),
            ErrorKind::InvalidInput,
            "{bad:?}"
        );
    }
    assert_eq!(
        pageclear::parse_size("1\0K").unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        pageclear::parse_size("100000000000000000000")
            .unwrap_err()
            .kind(),
        ErrorKind::OutOfRange
    );
}

#[test]
fn version_is_the_headers() {
    let want = format!(
        "{}.{}.{}",
        pageclear_sys::PC_VERSION_MAJOR,
        pageclear_sys::PC_VERSION_MINOR,
        pageclear_sys::PC_VERSION_PATCH
    );
    assert_eq!(pageclear::version(), want);
}

#[test]
fn tuning_defaults_round_trip_through_a_profile() {
    let t = Tuning::defaults();
    let text = t.to_profile(Some("two\nlines")).unwrap();
    assert!(text.starts_with("# two\n# lines\n"), "{text}");
    assert_eq!(Tuning::parse_profile(&text), Ok(t));
    // Changed thresholds survive the round trip too, "never" included.
    let changed = Tuning {
        nt_threshold: None,
        cold_nt_threshold: Some(1 << 20),
        ..t
    };
    let text = changed.to_profile(None).unwrap();
    assert_eq!(Tuning::parse_profile(&text), Ok(changed));
}

#[test]
fn refused_profiles_say_why_and_of_what_kind() {
    let e = Tuning::parse_profile("no equals sign here").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.reason().is_some_and(|r| !r.is_empty()), "{e:?}");
    let e = Tuning::to_profile(&Tuning::defaults(), Some("nul\0byte")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

#[test]
fn host_thresholds_are_the_defaults_without_profile_or_variables() {
    let overridden = std::env::vars().any(|(k, _)| k.starts_with("PAGECLEAR_"));
    let h = pageclear::host();
    if overridden || h.profile.is_some() {
        eprintln!("skipped: PAGECLEAR_* variables or a profile are in force");
        return;
    }
    let t = Tuning::defaults();
    assert_eq!(
        (
            h.vector_max,
            h.nt_threshold,
            h.cold_nt_threshold,
            h.parallel_nt_threshold
        ),
        (
            t.vector_max,
            t.nt_threshold,
            t.cold_nt_threshold,
            t.parallel_nt_threshold
        )
    );
}
