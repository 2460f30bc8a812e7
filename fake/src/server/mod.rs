//! The fake over real HTTP/1.1, for boto3, the AWS CLI and any SDK, with its control API.
//!
//! - [`serve`], [`serve_with`]: accept connections until a shutdown future completes, then let
//!   the requests in flight finish.
//! - [`ServeOptions`], [`ControlAccess`]: the control API's access, the data file, the idle
//!   timeout.
//! - `service`: one request: the control API, an API call, the health check, CORS, 404.
//! - `http`: what the server reads of a request's head and body, and the answers' headers.
//! - `exchange`: one API call: operation, faults, the engine's answer.

mod exchange;
mod http;
mod options;
mod service;

use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::clock::tokio_sleep;
use crate::fake::FakeDynamoDb;
pub use options::{ControlAccess, ServeOptions};

/// How long a shutdown waits for requests in flight before it gives up on them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the accept loop rests after an error that is not about one connection (for example,
/// no file descriptor left), so that it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

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
/// Connections are served by hyper on the caller's tokio runtime; one idle for the options'
/// idle timeout (60 s by default, before its first request or between two) is closed. A latency fault waits on the fake's clock (on real
/// time when it is a [`ControlledClock`](crate::ControlledClock)).
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
    let context = Arc::new(service::Context::new(fake.clone(), &options, on_loopback));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // The time a connection may wait for a request's head, idle between requests included.
        .header_read_timeout(options.idle_timeout)
        .max_headers(http::MAX_HEADERS)
        .max_buf_size(http::MAX_HEAD_BYTES.max(8192))
        // The `Date` of every answer comes from the fake's clock.
        .auto_date_header(false);
    let graceful = GracefulShutdown::new();
    // Tells the connections that have not sent a byte yet that the server stops.
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Answers are written at once: Nagle's algorithm would only delay them.
                    let _ = stream.set_nodelay(true);
                    let watcher = graceful.watcher();
                    tokio::spawn(connection(stream, context.clone(), builder.clone(), watcher, stopped.clone(), options.idle_timeout));
                }
                Err(error) if is_per_connection(&error) => {}
                Err(_) => tokio_sleep(ACCEPT_BACKOFF).await,
            },
        }
    }
    drop(listener);
    let _ = stopping.send(true);
    drop(stopped);
    tokio::select! {
        biased;
        () = graceful.shutdown() => {}
        () = tokio_sleep(DRAIN_TIMEOUT) => {}
    }
    match &options.data {
        Some(path) => fake.snapshot().write_file(path),
        None => Ok(()),
    }
}

/// Serves one connection: once its first byte arrives (until then it costs its socket and this
/// small task; hyper's buffers come with the first request), or never if it stays idle for
/// `idle_timeout` or the server stops first.
async fn connection(
    stream: tokio::net::TcpStream,
    context: Arc<service::Context>,
    builder: hyper::server::conn::http1::Builder,
    watcher: hyper_util::server::graceful::Watcher,
    mut stopped: tokio::sync::watch::Receiver<bool>,
    idle_timeout: Duration,
) {
    // A peek, not a readiness check: a socket may be reported readable before a byte is there.
    let mut first = [0u8; 1];
    let ready = tokio::select! {
        biased;
        _ = stopped.changed() => false,
        peeked = stream.peek(&mut first) => peeked.is_ok_and(|n| n > 0),
        () = tokio_sleep(idle_timeout) => false,
    };
    if !ready {
        return;
    }
    let service = hyper::service::service_fn(move |request| service::answer(context.clone(), request));
    // A connection that fails (a client gone, a lost answer) concerns no one else.
    let _ = watcher.watch(builder.serve_connection(TokioIo::new(stream), service)).await;
}

/// Whether an accept error concerns only the connection being accepted.
fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted
    )
}
