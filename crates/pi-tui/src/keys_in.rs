//! Terminal input: bytes read from stdin turned into crossterm events, with what crossterm's
//! own reader drops.
//!
//! crossterm's parser does not decode xterm's `modifyOtherKeys` reports (`CSI 27 ; mod ;
//! key ~`), which is how tmux (`extended-keys on`) and xterm report Shift+Enter and other
//! modified keys once an app asks for them (`CSI > 4 ; 2 m`, what pi does when the terminal
//! has no kitty keyboard protocol). [`InputParser`] splits the input into sequences, turns
//! such a report into the equivalent kitty `CSI key ; mod u`, and decodes everything with
//! `terminput` (crossterm's parser, public) into crossterm's types. It also recognises the
//! replies to the start-up queries: the kitty flags (`CSI ? n u`) and the primary device
//! attributes (`CSI ? ... c`), which every terminal answers and so ends the wait for the
//! kitty reply.
//!
//! [`StdinReader`] reads stdin on a thread of its own (blocked in `poll`, so idle costs
//! nothing) and hands the bytes over a channel; dropping it stops the thread, so an external
//! editor or a suspended shell gets the terminal's input alone.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// One decoded piece of terminal input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A key, a paste, ...
    Event(Event),
    /// The reply to the kitty keyboard query (`CSI ? u`): the protocol is available.
    KittyFlags(u16),
    /// The reply to the primary device attributes query (`CSI c`).
    DeviceAttributes,
    /// The reply to the cell size query (`CSI 16 t`): `CSI 6 ; height ; width t`, in pixels.
    CellSize {
        /// A cell's width in pixels.
        width_px: u32,
        /// A cell's height in pixels.
        height_px: u32,
    },
}

/// Splits terminal input into sequences and decodes them.
#[derive(Debug, Default)]
pub struct InputParser {
    buffer: Vec<u8>,
}

impl InputParser {
    /// A parser with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes `bytes` (one read) into `out`. A sequence cut by the end of the read waits for
    /// the next one, except a lone `ESC` at the end of a read, which is the Escape key.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Input>) {
        for (i, byte) in bytes.iter().enumerate() {
            self.buffer.push(*byte);
            let more = i + 1 < bytes.len();
            if let Some(input) = self.advance(more) {
                out.push(input);
            }
        }
    }

    /// Tries to decode the buffer; clears it once it is a whole sequence (or garbage).
    fn advance(&mut self, more: bool) -> Option<Input> {
        let buf = self.buffer.as_slice();
        if buf == b"\x1b" && more {
            return None;
        }
        if let Some(body) = buf.strip_prefix(b"\x1b[?") {
            let last = *body.last()?;
            if !(0x40..=0x7e).contains(&last) {
                return None;
            }
            let reply = match last {
                b'u' => std::str::from_utf8(&body[..body.len() - 1])
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .map(Input::KittyFlags),
                b'c' => Some(Input::DeviceAttributes),
                _ => None,
            };
            self.buffer.clear();
            return reply;
        }
        // `CSI 6 ; … t` (not `CSI 6 ; mod ~`, a modified Page Down).
        if let Some(body) = buf.strip_prefix(b"\x1b[6;")
            && body.ends_with(b"t")
        {
            let reply = cell_size_reply(body);
            self.buffer.clear();
            return reply;
        }
        let parsed = match modify_other_keys(buf) {
            Some(kitty) => terminput::Event::parse_from(kitty.as_bytes()),
            None => terminput::Event::parse_from(buf),
        };
        match parsed {
            Ok(None) => None,
            Ok(Some(event)) => {
                self.buffer.clear();
                terminput_crossterm::to_crossterm(event)
                    .ok()
                    .map(Input::Event)
            }
            Err(_) => {
                tracing::debug!(sequence = ?String::from_utf8_lossy(buf), "unknown input");
                self.buffer.clear();
                None
            }
        }
    }
}

/// The body of a cell size reply after `CSI 6 ;`: `height ; width t`.
fn cell_size_reply(body: &[u8]) -> Option<Input> {
    let body = std::str::from_utf8(body.strip_suffix(b"t")?).ok()?;
    let (height, width) = body.split_once(';')?;
    Some(Input::CellSize {
        width_px: width.parse().ok()?,
        height_px: height.parse().ok()?,
    })
}

/// `CSI 27 ; mod ; key ~` (xterm's modifyOtherKeys) as the kitty report of the same key,
/// `CSI key ; mod u`, with a shifted letter given as its base key (kitty's convention).
fn modify_other_keys(buf: &[u8]) -> Option<String> {
    let body = std::str::from_utf8(buf.strip_prefix(b"\x1b[27;")?.strip_suffix(b"~")?).ok()?;
    let (modifiers, key) = body.split_once(';')?;
    let modifiers: u8 = modifiers.parse().ok()?;
    let mut key: u32 = key.parse().ok()?;
    let shift = modifiers.saturating_sub(1) & 1 != 0;
    if shift && (u32::from(b'A')..=u32::from(b'Z')).contains(&key) {
        key += 32;
    }
    Some(format!("\x1b[{key};{modifiers}u"))
}

/// Reads stdin on its own thread; the bytes arrive on [`StdinReader::recv`].
#[derive(Debug)]
pub struct StdinReader {
    rx: UnboundedReceiver<Vec<u8>>,
    /// Written to (or closed) to stop the thread.
    wake: Option<OwnedFd>,
    thread: Option<JoinHandle<()>>,
}

