//! The README's status table is the status definition (`src/error.rs`) written out: same names,
//! codes and messages, in code order. On a mismatch the test prints the table to paste.

use sgsample::Error;

fn expected() -> Vec<String> {
    let mut rows = vec!["| `SGS_OK` | 0 | success |".to_string()];
    for e in Error::ALL {
        rows.push(format!(
            "| `{}` | {} | {} |",
            e.c_name(),
            e.code(),
            e.message()
        ));
    }
    rows
}

#[test]
fn readme_status_table_matches_the_status_enum() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let got: Vec<String> = readme
        .lines()
        .filter(|l| l.starts_with("| `SGS_OK`") || l.starts_with("| `SGS_ERR_"))
        .map(str::to_owned)
        .collect();
    let want = expected();
    assert!(
        got == want,
        "README status table is stale; replace its rows with:\n{}",
        want.join("\n")
    );
}
