//! The fake over real HTTP/1.1, for boto3, the AWS CLI and any SDK.
//!
//! - [`serve`]: accepts connections until a shutdown future completes, then lets the requests
//!   in flight finish.
//! - `connection`: one thread per connection, reading requests in turn.
//! - `http`: the HTTP/1.1 that SDKs speak: request heads, bodies by length or chunked, answers.
//! - `exchange`: one API call: operation, faults, the engine's answer.

mod connection;
mod exchange;
mod http;

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::Shutdown;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Handle;
use tokio::sync::Notify;

use crate::fake::FakeDynamoDb;

/// How long a shutdown waits for requests in flight before it gives up on them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the accept loop rests after an error that is not about one connection (for example,
/// no file descriptor left), so that it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

/// Serves `fake` over HTTP/1.1 on `listener` until `shutdown` completes.
///
/// Requests are DynamoDB's JSON protocol (`POST` with `X-Amz-Target: DynamoDB_20120810.<Op>`),
/// signed as DynamoDB requires: a request without a SigV4 `Authorization` header, or with one
/// that lacks a part, is refused as DynamoDB refuses it, but any credentials and any signature
/// are accepted. Answers carry the request's JSON content type, `x-amzn-RequestId` and
/// `x-amz-crc32`; DynamoDB errors are 400, injected server errors 500, and a body over
/// DynamoDB's 16 MB request limit is refused with 413 without being read. A
/// [`Fault::LostResponse`](crate::Fault) applies the request and closes the connection without
/// an answer. `GET /` answers like DynamoDB's health check; another method, or a body that is
/// not JSON by its content type, gets DynamoDB's 404. A request with an `Origin` gets CORS
/// headers that allow any origin, and a CORS preflight (`OPTIONS`) is answered.
///
/// Each connection is served on a thread of its own with blocking I/O: the cheapest way, in CPU
/// time per request, to serve a client that waits for each answer. A latency fault waits on the
/// fake's clock, driven by the runtime `serve` runs on.
///
/// Once `shutdown` completes, no connection is accepted any more, idle keep-alive connections
/// are closed, and requests in flight get their answers (for at most two seconds of the fake's
/// clock) before `serve` returns.
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
    let runtime = Handle::current();
    let connections = Arc::new(Connections::default());
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => connections.spawn(&fake, stream, &runtime),
                Err(error) if is_per_connection(&error) => {}
                Err(_) => fake.clock().sleep(ACCEPT_BACKOFF).await,
            },
        }
    }
    drop(listener);
    connections.close_reads();
    tokio::select! {
        biased;
        () = connections.all_closed() => {}
        () = fake.clock().sleep(DRAIN_TIMEOUT) => {}
    }
}

/// Whether an accept error concerns only the connection being accepted.
fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted
    )
}

/// The open connections, each a handle on its socket so that a shutdown can end its reads.
#[derive(Debug, Default)]
struct Connections {
    open: Mutex<Open>,
    closed: Notify,
}

#[derive(Debug, Default)]
struct Open {
    next_id: u64,
    streams: BTreeMap<u64, std::net::TcpStream>,
}

impl Connections {
    fn open(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Serves `stream` on a thread of its own.
    fn spawn(self: &Arc<Self>, fake: &FakeDynamoDb, stream: TcpStream, runtime: &Handle) {
        let Ok(stream) = stream.into_std() else { return };
        if stream.set_nonblocking(false).is_err() {
            return;
        }
        // Answers are written at once: Nagle's algorithm would only delay them.
        let _ = stream.set_nodelay(true);
        let Ok(handle) = stream.try_clone() else { return };
        let id = {
            let mut open = self.open();
            let id = open.next_id;
            open.next_id += 1;
            open.streams.insert(id, handle);
            id
        };
        let registered = Registered { connections: self.clone(), id };
        let (fake, runtime) = (fake.clone(), runtime.clone());
        // If the thread cannot start, the closure is dropped: the stream closes and `registered`
        // takes the connection off the list.
        let _ = std::thread::Builder::new().name("dynalease-fake-connection".into()).spawn(move || {
            let _registered = registered;
            connection::run(&fake, stream, &runtime);
        });
    }

    /// Ends the reads of every connection: an idle one sees the end of its stream and closes; one
    /// with a request in flight answers it first.
    fn close_reads(&self) {
        for stream in self.open().streams.values() {
            let _ = stream.shutdown(Shutdown::Read);
        }
    }

    /// Completes once every connection has closed.
    async fn all_closed(&self) {
        loop {
            let closed = self.closed.notified();
            if self.open().streams.is_empty() {
                return;
            }
            closed.await;
        }
    }
}

/// A connection on the list; it leaves the list when its thread ends, even by a panic.
#[derive(Debug)]
struct Registered {
    connections: Arc<Connections>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.connections.open().streams.remove(&self.id);
        self.connections.closed.notify_one();
    }
}
