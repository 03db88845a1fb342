//! Puts cbindgen's header in reading order: five sections (basics, chains, SVGD, diagnostics,
//! advanced), each opened by a short guide.
//!
//! cbindgen writes the constants, then the types, then the functions, each in the order it met
//! them in the macro-expanded crate, so a C reader met the distributed-phase functions before the
//! basic ones. Here the header is cut into its items (the blank line between two declarations is
//! cbindgen's item separator), each item is given a section by [`section_of`], and the sections
//! are written in order: within one, the constants, the types and the functions keep cbindgen's
//! order. A type is written where it is first needed: before its section's own types, any type it
//! names that is not written yet is pulled in (C needs a type declared before use).
//!
//! The section follows from the name (and, for the phases, the file), never from a list of
//! functions, so a new function lands in a section without editing this file:
//! `sgs_amagold_run_batch` (and the other chains' `_run_batch`) goes to the chains, next to its
//! chain; `sgs_normal`, `sgs_uniform` and any other function without a sampler's prefix go to
//! the basics.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The sections, in reading order: a title and a guide.
const SECTIONS: [(&str, &str); 5] = [
    (
        "1. Basics: status codes, version, callbacks, minibatches",
        "Every fallible function returns an sgs_status: SGS_OK (0) or an SGS_ERR_... code, stable\n\
         across versions; sgs_status_str() names it. A call refused for bad input changes nothing.\n\
         Callbacks return SGS_CB_OK, SGS_CB_REJECT (the point is outside the target's domain)\n\
         or SGS_CB_ABORT (the call stops and returns SGS_ERR_CALLBACK_ABORTED). sgs_minibatch()\n\
         draws the minibatch a gradient callback's seed selects, the same on every platform.",
    ),
    (
        "2. Chains: AMAGOLD, SGHMC, SGLD",
        "One shape for the three chains (X = amagold, sghmc, sgld): fill a config with\n\
         sgs_X_config_default(step_size), size a workspace with sgs_X_workspace_len_for() and\n\
         the state with sgs_X_state_size() / sgs_X_state_align(), call sgs_X_init(), then\n\
         sgs_X_step() or sgs_X_run(); read the chain with sgs_X_position() and its counters.\n\
         AMAGOLD is exact (a Metropolis-Hastings test every outer iteration); SGHMC and SGLD are\n\
         the uncorrected baselines. The functions on a state have float twins ending in _f32.",
    ),
    (
        "3. SVGD: Stein variational gradient descent (RBM-SVGD and full SVGD)",
        "N particles moved together: sgs_svgd_config_default(), sgs_svgd_workspace_len() and\n\
         sgs_svgd_index_len(), sgs_svgd_init(), then sgs_svgd_step() or sgs_svgd_run();\n\
         sgs_svgd_run_scheduled() grows the batch size on a doubling or KSD-driven schedule. The\n\
         gradient callback is batched: one call for all particles of an iteration.",
    ),
    (
        "4. Diagnostics: streaming statistics, stored draws, KSD, the warm-up report",
        "sgs_stats_*: mean, variance, ESS, MCSE and R-hat of one or more chains, streamed.\n\
         sgs_draws_*: rank-normalised split R-hat, bulk and tail ESS, quantile MCSE and a verdict\n\
         on stored draws. sgs_ksd_*: the kernelized Stein discrepancy of a particle set.\n\
         sgs_amagold_warmup_report() / _compare(): how an AMAGOLD warm-up went (SGS_WARMUP_...).",
    ),
    (
        "5. Advanced: one SVGD iteration in phases (threads, processes)",
        "For callers that spread an iteration over threads or processes: sgs_svgd_begin(), then\n\
         gradient and batch ranges (any threads, disjoint ranges), forces or moves exchanged\n\
         with the _get / _put calls, then sgs_svgd_finish() (or sgs_svgd_cancel()). Most callers\n\
         want sgs_svgd_step() instead.",
    ),
];

/// The files whose functions are the advanced section's.
const ADVANCED_FILES: [&str; 1] = ["src/ffi/svgd/phases.rs"];

