//! Connections to the test cluster that keep virtual time still while the server works, and
//! that can fail the way a network and a server do.
//!
//! Under `#[tokio::test(start_paused = true)]`, tokio moves its clock forward whenever every
//! task waits, and a task that waits for a socket waits. A statement in flight to a real
//! PostgreSQL would then let a lease run out while the server answers. So every connection
//! reads the protocol's framing as it goes: from each request it sends (the startup message, a
//! `Sync`, a simple `Query`) until the server's `ReadyForQuery` it holds a task on tokio's
//! blocking pool, which is tokio's own way of keeping a paused clock from moving. The server
//! is real; only the library's clock is virtual.
//!
//! [`Faults`] acts on every connection of one pool: refuse connections and cut the open ones
//! (a server that is down), cut a connection as it sends a statement, or cut it once the
//! server has answered one (applied, but the answer lost).

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::task::{Context, Poll};

use dynalease::deadpool_postgres::{Connect, Manager, ManagerConfig, Pool, RecyclingMethod};
use dynalease::tokio_postgres::{self, NoTls};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::UnixStream;

/// Faults of the connections of one pool.
#[derive(Debug, Default)]
pub struct Faults {
    down: AtomicBool,
    cut_on_send: AtomicU32,
    lose_answers: AtomicU32,
    /// Connections opened so far.
    pub connections: AtomicU32,
}

impl Faults {
    /// The server is down (`true`): connections are refused, open ones are cut at their next
    /// read or write. Or up again (`false`).
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    /// The next `n` statements (batches with an `Execute`) cut their connection as they are
    /// sent, before the server sees them.
    pub fn cut_on_send(&self, n: u32) {
        self.cut_on_send.store(n, Ordering::SeqCst);
    }

    /// The next `n` statements reach the server and are applied, and their connection is cut
    /// as the answer arrives: the answer is lost.
    pub fn lose_answers(&self, n: u32) {
        self.lose_answers.store(n, Ordering::SeqCst);
    }

    fn take(counter: &AtomicU32) -> bool {
        counter.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok()
    }
}

/// A pool of up to `size` connections to the test cluster, each through a [`Held`] stream.
pub fn pool(faults: Arc<Faults>, size: usize) -> Pool {
    let cluster = super::pg_cluster::cluster();
    let manager = Manager::from_connect(
        cluster.config(),
        HeldConnect { socket: cluster.socket(), faults },
        ManagerConfig { recycling_method: RecyclingMethod::Fast },
    );
    Pool::builder(manager).max_size(size).build().expect("a pool without timeouts builds")
}

/// A connection and the task that drives it, or why there is none.
type Connected = Result<(tokio_postgres::Client, tokio::task::JoinHandle<()>), tokio_postgres::Error>;

struct HeldConnect {
    socket: std::path::PathBuf,
    faults: Arc<Faults>,
}

impl Connect for HeldConnect {
    fn connect(&self, config: &tokio_postgres::Config) -> Pin<Box<dyn Future<Output = Connected> + Send + '_>> {
        let config = config.clone();
        Box::pin(async move {
            self.faults.connections.fetch_add(1, Ordering::SeqCst);
            // A unix socket connects at once, or not at all: no wait that virtual time could skip.
            let stream = if self.faults.down.load(Ordering::SeqCst) {
                Err(io::Error::new(io::ErrorKind::ConnectionRefused, "the server is down (test fault)"))
            } else {
                std::os::unix::net::UnixStream::connect(&self.socket)
                    .and_then(|s| s.set_nonblocking(true).map(|()| s))
                    .and_then(UnixStream::from_std)
            };
            let held = Held::new(stream, self.faults.clone());
            let (client, connection) = config.connect_raw(held, NoTls).await?;
            let task = tokio::spawn(async move {
                let _ = connection.await;
            });
            Ok((client, task))
        })
    }
}

/// Keeps tokio's paused clock from moving while it lives: a task on the blocking pool that
/// waits for this guard to be dropped.
struct Hold(#[allow(dead_code)] std::sync::mpsc::Sender<()>);

impl Hold {
    fn new() -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        tokio::task::spawn_blocking(move || {
            let _ = rx.recv();
        });
        Hold(tx)
    }
}

/// Reads the framing of one direction of the protocol: a type byte and a length that counts
/// itself, except the untyped startup message.
#[derive(Clone, Debug)]
struct Framing {
    untyped_first: bool,
    header: Vec<u8>,
    body_left: usize,
}

impl Framing {
    fn new(untyped_first: bool) -> Self {
        Self { untyped_first, header: Vec::with_capacity(5), body_left: 0 }
    }

