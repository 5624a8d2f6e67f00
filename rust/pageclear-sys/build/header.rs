//! Reads include/pageclear.h (the C declarations the crate binds) and writes
//! two checks from it:
//!   - a C file whose table holds, as the C compiler sees them, every
//!     struct's size and alignment, every field's offset and size, every
//!     enum constant and enum size, and every integer #define;
//!   - a Rust file computing the same table from the crate's declarations
//!     and binding every PC_API function to a function-pointer type spelled
//!     from its C prototype.
//!
//! The crate's test compares the two tables, and the Rust file does not
//! compile if a function, field, constant or type is missing or has another
//! signature. The declarations in src/lib.rs stay hand-written (a reviewer
//! reads them); this makes sure they match the header.
//!
//! Shared by build.rs and the crate's tests (`#[path]` include): std only.

use std::collections::HashSet;
use std::fmt::Write as _;

/// One PC_API function.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    /// Return type tokens, e.g. ["const", "char", "*"].
    pub ret: Vec<String>,
    /// Parameters as type tokens (the name removed).
    pub params: Vec<Vec<String>>,
}

/// The declarations the header makes.
#[derive(Debug, Default)]
pub struct Header {
    pub functions: Vec<Function>,
    /// struct name -> field names in order (opaque structs are not here).
    pub structs: Vec<(String, Vec<String>)>,
    /// Declared but never defined (used through pointers only).
    pub opaque: Vec<String>,
    /// enum name -> constant names.
    pub enums: Vec<(String, Vec<String>)>,
    /// Object-like macros with a value, e.g. PC_PAGE_SIZE.
    pub defines: Vec<String>,
    /// typedef names, with their C prototype if a function pointer.
    pub typedefs: Vec<(String, Option<Function>)>,
    /// How many times "PC_API" starts a declaration in the raw text.
    pub api_mentions: usize,
}

/// Parse the public header.
pub fn parse(text: &str) -> Result<Header, String> {
    let mut h = Header::default();
    let code = preprocess(&strip_comments(text), &mut h)?;
    let mut depth = 0;
    let mut stmt = String::new();
    for ch in code.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ';' && depth == 0 {
            statement(stmt.trim(), &mut h)?;
            stmt.clear();
        } else {
            stmt.push(ch);
        }
    }
    if !stmt.trim().is_empty() {
        return Err(format!(
            "header ends inside a declaration: {:?}",
            stmt.trim()
        ));
    }
    h.opaque.retain(|o| !h.structs.iter().any(|(s, _)| s == o));
    Ok(h)
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                let end = rest[b + 2..]
                    .find("*/")
                    .map_or(rest.len(), |e| b + 2 + e + 2);
                // Keep line structure for the preprocessor pass.
                out.extend(rest[b..end].chars().filter(|c| *c == '\n'));
                out.push(' ');
                rest = &rest[end..];
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                let end = rest[l..].find('\n').map_or(rest.len(), |e| l + e);
                rest = &rest[end..];
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// Keep the lines a C (not C++) compiler sees; collect #defines.
fn preprocess(text: &str, h: &mut Header) -> Result<String, String> {
    // The compilers the library supports all define __GNUC__; __cplusplus
    // is the only condition expected to be false.
    let mut defined: HashSet<String> = ["__GNUC__".to_string()].into();
    let mut stack: Vec<bool> = Vec::new();
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(raw) = lines.next() {
        let mut l = raw.to_string();
        while l.ends_with('\\') {
            l.pop();
            l.push_str(lines.next().unwrap_or(""));
        }
        let t = l.trim();
        let active = stack.iter().all(|x| *x);
        if let Some(d) = t.strip_prefix('#') {
            let d = d.trim();
            let (kw, arg) = d.split_once(char::is_whitespace).unwrap_or((d, ""));
            let arg = arg.trim();
            match kw {
                "ifdef" => stack.push(defined.contains(arg)),
                "ifndef" => stack.push(!defined.contains(arg)),
                "if" => {
                    let name = arg
                        .strip_prefix("defined(")
                        .and_then(|a| a.strip_suffix(')'))
                        .ok_or_else(|| format!("unsupported #if {arg:?}"))?;
                    stack.push(defined.contains(name.trim()));
                }
                "else" => {
                    let last = stack.last_mut().ok_or("#else without #if")?;
                    *last = !*last;
                }
                "endif" => {
                    stack.pop().ok_or("#endif without #if")?;
                }
                "define" if active => {
                    let (name, value) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
                    defined.insert(name.to_string());
                    let value = value.trim();
                    // Object-like macros with a value that is not an
                    // attribute: the constants of the API.
                    if !name.contains('(') && !value.is_empty() && !value.contains("__attribute__")
                    {
                        h.defines.push(name.to_string());
                    }
                }
                "include" | "define" | "undef" | "error" | "pragma" => {}
                other => return Err(format!("unsupported directive #{other}")),
            }
            continue;
        }
        if active {
            h.api_mentions += t.matches("PC_API").count();
            out.push_str(&l);
            out.push('\n');
        }
    }
    Ok(out)
}

fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in s.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            cur.push(ch);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !ch.is_whitespace() {
                out.push(ch.to_string());
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn statement(s: &str, h: &mut Header) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    if let Some(rest) = s.strip_prefix("PC_API") {
        h.functions.push(prototype(rest)?);
        return Ok(());
    }
    if let Some(rest) = s.strip_prefix("typedef") {
        // typedef int (*name)(params): a function pointer type.
        if let (Some(open), Some(close)) = (rest.find('('), rest.find(')')) {
            let inner: String = rest[open + 1..close].split_whitespace().collect();
            if let Some(name) = inner.strip_prefix('*') {
                let proto = format!("{} {name}{}", &rest[..open], &rest[close + 1..]);
                h.typedefs
                    .push((name.to_string(), Some(prototype(&proto)?)));
                return Ok(());
            }
        }
        let name = tokens(rest).last().ok_or("bad typedef")?.clone();
        h.typedefs.push((name, None));
        return Ok(());
    }
    let t = tokens(s);
    match (
        t.first().map(String::as_str),
        t.get(1),
        t.get(2).map(String::as_str),
    ) {
        (Some("enum"), Some(name), Some("{")) => {
            let body = &s[s.find('{').unwrap() + 1..s.rfind('}').ok_or("enum without }")?];
            let consts = body
                .split(',')
                .map(|c| c.split('=').next().unwrap_or("").trim().to_string())
                .filter(|c| !c.is_empty())
                .collect();
            h.enums.push((name.clone(), consts));
        }
        (Some("struct"), Some(name), Some("{")) => {
            let body = &s[s.find('{').unwrap() + 1..s.rfind('}').ok_or("struct without }")?];
            let mut fields = Vec::new();
            for decl in body.split(';').map(str::trim).filter(|d| !d.is_empty()) {
                // "unsigned family, model, stepping" declares three fields.
                for (i, part) in decl.split(',').enumerate() {
                    let part = part.split('[').next().unwrap_or("");
                    let pt = tokens(part);
                    let name = pt
                        .iter()
                        .rev()
                        .find(|x| x.chars().all(|c| c.is_alphanumeric() || c == '_'))
                        .ok_or_else(|| format!("no field name in {decl:?}"))?;
                    if i == 0 && pt.len() < 2 {
                        return Err(format!("no type in field {decl:?}"));
                    }
                    fields.push(name.clone());
                }
            }
            h.structs.push((name.clone(), fields));
        }
        (Some("struct"), Some(name), None) => h.opaque.push(name.clone()),
        _ => return Err(format!("unrecognised declaration {s:?}")),
    }
    Ok(())
}

