//! The declarations in src/lib.rs against the header they bind, as the C
//! compiler sees it (see build/header.rs for how the checks are generated).

use std::collections::BTreeMap;
use std::ffi::{CStr, c_char};

// Generated code casts every value to usize, some already are.
#[allow(clippy::unnecessary_cast)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/header_check.rs"));
}

#[path = "../build/header.rs"]
#[allow(dead_code)]
mod header;

#[repr(C)]
struct Entry {
    key: *const c_char,
    value: usize,
}

unsafe extern "C" {
    // Compiled by the build script from the header in use.
    static pageclear_sys_layout: [Entry; 0];
}

fn c_layout() -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    // SAFETY: the generated C table ends with a NULL key; every key is a
    // NUL-terminated string literal.
    unsafe {
        let mut p = pageclear_sys_layout.as_ptr();
        while !(*p).key.is_null() {
            let k = CStr::from_ptr((*p).key).to_str().unwrap().to_string();
            assert!(
                m.insert(k.clone(), (*p).value).is_none(),
                "duplicate key {k}"
            );
            p = p.add(1);
        }
    }
    m
}

#[test]
fn layout_and_constants_match_the_c_compiler() {
    let c = c_layout();
    let rust: BTreeMap<String, usize> = generated::rust_layout()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(
        c.keys().collect::<Vec<_>>(),
        rust.keys().collect::<Vec<_>>()
    );
    let diffs: Vec<String> = c
        .iter()
        .filter(|(k, v)| rust[*k] != **v)
        .map(|(k, v)| format!("{k}: C {v}, Rust {}", rust[k]))
        .collect();
    assert!(
        diffs.is_empty(),
        "layout differs from the C compiler's:\n{}",
        diffs.join("\n")
    );
    // The table is not trivially empty: the structs the API passes are in it.
    for k in [
        "size pc_host",
        "offset pc_host.profile_status",
        "size pc_pool_stats",
        "value PC_PAGE_SIZE",
    ] {
        assert!(c.contains_key(k), "{k} missing from the check");
    }
}

#[test]
fn every_pc_api_function_is_declared_with_its_signature() {
    // check_signatures() binds each function to its C prototype: it would
    // not have compiled otherwise. Here: it covers every PC_API in the header.
    assert_eq!(generated::check_signatures(), generated::FUNCTIONS.len());
    let text = std::fs::read_to_string(env!("PAGECLEAR_SYS_HEADER")).unwrap();
    let h = header::parse(&text).unwrap();
    assert_eq!(
        h.functions.len(),
        h.api_mentions,
        "a PC_API declaration the parser missed"
    );
    let names: Vec<&str> = h.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, generated::FUNCTIONS);
    assert!(names.contains(&"pc_clear") && names.contains(&"pc_pool_create"));
}

#[test]
fn header_parser_reads_what_it_is_given() {
    // A header with one more function than the crate declares: the parser
    // must see it (so the generated check would not compile).
    let text = "#define PC_API __attribute__((visibility(\"default\")))\n\
                #define PC_X ((size_t)7)\n\
                struct pc_s { unsigned a, b; char c[3]; const char *d; };\n\
                enum pc_e { PC_E_A = 0, PC_E_B = 5 };\n\
                /* PC_API in a comment does not count */\n\
                PC_API int pc_new(const struct pc_s *s,\n    size_t n, void *p);\n";
    let h = header::parse(text).unwrap();
    assert_eq!(h.functions.len(), 1);
    assert_eq!(h.api_mentions, 1);
    let f = &h.functions[0];
    assert_eq!(f.name, "pc_new");
    let types: Vec<String> = f
        .params
        .iter()
        .map(|p| header::rust_type(p, "k").unwrap())
        .collect();
    assert_eq!(
        types,
        ["*const k::pc_s", "usize", "*mut ::core::ffi::c_void"]
    );
    assert_eq!(
        h.structs,
        vec![(
            "pc_s".to_string(),
            vec!["a".into(), "b".into(), "c".into(), "d".into()]
        )]
    );
    assert_eq!(
        h.enums,
        vec![("pc_e".to_string(), vec!["PC_E_A".into(), "PC_E_B".into()])]
    );
    assert_eq!(h.defines, ["PC_X"]);
}

#[test]
fn library_version_is_the_headers() {
    // SAFETY: pc_version returns a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(pageclear_sys::pc_version()) }
        .to_str()
        .unwrap();
    let want = format!(
        "{}.{}.{}",
        pageclear_sys::PC_VERSION_MAJOR,
        pageclear_sys::PC_VERSION_MINOR,
        pageclear_sys::PC_VERSION_PATCH
    );
    assert_eq!(v, want);
}
