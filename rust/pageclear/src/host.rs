// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the library detected, which primitive it picks, the primitives
//! themselves, and the thresholds (profiles).

use std::ffi::{CStr, CString, c_char};
use std::path::PathBuf;

use pageclear_sys as sys;

use crate::Error;

/// A static string from the library (names, descriptions: string literals
/// in its tables).
fn static_str(p: *const c_char) -> &'static str {
    assert!(!p.is_null(), "libpageclear returned a NULL name");
    // SAFETY: non-NULL; the library returns pointers to NUL-terminated
    // string literals, which live as long as the program.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .expect("libpageclear names are ASCII")
}

/// A NUL-terminated C array field as an owned String.
fn array_string(a: &[c_char]) -> String {
    let bytes: Vec<u8> = a
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The C API's SIZE_MAX for "never" as `None`.
fn never(v: usize) -> Option<usize> {
    (v != usize::MAX).then_some(v)
}

/// The library's version, "MAJOR.MINOR.PATCH".
///
/// ```
/// // The crates carry the version of the library they bind.
/// let major = env!("CARGO_PKG_VERSION_MAJOR");
/// assert!(pageclear::version().starts_with(&format!("{major}.")));
/// ```
pub fn version() -> &'static str {
    // SAFETY: no arguments; returns a static string.
    static_str(unsafe { sys::pc_version() })
}

/// Name of the primitive [`clear`](crate::clear) uses for `len` bytes: the
/// one forced by `PAGECLEAR_IMPL` if that was honoured, else the
/// selection's for this CPU.
///
/// ```
/// let small = pageclear::selected(256);
/// let large = pageclear::selected(1 << 30);
/// println!("256 B: {small}, 1 GiB: {large}");
/// assert!(pageclear::primitives().iter().any(|p| p.name == large));
/// ```
pub fn selected(len: usize) -> &'static str {
    // SAFETY: returns a static name.
    static_str(unsafe { sys::pc_selected(len) })
}

/// Name of the primitive [`clear_cold`](crate::clear_cold) uses for `len`
/// bytes.
///
/// ```
/// println!("cold 64 MiB: {}", pageclear::selected_cold(64 << 20));
/// ```
pub fn selected_cold(len: usize) -> &'static str {
    // SAFETY: returns a static name.
    static_str(unsafe { sys::pc_selected_cold(len) })
}

/// Name of the cache-allocating primitive [`clear_hint`](crate::clear_hint)
/// uses for its neighbourhood of `len` bytes.
///
/// ```
/// println!("hint neighbourhood: {}", pageclear::selected_temporal(5 * 4096));
/// ```
pub fn selected_temporal(len: usize) -> &'static str {
    // SAFETY: returns a static name.
    static_str(unsafe { sys::pc_selected_temporal(len) })
}

/// The default batching unit in bytes (`PAGECLEAR_UNIT` if set, else the
/// library's choice for this host).
///
/// ```
/// assert!(pageclear::default_unit() >= 1);
/// ```
pub fn default_unit() -> usize {
    // SAFETY: no arguments.
    unsafe { sys::pc_default_unit() }
}

/// Parse a size with an optional suffix: B, K/KB/KiB, M/MB/MiB, G/GB/GiB,
/// T/TB/TiB (all powers of 1024), case-insensitive.
///
/// # Errors
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for a
/// malformed string, [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange)
/// if it overflows.
///
/// ```
/// assert_eq!(pageclear::parse_size("2M")?, 2 << 20);
/// assert_eq!(pageclear::parse_size("4kib")?, 4096);
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn parse_size(s: &str) -> Result<usize, Error> {
    let c = CString::new(s).map_err(|_| {
        Error::from_errno(libc::EINVAL).with_reason("a size cannot contain a NUL byte")
    })?;
    let mut out = 0usize;
    // SAFETY: a NUL-terminated string and a writable usize.
    let rc = unsafe { sys::pc_parse_size(c.as_ptr(), &mut out) };
    Error::check(rc).map(|()| out)
}

/// How a primitive's stores treat the cache.
///
/// ```
/// use pageclear::Cache;
/// let nt = pageclear::primitives().into_iter().filter(|p| p.cache == Cache::NonTemporal).count();
/// println!("{nt} non-temporal primitives");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cache {
    /// Stores allocate lines in cache.
    Temporal,
    /// Streaming stores bypass the cache.
    NonTemporal,
    /// Temporal for small extents; the CPU may stop allocating for large
    /// ones (rep stos).
    Adaptive,
}

