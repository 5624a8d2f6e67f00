//! A small evaluator for the part of CMake that the repository's
//! CMakeLists.txt uses to describe the library: variables, lists, options,
//! if/elseif/else, foreach, object and static libraries, their compile
//! options, definitions and include directories.
//!
//! Why: the build script must compile exactly the sources and flags the
//! CMake build compiles, on every architecture, and pick up a file added to
//! CMakeLists.txt without anyone editing Rust. Reading the lists from
//! CMakeLists.txt itself means they cannot drift. Anything this evaluator
//! does not understand in a condition is an error, not a guess.
//!
//! Shared by build.rs and the crate's tests (`#[path]` include), so it uses
//! only std.

use std::collections::HashMap;

/// One CMake command: its lower-cased name, its arguments and its line.
#[derive(Debug, Clone)]
struct Command {
    name: String,
    args: Vec<Arg>,
    line: usize,
}

#[derive(Debug, Clone)]
struct Arg {
    text: String,
    quoted: bool,
}

/// A library target as CMakeLists.txt declares it.
#[derive(Debug, Default, Clone)]
pub struct Target {
    /// OBJECT, STATIC, SHARED, ...
    pub kind: String,
    /// Source files, and `$<TARGET_OBJECTS:x>` entries for object libraries.
    pub sources: Vec<String>,
    /// target_compile_options (PUBLIC and PRIVATE).
    pub options: Vec<String>,
    /// target_compile_definitions (PUBLIC and PRIVATE).
    pub definitions: Vec<String>,
    /// target_include_directories (PUBLIC and PRIVATE, build interface).
    pub includes: Vec<String>,
}

/// Sources compiled with the same flags.
#[derive(Debug, Clone)]
pub struct Group {
    /// Paths relative to the CMakeLists.txt directory.
    pub sources: Vec<String>,
    /// NAME or NAME=VALUE.
    pub definitions: Vec<String>,
    /// Compile options, in order.
    pub options: Vec<String>,
    /// Include directories.
    pub includes: Vec<String>,
}

/// The state after evaluating a CMakeLists.txt.
#[derive(Debug, Default)]
pub struct Project {
    vars: HashMap<String, String>,
    /// Library targets by name.
    pub targets: HashMap<String, Target>,
    /// add_compile_definitions at directory level.
    pub definitions: Vec<String>,
    /// add_compile_options at directory level.
    pub options: Vec<String>,
}

impl Project {
    /// Evaluate `text` with the given variables preset (e.g.
    /// CMAKE_SYSTEM_PROCESSOR, CMAKE_C_COMPILER_ID).
    pub fn evaluate(text: &str, preset: &[(&str, &str)]) -> Result<Project, String> {
        let cmds = tokenize(text)?;
        let mut p = Project::default();
        for (k, v) in preset {
            p.vars.insert((*k).to_string(), (*v).to_string());
        }
        p.run(&cmds)?;
        Ok(p)
    }

    /// A variable's value as a list (empty if unset).
    pub fn list(&self, name: &str) -> Vec<String> {
        self.vars
            .get(name)
            .map(|v| split_list(v))
            .unwrap_or_default()
    }

    /// A variable's value, if set.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// What the static library is made of: one group per object library
    /// (each with its own options), plus the library's own sources.
    pub fn static_library(&self) -> Result<Vec<Group>, String> {
        let (name, lib) = self
            .targets
            .iter()
            .filter(|(_, t)| t.kind == "STATIC")
            .min_by_key(|(n, _)| n.len())
            .ok_or("CMakeLists.txt declares no static library")?;
        let group = |t: &Target, sources: Vec<String>| Group {
            sources,
            definitions: self
                .definitions
                .iter()
                .chain(&t.definitions)
                .cloned()
                .collect(),
            options: self.options.iter().chain(&t.options).cloned().collect(),
            includes: t.includes.clone(),
        };
        let mut groups = Vec::new();
        let mut own = Vec::new();
        for s in &lib.sources {
            match s
                .strip_prefix("$<TARGET_OBJECTS:")
                .and_then(|x| x.strip_suffix('>'))
            {
                Some(obj) => {
                    let t = self
                        .targets
                        .get(obj)
                        .ok_or_else(|| format!("{name} uses unknown object library {obj}"))?;
                    groups.push(group(t, t.sources.clone()));
                }
                None => own.push(s.clone()),
            }
        }
        if !own.is_empty() {
            groups.push(group(lib, own));
        }
        Ok(groups)
    }