/// "const char *pc_version(void)" -> Function.
fn prototype(s: &str) -> Result<Function, String> {
    let open = s.find('(').ok_or_else(|| format!("no ( in {s:?}"))?;
    let close = s.rfind(')').ok_or_else(|| format!("no ) in {s:?}"))?;
    let mut head = tokens(&s[..open]);
    let name = head.pop().ok_or_else(|| format!("no name in {s:?}"))?;
    let mut params = Vec::new();
    let inner = s[open + 1..close].trim();
    if inner != "void" && !inner.is_empty() {
        for p in inner.split(',') {
            let mut pt = tokens(p);
            // Drop the parameter's name: the last identifier, if what is
            // left still names a type.
            let named = pt.len() >= 2 && pt.last().is_some_and(|x| x != "*" && !is_type_word(x));
            if named {
                pt.pop();
            }
            params.push(pt);
        }
    }
    Ok(Function {
        name,
        ret: head,
        params,
    })
}

fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "int" | "char" | "void" | "unsigned" | "signed" | "long" | "short" | "size_t"
    )
}

/// The Rust spelling of a C type given as tokens.
pub fn rust_type(t: &[String], krate: &str) -> Result<String, String> {
    let stars = t.iter().filter(|x| *x == "*").count();
    // const before the first * applies to the pointee (the only form the
    // header uses); a const after a * would make the pointer itself const,
    // which Rust's pointer types cannot tell apart, so both spell the same.
    let first_star = t.iter().position(|x| x == "*").unwrap_or(t.len());
    let pointee_const = t[..first_star].iter().any(|x| x == "const");
    let base: Vec<&str> = t[..first_star]
        .iter()
        .map(String::as_str)
        .filter(|x| *x != "const")
        .collect();
    let b = match base.as_slice() {
        ["void"] if stars == 0 => return Ok("()".into()),
        ["void"] => "::core::ffi::c_void".to_string(),
        ["char"] => "::core::ffi::c_char".into(),
        ["int"] | ["signed"] | ["signed", "int"] => "::core::ffi::c_int".into(),
        ["unsigned"] | ["unsigned", "int"] => "::core::ffi::c_uint".into(),
        ["long"] => "::core::ffi::c_long".into(),
        ["unsigned", "long"] => "::core::ffi::c_ulong".into(),
        ["size_t"] => "usize".into(),
        ["struct", n] | ["enum", n] => format!("{krate}::{n}"),
        [n] if n.starts_with("pc_") => format!("{krate}::{n}"),
        other => return Err(format!("no Rust type for C type {other:?}")),
    };
    let mut out = b;
    for level in 0..stars {
        let c = if level == 0 && pointee_const {
            "*const "
        } else {
            "*mut "
        };
        out = format!("{c}{out}");
    }
    Ok(out)
}

fn fn_type(f: &Function, krate: &str) -> Result<String, String> {
    let params: Result<Vec<String>, String> =
        f.params.iter().map(|p| rust_type(p, krate)).collect();
    let ret = rust_type(&f.ret, krate)?;
    let ret = if ret == "()" {
        String::new()
    } else {
        format!(" -> {ret}")
    };
    Ok(format!(
        "unsafe extern \"C\" fn({}){ret}",
        params?.join(", ")
    ))
}

/// The C side of the layout check: a NULL-terminated table of
/// (key, value) pairs named `symbol`.
pub fn layout_c(h: &Header, symbol: &str) -> String {
    let mut c = String::new();
    c.push_str("/* Generated by pageclear-sys's build script from pageclear.h. */\n");
    c.push_str("#include <stddef.h>\n#include \"pageclear.h\"\n\n");
    c.push_str("struct pcsys_entry { const char *key; size_t value; };\n");
    let _ = writeln!(c, "const struct pcsys_entry {symbol}[] = {{");
    for (key, expr) in layout_entries(h, |e| e.c.clone()) {
        let _ = writeln!(c, "    {{\"{key}\", (size_t)({expr})}},");
    }
    c.push_str("    {NULL, 0},\n};\n");
    c
}

