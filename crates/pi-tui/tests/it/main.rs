//! pi-tui's integration tests, one test binary (`it`; `cargo test -p pi-tui
//! --test it renderer::` runs a module).

mod renderer;
