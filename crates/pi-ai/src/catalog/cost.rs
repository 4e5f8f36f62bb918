//! Dollar cost of a model call.

use crate::{Cost, Model, Usage};

/// Tokens per price unit: model prices are dollars per million tokens.
const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

/// Prices `usage` with `model`'s per-million-token rates, stores the result
/// in `usage.cost` and returns it (pi's `calculateCost`).
///
/// Each bucket is `price / 1e6 * tokens`; `total` is the sum of the four.
/// Token counts are left untouched.
pub fn calculate_cost(model: &Model, usage: &mut Usage) -> Cost {
    let price = |rate: f64, tokens: u64| {
        // Token counts stay far below 2^53, so the conversion is exact.
        let tokens = tokens as f64;
        rate / TOKENS_PER_PRICE_UNIT * tokens
    };
    let input = price(model.cost.input, usage.input);
    let output = price(model.cost.output, usage.output);
    let cache_read = price(model.cost.cache_read, usage.cache_read);
    let cache_write = price(model.cost.cache_write, usage.cache_write);
    let cost = Cost {
        input,
        output,
        cache_read,
        cache_write,
        total: input + output + cache_read + cache_write,
    };
    usage.cost = cost;
    cost
}
