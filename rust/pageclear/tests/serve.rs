// SPDX-License-Identifier: MIT OR Apache-2.0
//! serve_get: arguments, no daemon, and the daemon's refusals as errnos,
//! against a scripted daemon on a socket of its own (the real daemon, with
//! huge pages, is tests/integration/daemon/serve.sh). One test function:
//! the socket's path is process-wide ($PAGECLEAR_SOCKET).

use std::thread;

fn sockaddr(path: &str) -> libc::sockaddr_un {
    // SAFETY: sockaddr_un is plain data; all zero is a valid value.
    let mut a: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    a.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (d, s) in a.sun_path.iter_mut().zip(path.bytes()) {
        *d = s as libc::c_char;
    }
    a
}

/// A listening SOCK_SEQPACKET socket at path.
fn listen(path: &str) -> libc::c_int {
    let a = sockaddr(path);
    // SAFETY: plain socket calls on a valid address of the right length.
    unsafe {
        let s = libc::socket(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0);
        assert!(s >= 0);
        let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
        assert_eq!(
            libc::bind(s, &a as *const _ as *const libc::sockaddr, len),
            0
        );
        assert_eq!(libc::listen(s, 8), 0);
        s
    }
}

/// Answer one connection per status with that status and no descriptor
/// (docs/serve.md: "pcRP", u16 version, u16 status, then zeros); returns
/// the first request.
fn answer(l: libc::c_int, statuses: Vec<u16>) -> Vec<u8> {
    let mut first = Vec::new();
    for st in statuses {
        let mut req = [0u8; 64];
        let mut rep = [0u8; 32];
        rep[..4].copy_from_slice(b"pcRP");
        rep[4..6].copy_from_slice(&1u16.to_ne_bytes());
        rep[6..8].copy_from_slice(&st.to_ne_bytes());
        // SAFETY: buffers of the lengths passed.
        unsafe {
            let c = libc::accept(l, std::ptr::null_mut(), std::ptr::null_mut());
            assert!(c >= 0);
            let n = libc::recv(c, req.as_mut_ptr().cast(), req.len(), 0);
            assert_eq!(n, 32);
            assert_eq!(libc::send(c, rep.as_ptr().cast(), rep.len(), 0), 32);
            libc::close(c);
        }
        if first.is_empty() {
            first = req[..32].to_vec();
        }
    }
    first
}

#[test]
fn serve_get_errors() {
    let dir = std::env::temp_dir().join(format!("pc-rust-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sock").to_str().unwrap().to_owned();
    let _ = std::fs::remove_file(&path);
    // SAFETY: this test binary's one test that reads the variable.
    unsafe { std::env::set_var("PAGECLEAR_SOCKET", &path) };
    // The scripted daemon is this process: trusted by its uid if not root.
    // SAFETY: as above.
    unsafe { std::env::set_var("PAGECLEAR_SERVE_UID", libc::getuid().to_string()) };

    let e = pageclear::serve_get(2 << 20, 0, false).unwrap_err();
    assert_eq!(e.errno(), libc::ENOENT, "no daemon");
    let e = pageclear::serve_get(0, 0, false).unwrap_err();
    assert_eq!(e.kind(), pageclear::ErrorKind::InvalidInput);
    let e = pageclear::serve_get(1, 4096, false).unwrap_err();
    assert_eq!(e.kind(), pageclear::ErrorKind::InvalidInput);

    let l = listen(&path);
    let want = [
        (4u16, libc::EDQUOT),
        (5, libc::ENOMEM),
        (6, libc::EAGAIN),
        (7, libc::EOPNOTSUPP),
    ];
    let statuses = want.iter().map(|w| w.0).collect();
    let daemon = thread::spawn(move || answer(l, statuses));
    for (st, errno) in want {
        let e = pageclear::serve_get(3 << 20, 1 << 30, true).unwrap_err();
        assert_eq!(e.errno(), errno, "status {st}");
    }
    let req = daemon.join().unwrap();
    // SAFETY: the listening socket, no longer used.
    unsafe { libc::close(l) };
    let mut expect = b"pcRQ".to_vec();
    expect.extend_from_slice(&1u16.to_ne_bytes());
    expect.extend_from_slice(&1u16.to_ne_bytes());
    expect.extend_from_slice(&(3u64 << 20).to_ne_bytes());
    expect.extend_from_slice(&(1u64 << 30).to_ne_bytes());
    expect.extend_from_slice(&1u32.to_ne_bytes());
    expect.extend_from_slice(&0u32.to_ne_bytes());
    assert_eq!(req, expect, "the request as docs/serve.md has it");
    std::fs::remove_dir_all(&dir).unwrap();
}
