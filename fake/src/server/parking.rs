//! A connection waiting for its next request (or its first) on the runtime: it costs its socket
//! and this small task, and goes to a worker when a byte of a request arrives.

use std::sync::Arc;

use tokio::net::TcpStream;

use super::{Shared, Ticket};
use crate::clock::tokio_sleep;

/// Waits for a byte of `stream`'s next request, then hands it to a worker; closes it if it stays
/// idle for the idle timeout, the client closes it, or the server stops first.
pub(super) async fn wait(shared: Arc<Shared>, stream: TcpStream, ticket: Ticket) {
    let mut stopped = shared.stopped.clone();
    if *stopped.borrow() {
        return;
    }
    // A peek, not a readiness check: a socket may be reported readable before a byte is there.
    let mut first = [0u8; 1];
    let ready = tokio::select! {
        biased;
        _ = stopped.changed() => false,
        peeked = stream.peek(&mut first) => peeked.is_ok_and(|n| n > 0),
        () = tokio_sleep(shared.idle_timeout) => false,
    };
    if !ready {
        return;
    }
    let Ok(stream) = stream.into_std() else { return };
    if stream.set_nonblocking(false).is_err() {
        return;
    }
    let pool = &shared.pool;
    pool.submit(shared.clone(), stream, ticket);
}

/// Lets `stream`, which a worker held, wait on the runtime for its next request.
pub(super) fn park(shared: &Arc<Shared>, stream: std::net::TcpStream, ticket: Ticket) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let shared_for_task = shared.clone();
    shared.runtime.spawn(async move {
        // Registering the socket needs the runtime's context, which the task has.
        let Ok(stream) = TcpStream::from_std(stream) else { return };
        wait(shared_for_task, stream, ticket).await;
    });
}
