// SPDX-License-Identifier: MIT OR Apache-2.0
//! PAGECLEAR_IMPL reaches the library (read once, on first use): this
//! binary sets it before any call and has this one test alone.

#[test]
fn forced_primitive_is_reported_and_used() {
    // SAFETY: the only test in this binary, run before any other thread
    // reads the environment.
    unsafe { std::env::set_var("PAGECLEAR_IMPL", "generic") };
    unsafe { std::env::set_var("PAGECLEAR_QUIET", "1") };
    let h = pageclear::host();
    assert_eq!(h.forced.as_deref(), Some("generic"));
    assert_eq!(pageclear::selected(1 << 30), "generic");
    let mut buf = vec![1u8; 100_000];
    pageclear::clear(&mut buf[1..]);
    assert_eq!(buf[0], 1);
    assert!(buf[1..].iter().all(|&b| b == 0));
}
