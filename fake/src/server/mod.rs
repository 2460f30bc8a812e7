//! The fake over real HTTP/1.1, for boto3, the AWS CLI and any SDK, with its control API.
//!
//! - [`serve`], [`serve_with`]: accept connections until a shutdown future completes, then let
//!   the requests in flight finish.
//! - [`ServeOptions`], [`ControlAccess`]: the control API's access, the data file, the idle
//!   timeout.
//! - `parking`: a connection waiting for its next request, a small task on the runtime.
//! - `pool`: the worker threads, at most [`MAX_WORKERS`], that serve connections with requests.
//! - `connection`: one connection while a worker holds it, its requests read in turn.
//! - `http`: the HTTP/1.1 that SDKs speak: request heads, bodies by length or chunked, answers.
//! - `exchange`: one API call: operation, faults, the engine's answer.
//!
//! Why not a general HTTP server: a worker that blocks on its connection's next request costs
//! one `read` and one `write` per request; an event loop costs a wait for readiness as well,
//! which measured 25-35% more server CPU per operation (docs/performance.md). Idle connections,
//! which are what a flood of them is, wait on the runtime instead, where each costs its socket
//! and a small task, and a worker is never held by one for longer than [`LINGER`].

mod connection;
mod exchange;
mod http;
mod options;
mod parking;
mod pool;

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::Shutdown;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::runtime::Handle;
use tokio::sync::{mpsc, watch};

use crate::clock::tokio_sleep;
use crate::control::Control;
use crate::fake::FakeDynamoDb;
pub use options::{ControlAccess, ServeOptions};

/// How long a shutdown waits for requests in flight before it gives up on them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the accept loop rests after an error that is not about one connection (for example,
/// no file descriptor left), so that it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

/// How long a worker waits for a connection's next request before it lets the connection wait
/// on the runtime: long enough for a client that sends request after request, short enough that
/// the workers are never all held by idle connections for long.
const LINGER: Duration = Duration::from_millis(10);

/// The most worker threads a server has.
const MAX_WORKERS: usize = 32;

/// Serves `fake` over HTTP/1.1 on `listener` until `shutdown` completes, with the default
/// [`ServeOptions`]: the control API on if `listener` is on a loopback address, no data file.
///
/// Requests are DynamoDB's JSON protocol (`POST` with `X-Amz-Target: DynamoDB_20120810.<Op>`),
/// signed as DynamoDB requires: a request without a SigV4 `Authorization` header, or with one
/// that lacks a part, is refused as DynamoDB refuses it, but any credentials and any signature
/// are accepted. Answers carry the request's JSON content type, `x-amzn-RequestId`,
/// `x-amz-crc32` and a `Date` from the fake's clock; DynamoDB errors are 400, injected server
/// errors 500, and a body over DynamoDB's 16 MB request limit is refused with 413 without being
/// read. A [`Fault::LostResponse`](crate::Fault) applies the request and closes the connection
/// without an answer. `GET /` answers like DynamoDB's health check; another method, or a body
/// that is not JSON by its content type, gets DynamoDB's 404. A request with an `Origin` gets
/// CORS headers that allow any origin, and a CORS preflight (`OPTIONS`) is answered. Paths under
/// `/_dynalease/` are the control API (see the crate's README).
///
/// A connection with a request is served by one of at most 32 worker threads with blocking reads;
/// between requests it waits on the caller's tokio runtime, and one idle for the options' idle
/// timeout (60 s by default) is closed. A latency fault waits on the fake's clock (on real time
/// when it is a [`ControlledClock`](crate::ControlledClock)), holding its worker.
///
/// Once `shutdown` completes, no connection is accepted any more, idle keep-alive connections
/// are closed, and requests in flight get their answers (for at most two seconds) before
/// `serve` returns.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// use dynalease_fake::FakeDynamoDb;
///
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// println!("listening on http://{}", listener.local_addr()?);
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// let server = tokio::spawn(dynalease_fake::serve(FakeDynamoDb::new(), listener, async {
///     let _ = stopped.await;
/// }));
/// // ... point an SDK at the address ...
/// let _ = stop.send(());
/// server.await.unwrap();
/// # Ok(()) }
/// ```
pub async fn serve<F>(fake: FakeDynamoDb, listener: TcpListener, shutdown: F)
where
    F: Future<Output = ()>,
{
    // Without a data file there is nothing to save, and so nothing to fail.
    let _ = serve_with(fake, listener, shutdown, ServeOptions::default()).await;
}

