//! `pi --mode rpc` against pi 0.73.1's answers to its own RpcClient
//! scenarios (captured by `fixtures/capture/rpc_client.mjs`): the same
//! commands, waits and mock answers replayed without Node, each response
//! and event compared with pi's. One test per scenario.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::rpc_fixture;

async fn scenario(name: &str) {
    let captured = rpc_fixture::captured();
    let pi = &captured[name];
    let run = rpc_fixture::replay(name, pi).await;
    if let Some(dir) = std::env::var_os("PI_RPC_DUMP") {
        // For a look at a failing run: PI_RPC_DUMP=<dir> writes <dir>/<scenario>.json.
        let file = std::path::Path::new(&dir).join(format!("{name}.json"));
        std::fs::write(file, run.to_string()).unwrap();
    }
    rpc_fixture::assert_same(name, pi, &run);
}

/// `--no-session`: no `sessionFile`/`sessionName` keys, no text before an
/// answer, pi's export refusal, `session_info_changed`, trimmed text,
/// `contextUsage`.
#[tokio::test(flavor = "multi_thread")]
async fn state_without_a_session_file() {
    scenario("state-no-session").await;
}

/// Levels clamped to the model (`xhigh` -> `high`), the default level on a
/// switch to a reasoning model, `thinking_level_changed`.
#[tokio::test(flavor = "multi_thread")]
async fn thinking_levels() {
    scenario("thinking").await;
}

/// Steering and follow-up while streaming: `queue_update`, both counted
/// pending; a prompt without `streamingBehavior` refused with pi's text;
/// abort ends the text block before `message_end`.
#[tokio::test(flavor = "multi_thread")]
async fn queues_and_abort_while_streaming() {
    scenario("queue-abort").await;
}

/// Abort during a bash tool call: the tool reports `Command aborted`, the
/// skipped call `Request was aborted.`, and the next prompt sends that.
#[tokio::test(flavor = "multi_thread")]
async fn abort_during_a_tool_call() {
    scenario("abort-tool").await;
}

/// `get_state` and `abort_bash` answered while a user command runs; the
/// command is cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn abort_bash_cancels_the_running_command() {
    scenario("bash-abort").await;
}

/// `get_state` during a compaction answers at once with `isCompacting`.
#[tokio::test(flavor = "multi_thread")]
async fn state_during_a_compaction() {
    scenario("compaction").await;
}

/// `abort_retry` during the retry wait ends it with `auto_retry_end`.
#[tokio::test(flavor = "multi_thread")]
async fn abort_retry_ends_the_retry() {
    scenario("retry-abort").await;
}

/// pi's error texts (fork, export before the file exists, prompt while
/// busy) and the exported file's name.
#[tokio::test(flavor = "multi_thread")]
async fn errors_and_export() {
    scenario("errors-export").await;
}

/// Steering and follow-up delivered: each leaves its queue
/// (`queue_update`) as its user message starts.
#[tokio::test(flavor = "multi_thread")]
async fn queued_messages_are_delivered() {
    scenario("queue-delivery").await;
}

/// Fork at a message, new session, switch back, queue modes and
/// auto-compaction switches, a user command: what already matched stays so.
#[tokio::test(flavor = "multi_thread")]
async fn session_operations() {
    scenario("sessions").await;
}