/// One of the library's clearing primitives.
///
/// ```
/// for p in pageclear::primitives().iter().filter(|p| p.supported) {
///     println!("{:24} {:?} {}", p.name, p.cache, p.description);
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Primitive {
    /// Its index in the library's table.
    pub index: usize,
    /// e.g. "x86-64-stosb" (what `PAGECLEAR_IMPL` takes).
    pub name: &'static str,
    /// "x86-64", "aarch64" or "any".
    pub arch: &'static str,
    /// Required CPU features, space-separated; "" for none.
    pub features: &'static str,
    /// One line.
    pub description: &'static str,
    /// Its cache behaviour.
    pub cache: Cache,
    /// Whether this host can run it.
    pub supported: bool,
}

impl Primitive {
    fn get(index: usize) -> Option<Primitive> {
        let mut info = std::mem::MaybeUninit::<sys::pc_impl_info>::uninit();
        // SAFETY: a writable struct; an index out of range returns -ENOENT.
        let rc =
            unsafe { sys::pc_impl_get(index, info.as_mut_ptr(), size_of::<sys::pc_impl_info>()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: filled by pc_impl_get (rc == 0).
        let info = unsafe { info.assume_init() };
        let cache = match info.cache {
            sys::PC_CACHE_TEMPORAL => Cache::Temporal,
            sys::PC_CACHE_NONTEMPORAL => Cache::NonTemporal,
            sys::PC_CACHE_ADAPTIVE => Cache::Adaptive,
            other => panic!("libpageclear returned unknown cache behaviour {other}"),
        };
        Some(Primitive {
            index,
            name: static_str(info.name),
            arch: static_str(info.arch),
            features: static_str(info.features),
            description: static_str(info.description),
            cache,
            supported: info.supported != 0,
        })
    }

    /// Zero the slice with this primitive alone: no selection, no
    /// batching. For measurements and tests; use [`clear`](crate::clear)
    /// otherwise.
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) if this
    /// host cannot run it (nothing is executed).
    ///
    /// ```
    /// let mut buf = vec![1u8; 65536];
    /// for p in pageclear::primitives() {
    ///     match p.clear(&mut buf) {
    ///         Ok(()) => assert!(p.supported && buf.iter().all(|&b| b == 0)),
    ///         Err(e) => assert!(!p.supported && e.kind() == pageclear::ErrorKind::Unsupported),
    ///     }
    ///     buf.fill(1);
    /// }
    /// ```
    pub fn clear(&self, buf: &mut [u8]) -> Result<(), Error> {
        // SAFETY: the slice is valid for writes and exclusively borrowed.
        let rc = unsafe { sys::pc_impl_clear(self.index, buf.as_mut_ptr().cast(), buf.len()) };
        Error::check(rc)
    }

    /// Fill the slice with `byte` using this primitive, for measurement
    /// only (some CPUs have fast paths for zero alone; this compares).
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) if this
    /// host cannot run it, or if it can only store zeros (clzero, dc zva)
    /// and `byte` is not 0.
    ///
    /// ```
    /// let generic = pageclear::primitive("generic").unwrap();
    /// let mut buf = [0u8; 100];
    /// generic.fill(&mut buf, 0x42)?;
    /// assert!(buf.iter().all(|&b| b == 0x42));
    /// # Ok::<(), pageclear::Error>(())
    /// ```
    pub fn fill(&self, buf: &mut [u8], byte: u8) -> Result<(), Error> {
        // SAFETY: as in clear().
        let rc = unsafe {
            sys::pc_impl_fill(
                self.index,
                buf.as_mut_ptr().cast(),
                buf.len(),
                i32::from(byte),
            )
        };
        Error::check(rc)
    }
}

/// Every primitive in the library's table, for all architectures;
/// [`Primitive::supported`] says which this host can run.
///
/// ```
/// let all = pageclear::primitives();
/// assert!(all.iter().any(|p| p.name == "generic" && p.supported));
/// ```
pub fn primitives() -> Vec<Primitive> {
    // SAFETY: no arguments.
    let n = unsafe { sys::pc_impl_count() };
    (0..n)
        .map(|i| Primitive::get(i).expect("pc_impl_get for i < pc_impl_count"))
        .collect()
}

/// The primitive called `name`, if the table has one.
///
/// ```
/// assert!(pageclear::primitive("generic").is_some());
/// assert!(pageclear::primitive("no-such-thing").is_none());
/// ```
pub fn primitive(name: &str) -> Option<Primitive> {
    let c = CString::new(name).ok()?;
    // SAFETY: a NUL-terminated string.
    let i = unsafe { sys::pc_impl_find(c.as_ptr()) };
    usize::try_from(i).ok().and_then(Primitive::get)
}

