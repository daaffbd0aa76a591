//! The plan of the code, checked: the core, and the binary built without its
//! `app` feature, depend on no GUI crate, and in each crate the modules'
//! imports form no cycle.

#[path = "../src/core/tests/common/temp.rs"]
mod temp;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const GUI_CRATES: [&str; 6] = [
    "egui",
    "eframe",
    "egui_plot",
    "egui_kittest",
    "egui-winit",
    "winit",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every package in a workspace member's dependency tree, dev and build
/// dependencies included, as `cargo tree` resolves it.
fn dependency_tree(package: &str) -> Vec<String> {
    cargo_tree(&["-e", "normal,build,dev", "-p", package])
}

/// The packages `cargo tree` lists with these arguments (offline: the tests
/// are built, so every package is on the machine).
fn cargo_tree(args: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["tree", "--offline", "--prefix", "none"])
        .args(args)
        .args([
            "--manifest-path",
            root().join("Cargo.toml").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_core_depends_on_no_gui_crate() {
    let core = dependency_tree("boaf-core");
    assert!(core.iter().any(|d| d == "linfa"), "read the tree: {core:?}");
    for gui in GUI_CRATES {
        assert!(!core.iter().any(|d| d == gui), "boaf-core depends on {gui}");
    }
    // The app does depend on them: the check reads what it claims to.
    let app = dependency_tree("boaf-app");
    assert!(app.iter().any(|d| d == "winit"), "{app:?}");
}

#[test]
fn the_binary_without_the_app_feature_links_no_gui_crate() {
    let headless = cargo_tree(&["-e", "normal", "-p", "boaf", "--no-default-features"]);
    assert!(headless.iter().any(|d| d == "boaf-core"), "{headless:?}");
    for gui in GUI_CRATES.iter().chain(&["boaf-app"]) {
        assert!(
            !headless.iter().any(|d| d == gui),
            "boaf --no-default-features depends on {gui}"
        );
    }
    // With the default features it has the app.
    let full = cargo_tree(&["-e", "normal", "-p", "boaf"]);
    assert!(full.iter().any(|d| d == "eframe"), "{full:?}");
}

/// The crates of `boaf serve`'s HTTP server.
const SERVER_CRATES: [&str; 3] = ["tokio", "axum", "hyper"];

#[test]
fn the_http_server_is_a_feature_and_the_core_has_no_server_crate() {
    let core = dependency_tree("boaf-core");
    for c in SERVER_CRATES.iter().chain(&["rusqlite", "boaf-server"]) {
        assert!(!core.iter().any(|d| d == c), "boaf-core depends on {c}");
    }
    // Without its default features the binary keeps the study store, not the server.
    let headless = cargo_tree(&["-e", "normal", "-p", "boaf", "--no-default-features"]);
    assert!(headless.iter().any(|d| d == "rusqlite"), "{headless:?}");
    for c in SERVER_CRATES {
        assert!(
            !headless.iter().any(|d| d == c),
            "boaf --no-default-features depends on {c}"
        );
    }
    let full = cargo_tree(&["-e", "normal", "-p", "boaf"]);
    assert!(full.iter().any(|d| d == "axum"), "{full:?}");
}

/// The module path of every source file of a crate (tests, examples and the
/// folders in `skip` aside): `engine::analysis` for `engine/analysis/mod.rs`.
fn modules(dir: &Path, crate_root: &str, skip: &[&str]) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !["tests", "examples", "target"].contains(&name.as_str())
                    && !skip.contains(&name.as_str())
                {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(dir).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == crate_root) {
                parts.pop();
            }
            out.insert(parts.join("::"), path);
        }
    }
    out
}