/// The Rust side: `LAYOUT` (the same keys as layout_c) and
/// `check_signatures()`, which binds every function to its C prototype.
pub fn check_rs(h: &Header, krate: &str) -> Result<String, String> {
    let mut r = String::new();
    r.push_str("// Generated by pageclear-sys's build script from pageclear.h.\n");
    r.push_str("/// (key, value) as Rust lays out the crate's declarations.\n");
    r.push_str("pub fn rust_layout() -> ::std::vec::Vec<(&'static str, usize)> {\n");
    r.push_str(
        "    fn field_size<T, F>(_: fn(&T) -> &F) -> usize { ::core::mem::size_of::<F>() }\n",
    );
    r.push_str("    ::std::vec![\n");
    let entries = layout_entries(h, |e| e.rust.replace("$K", krate));
    for (key, expr) in entries {
        let _ = writeln!(r, "        (\"{key}\", {expr}),");
    }
    r.push_str("    ]\n}\n\n");
    r.push_str("/// The PC_API functions the header declares.\n");
    r.push_str("pub const FUNCTIONS: &[&str] = &[\n");
    for f in &h.functions {
        let _ = writeln!(r, "    \"{}\",", f.name);
    }
    r.push_str("];\n\n");
    r.push_str("/// Does not compile unless every function and typedef matches.\n");
    r.push_str("#[allow(clippy::type_complexity)]\npub fn check_signatures() -> usize {\n");
    r.push_str("    let mut n = 0usize;\n");
    for f in &h.functions {
        let _ = writeln!(
            r,
            "    let f: {} = {krate}::{};\n    n += (f as usize != 0) as usize;",
            fn_type(f, krate)?,
            f.name
        );
    }
    for (name, proto) in &h.typedefs {
        if let Some(p) = proto {
            let _ = writeln!(
                r,
                "    let _: {krate}::{name} = ::core::option::Option::<{}>::None;",
                fn_type(p, krate)?
            );
        }
    }
    for o in &h.opaque {
        let _ = writeln!(r, "    let _: *mut {krate}::{o} = ::core::ptr::null_mut();");
    }
    r.push_str("    n\n}\n");
    Ok(r)
}

struct Expr {
    c: String,
    rust: String,
}

fn layout_entries(h: &Header, pick: impl Fn(&Expr) -> String) -> Vec<(String, String)> {
    let mut v = Vec::new();
    let mut add = |key: String, c: String, rust: String| {
        let e = Expr { c, rust };
        v.push((key, pick(&e)));
    };
    for (s, fields) in &h.structs {
        add(
            format!("size {s}"),
            format!("sizeof(struct {s})"),
            format!("::core::mem::size_of::<$K::{s}>()"),
        );
        add(
            format!("align {s}"),
            format!("_Alignof(struct {s})"),
            format!("::core::mem::align_of::<$K::{s}>()"),
        );
        for f in fields {
            add(
                format!("offset {s}.{f}"),
                format!("offsetof(struct {s}, {f})"),
                format!("::core::mem::offset_of!($K::{s}, {f})"),
            );
            add(
                format!("size {s}.{f}"),
                format!("sizeof(((struct {s} *)0)->{f})"),
                format!("field_size(|x: &$K::{s}| &x.{f})"),
            );
        }
    }
    for (e, consts) in &h.enums {
        add(
            format!("size enum {e}"),
            format!("sizeof(enum {e})"),
            format!("::core::mem::size_of::<$K::{e}>()"),
        );
        for k in consts {
            // Both sides widen the same way (sign-extension for negative
            // values), so equal values compare equal.
            add(format!("value {k}"), k.clone(), format!("$K::{k} as usize"));
        }
    }
    for d in &h.defines {
        add(format!("value {d}"), d.clone(), format!("$K::{d} as usize"));
    }
    v
}
