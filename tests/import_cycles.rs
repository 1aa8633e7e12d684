//! No import circles, as a ratchet: each crate's `src` tree is read into a file-level import
//! graph, and its largest strongly connected component (a set of files that import each other
//! round a circle) must stay at or under the tree's limit.
//!
//! How a file's imports are found: comments, string literals, visibilities (`pub(in crate::a)`)
//! and `#[cfg(test)]` modules are set aside, then every path that starts with `crate::`,
//! `super::`, `self::` or the name of a child module of the file's own module (including `use`
//! groups such as `use super::{a::B, c}`) is resolved to the deepest module file it names; where
//! that module re-exports the item named next (`pub use e::W`), to the file the item comes
//! from. `mod x;` declarations are not imports. `src` holds two crates, read as two trees: the
//! library and the binary (`main.rs` and `cli/`).
//! `fixture_with_a_circle_is_found` holds the parser to a tiny tree whose circle is known.

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::path::{Path, PathBuf};

/// The trees, a part of each (files whose name starts so; "" is the whole tree) and the
/// largest circle there may be (files in one strongly connected component that has a file
/// in that part): with every import, and without the imports of a module from the modules
/// under it (a parent re-exporting or calling its children's items, the rest of a circle
/// then being children importing the parent's), which leaves the circles among siblings and
/// cousins. As measured when the limit came; a limit may go down, never up, but for the
/// binary's every-import figure: its circle is `cli/mod.rs` with the command modules it
/// dispatches to (sideways: 1), so each new command joins it (21 with `reproduce`).
const LIMITS: &[(&str, &str, usize, usize)] = &[
    ("src", "", 15, 4),
    ("src", "scenario", 15, 4),
    ("src (binary)", "", 21, 1),
    ("model/src", "", 7, 6),
    ("sim/src", "", 13, 9),
];

/// A tree's files, each with its module path (`src/scenario/mod.rs` is `scenario`,
/// `src/lib.rs` the root) and its text.
struct Tree {
    files: Vec<(Vec<String>, String, String)>,
}

impl Tree {
    /// The tree named `name`: a folder, except that `src` holds two crates, the library
    /// (`lib.rs` and its modules) and `src (binary)` (`main.rs` and `cli/`).
    fn named(name: &str) -> Tree {
        let binary = |p: &Path| {
            let rel = p.strip_prefix(repo("src")).unwrap();
            rel == Path::new("main.rs") || rel.starts_with("cli")
        };
        match name {
            "src" => Tree::read(&repo("src"), &|p| !binary(p)),
            "src (binary)" => Tree::read(&repo("src"), &binary),
            _ => Tree::read(&repo(name), &|_| true),
        }
    }