/// The code of a file without its comments and its test module.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap();
    text.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a file refers to by `crate::` and `super::` paths (and by
/// its own children, for `use` lists like `crate::a::{b, c::d}`).
fn references(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let parent = |m: &str| {
        m.rsplit_once("::")
            .map_or(String::new(), |p| p.0.to_string())
    };
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let start = if rest.starts_with("crate::") {
            Some((String::new(), "crate::".len()))
        } else if rest.starts_with("super::")
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'))
        {
            Some((parent(module), "super::".len()))
        } else {
            None
        };
        let Some((mut base, skip)) = start else {
            i += rest.chars().next().unwrap().len_utf8();
            continue;
        };
        i += skip;
        // Follow the path's segments while they name modules; braces list several.
        let tail: String = text[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || "_:{}, \n".contains(*c))
            .collect();
        let targets: Vec<String> = if let Some(list) = tail.split_once('{') {
            let prefix = list.0.trim_end_matches("::");
            list.1
                .split(['}', ','])
                .map(|s| format!("{prefix}::{}", s.trim()))
                .collect()
        } else {
            vec![tail.clone()]
        };
        for t in targets {
            let mut m = base.clone();
            for seg in t.split("::").map(str::trim).filter(|s| !s.is_empty()) {
                let next = if m.is_empty() {
                    seg.to_string()
                } else {
                    format!("{m}::{seg}")
                };
                if known.contains(&next) {
                    m = next;
                } else {
                    break;
                }
            }
            out.insert(m);
        }
        base.clear();
    }
    // `use child::...` (a re-export, say) names a child module.
    for line in text.lines().map(str::trim) {
        let Some(path) = line
            .strip_prefix("pub use ")
            .or_else(|| line.strip_prefix("use "))
            .map(|p| p.trim_start_matches("self::"))
        else {
            continue;
        };
        let first = path.split("::").next().unwrap_or("");
        let child = if module.is_empty() {
            first.to_string()
        } else {
            format!("{module}::{first}")
        };
        if known.contains(&child) {
            out.insert(child);
        }
    }
    out
}

/// Each module's imports: the other modules it refers to, its ancestors
/// aside (a module may use its ancestors' items: Rust scoping lets the
/// app's panels draw into the app).
fn imports(dir: &Path, crate_root: &str, skip: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules(dir, crate_root, skip);
    let known: BTreeSet<String> = mods.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (m, path) in &mods {
        let targets = references(m, &code(path), &known)
            .into_iter()
            .filter(|t| t != m && !(t.is_empty() || m.starts_with(&format!("{t}::"))))
            .collect();
        edges.insert(m.clone(), targets);
    }
    edges
}

/// The imports that break the parts' order: a module of `part` (or `part`
/// itself) that imports a module of one of `above`, as `module -> import`.
fn upward(edges: &BTreeMap<String, BTreeSet<String>>, part: &str, above: &[&str]) -> Vec<String> {
    let within = |m: &str, p: &str| m == p || m.starts_with(&format!("{p}::"));
    edges
        .iter()
        .filter(|(m, _)| within(m, part))
        .flat_map(|(m, ts)| {
            ts.iter()
                .filter(|t| above.iter().any(|a| within(t, a)))
                .map(move |t| format!("{m} -> {t}"))
        })
        .collect()
}

