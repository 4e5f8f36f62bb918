//! pi-coding-agent's integration tests, one test binary (`it`): each former
//! test program is a module, so `cargo test -p pi-coding-agent --test it
//! e2e_rpc::` runs what `--test e2e_rpc` ran. The `*_common` modules and
//! `rpc_fixture` are the shared support (mock model scenarios, the pty and
//! tmux harnesses, in-process rpc, OAuth and package helpers); insta keeps
//! the snapshots in `snapshots/` as `it__<module>__<name>.snap`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// Shared support.
mod e2e_common;
mod examples_common;
mod extension_common;
mod interactive_common;
mod mcp_common;
mod oauth_common;
mod packages_common;
mod pty_common;
mod rpc_fixture;
mod tmux_common;
mod tools_common;

// The tests, one module per former test program.
mod app_model_keys;
mod crash;
mod durability_files;
mod durability_kill;
mod durability_session;
mod durability_targets;
mod e2e_cli;
mod e2e_cli_errors;
mod e2e_cli_flags;
mod e2e_cloudflare;
mod e2e_compact_small;
mod e2e_compaction;
mod e2e_durability;
mod e2e_first_run;
mod e2e_model_handling;
mod e2e_read_image;
mod e2e_resources;
mod e2e_responses_family;
mod e2e_resume;
mod e2e_rpc;
mod e2e_rpc_client;
mod e2e_rpc_client_node;
mod e2e_rpc_clone;
mod e2e_settings;
mod e2e_user_docs;
mod export_browser;
mod export_html;
mod extension_app;
mod extension_events;
mod extension_examples;
mod extension_host;
mod extension_live;
mod extension_runner;
mod extension_ts_examples;
mod extension_ts_screens;
mod extension_ts_tui;
mod extension_ui_rpc;
mod extension_ui_tui;
mod fault_bounds;
mod fault_matrix;
mod hostile_inputs;
mod interactive_components;
mod interactive_image_blocks;
mod interactive_images;
mod interactive_line;
mod interactive_look;
mod interactive_nav;
mod interactive_paste_image;
mod interactive_reload_keys;
mod interactive_resume_search;
mod interactive_scrollback;
mod interactive_settings;
mod interactive_tmux;
mod interactive_tool_cards;
mod interactive_tui;
mod login_reload;
mod mcp_cli;
mod mcp_fault;
mod mcp_servers;
mod mcp_tui;
mod model_scope;
mod oauth_anthropic;
mod oauth_cli;
mod oauth_codex;
mod oauth_copilot;
mod oauth_interactive;
mod oauth_refresh;
mod packages_cli;
mod packages_load;
mod packages_tui;
mod pi_fixtures;
mod rpc_extension_ui_client;
mod session_corpus;
mod session_search_pi;
mod tools_bash;
mod tools_edit_large;
mod tools_files;
mod tools_pi_capture;
mod tools_schema;
mod tools_search;
mod transport_setting;
mod ts_examples;
