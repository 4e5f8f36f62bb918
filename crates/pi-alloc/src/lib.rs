//! The `pi` binary's global allocator: [mimalloc](https://github.com/microsoft/mimalloc),
//! told to hand freed memory back to the system at once.
//!
//! mimalloc 3 keeps a page it no longer uses for a second before it
//! releases it (its `purge_delay` option, 1000 ms), which is the whole of a
//! `pi -c -p` run: the pages the session load and the request encoding
//! used and freed stay resident next to the ones in use. Measured on a
//! 20,000-message resume, a delay of 0 lowers the peak anonymous memory
//! from 37.8 MB to 31.0 MB for about 3% more CPU (a `madvise` per page
//! freed, and a page fault when it is used again).
//!
//! The option is set through mimalloc's C API, the one `unsafe` call of the
//! workspace (everywhere else `unsafe_code` is forbidden), kept here alone.

use std::ffi::c_long;

pub use mimalloc::MiMalloc;

/// The environment variable mimalloc reads its purge delay from: when the
/// user sets it, their value stands.
pub const PURGE_DELAY_ENV: &str = "MIMALLOC_PURGE_DELAY";

/// `mi_option_purge_delay` in `mimalloc.h` (the 16th option of
/// `mi_option_e`, in mimalloc 2 and 3 alike); `libmimalloc-sys` does not
/// name it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Makes mimalloc return a page to the system as soon as it is free
/// (purge delay 0), unless [`PURGE_DELAY_ENV`] is set. Call it first thing
/// in `main`; it only matters when [`MiMalloc`] is the global allocator.
pub fn release_freed_memory_at_once() {
    if std::env::var_os(PURGE_DELAY_ENV).is_none() {
        set_purge_delay_ms(0);
    }
}

/// mimalloc's purge delay, in milliseconds (`-1`: never purge).
pub fn purge_delay_ms() -> c_long {
    // SAFETY: `mi_option_get` reads one entry of mimalloc's option table,
    // which is valid for every `mi_option_e` value; it has no other
    // precondition and is thread-safe.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY)
    }
}

/// Sets mimalloc's purge delay, in milliseconds.
fn set_purge_delay_ms(value: c_long) {
    // SAFETY: `mi_option_set` writes one entry of mimalloc's option table,
    // valid for every `mi_option_e` value, at any time and from any thread;
    // mimalloc reads the delay each time it considers purging a page.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, value);
    }
}

#[cfg(test)]
mod tests {
    use super::{PURGE_DELAY_ENV, purge_delay_ms, release_freed_memory_at_once};

    #[test]
    fn the_purge_delay_becomes_zero_unless_the_user_set_it() {
        match std::env::var(PURGE_DELAY_ENV) {
            // mimalloc 3's default: the option index is the purge delay's.
            Err(_) => {
                assert_eq!(purge_delay_ms(), 1000);
                release_freed_memory_at_once();
                assert_eq!(purge_delay_ms(), 0);
            }
            Ok(user) => {
                release_freed_memory_at_once();
                assert_eq!(Some(purge_delay_ms()), user.trim().parse().ok());
            }
        }
    }
}
