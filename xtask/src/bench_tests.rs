use super::*;

fn row(workload: &str, n: u64, seconds: f64) -> Row {
    Row {
        workload: workload.to_owned(),
        size: format!("{n}"),
        n,
        seconds,
        rss_kib: 0,
    }
}

#[test]
fn rows_parse_and_malformed_ones_are_errors() {
    let rows = parse_rows("resume\t2500 entries\t2500\t0.012000\t20480\n\n").unwrap();
    assert_eq!(
        rows,
        vec![Row {
            size: "2500 entries".into(),
            rss_kib: 20480,
            ..row("resume", 2500, 0.012)
        }]
    );
    assert!(parse_rows("resume\t1\t2\n").is_err());
    assert!(parse_rows("resume\tx\ty\t0.1\t1\n").is_err());
}

#[test]
fn four_times_the_input_may_take_eight_times_the_time() {
    assert!(complexity_failures(&[row("a", 100, 0.010), row("a", 400, 0.079)]).is_empty());
    let failures = complexity_failures(&[row("a", 100, 0.010), row("a", 400, 0.081)]);
    assert_eq!(failures.len(), 1, "{failures:?}");
    // Quadratic growth fails; other workloads and close sizes are not compared.
    assert_eq!(
        complexity_failures(&[row("a", 100, 0.01), row("a", 1000, 1.0)]).len(),
        1
    );
    assert!(complexity_failures(&[row("a", 100, 0.01), row("b", 400, 1.0)]).is_empty());
    assert!(complexity_failures(&[row("a", 100, 0.01), row("a", 300, 1.0)]).is_empty());
    // Under the noise floor, tiny times pass.
    assert!(complexity_failures(&[row("a", 100, 0.0001), row("a", 400, 0.004)]).is_empty());
}

#[test]
fn the_table_is_markdown() {
    let table = markdown(&[Row {
        rss_kib: 10_000,
        ..row("resume", 5, 0.0123)
    }]);
    assert_eq!(
        table,
        "| workload | input | time | peak RSS |\n|---|---|---|---|\n| resume | 5 | 12.3 ms | 10.2 MB |\n"
    );
}

#[test]
fn only_the_issue_shaped_20k_resume_is_marked_against_the_goal() {
    use crate::whole::{Measured, resume_goal};
    let m = |wall: f64, mib: u64| Measured {
        wall,
        cpu: 1.0,
        rss_kib: mib * 1024,
    };
    assert_eq!(
        resume_goal("issue", 20_000, &m(0.050, 28)),
        "; goal <= 60 ms wall: met, <= 28 MiB: met"
    );
    assert_eq!(
        resume_goal("issue", 20_000, &m(0.159, 84)),
        "; goal <= 60 ms wall: NOT met, <= 28 MiB: NOT met"
    );
    assert_eq!(resume_goal("standard", 20_000, &m(0.05, 20)), "");
    assert_eq!(resume_goal("issue", 2_500, &m(0.05, 20)), "");
}
