use crate::{Cost, Usage, calculate_cost, get_model};

fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
    Usage {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: input + output + cache_read + cache_write,
        cost: Cost::default(),
    }
}

fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() < 1e-12,
        "expected {expected}, got {actual}"
    );
}

#[test]
fn cost_uses_per_million_prices_of_claude_sonnet_4_5() {
    // $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
    let model = get_model("anthropic", "claude-sonnet-4-5").unwrap();
    let mut usage = usage(1_000, 500, 2_000, 100);

    let cost = calculate_cost(model, &mut usage);

    assert_close(cost.input, 0.003);
    assert_close(cost.output, 0.0075);
    assert_close(cost.cache_read, 0.0006);
    assert_close(cost.cache_write, 0.000_375);
    assert_close(cost.total, 0.011_475);
    assert_eq!(
        cost.total,
        cost.input + cost.output + cost.cache_read + cost.cache_write
    );
    // Same arithmetic as pi: (price / 1e6) * tokens.
    assert_eq!(cost.input, 3.0 / 1_000_000.0 * 1_000.0);
}

#[test]
fn cost_is_written_into_usage_and_tokens_are_kept() {
    let model = get_model("openai", "gpt-4o").unwrap();
    let mut usage = usage(1_000_000, 1_000_000, 1_000_000, 0);

    let cost = calculate_cost(model, &mut usage);

    assert_eq!(usage.cost, cost);
    assert_eq!(
        (
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write,
            usage.total_tokens
        ),
        (1_000_000, 1_000_000, 1_000_000, 0, 3_000_000)
    );
    // gpt-4o: $2.50 in, $10 out, $1.25 cache read.
    assert_close(cost.input, 2.5);
    assert_close(cost.output, 10.0);
    assert_close(cost.cache_read, 1.25);
    assert_close(cost.cache_write, 0.0);
    assert_close(cost.total, 13.75);
}

#[test]
fn cost_replaces_a_previous_cost() {
    let model = get_model("google", "gemini-2.5-pro").unwrap();
    let mut usage = usage(0, 0, 0, 0);
    usage.cost.total = 42.0;

    let cost = calculate_cost(model, &mut usage);

    assert_eq!(cost, Cost::default());
    assert_eq!(usage.cost, Cost::default());
}