    /// Feeds bytes; calls `on_message` with the type of each message whose header completes
    /// (`0` for the startup message).
    fn feed(&mut self, mut bytes: &[u8], mut on_message: impl FnMut(u8)) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let skip = self.body_left.min(bytes.len());
                self.body_left -= skip;
                bytes = &bytes[skip..];
                continue;
            }
            let header_len = if self.untyped_first { 4 } else { 5 };
            let take = (header_len - self.header.len()).min(bytes.len());
            self.header.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.header.len() == header_len {
                let (kind, length) =
                    if self.untyped_first { (0, &self.header[..4]) } else { (self.header[0], &self.header[1..5]) };
                let length = u32::from_be_bytes([length[0], length[1], length[2], length[3]]) as usize;
                self.body_left = length.saturating_sub(4);
                self.header.clear();
                self.untyped_first = false;
                on_message(kind);
            }
        }
    }
}

/// A connection that holds virtual time while a request is unanswered, and fails on
/// [`Faults`].
pub struct Held {
    stream: Result<UnixStream, Option<io::Error>>,
    faults: Arc<Faults>,
    sent: Framing,
    received: Framing,
    /// Whether the batch being sent has an `Execute`.
    executing: bool,
    /// For each request awaiting its `ReadyForQuery`: whether it executed a statement.
    awaiting: VecDeque<bool>,
    hold: Option<Hold>,
}

impl Held {
    fn new(stream: io::Result<UnixStream>, faults: Arc<Faults>) -> Self {
        Self {
            stream: stream.map_err(Some),
            faults,
            sent: Framing::new(true),
            received: Framing::new(false),
            executing: false,
            awaiting: VecDeque::new(),
            hold: None,
        }
    }

    fn cut(&mut self, kind: io::ErrorKind, why: &str) -> io::Error {
        self.stream = Err(None);
        self.awaiting.clear();
        self.hold = None;
        io::Error::new(kind, why.to_owned())
    }

    fn stream(&mut self) -> io::Result<&mut UnixStream> {
        if self.faults.down.load(Ordering::SeqCst) && self.stream.is_ok() {
            return Err(self.cut(io::ErrorKind::ConnectionReset, "the server went down (test fault)"));
        }
        match &mut self.stream {
            Ok(stream) => Ok(stream),
            Err(err) => {
                let err = err.take().unwrap_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "cut (test fault)"));
                self.hold = None;
                Err(err)
            }
        }
    }
}

impl AsyncWrite for Held {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let mut sends_execute = false;
        this.sent.clone().feed(buf, |kind| sends_execute |= kind == b'E');
        if sends_execute && Faults::take(&this.faults.cut_on_send) {
            return Poll::Ready(Err(this.cut(io::ErrorKind::BrokenPipe, "cut as the statement was sent (test fault)")));
        }
        let written = match Pin::new(this.stream()?).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => n,
            other => return other,
        };
        let (executing, awaiting) = (&mut this.executing, &mut this.awaiting);
        this.sent.feed(&buf[..written], |kind| match kind {
            0 => awaiting.push_back(false),
            b'E' => *executing = true,
            b'S' | b'Q' => awaiting.push_back(std::mem::take(executing) || kind == b'Q'),
            _ => {}
        });
        if !this.awaiting.is_empty() && this.hold.is_none() {
            this.hold = Some(Hold::new());
        }
        Poll::Ready(Ok(written))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.stream()?).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.stream {
            Ok(stream) => Pin::new(stream).poll_shutdown(cx),
            Err(_) => Poll::Ready(Ok(())),
        }
    }
}

impl AsyncRead for Held {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        match Pin::new(this.stream()?).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(err)) => {
                this.awaiting.clear();
                this.hold = None;
                return Poll::Ready(Err(err));
            }
            Poll::Pending => return Poll::Pending,
        }
        let fresh = &buf.filled()[before..];
        if fresh.is_empty() {
            this.awaiting.clear();
            this.hold = None;
            return Poll::Ready(Ok(()));
        }
        let mut lose = false;
        let (awaiting, faults) = (&mut this.awaiting, &this.faults);
        this.received.feed(fresh, |kind| {
            if kind == b'Z' && awaiting.pop_front() == Some(true) && Faults::take(&faults.lose_answers) {
                lose = true;
            }
        });
        if lose {
            return Poll::Ready(
                Err(this.cut(io::ErrorKind::ConnectionReset, "cut as the answer arrived (test fault)")),
            );
        }
        if this.awaiting.is_empty() {
            this.hold = None;
        }
        Poll::Ready(Ok(()))
    }
}
