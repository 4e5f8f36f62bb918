//! A small MCP server on stdio (on `rmcp`) that misbehaves on request, for
//! the MCP tests (`tests/mcp_*.rs`): its tools are
//!
//! - `echo {text}`: the text back;
//! - `progress {steps}`: that many progress notifications, 100 ms apart,
//!   then `done`;
//! - `hang`: never answers; when the client cancels the call, it writes
//!   `cancelled <request id>` to the file `$MCP_FAULT_LOG`;
//! - `crash`: the process exits (code 3) in the middle of the call, after
//!   a line on stderr;
//! - `garbage`: writes a line that is not JSON-RPC to stdout, then answers;
//! - `big {mb}`: a text result of that many MiB, in lines of 32 bytes
//!   (`line` and the line's number);
//! - `toggle`: adds (or removes) the tool `extra` and sends
//!   `notifications/tools/list_changed`;
//! - `extra`, while listed: `extra tool`.
//!
//! Every call is appended to `$MCP_FAULT_LOG` (`call <name>`), and so is
//! each start (`start <pid> token:<$FAULT_TOKEN>`), so a test can count
//! restarts and see what the environment gave the server.
//! `$FAULT_START_DELAY_MS` delays its answer to `initialize`.

#![allow(clippy::print_stderr)]

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

fn log(line: &str) {
    if let Ok(path) = std::env::var("MCP_FAULT_LOG")
        && let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        let _ = writeln!(file, "{line}");
    }
}

#[derive(Default)]
struct Faults {
    extra: Arc<AtomicBool>,
}

fn tool(name: &str, description: &str, properties: Value) -> Value {
    json!({"name": name, "description": description,
           "inputSchema": {"type": "object", "properties": properties}})
}

fn text(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResponse::Complete(CallToolResult::success(vec![
        ContentBlock::text(text),
    ])))
}

impl ServerHandler for Faults {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("mcp-fault-server", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![
            tool(
                "echo",
                "Echoes the text",
                json!({"text": {"type": "string"}}),
            ),
            tool(
                "progress",
                "Reports progress",
                json!({"steps": {"type": "integer"}}),
            ),
            tool("hang", "Never answers", json!({})),
            tool("crash", "Exits mid-call", json!({})),
            tool("garbage", "Writes garbage to stdout", json!({})),
            tool("big", "A big result", json!({"mb": {"type": "integer"}})),
            tool("toggle", "Adds or removes the tool extra", json!({})),
        ];
        if self.extra.load(Ordering::SeqCst) {
            tools.push(tool("extra", "Listed after toggle", json!({})));
        }
        serde_json::from_value(json!({ "tools": tools }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        log(&format!("call {}", request.name));
        match request.name.as_ref() {
            "echo" => text(args["text"].as_str().unwrap_or_default()),
            "progress" => {
                let steps = args["steps"].as_u64().unwrap_or(3);
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=steps {
                        let note = json!({"progressToken": token, "progress": step,
                                          "total": steps, "message": format!("step {step}")});
                        if let Ok(params) = serde_json::from_value(note) {
                            let _ = context.peer.notify_progress(params).await;
                        }
                        // Work takes time: progress comes before the result.
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    }
                }
                text("done")
            }
            "hang" => {
                context.ct.cancelled().await;
                log(&format!("cancelled {}", context.id));
                text("cancelled")
            }
            "crash" => {
                eprintln!("fault server: crashing as asked");
                std::process::exit(3);
            }
            "garbage" => {
                let mut out = std::io::stdout();
                let _ = out.write_all(b"this is not JSON-RPC\n");
                let _ = out.flush();
                text("after garbage")
            }
            "big" => {
                let lines = args["mb"].as_u64().unwrap_or(50) * 32_768;
                let mut big = String::with_capacity(usize::try_from(lines * 32).unwrap_or(0));
                for i in 0..lines {
                    big.push_str(&format!("line {i:>26}\n"));
                }
                text(big)
            }
            "toggle" => {
                let now = !self.extra.fetch_xor(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                text(if now { "extra added" } else { "extra removed" })
            }
            "extra" if self.extra.load(Ordering::SeqCst) => text("extra tool"),
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let token = std::env::var("FAULT_TOKEN").unwrap_or_default();
    log(&format!("start {} token:{token}", std::process::id()));
    // A slow start, when asked (the environment pi runs in).
    if let Some(ms) = std::env::var("FAULT_START_DELAY_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
    match rmcp::serve_server(Faults::default(), rmcp::transport::stdio()).await {
        Ok(service) => {
            let _ = service.waiting().await;
        }
        Err(e) => eprintln!("fault server: {e}"),
    }
}