/// What the library detected on this host and the thresholds in force
/// ([`host`]). Thresholds that can be "never" are `None` then.
///
/// ```
/// let h = pageclear::host();
/// println!("{} {:?}, LLC {:?}", h.vendor, h.features, h.llc_size);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Host {
    /// "GenuineIntel", "AuthenticAMD", "arm64", ...
    pub vendor: String,
    /// The CPU features detected and usable.
    pub features: Vec<String>,
    /// Running under a hypervisor.
    pub hypervisor: bool,
    /// Last-level cache bytes, if known.
    pub llc_size: Option<usize>,
    /// arm64 `dc zva` block bytes, if usable.
    pub zva_block: Option<usize>,
    /// [`clear`](crate::clear): below this length, vector stores.
    pub vector_max: usize,
    /// [`clear`](crate::clear): from this length, non-temporal stores
    /// (`None`: never, e.g. where rep stosb stops allocating by itself).
    pub nt_threshold: Option<usize>,
    /// [`clear_cold`](crate::clear_cold): from this length, non-temporal
    /// (`None`: never).
    pub cold_nt_threshold: Option<usize>,
    /// [`clear_parallel`](crate::clear_parallel) on more than one thread:
    /// from this length, non-temporal (`None`: never).
    pub parallel_nt_threshold: Option<usize>,
    /// The default batching unit.
    pub unit: usize,
    /// The primitive forced by `PAGECLEAR_IMPL`, if any.
    pub forced: Option<String>,
    /// NUMA nodes with CPUs (1 if unknown).
    pub numa_nodes: usize,
    /// x86-64 cpuid display family (0 elsewhere).
    pub family: u32,
    /// x86-64 cpuid display model (0 elsewhere).
    pub model: u32,
    /// x86-64 cpuid stepping (0 elsewhere).
    pub stepping: u32,
    /// The profile file in force, if any.
    pub profile: Option<PathBuf>,
    /// "in force", "none found", or why the profile was refused.
    pub profile_status: String,
}

/// What the library detected on this host and the thresholds in force.
///
/// ```
/// let h = pageclear::host();
/// assert!(!h.vendor.is_empty());
/// assert_eq!(h.unit, pageclear::default_unit());
/// ```
pub fn host() -> Host {
    let mut raw = std::mem::MaybeUninit::<sys::pc_host>::uninit();
    // SAFETY: a writable struct.
    let rc = unsafe { sys::pc_host_get(raw.as_mut_ptr(), size_of::<sys::pc_host>()) };
    crate::clear::expect_ok("pc_host_get", rc);
    // SAFETY: filled by pc_host_get (rc == 0).
    let h = unsafe { raw.assume_init() };
    let profile = array_string(&h.profile);
    Host {
        vendor: array_string(&h.vendor),
        features: array_string(&h.features)
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        hypervisor: h.hypervisor != 0,
        llc_size: (h.llc_size != 0).then_some(h.llc_size),
        zva_block: (h.zva_block != 0).then_some(h.zva_block),
        vector_max: h.vector_max,
        nt_threshold: never(h.nt_threshold),
        cold_nt_threshold: never(h.cold_nt_threshold),
        parallel_nt_threshold: never(h.parallel_nt_threshold),
        unit: h.unit,
        forced: (!h.forced.is_null()).then(|| static_str(h.forced).to_string()),
        numa_nodes: usize::try_from(h.numa_nodes).unwrap_or(1),
        family: h.family,
        model: h.model,
        stepping: h.stepping,
        profile: (!profile.is_empty()).then(|| PathBuf::from(profile)),
        profile_status: array_string(&h.profile_status),
    }
}

/// The thresholds a profile sets (`pageclear tune` measures them). `None`
/// for a non-temporal threshold means "never".
///
/// ```
/// let t = pageclear::Tuning::defaults();
/// let text = t.to_profile(Some("made by an example"))?;
/// assert_eq!(pageclear::Tuning::parse_profile(&text)?, t);
/// # Ok::<(), pageclear::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tuning {
    /// [`clear`](crate::clear): below this length, vector stores.
    pub vector_max: usize,
    /// [`clear`](crate::clear): from this length, non-temporal.
    pub nt_threshold: Option<usize>,
    /// [`clear_cold`](crate::clear_cold): from this length, non-temporal.
    pub cold_nt_threshold: Option<usize>,
    /// [`clear_parallel`](crate::clear_parallel), more than one thread:
    /// from this length, non-temporal.
    pub parallel_nt_threshold: Option<usize>,
}