    fn read(root: &Path, keep: &dyn Fn(&Path) -> bool) -> Tree {
        let mut paths = Vec::new();
        walk(root, &mut paths);
        paths.retain(|p| keep(p));
        paths.sort();
        let files = paths
            .iter()
            .map(|p| {
                let rel = p.strip_prefix(root).unwrap().with_extension("");
                let mut module: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    module.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    module.pop();
                }
                let text = std::fs::read_to_string(p).unwrap();
                (module, rel.display().to_string(), text)
            })
            .collect();
        Tree { files }
    }

    /// What file `i` re-exports: each name with the path it stands for (`pub use a::B` maps
    /// `B` to `a::B`).
    fn reexports(&self, i: usize) -> Vec<(String, Vec<String>)> {
        let (module, _, text) = &self.files[i];
        let code = code_only(text);
        let children = self.children(module);
        let mut out = Vec::new();
        for statement in code.split(';') {
            let statement = statement.trim_start();
            let Some(rest) = ["pub use ", "pub(crate) use ", "pub(super) use "]
                .iter()
                .find_map(|p| statement.strip_prefix(p))
            else {
                continue;
            };
            for path in paths(rest, &children) {
                out.push((path.last().unwrap().clone(), path));
            }
        }
        out
    }

    fn index(&self, module: &[String]) -> Option<usize> {
        self.files.iter().position(|(m, _, _)| m == module)
    }

    /// The children of `module` that are files of the tree.
    fn children(&self, module: &[String]) -> Vec<String> {
        self.files
            .iter()
            .filter(|(m, _, _)| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|(m, _, _)| m.last().unwrap().clone())
            .collect()
    }

    /// The import graph: an edge from each file to each file it imports from, or only to
    /// those not under its own module unless `downward`. Node `i` is file `i`.
    fn graph(&self, downward: bool) -> DiGraph<usize, ()> {
        let mut g = DiGraph::new();
        for i in 0..self.files.len() {
            g.add_node(i);
        }
        for (from, (module, _, text)) in self.files.iter().enumerate() {
            let children = self.children(module);
            for path in paths(&code_only(text), &children) {
                if let Some(to) = self.resolve(module, &path) {
                    let (a, b) = (NodeIndex::new(from), NodeIndex::new(to));
                    let under = self.files[to].0.starts_with(module);
                    if to != from && (downward || !under) && g.find_edge(a, b).is_none() {
                        g.add_edge(a, b, ());
                    }
                }
            }
        }
        g
    }

    /// The file that `path`, written in `module`, imports from: the deepest module it names,
    /// or, where that module re-exports the item named next, the file the item comes from.
    fn resolve(&self, module: &[String], path: &[String]) -> Option<usize> {
        self.resolve_within(module, path, 8)
    }

    fn resolve_within(&self, module: &[String], path: &[String], depth: u32) -> Option<usize> {
        let mut at: Vec<String> = match path.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            _ => module.to_vec(),
        };
        let mut rest = &path[usize::from(path[0] == "crate" || path[0] == "self")..];
        while rest.first().map(String::as_str) == Some("super") {
            at.pop()?;
            rest = &rest[1..];
        }
        let mut item = None;
        for segment in rest {
            let mut deeper = at.clone();
            deeper.push(segment.clone());
            if self.index(&deeper).is_none() {
                item = Some(segment);
                break;
            }
            at = deeper;
        }
        let file = self.index(&at)?;
        let reexported = item.and_then(|name| {
            let (_, path) = self.reexports(file).into_iter().find(|(n, _)| n == name)?;
            self.resolve_within(&at, &path, depth.checked_sub(1)?)
        });
        reexported.or(Some(file))
    }

    /// The largest strongly connected component with a file whose name starts with `part`,
    /// as file names, in the graph with or without the `downward` imports.
    fn largest_circle(&self, part: &str, downward: bool) -> Vec<String> {
        let g = self.graph(downward);
        let mut largest: Vec<String> = tarjan_scc(&g)
            .into_iter()
            .filter(|c| c.iter().any(|i| self.files[i.index()].1.starts_with(part)))
            .max_by_key(Vec::len)
            .unwrap_or_default()
            .into_iter()
            .map(|i| self.files[i.index()].1.clone())
            .collect();
        largest.sort();
        largest
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` without comments, string and character literals, the paths of visibilities
/// (`pub(in crate::a)` is no import) and the items under `#[cfg(test)]` (a `mod x;` or a
/// `mod x { .. }`, up to its closing brace).
fn code_only(text: &str) -> String {
    let mut code = without_literals(text);
    while let Some(at) = code.find("#[cfg(test)]") {
        let rest = &code[at..];
        let end = match (rest.find(';'), rest.find('{')) {
            (Some(semi), Some(open)) if semi < open => at + semi + 1,
            (_, Some(open)) => at + open + closing_brace(&rest[open..]),
            (Some(semi), None) => at + semi + 1,
            (None, None) => code.len(),
        };
        code.replace_range(at..end, "");
    }
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub(in ") {
        out.push_str(&rest[..at + 3]);
        rest = &rest[at..];
        rest = &rest[rest.find(')').map_or(rest.len(), |e| e + 1)..];
    }
    out.push_str(rest);
    out
}

/// The length of `text` up to and with the brace that closes its first `{`.
fn closing_brace(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        depth += match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        };
        if depth == 0 && c == '}' {
            return i + 1;
        }
    }
    text.len()
}

fn without_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            while i < chars.len() && !chars[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (ident_char(chars[i - 1]) || chars[i - 1] == '$' || chars[i - 1] == ':')
}

