//! The fake over real HTTP/1.1, for boto3, the AWS CLI and any SDK.
//!
//! - [`serve`]: answers DynamoDB's JSON protocol on a listener until a shutdown future completes,
//!   then lets the requests in flight finish.
//! - `exchange`: one request to one response: the target, the body limit, faults, the headers
//!   an SDK checks (`x-amzn-RequestId`, `x-amz-crc32`).
//!
//! Everything runs on the caller's tokio runtime; a current-thread runtime is the cheapest, as
//! every request takes the engine's lock anyway.

mod exchange;

use std::future::Future;
use std::io;
use std::pin::pin;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::fake::FakeDynamoDb;

/// How long a shutdown waits for requests in flight before it gives up on them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the accept loop rests after an error that is not about one connection (for example,
/// no file descriptor left), so that it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

/// Serves `fake` over HTTP/1.1 on `listener` until `shutdown` completes.
///
/// Requests are DynamoDB's JSON protocol (`POST` with `X-Amz-Target: DynamoDB_20120810.<Op>`);
/// a SigV4 `Authorization` header is accepted and not checked. Answers carry
/// `Content-Type: application/x-amz-json-1.0`, `x-amzn-RequestId` and `x-amz-crc32`; DynamoDB
/// errors are 400, injected server errors 500, and a body over DynamoDB's 16 MB request limit
/// is refused with 413 without being buffered. A [`Fault::LostResponse`](crate::Fault) applies
/// the request and closes the connection without an answer.
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
    let mut shutdown = pin!(shutdown);
    // Every connection holds a receiver; `closed()` on the sender tells when all are gone.
    let (stop, _) = watch::channel(false);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => spawn_connection(fake.clone(), stream, stop.subscribe()),
                Err(error) if is_per_connection(&error) => {}
                Err(_) => fake.clock().sleep(ACCEPT_BACKOFF).await,
            },
        }
    }
    drop(listener);
    stop.send_replace(true);
    tokio::select! {
        biased;
        () = stop.closed() => {}
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

/// Serves one connection, keep-alive included, until the client closes it or the server stops.
fn spawn_connection(fake: FakeDynamoDb, stream: TcpStream, mut stop: watch::Receiver<bool>) {
    // Answers are small and written at once: Nagle's algorithm would only delay them.
    let _ = stream.set_nodelay(true);
    tokio::spawn(async move {
        let service = service_fn(move |request| exchange::answer(fake.clone(), request));
        let mut connection = pin!(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        tokio::select! {
            biased;
            _ = connection.as_mut() => return,
            _ = stop.changed() => connection.as_mut().graceful_shutdown(),
        }
        let _ = connection.await;
    });
}