/// [`serve`] with options: who may use the control API, a data file written on a control
/// request and once the server has stopped, the idle timeout of connections.
///
/// Returns once the server has stopped and the data file (if any) is written; an error is a
/// data file that could not be written.
pub async fn serve_with<F>(
    fake: FakeDynamoDb,
    listener: TcpListener,
    shutdown: F,
    options: ServeOptions,
) -> io::Result<()>
where
    F: Future<Output = ()>,
{
    let on_loopback = listener.local_addr().is_ok_and(|address| address.ip().is_loopback());
    let control = Control::new(
        match options.control {
            ControlAccess::On => true,
            ControlAccess::Off => false,
            ControlAccess::Loopback => on_loopback,
        },
        options.data.clone(),
    );
    let (stopping, stopped) = watch::channel(false);
    let (open, mut all_closed) = mpsc::channel::<()>(1);
    let shared = Arc::new(Shared {
        fake: fake.clone(),
        control,
        runtime: Handle::current(),
        idle_timeout: options.idle_timeout,
        stopped,
        stopping: AtomicBool::new(false),
        held: Held::default(),
        pool: pool::Pool::default(),
    });
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Answers are written at once: Nagle's algorithm would only delay them.
                    let _ = stream.set_nodelay(true);
                    let ticket = Ticket { _open: open.clone() };
                    tokio::spawn(parking::wait(shared.clone(), stream, ticket));
                }
                Err(error) if is_per_connection(&error) => {}
                Err(_) => tokio_sleep(ACCEPT_BACKOFF).await,
            },
        }
    }
    drop(listener);
    shared.stopping.store(true, Ordering::SeqCst);
    let _ = stopping.send(true);
    shared.held.close_reads();
    drop(open);
    tokio::select! {
        biased;
        _ = all_closed.recv() => {}
        () = tokio_sleep(DRAIN_TIMEOUT) => {}
    }
    shared.pool.close();
    match &options.data {
        Some(path) => fake.snapshot().write_file(path),
        None => Ok(()),
    }
}

/// What the connections of a server share.
#[derive(Debug)]
struct Shared {
    fake: FakeDynamoDb,
    control: Control,
    /// The runtime `serve` runs on: idle connections wait there, and latency faults sleep there.
    runtime: Handle,
    idle_timeout: Duration,
    /// Becomes true when the server stops, for the connections waiting on the runtime.
    stopped: watch::Receiver<bool>,
    /// True once the server stops, for the workers.
    stopping: AtomicBool,
    held: Held,
    pool: pool::Pool,
}

/// A connection's part in the server's shutdown: the server waits until every ticket is dropped,
/// which is when every connection has closed.
#[derive(Debug)]
struct Ticket {
    _open: mpsc::Sender<()>,
}

/// The connections workers hold, each a handle on its socket so that a shutdown can end its reads.
#[derive(Debug, Default)]
struct Held {
    open: Mutex<(u64, BTreeMap<u64, std::net::TcpStream>)>,
}

impl Held {
    fn lock(&self) -> MutexGuard<'_, (u64, BTreeMap<u64, std::net::TcpStream>)> {
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts a connection on the list; its id takes it off again.
    fn add(&self, stream: &std::net::TcpStream) -> Option<u64> {
        let handle = stream.try_clone().ok()?;
        let mut open = self.lock();
        let id = open.0;
        open.0 += 1;
        open.1.insert(id, handle);
        Some(id)
    }

    fn remove(&self, id: u64) {
        self.lock().1.remove(&id);
    }

    /// Ends the reads of every connection a worker holds: an idle one sees the end of its stream
    /// and closes; one with a request in flight answers it first.
    fn close_reads(&self) {
        for stream in self.lock().1.values() {
            let _ = stream.shutdown(Shutdown::Read);
        }
    }
}

/// Whether an accept error concerns only the connection being accepted.
fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted
    )
}