/// A cycle of the import graph, if there is one. A module may use its
/// ancestors' items (Rust scoping: the app's panels draw into the app), so
/// references to an ancestor do not count.
fn cycle(dir: &Path, crate_root: &str, skip: &[&str]) -> Option<Vec<String>> {
    let edges = imports(dir, crate_root, skip);
    // Depth-first search with colours: grey on the stack, black done.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for t in edges.get(m).into_iter().flatten() {
            match state.get(t.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|s| s == t).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(t.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(t, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        if !state.contains_key(m)
            && let Some(c) = visit(m, &edges, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_cycle() {
    // The binary is `src/main.rs` and `src/cli/`; the other crates live
    // below it in `src/core`, `src/app`, `src/server` and `src/book`.
    for (dir, crate_root, skip) in [
        ("src/core", "lib", &[][..]),
        ("src/app", "lib", &[]),
        ("src/server", "lib", &[]),
        ("src/book", "lib", &[]),
        ("src", "main", &["core", "app", "server", "book"]),
    ] {
        let path = root().join(dir);
        assert!(
            modules(&path, crate_root, skip).len() >= 3,
            "{dir} has modules"
        );
        assert_eq!(
            cycle(&path, crate_root, skip),
            None,
            "an import cycle in {dir}"
        );
    }
}

#[test]
fn the_check_finds_a_cycle_when_there_is_one() {
    // Two modules that import each other, as `cli` and `gencli` once did.
    let dir = temp::TempDir::new("layout");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "use crate::b::{x, y::z};\n").unwrap();
    std::fs::write(dir.join("b.rs"), "fn f() { crate::a::g() }\n").unwrap();
    let found = cycle(dir.path(), "lib", &[]);
    std::fs::write(dir.join("b.rs"), "// crate::a::g()\nfn f() {}\n").unwrap();
    let none = cycle(dir.path(), "lib", &[]);
    assert_eq!(found, Some(vec!["a".into(), "b".into(), "a".into()]));
    assert_eq!(none, None, "comments are not imports");

    // A `use` list over several lines, and a cycle through a re-export.
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\nmod hub;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "use crate::{\n    hub::X,\n};\n").unwrap();
    std::fs::create_dir_all(dir.join("hub")).unwrap();
    std::fs::write(dir.join("hub/mod.rs"), "mod inner;\npub use inner::X;\n").unwrap();
    std::fs::write(dir.join("hub/inner.rs"), "use crate::b::Y;\n").unwrap();
    std::fs::write(dir.join("b.rs"), "use crate::a::Z;\n").unwrap();
    let through = cycle(dir.path(), "lib", &[]);
    assert_eq!(
        through,
        Some(
            ["a", "hub", "hub::inner", "b", "a"]
                .map(String::from)
                .to_vec()
        )
    );
}

/// The core's parts, each with the parts it must not import: the engine is
/// the game and its science, below everything; the agents play the engine's
/// games; `format` prints numbers and knows no part; `hash`, `parallel` and
/// `stats` are tools any part may use.
const CORE_ORDER: [(&str, &[&str]); 6] = [
    (
        "engine",
        &["generator", "study", "agents", "folder", "durable"],
    ),
    ("agents", &["generator", "study", "folder", "durable"]),
    ("format", DOMAIN),
    ("hash", DOMAIN),
    ("parallel", DOMAIN),
    ("stats", DOMAIN),
];

/// The core's domain parts, which the shared tools (`format`, `hash`,
/// `parallel`, `stats`) must not import.
const DOMAIN: &[&str] = &[
    "engine",
    "generator",
    "study",
    "agents",
    "folder",
    "durable",
];

#[test]
fn no_part_of_the_core_imports_a_higher_part() {
    let edges = imports(&root().join("src/core"), "lib", &[]);
    // The graph is read: the generator does import the engine and the agents.
    assert!(upward(&edges, "generator", &["engine"]).len() > 5);
    assert!(!upward(&edges, "generator", &["agents"]).is_empty());
    for (part, above) in CORE_ORDER {
        assert!(edges.contains_key(part), "no module {part}");
        assert_eq!(upward(&edges, part, above), Vec::<String>::new(), "{part}");
    }
}

#[test]
fn the_order_check_finds_an_upward_import() {
    let dir = temp::TempDir::new("layout-order");
    std::fs::create_dir_all(dir.join("engine")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "mod engine;\nmod agents;\nmod format;\n",
    )
    .unwrap();
    std::fs::write(dir.join("engine/mod.rs"), "mod rules;\n").unwrap();
    std::fs::write(
        dir.join("engine/rules.rs"),
        "use crate::format::number;\nfn f() { crate::agents::play() }\n",
    )
    .unwrap();
    std::fs::write(dir.join("agents.rs"), "use crate::engine::rules::X;\n").unwrap();
    std::fs::write(dir.join("format.rs"), "fn n() {}\n").unwrap();
    let edges = imports(dir.path(), "lib", &[]);
    assert_eq!(
        upward(&edges, "engine", &["agents", "generator"]),
        ["engine::rules -> agents"]
    );
    assert!(upward(&edges, "agents", &["generator"]).is_empty());
    assert!(upward(&edges, "format", &["engine", "agents"]).is_empty());
}