/// Every module path in `code` that starts at `crate`, `super`, `self` or one of
/// `children`, with `use` groups expanded.
fn paths(code: &str, children: &[String]) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if ident_char(chars[i]) && !ident_before(&chars, i) {
            let word: String = chars[i..].iter().take_while(|&&c| ident_char(c)).collect();
            let starts =
                matches!(word.as_str(), "crate" | "super" | "self") || children.contains(&word);
            if starts && chars[i + word.len()..].starts_with(&[':', ':']) {
                i = path_at(&chars, i, Vec::new(), &mut out);
                continue;
            }
            i += word.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Reads the path (or `use` group) at `i` onto `prefix`, pushes each full path to `out`
/// and returns where it ended.
fn path_at(
    chars: &[char],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        match chars.get(i) {
            Some('{') => {
                i += 1;
                loop {
                    i = path_at(chars, i, prefix.clone(), out);
                    while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                        i += 1;
                    }
                    if chars.get(i) != Some(&'}') && i < chars.len() {
                        continue;
                    }
                    return i + 1;
                }
            }
            Some(c) if ident_char(*c) => {
                let word: String = chars[i..].iter().take_while(|&&c| ident_char(c)).collect();
                i += word.len();
                prefix.push(word);
                if chars[i..].starts_with(&[':', ':']) {
                    i += 2;
                    continue;
                }
            }
            _ => {}
        }
        if !prefix.is_empty() {
            out.push(prefix);
        }
        return i;
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
fn no_tree_has_a_circle_over_its_limit() {
    let mut over = Vec::new();
    for (tree, part, all, sideways) in LIMITS {
        for (downward, limit) in [(true, all), (false, sideways)] {
            let circle = Tree::named(tree).largest_circle(part, downward);
            let what = if downward {
                "every import"
            } else {
                "no downward import"
            };
            println!("{tree} {part} ({what}): {} files {circle:?}", circle.len());
            if circle.len() > *limit {
                over.push(format!(
                    "{tree} {part} ({what}): {} files > {limit}: {circle:?}",
                    circle.len()
                ));
            }
        }
    }
    assert!(
        over.is_empty(),
        "import circles over the limit:\n{}",
        over.join("\n")
    );
}

/// In `sim/src` and `src/scenario` a circle is a module and modules under it (a parent that
/// re-exports its children's types, children that import the parent's): never files of
/// sibling modules importing each other, as the built-ins and their helpers once did.
#[test]
fn circles_stay_inside_one_module() {
    for (root, part) in [("sim/src", ""), ("src", "scenario")] {
        let tree = Tree::named(root);
        let g = tree.graph(true);
        for component in tarjan_scc(&g).into_iter().filter(|c| c.len() > 1) {
            let files: Vec<usize> = component.iter().map(|i| i.index()).collect();
            if !files.iter().any(|&i| tree.files[i].1.starts_with(part)) {
                continue;
            }
            let modules: Vec<&Vec<String>> = files.iter().map(|&i| &tree.files[i].0).collect();
            let top = modules.iter().min_by_key(|m| m.len()).unwrap();
            let names: Vec<&str> = files.iter().map(|&i| tree.files[i].1.as_str()).collect();
            assert!(
                modules.iter().all(|m| m.starts_with(top)),
                "{root} circle {names:?} is more than a module and the modules under it"
            );
        }
    }
}

#[test]
fn fixture_with_a_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("import-cycles-{}", std::process::id()));
    let files = [
        (
            "lib.rs",
            "mod a;\nmod b;\nmod c;\nuse crate::c::Z; // crate::b::X in a comment\n",
        ),
        (
            "a/mod.rs",
            "mod inner;\nuse inner::Deep;\nlet s = \"crate::c\";\n",
        ),
        (
            "a/inner.rs",
            "use crate::{b::{X, Y}, c};\npub(in crate::d) fn f() {}\n",
        ),
        (
            "b.rs",
            "#[cfg(test)]\nmod t;\npub fn f() { super::a::g() }\n#[cfg(test)]\nmod tests { use crate::c; }\n",
        ),
        ("c.rs", "pub struct Z;\n"),
        ("d/mod.rs", "mod e;\npub use e::W;\n"),
        ("d/e.rs", "pub struct W;\n"),
        ("f.rs", "use crate::d::W;\n"),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let tree = Tree::read(&dir, &|_| true);
    let g = tree.graph(true);
    let name = |i: usize| tree.files[i].1.clone();
    let mut edges: Vec<(String, String)> = g
        .raw_edges()
        .iter()
        .map(|e| (name(e.source().index()), name(e.target().index())))
        .collect();
    edges.sort();
    std::fs::remove_dir_all(&dir).unwrap();
    let expected = [
        ("a/inner", "b"),
        ("a/inner", "c"),
        ("a/mod", "a/inner"),
        ("b", "a/mod"),
        ("d/mod", "d/e"),
        ("f", "d/e"),
        ("lib", "c"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(edges, expected);
    assert_eq!(tree.largest_circle("", true), ["a/inner", "a/mod", "b"]);
    assert_eq!(
        tree.largest_circle("", false).len(),
        1,
        "without a/mod -> a/inner the circle is gone"
    );
    assert_eq!(
        tree.largest_circle("d", true).len(),
        1,
        "d re-exports e, e imports nothing"
    );
}