/// The section of an item named `name` (`phases`: the functions the advanced files define).
/// First match wins.
fn section_of(name: &str, is_function: bool, phases: &BTreeSet<String>) -> usize {
    let lower = name.to_ascii_lowercase();
    let n = lower.strip_suffix("_f32").unwrap_or(&lower);
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| n.starts_with(p));
    // The warm-up report and its constants (`sgs_amagold_warmup_report`, `SGS_WARMUP_OK`,
    // `SGS_PHASE_FAST`), not the chain's own `sgs_amagold_in_warmup`.
    let warmup = n.contains("_warmup_") || starts(&["sgs_warmup", "sgs_phase_"]);
    if is_function && phases.contains(name) {
        4
    } else if warmup || starts(&["sgs_stats", "sgs_draws", "sgs_ksd"]) {
        3
    } else if starts(&[
        "sgs_svgd",
        "sgs_gradients_fn",
        "sgs_batching_",
        "sgs_kernel_",
        "sgs_step_rule_",
        "sgs_scale_",
        "sgs_schedule_",
    ]) {
        2
    } else if starts(&[
        "sgs_amagold",
        "sgs_sghmc",
        "sgs_sgld",
        "sgs_chain",
        "sgs_variant_",
        "sgs_mass_",
        "sgs_outcome_",
    ]) {
        1
    } else {
        0
    }
}

/// The `sgs_…` functions an advanced file defines: named after `fn` or passed to a macro as
/// `key = name`.
pub fn phase_functions(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in ADVANCED_FILES {
        let text = std::fs::read_to_string(root.join(file)).expect("read an advanced file");
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '='))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            if (pair[0] == "fn" || pair[0] == "=") && pair[1].starts_with("sgs_") {
                out.insert(pair[1].to_owned());
            }
        }
    }
    out
}

#[derive(PartialEq)]
enum Kind {
    Define,
    Type,
    Function,
}

struct Item {
    name: String,
    kind: Kind,
    text: String,
    /// The identifiers of the item's code (comments left out), for the type dependencies.
    words: BTreeSet<String>,
}

/// The item's code without its doc comment.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    code.push_str(rest);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifiers(code: &str) -> Vec<&str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn parse_item(text: &str, kind_hint: Kind) -> Item {
    let code = code_of(text);
    let ids = identifiers(&code);
    let (name, kind) = if let Some(i) = ids.iter().position(|&w| w == "define") {
        (ids[i + 1], Kind::Define)
    } else if kind_hint == Kind::Function {
        let paren = code.find('(').expect("a function's parameter list");
        let before = identifiers(&code[..paren]);
        (*before.last().expect("a function name"), Kind::Function)
    } else if code.trim_start().starts_with("enum") {
        (ids[1], Kind::Type)
    } else if code.contains("(*") {
        // A function-pointer typedef: `typedef R (*name)(…);`.
        let after = &code[code.find("(*").unwrap() + 2..];
        (identifiers(after)[0], Kind::Type)
    } else {
        // `typedef struct tag { … } name;` or `typedef struct tag name;`: the last identifier.
        (*ids.last().expect("a type name"), Kind::Type)
    };
    Item {
        name: name.to_owned(),
        kind,
        text: text.to_owned(),
        words: ids.iter().map(|w| (*w).to_owned()).collect(),
    }
}

/// cbindgen's header cut at the extern "C" block: the text before the items (guard, includes),
/// the items outside the block (constants and types), the functions inside it, and the tail.
const OPEN: &str = "#ifdef __cplusplus\nextern \"C\" {\n#endif // __cplusplus\n";
const CLOSE: &str = "#ifdef __cplusplus\n}  // extern \"C\"\n#endif  // __cplusplus\n";

fn split_items(block: &str, functions: bool) -> Vec<Item> {
    let hint = || {
        if functions {
            Kind::Function
        } else {
            Kind::Type
        }
    };
    block
        .split("\n\n")
        .map(|t| t.trim_matches('\n'))
        .filter(|t| !t.is_empty())
        .map(|t| parse_item(t, hint()))
        .collect()
}

/// Rewrites cbindgen's `header` in sections (`phases`: [`phase_functions`]). Panics if the
/// header is not in the shape cbindgen writes (then this module needs a look, not the header a
/// patch).
pub fn arrange(header: &str, phases: &BTreeSet<String>) -> String {
    let includes_end = header.rfind("#include <").expect("the includes");
    let body_start = includes_end + header[includes_end..].find('\n').unwrap() + 1;
    let open = header.find(OPEN).expect("cbindgen's extern \"C\" opening");
    let close = header.find(CLOSE).expect("cbindgen's extern \"C\" closing");
    let (head, outside) = (&header[..body_start], &header[body_start..open]);
    let (inside, tail) = (
        &header[open + OPEN.len()..close],
        &header[close + CLOSE.len()..],
    );

    let mut items = split_items(outside, false);
    items.extend(split_items(inside, true));
    let types: BTreeMap<String, usize> = items
        .iter()
        .enumerate()
        .filter(|(_, it)| it.kind == Kind::Type)
        .map(|(i, it)| (it.name.clone(), i))
        .collect();

    let mut out = String::from(head);
    out.push_str("\n/* Contents (each section opens with a short guide):\n");
    for (title, _) in SECTIONS {
        out.push_str(&format!(" *   {title}\n"));
    }
    out.push_str(" */\n\n");
    out.push_str(OPEN);
    let mut written = vec![false; items.len()];
    for (s, (title, guide)) in SECTIONS.iter().enumerate() {
        out.push_str(&banner(title, guide));
        let mine: Vec<usize> = (0..items.len())
            .filter(|&i| section_of(&items[i].name, items[i].kind == Kind::Function, phases) == s)
            .collect();
        for kind in [Kind::Define, Kind::Type, Kind::Function] {
            for &i in mine.iter().filter(|&&i| items[i].kind == kind) {
                write_with_dependencies(i, &items, &types, &mut written, &mut out);
            }
        }
    }
    assert!(written.iter().all(|&w| w), "every item is in a section");
    out.push('\n');
    out.push_str(CLOSE);
    out.push_str(tail);
    out
}