    /// The -std= value CMAKE_C_STANDARD and CMAKE_C_EXTENSIONS ask for.
    pub fn c_standard(&self) -> String {
        let ext = self
            .var("CMAKE_C_EXTENSIONS")
            .is_none_or(|e| constant(e) == Some(true));
        match self.var("CMAKE_C_STANDARD") {
            Some(v) => format!("{}{v}", if ext { "gnu" } else { "c" }),
            None => "gnu11".into(), // the compilers' own default family
        }
    }

    /// Optimisation level and NDEBUG for the build type in force
    /// (CMake's CMAKE_C_FLAGS_<TYPE> for gcc and clang).
    pub fn build_type(&self) -> (&'static str, bool) {
        match self.var("CMAKE_BUILD_TYPE").unwrap_or("") {
            "Debug" => ("0", false),
            "RelWithDebInfo" => ("2", true),
            "MinSizeRel" => ("s", true),
            "Release" => ("3", true),
            _ => ("", false), // no build type: CMake adds no flags
        }
    }

    fn run(&mut self, cmds: &[Command]) -> Result<(), String> {
        let mut i = 0;
        while i < cmds.len() {
            let c = &cmds[i];
            match c.name.as_str() {
                "if" => i = self.run_if(cmds, i)?,
                "foreach" => i = self.run_foreach(cmds, i)?,
                "function" | "macro" => {
                    // Definitions are not executed; skip to their end.
                    let end = format!("end{}", c.name);
                    i = find_end(cmds, i, &c.name, &end)?;
                }
                _ => self.exec(c)?,
            }
            i += 1;
        }
        Ok(())
    }

