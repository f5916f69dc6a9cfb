//! Every relative link and image in the repository's Markdown resolves: the
//! file or directory exists, and a `#fragment` names a heading (by GitHub's
//! anchor rule) or an HTML `id`/`name` in the file it points into. Links to
//! other sites are not fetched.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Directories that hold build output or generated data, not documentation.
const SKIPPED_DIRS: &[&str] = &["target", "build", "corpus", "artifacts", "node_modules"];

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The text outside fenced code blocks, code spans and HTML comments, one
/// entry per line (1-based line numbers kept), with headings marked.
struct Prose {
    lines: Vec<(usize, String)>,
    headings: Vec<String>,
}

fn prose(text: &str) -> Prose {
    let mut lines = Vec::new();
    let mut headings = Vec::new();
    let mut fence: Option<&str> = None;
    let mut in_comment = false;
    for (number, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        }
        // Drop comments, which may span lines, then code spans.
        let mut kept = String::new();
        let mut rest = raw;
        loop {
            if in_comment {
                match rest.find("-->") {
                    Some(end) => {
                        in_comment = false;
                        rest = &rest[end + 3..];
                    }
                    None => break,
                }
            } else {
                match rest.find("<!--") {
                    Some(start) => {
                        kept.push_str(&rest[..start]);
                        in_comment = true;
                        rest = &rest[start + 4..];
                    }
                    None => {
                        kept.push_str(rest);
                        break;
                    }
                }
            }
        }
        // A heading's anchor keeps the words of its code spans.
        if let Some(heading) = kept.replace('`', "").trim_start().strip_prefix('#') {
            let heading = heading.trim_start_matches('#');
            if heading.starts_with(' ') || heading.is_empty() {
                headings.push(heading.trim().to_owned());
            }
        }
        lines.push((number + 1, without_code_spans(&kept)));
    }
    Prose { lines, headings }
}

/// The line with its code spans removed, marks and contents.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect()
}

/// Link targets on a line: inline links and images `[..](target)`,
/// reference definitions `[label]: target`, and HTML `src`/`href`.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inner = after[..end].trim();
        let target = inner.split_whitespace().next().unwrap_or("");
        targets.push(
            target
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned(),
        );
        rest = &after[end.min(after.len())..];
    }
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') {
        if let Some(close) = trimmed.find("]:") {
            if let Some(target) = trimmed[close + 2..].split_whitespace().next() {
                targets.push(target.to_owned());
            }
        }
    }
    for attribute in ["src=\"", "href=\""] {
        let mut rest = line;
        while let Some(at) = rest.find(attribute) {
            let after = &rest[at + attribute.len()..];
            let end = after.find('"').unwrap_or(after.len());
            targets.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// GitHub's anchor for a heading: the rendered text in lower case, with
/// everything but letters, digits, spaces, `-` and `_` removed and spaces
/// turned into `-`; repeats get `-1`, `-2`, ...
fn anchors(prose: &Prose) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    for heading in &prose.headings {
        let rendered = rendered_text(heading);
        let slug: String = rendered
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    for (_, line) in &prose.lines {
        for attribute in ["id=\"", "name=\""] {
            let mut rest = line.as_str();
            while let Some(at) = rest.find(attribute) {
                let after = &rest[at + attribute.len()..];
                let end = after.find('"').unwrap_or(after.len());
                out.insert(after[..end].to_owned());
                rest = &after[end..];
            }
        }
    }
    out
}

/// A heading's text as rendered: links become their text, emphasis marks go.
fn rendered_text(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(paren)) if paren > close => {
                out.push_str(&after[..close]);
                rest = &after[paren + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace("**", "").replace('*', "")
}

/// The broken links of `files`, as `file:line: target: why`.
fn broken_links(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut parsed: HashMap<PathBuf, Prose> = HashMap::new();
    let mut read = |path: &Path| -> Option<HashSet<String>> {
        let key = path.canonicalize().ok()?;
        if !parsed.contains_key(&key) {
            let text = fs::read_to_string(&key).ok()?;
            parsed.insert(key.clone(), prose(&text));
        }
        Some(anchors(&parsed[&key]))
    };
    let mut broken = Vec::new();
    for file in files {
        let text = fs::read_to_string(file).unwrap();
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (number, line) in prose(&text).lines {
            for target in link_targets(&line) {
                if target.is_empty()
                    || target.contains("://")
                    || target.starts_with("mailto:")
                    || target.starts_with("//")
                {
                    continue;
                }
                let (path_part, fragment) = match target.split_once('#') {
                    Some((path, fragment)) => (path, Some(fragment)),
                    None => (target.as_str(), None),
                };
                let resolved = if path_part.is_empty() {
                    file.clone()
                } else if let Some(from_root) = path_part.strip_prefix('/') {
                    root.join(from_root)
                } else {
                    file.parent().unwrap().join(path_part)
                };
                if !resolved.exists() {
                    broken.push(format!("{shown}:{number}: {target}: no such file"));
                    continue;
                }
                let Some(fragment) = fragment else { continue };
                if resolved.extension().is_some_and(|e| e == "md") {
                    match read(&resolved) {
                        Some(found) if found.contains(fragment) => {}
                        _ => broken.push(format!(
                            "{shown}:{number}: {target}: no heading with anchor #{fragment}"
                        )),
                    }
                }
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_repository_markdown_resolves() {
    let root = Path::new(ROOT);
    let mut files = Vec::new();
    markdown_files(root, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")) && files.len() >= 5,
        "found too few Markdown files: {files:?}"
    );
    let broken = broken_links(root, &files);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_checker_reports_broken_links_and_anchors_and_ignores_code() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("markdown_links_selftest");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("docs")).unwrap();
    fs::write(dir.join("docs/picture.svg"), "<svg/>").unwrap();
    fs::write(
        dir.join("docs/guide.md"),
        "# Guide\n\n## Better plans: strategies, alignment and budgets\n\n## `aether_x` call\n\n\
         ## Repeated\n\n## Repeated\n",
    )
    .unwrap();
    fs::write(
        dir.join("README.md"),
        "# Top\n\
         [ok](docs/guide.md) ![ok](docs/picture.svg) [dir](docs/)\n\
         [anchor](docs/guide.md#better-plans-strategies-alignment-and-budgets)\n\
         [code anchor](docs/guide.md#aether_x-call) [second](docs/guide.md#repeated-1)\n\
         [self](#top) [web](https://example.com/missing.md)\n\
         ![missing image](picture.svg)\n\
         [missing file](docs/nothing.md)\n\
         [missing anchor](docs/guide.md#nowhere)\n\
         [ref]: docs/gone.md\n\
         <img src=\"docs/absent.png\">\n\
         `[in code](nowhere.md)`\n\
         ```\n[in a fence](nowhere.md)\n```\n\
         <!-- [in a comment](nowhere.md) -->\n",
    )
    .unwrap();
    let files = vec![dir.join("README.md"), dir.join("docs/guide.md")];
    let broken = broken_links(&dir, &files);
    assert_eq!(
        broken,
        vec![
            "README.md:6: picture.svg: no such file",
            "README.md:7: docs/nothing.md: no such file",
            "README.md:8: docs/guide.md#nowhere: no heading with anchor #nowhere",
            "README.md:9: docs/gone.md: no such file",
            "README.md:10: docs/absent.png: no such file",
        ]
    );
}