fn write_with_dependencies(
    i: usize,
    items: &[Item],
    types: &BTreeMap<String, usize>,
    written: &mut [bool],
    out: &mut String,
) {
    if written[i] {
        return;
    }
    written[i] = true;
    if items[i].kind == Kind::Type {
        for w in &items[i].words {
            if let Some(&j) = types.get(w) {
                write_with_dependencies(j, items, types, written, out);
            }
        }
    }
    out.push('\n');
    out.push_str(&items[i].text);
    out.push('\n');
}

fn banner(title: &str, guide: &str) -> String {
    let rule = "=".repeat(94);
    let mut b = format!("\n/* {rule}\n * {title}\n *\n");
    for line in guide.lines() {
        b.push_str(&format!(" * {line}\n"));
    }
    b.push_str(&format!(" * {rule} */\n"));
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_follows_the_name() {
        let phases: BTreeSet<String> = ["sgs_svgd_begin", "sgs_svgd_begin_f32"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let cases = [
            ("sgs_status_str", true, 0),
            ("sgs_status", false, 0),
            ("SGS_CB_ABORT", false, 0),
            ("sgs_minibatch", true, 0),
            // Functions without a sampler's prefix, such as random draws, are basics.
            ("sgs_normal", true, 0),
            ("sgs_uniform_f32", true, 0),
            ("sgs_amagold_run_batch", true, 1),
            ("sgs_sgld_run_batch_f32", true, 1),
            ("sgs_amagold_in_warmup_f32", true, 1),
            ("sgs_chain_info", false, 1),
            ("SGS_MASS_DENSE", false, 1),
            ("sgs_svgd_step_f32", true, 2),
            ("sgs_gradients_fn", false, 2),
            ("SGS_KERNEL_IMQ", false, 2),
            ("sgs_amagold_warmup_report_f32", true, 3),
            ("sgs_warmup_report", false, 3),
            ("SGS_PHASE_FAST", false, 3),
            ("sgs_draws_summary", true, 3),
            ("sgs_ksd_full", true, 3),
            ("SGS_STATS_LAGS", false, 3),
            ("sgs_svgd_begin_f32", true, 4),
            // Only functions go by file: a type of the same name would not.
            ("sgs_svgd_begin", false, 2),
        ];
        for (name, function, want) in cases {
            assert_eq!(section_of(name, function, &phases), want, "{name}");
        }
    }

    /// A type used by an earlier section is written there, before its user, even when its own
    /// name puts it in a later section; every item is written once.
    #[test]
    fn a_type_comes_before_its_first_user() {
        let header = format!(
            "/* top */\n\n#include <stdint.h>\n\n/** A. */\n#define SGS_WARMUP_OK 2\n\n\
             /** R. */\ntypedef struct sgs_warmup_report {{\n  uint32_t x;\n}} sgs_warmup_report;\n\n\
             /** I. */\ntypedef struct sgs_amagold_info {{\n  sgs_warmup_report w;\n}} sgs_amagold_info;\n\n\
             {OPEN}\n/** F. */\nint32_t sgs_amagold_step(sgs_amagold_info *info);\n\n\
             /** S. */\nconst char *sgs_status_str(int32_t s);\n\n{CLOSE}\n#endif\n"
        );
        let out = arrange(&header, &BTreeSet::new());
        let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s} missing"));
        assert!(at("sgs_status_str(") < at("\n * 2. Chains"));
        assert!(at("\n * 2. Chains") < at("} sgs_warmup_report;"));
        assert!(at("} sgs_warmup_report;") < at("} sgs_amagold_info;"));
        assert!(at("} sgs_amagold_info;") < at("sgs_amagold_step("));
        assert!(at("\n * 4. Diagnostics") < at("#define SGS_WARMUP_OK"));
        assert_eq!(out.matches("} sgs_warmup_report;").count(), 1);
        assert!(out.ends_with("#endif\n"));
    }
}