    /// Run the if-chain starting at `start`; returns the endif's index.
    fn run_if(&mut self, cmds: &[Command], start: usize) -> Result<usize, String> {
        // Split the chain into (condition, body) branches at depth 0.
        let mut branches: Vec<(Option<&Command>, usize, usize)> = Vec::new();
        let mut depth = 0;
        let mut head = Some(&cmds[start]);
        let mut body_start = start + 1;
        let mut i = start + 1;
        loop {
            let c = cmds
                .get(i)
                .ok_or_else(|| format!("line {}: if without endif", cmds[start].line))?;
            match c.name.as_str() {
                "if" => depth += 1,
                "endif" if depth > 0 => depth -= 1,
                "elseif" | "else" | "endif" if depth == 0 => {
                    branches.push((head, body_start, i));
                    if c.name == "endif" {
                        break;
                    }
                    head = if c.name == "elseif" { Some(c) } else { None };
                    body_start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        for (cond, from, to) in branches {
            let taken = match cond {
                Some(c) => self.condition(c)?,
                None => true, // else
            };
            if taken {
                self.run(&cmds[from..to])?;
                break;
            }
        }
        Ok(i)
    }

    fn run_foreach(&mut self, cmds: &[Command], start: usize) -> Result<usize, String> {
        let end = find_end(cmds, start, "foreach", "endforeach")?;
        let args = self.expand_args(&cmds[start].args);
        let (var, items) = args
            .split_first()
            .ok_or_else(|| format!("line {}: foreach without a variable", cmds[start].line))?;
        let items: Vec<String> = match items.first().map(String::as_str) {
            Some("IN") => {
                // foreach(x IN LISTS a b) / IN ITEMS ...
                let mut out = Vec::new();
                let mut mode = "";
                for it in &items[1..] {
                    match it.as_str() {
                        "LISTS" | "ITEMS" => mode = it,
                        _ if mode == "LISTS" => out.extend(self.list(it)),
                        _ => out.push(it.clone()),
                    }
                }
                out
            }
            _ => items.to_vec(),
        };
        let saved = self.vars.get(var).cloned();
        for item in items {
            self.vars.insert(var.clone(), item);
            self.run(&cmds[start + 1..end])?;
        }
        match saved {
            Some(v) => self.vars.insert(var.clone(), v),
            None => self.vars.remove(var),
        };
        Ok(end)
    }

    fn exec(&mut self, c: &Command) -> Result<(), String> {
        let args = self.expand_args(&c.args);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        match (c.name.as_str(), a.as_slice()) {
            ("set", [name, rest @ ..]) => {
                if let Some(pos) = rest.iter().position(|x| *x == "CACHE") {
                    // A cache entry does not replace a set variable unless FORCE.
                    if rest.contains(&"FORCE") || !self.vars.contains_key(*name) {
                        self.vars.insert(name.to_string(), rest[..pos].join(";"));
                    }
                } else {
                    let vals: Vec<&str> = rest
                        .iter()
                        .copied()
                        .filter(|x| *x != "PARENT_SCOPE")
                        .collect();
                    self.vars.insert(name.to_string(), vals.join(";"));
                }
            }
            ("unset", [name, ..]) => {
                self.vars.remove(*name);
            }
            ("option", [name, _doc, default, ..]) => {
                self.vars
                    .entry(name.to_string())
                    .or_insert_with(|| default.to_string());
            }
            ("option", [name, ..]) => {
                self.vars
                    .entry(name.to_string())
                    .or_insert_with(|| "OFF".into());
            }
            ("list", [op, name, items @ ..]) => {
                let mut l = self.list(name);
                match *op {
                    "APPEND" => l.extend(items.iter().map(|s| s.to_string())),
                    "PREPEND" => {
                        let mut n: Vec<String> = items.iter().map(|s| s.to_string()).collect();
                        n.extend(l);
                        l = n;
                    }
                    "REMOVE_ITEM" => l.retain(|x| !items.contains(&x.as_str())),
                    // Queries (LENGTH, GET, FIND, ...) do not change the lists
                    // this evaluator is asked about.
                    _ => return Ok(()),
                }
                self.vars.insert(name.to_string(), l.join(";"));
            }
            ("add_compile_definitions", defs) => {
                self.definitions.extend(defs.iter().map(|s| s.to_string()))
            }
            ("add_compile_options", opts) => {
                self.options.extend(opts.iter().map(|s| s.to_string()))
            }
            ("add_library", [name, rest @ ..]) => {
                const KINDS: [&str; 5] = ["STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE"];
                let (kind, srcs) = match rest.first() {
                    Some(k) if KINDS.contains(k) => (k.to_string(), &rest[1..]),
                    _ => ("STATIC".to_string(), rest),
                };
                let srcs = srcs.iter().filter(|s| **s != "EXCLUDE_FROM_ALL");
                let t = Target {
                    kind,
                    sources: srcs.map(|s| s.to_string()).collect(),
                    ..Target::default()
                };
                self.targets.insert(name.to_string(), t);
            }
            ("target_sources", [name, items @ ..]) => {
                let v = scoped_items(items);
                if let Some(t) = self.targets.get_mut(*name) {
                    t.sources.extend(v);
                }
            }
            ("target_compile_options", [name, items @ ..]) => {
                let v = scoped_items(items);
                if let Some(t) = self.targets.get_mut(*name) {
                    t.options.extend(v);
                }
            }
            ("target_compile_definitions", [name, items @ ..]) => {
                let v = scoped_items(items);
                if let Some(t) = self.targets.get_mut(*name) {
                    t.definitions.extend(v);
                }
            }
            ("target_include_directories", [name, items @ ..]) => {
                let v = scoped_items(items)
                    .into_iter()
                    .filter_map(|s| build_interface(&s))
                    .collect::<Vec<_>>();
                if let Some(t) = self.targets.get_mut(*name) {
                    t.includes.extend(v);
                }
            }
            // project() sets the version variables the configure step uses.
            ("project", [name, rest @ ..]) => {
                self.vars.insert("PROJECT_NAME".into(), name.to_string());
                if let Some(p) = rest.iter().position(|x| *x == "VERSION")
                    && let Some(v) = rest.get(p + 1)
                {
                    self.vars.insert("PROJECT_VERSION".into(), v.to_string());
                }
            }
            // Everything else (install, configure_file, add_subdirectory for
            // the command and the tests, ...) does not describe the library's
            // compilation.
            _ => {}
        }
        Ok(())
    }

    fn expand_args(&self, args: &[Arg]) -> Vec<String> {
        let mut out = Vec::new();
        for a in args {
            let e = self.expand(&a.text);
            if a.quoted {
                out.push(e);
            } else {
                out.extend(split_list(&e));
            }
        }
        out
    }

    /// Replace ${VAR} references, innermost first (CMake allows nesting).
    fn expand(&self, s: &str) -> String {
        let mut s = s.to_string();
        while let Some(start) = s.rfind("${") {
            let Some(len) = s[start..].find('}') else {
                break;
            };
            let name = &s[start + 2..start + len];
            let val = self.vars.get(name).cloned().unwrap_or_default();
            s.replace_range(start..start + len + 1, &val);
        }
        s
    }

    fn condition(&self, c: &Command) -> Result<bool, String> {
        // Expand ${} first; an unquoted expansion stays one token per element.
        let mut toks = Vec::new();
        for a in &c.args {
            let e = self.expand(&a.text);
            toks.push(Arg {
                text: e,
                quoted: a.quoted,
            });
        }
        let mut pos = 0;
        let v = self
            .cond_or(&toks, &mut pos)
            .map_err(|e| format!("line {}: {e}", c.line))?;
        if pos != toks.len() {
            return Err(format!(
                "line {}: unsupported condition near {:?}",
                c.line, toks[pos].text
            ));
        }
        Ok(v)
    }

    fn cond_or(&self, t: &[Arg], pos: &mut usize) -> Result<bool, String> {
        let mut v = self.cond_and(t, pos)?;
        while is_kw(t, *pos, "OR") {
            *pos += 1;
            let r = self.cond_and(t, pos)?;
            v = v || r;
        }
        Ok(v)
    }

    fn cond_and(&self, t: &[Arg], pos: &mut usize) -> Result<bool, String> {
        let mut v = self.cond_not(t, pos)?;
        while is_kw(t, *pos, "AND") {
            *pos += 1;
            let r = self.cond_not(t, pos)?;
            v = v && r;
        }
        Ok(v)
    }

    fn cond_not(&self, t: &[Arg], pos: &mut usize) -> Result<bool, String> {
        if is_kw(t, *pos, "NOT") {
            *pos += 1;
            return Ok(!self.cond_not(t, pos)?);
        }
        self.cond_cmp(t, pos)
    }

    fn cond_cmp(&self, t: &[Arg], pos: &mut usize) -> Result<bool, String> {
        let first = t.get(*pos).ok_or("condition ends early")?;
        if !first.quoted && first.text == "(" {
            *pos += 1;
            let v = self.cond_or(t, pos)?;
            if !is_kw(t, *pos, ")") {
                return Err("unbalanced parentheses in condition".into());
            }
            *pos += 1;
            return Ok(v);
        }
        if is_kw(t, *pos, "DEFINED") {
            let name = t.get(*pos + 1).ok_or("DEFINED without a name")?;
            *pos += 2;
            return Ok(self.vars.contains_key(&name.text));
        }
        const BINARY: [&str; 5] = ["MATCHES", "STREQUAL", "EQUAL", "LESS", "GREATER"];
        if let Some(op) = t
            .get(*pos + 1)
            .filter(|a| !a.quoted && BINARY.contains(&a.text.as_str()))
        {
            let rhs = t
                .get(*pos + 2)
                .ok_or("binary operator without a right operand")?;
            let l = self.operand(first);
            let r = self.operand(rhs);
            *pos += 3;
            let num = |s: &str| {
                s.parse::<i64>()
                    .map_err(|_| format!("{s:?} is not a number"))
            };
            return match op.text.as_str() {
                "MATCHES" => regex_full(&r, &l),
                "STREQUAL" => Ok(l == r),
                "EQUAL" => Ok(num(&l)? == num(&r)?),
                "LESS" => Ok(num(&l)? < num(&r)?),
                _ => Ok(num(&l)? > num(&r)?),
            };
        }
        *pos += 1;
        Ok(self.truthy(first))
    }

    /// A binary operand: an unquoted name of a set variable means its value.
    fn operand(&self, a: &Arg) -> String {
        if !a.quoted
            && let Some(v) = self.vars.get(&a.text)
        {
            return v.clone();
        }
        a.text.clone()
    }

    fn truthy(&self, a: &Arg) -> bool {
        if let Some(b) = constant(&a.text) {
            return b;
        }
        if a.quoted {
            return false;
        }
        match self.vars.get(&a.text) {
            Some(v) => constant(v).unwrap_or(true),
            None => false,
        }
    }
}

/// CMake's boolean constants; None for anything else.
fn constant(s: &str) -> Option<bool> {
    let u = s.to_ascii_uppercase();
    match u.as_str() {
        "1" | "ON" | "YES" | "TRUE" | "Y" => Some(true),
        "0" | "OFF" | "NO" | "FALSE" | "N" | "IGNORE" | "NOTFOUND" | "" => Some(false),
        _ if u.ends_with("-NOTFOUND") => Some(false),
        _ if u.parse::<f64>().is_ok() => Some(u.parse::<f64>() != Ok(0.0)),
        _ => None,
    }
}

fn is_kw(t: &[Arg], pos: usize, kw: &str) -> bool {
    t.get(pos).is_some_and(|a| !a.quoted && a.text == kw)
}

/// The regular expressions CMakeLists.txt uses in MATCHES: literals, `^`,
/// `$`, `.` and groups of alternatives. Anything else is refused.
fn regex_full(re: &str, s: &str) -> Result<bool, String> {
    if re.chars().any(|c| "*+?[]{}\\".contains(c)) {
        return Err(format!(
            "regular expression {re:?} is beyond this evaluator"
        ));
    }
    let alts = expand_alternatives(re)?;
    for alt in alts {
        let anchored_start = alt.starts_with('^');
        let anchored_end = alt.ends_with('$');
        let pat = alt.trim_start_matches('^').trim_end_matches('$');
        let n = pat.len();
        let at = |i: usize| {
            i + n <= s.len()
                && pat
                    .bytes()
                    .zip(s[i..i + n].bytes())
                    .all(|(p, c)| p == b'.' || p == c)
        };
        let hit = if anchored_start && anchored_end {
            s.len() == n && at(0)
        } else if anchored_start {
            at(0)
        } else if anchored_end {
            s.len() >= n && at(s.len() - n)
        } else {
            (0..=s.len().saturating_sub(n)).any(at)
        };
        if hit {
            return Ok(true);
        }
    }
    Ok(false)
}

/// "^(a|b)c$" -> ["^ac$", "^bc$"]; top-level "a|b" -> ["a", "b"].
fn expand_alternatives(re: &str) -> Result<Vec<String>, String> {
    if let Some(open) = re.find('(') {
        let close = re[open..].find(')').ok_or("unbalanced ( in regex")? + open;
        let (pre, inner, post) = (&re[..open], &re[open + 1..close], &re[close + 1..]);
        if inner.contains('(') {
            return Err(format!("nested groups in {re:?} are beyond this evaluator"));
        }
        let mut out = Vec::new();
        for alt in inner.split('|') {
            out.extend(expand_alternatives(&format!("{pre}{alt}{post}"))?);
        }
        return Ok(out);
    }
    Ok(re.split('|').map(str::to_string).collect())
}

/// Drop PUBLIC/PRIVATE/INTERFACE keywords and INTERFACE-only items.
fn scoped_items(items: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut interface_only = false;
    for it in items {
        match *it {
            "PUBLIC" | "PRIVATE" => interface_only = false,
            "INTERFACE" => interface_only = true,
            "SYSTEM" | "BEFORE" | "AFTER" => {}
            _ if !interface_only => out.push(it.to_string()),
            _ => {}
        }
    }
    out
}

/// The build-tree path of an include directory item, if it has one.
fn build_interface(s: &str) -> Option<String> {
    if let Some(rest) = s.strip_prefix("$<BUILD_INTERFACE:") {
        return Some(rest.trim_end_matches('>').to_string());
    }
    if s.starts_with("$<") {
        return None; // $<INSTALL_INTERFACE:...> and the like
    }
    Some(s.to_string())
}

fn split_list(s: &str) -> Vec<String> {
    s.split(';')
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

fn find_end(cmds: &[Command], start: usize, open: &str, close: &str) -> Result<usize, String> {
    let mut depth = 0;
    for (i, c) in cmds.iter().enumerate().skip(start + 1) {
        if c.name == open {
            depth += 1;
        } else if c.name == close {
            if depth == 0 {
                return Ok(i);
            }
            depth -= 1;
        }
    }
    Err(format!("line {}: {open} without {close}", cmds[start].line))
}

fn tokenize(text: &str) -> Result<Vec<Command>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut line = 1;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let name = text[start..i].to_ascii_lowercase();
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
            if b.get(i) != Some(&b'(') {
                return Err(format!("line {line}: expected ( after {name}"));
            }
            i += 1;
            let cmd_line = line;
            let args = tokenize_args(text, &mut i, &mut line)?;
            out.push(Command {
                name,
                args,
                line: cmd_line,
            });
        } else {
            return Err(format!("line {line}: unexpected {:?}", c as char));
        }
    }
    Ok(out)
}

fn tokenize_args(text: &str, i: &mut usize, line: &mut usize) -> Result<Vec<Arg>, String> {
    let b = text.as_bytes();
    let mut args = Vec::new();
    let mut depth = 0;
    while *i < b.len() {
        let c = b[*i];
        match c {
            b'\n' => {
                *line += 1;
                *i += 1;
            }
            b' ' | b'\t' | b'\r' => *i += 1,
            b'#' => {
                while *i < b.len() && b[*i] != b'\n' {
                    *i += 1;
                }
            }
            b'(' => {
                depth += 1;
                args.push(Arg {
                    text: "(".into(),
                    quoted: false,
                });
                *i += 1;
            }
            b')' => {
                *i += 1;
                if depth == 0 {
                    return Ok(args);
                }
                depth -= 1;
                args.push(Arg {
                    text: ")".into(),
                    quoted: false,
                });
            }
            b'"' => {
                *i += 1;
                let mut s = String::new();
                loop {
                    let Some(&ch) = b.get(*i) else {
                        return Err(format!("line {line}: unterminated string"));
                    };
                    match ch {
                        b'"' => break,
                        b'\\' if *i + 1 < b.len() => {
                            s.push(b[*i + 1] as char);
                            *i += 2;
                            continue;
                        }
                        b'\n' => *line += 1,
                        _ => {}
                    }
                    // Copy one whole UTF-8 character.
                    let len = text[*i..].chars().next().map_or(1, char::len_utf8);
                    s.push_str(&text[*i..*i + len]);
                    *i += len;
                }
                *i += 1;
                args.push(Arg {
                    text: s,
                    quoted: true,
                });
            }
            _ => {
                let start = *i;
                while *i < b.len() && !b" \t\r\n()\"#".contains(&b[*i]) {
                    *i += 1;
                }
                args.push(Arg {
                    text: text[start..*i].to_string(),
                    quoted: false,
                });
            }
        }
    }
    Err(format!("line {line}: unterminated command"))
}