impl Tuning {
    fn from_raw(t: &sys::pc_tuning) -> Tuning {
        Tuning {
            vector_max: t.vector_max,
            nt_threshold: never(t.nt_threshold),
            cold_nt_threshold: never(t.cold_nt_threshold),
            parallel_nt_threshold: never(t.parallel_nt_threshold),
        }
    }

    fn to_raw(self) -> sys::pc_tuning {
        sys::pc_tuning {
            vector_max: self.vector_max,
            nt_threshold: self.nt_threshold.unwrap_or(usize::MAX),
            cold_nt_threshold: self.cold_nt_threshold.unwrap_or(usize::MAX),
            parallel_nt_threshold: self.parallel_nt_threshold.unwrap_or(usize::MAX),
        }
    }

    /// The library's built-in thresholds for this host: what applies with
    /// no profile and no `PAGECLEAR_*` variable.
    ///
    /// ```
    /// let t = pageclear::Tuning::defaults();
    /// assert!(t.vector_max > 0);
    /// ```
    pub fn defaults() -> Tuning {
        let mut raw = std::mem::MaybeUninit::<sys::pc_tuning>::uninit();
        // SAFETY: a writable struct.
        let rc = unsafe { sys::pc_tuning_defaults(raw.as_mut_ptr(), size_of::<sys::pc_tuning>()) };
        crate::clear::expect_ok("pc_tuning_defaults", rc);
        // SAFETY: filled (rc == 0).
        Tuning::from_raw(&unsafe { raw.assume_init() })
    }

    /// Parse a profile's text. Identity lines must match this host and
    /// library; thresholds not given keep the built-in defaults.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput)
    /// (malformed), [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange),
    /// [`ErrorKind::OtherHost`](crate::ErrorKind::OtherHost) (made on
    /// another CPU), [`ErrorKind::Version`](crate::ErrorKind::Version)
    /// (incompatible library), each with the library's
    /// [`reason`](Error::reason).
    ///
    /// ```
    /// let err = pageclear::Tuning::parse_profile("vector_max = lots").unwrap_err();
    /// println!("refused: {err}");
    /// ```
    pub fn parse_profile(text: &str) -> Result<Tuning, Error> {
        // The library's reasons are one line; this is room for any of them.
        const WHY_LEN: usize = 512;
        let mut raw = std::mem::MaybeUninit::<sys::pc_tuning>::uninit();
        let mut why = [0 as c_char; WHY_LEN];
        // SAFETY: text need not be NUL-terminated (its length is passed);
        // raw and why are writable for the sizes given.
        let rc = unsafe {
            sys::pc_profile_parse(
                text.as_ptr().cast(),
                text.len(),
                raw.as_mut_ptr(),
                size_of::<sys::pc_tuning>(),
                why.as_mut_ptr(),
                WHY_LEN,
            )
        };
        if rc != 0 {
            return Err(Error::from_errno(rc).with_reason(array_string(&why)));
        }
        // SAFETY: filled on success.
        Ok(Tuning::from_raw(&unsafe { raw.assume_init() }))
    }

    /// This host's profile text carrying these thresholds (what `pageclear
    /// tune` writes), with `comment` first, each line prefixed with "# ".
    ///
    /// # Errors
    /// [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange) for a value
    /// a profile cannot carry; [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput)
    /// for a comment containing a NUL byte.
    ///
    /// ```
    /// let text = pageclear::Tuning::defaults().to_profile(None)?;
    /// assert!(text.contains("vector_max"));
    /// # Ok::<(), pageclear::Error>(())
    /// ```
    pub fn to_profile(&self, comment: Option<&str>) -> Result<String, Error> {
        let comment = comment.map(CString::new).transpose().map_err(|_| {
            Error::from_errno(libc::EINVAL).with_reason("the comment contains a NUL byte")
        })?;
        let cptr = comment.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let raw = self.to_raw();
        // First the length (size 0 writes nothing), then the text.
        // SAFETY: a valid tuning; NULL buf with size 0 is allowed.
        let tsize = size_of::<sys::pc_tuning>();
        let n = unsafe { sys::pc_profile_format(&raw, tsize, cptr, std::ptr::null_mut(), 0) };
        Error::check(n)?;
        let mut buf = vec![0 as c_char; n as usize + 1];
        // SAFETY: buf is writable for buf.len() bytes.
        let m = unsafe { sys::pc_profile_format(&raw, tsize, cptr, buf.as_mut_ptr(), buf.len()) };
        Error::check(m)?;
        assert_eq!(m, n, "pc_profile_format: two lengths for the same profile");
        Ok(array_string(&buf))
    }
}