impl StdinReader {
    /// Starts reading stdin.
    pub fn start() -> io::Result<Self> {
        let (wake_read, wake_write) = nix::unistd::pipe().map_err(io::Error::from)?;
        let (tx, rx) = unbounded_channel();
        let thread = std::thread::Builder::new()
            .name("pi-stdin".into())
            .spawn(move || read_loop(&wake_read, &tx))?;
        Ok(Self {
            rx,
            wake: Some(wake_write),
            thread: Some(thread),
        })
    }

    /// The next bytes read (`None` once stdin is closed).
    pub async fn recv(&mut self) -> Option<Vec<u8>> {
        self.rx.recv().await
    }

    /// Reads and drops input until none came for `idle` or `max` passed (pi drains stdin
    /// this way on exit, so late key reports do not reach the shell).
    pub async fn drain(&mut self, max: Duration, idle: Duration) {
        let end = Instant::now() + max;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match tokio::time::timeout(idle.min(left), self.rx.recv()).await {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return,
            }
        }
    }
}

impl Drop for StdinReader {
    fn drop(&mut self) {
        if let Some(wake) = self.wake.take() {
            let _ = nix::unistd::write(&wake, b"x");
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn read_loop(wake: &OwnedFd, tx: &UnboundedSender<Vec<u8>>) {
    let stdin = io::stdin();
    let mut buf = vec![0u8; 8192];
    loop {
        let mut fds = [
            PollFd::new(stdin.as_fd(), PollFlags::POLLIN),
            PollFd::new(wake.as_fd(), PollFlags::POLLIN),
        ];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return,
        }
        if fds[1].any().unwrap_or(true) {
            return;
        }
        let ready = fds[0].revents().unwrap_or(PollFlags::empty());
        if ready.intersects(PollFlags::POLLIN) {
            match nix::unistd::read(stdin.as_fd(), &mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        return;
                    }
                }
                Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => {}
                Err(_) => return,
            }
        } else if ready.intersects(PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Input, InputParser};
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

    fn parse(chunks: &[&[u8]]) -> Vec<Input> {
        let mut p = InputParser::new();
        let mut out = Vec::new();
        for chunk in chunks {
            p.feed(chunk, &mut out);
        }
        out
    }

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Input {
        Input::Event(Event::Key(KeyEvent::new(code, modifiers)))
    }

    #[test]
    fn shift_enter_in_every_encoding() {
        let shift_enter = key(KeyCode::Enter, KeyModifiers::SHIFT);
        assert_eq!(parse(&[b"\x1b[27;2;13~"]), vec![shift_enter.clone()]);
        assert_eq!(parse(&[b"\x1b[13;2u"]), vec![shift_enter.clone()]);
        // Cut by reads.
        assert_eq!(parse(&[b"\x1b[27;", b"2;13~"]), vec![shift_enter]);
        assert_eq!(
            parse(&[b"\r"]),
            vec![key(KeyCode::Enter, KeyModifiers::NONE)]
        );
    }

    #[test]
    fn modify_other_keys_reports_decode_like_kitty_ones() {
        assert_eq!(
            parse(&[b"\x1b[27;5;99~"]),
            vec![key(KeyCode::Char('c'), KeyModifiers::CONTROL)]
        );
        assert_eq!(
            parse(&[b"\x1b[27;3;97~"]),
            vec![key(KeyCode::Char('a'), KeyModifiers::ALT)]
        );
        assert_eq!(
            parse(&[b"\x1b[27;5;9~"]),
            vec![key(KeyCode::Tab, KeyModifiers::CONTROL)]
        );
        assert_eq!(
            parse(&[b"\x1b[27;6;80~"]),
            parse(&[b"\x1b[112;6u"]),
            "shift+ctrl+p"
        );
        assert_eq!(
            parse(&[b"\x1b[27;2;27~"]),
            vec![key(KeyCode::Esc, KeyModifiers::SHIFT)]
        );
    }

    #[test]
    fn replies_to_the_queries_are_not_keys() {
        assert_eq!(
            parse(&[b"\x1b[6;18", b";9tx"]),
            vec![
                Input::CellSize {
                    width_px: 9,
                    height_px: 18
                },
                key(KeyCode::Char('x'), KeyModifiers::NONE)
            ]
        );
        assert_eq!(parse(&[b"\x1b[6;18t"]), vec![]);
        assert_eq!(
            parse(&[b"\x1b[6;5~"]),
            vec![key(KeyCode::PageDown, KeyModifiers::CONTROL)]
        );
        assert_eq!(
            parse(&[b"\x1b[?1u\x1b[?62;22c"]),
            vec![Input::KittyFlags(1), Input::DeviceAttributes]
        );
        assert_eq!(
            parse(&[b"\x1b[?62;", b"22c"]),
            vec![Input::DeviceAttributes]
        );
    }

    #[test]
    fn text_escape_and_pastes() {
        assert_eq!(
            parse(&[b"a\xc3\xa9"]),
            vec![
                key(KeyCode::Char('a'), KeyModifiers::NONE),
                key(KeyCode::Char('é'), KeyModifiers::NONE)
            ]
        );
        assert_eq!(
            parse(&[b"\x1b"]),
            vec![key(KeyCode::Esc, KeyModifiers::NONE)]
        );
        assert_eq!(
            parse(&[b"\x1b[A"]),
            vec![key(KeyCode::Up, KeyModifiers::NONE)]
        );
        assert_eq!(
            parse(&[b"\x1b[200~line 1\r\nline", b" 2\x1b[201~"]),
            vec![Input::Event(Event::Paste("line 1\r\nline 2".into()))]
        );
        // An unknown sequence is dropped, what follows still decodes.
        assert_eq!(
            parse(&[b"\x1b[99;99;99zq"]),
            vec![key(KeyCode::Char('q'), KeyModifiers::NONE)]
        );
    }
}
