//! The worker threads: each serves one connection at a time with blocking reads, while it has
//! requests, and lets it wait on the runtime once it is idle for [`LINGER`](super::LINGER).
//! Workers start as connections need them, up to [`MAX_WORKERS`](super::MAX_WORKERS), and stay.

use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use super::connection::{self, Ending};
use super::{LINGER, MAX_WORKERS, Shared, Ticket, parking};

/// A connection with a request to serve.
struct Job {
    shared: Arc<Shared>,
    stream: TcpStream,
    ticket: Ticket,
}

/// The queue of connections waiting for a worker: its sending end, and the receiving end the
/// workers share.
type Queue = (Sender<Job>, Arc<Mutex<Receiver<Job>>>);

/// The workers, and the queue of connections waiting for one.
#[derive(Default)]
pub(super) struct Pool {
    /// Made with the first connection; taken away when the server stops.
    queue: Mutex<Option<Queue>>,
    /// Workers started.
    started: AtomicUsize,
    /// Workers waiting for a connection.
    waiting: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("started", &self.started.load(Ordering::Relaxed)).finish()
    }
}

impl Pool {
    /// Queues a connection for the next free worker, starting one if none is free and there are
    /// fewer than the most.
    pub(super) fn submit(&self, shared: Arc<Shared>, stream: TcpStream, ticket: Ticket) {
        let mut queue = self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (sender, receiver) = queue.get_or_insert_with(|| {
            let (sender, receiver) = channel();
            (sender, Arc::new(Mutex::new(receiver)))
        });
        if sender.send(Job { shared, stream, ticket }).is_err() {
            return;
        }
        let started = self.started.load(Ordering::Relaxed);
        if self.waiting.load(Ordering::Relaxed) == 0 && started < MAX_WORKERS {
            let (receiver, waiting) = (receiver.clone(), self.waiting.clone());
            let spawned = std::thread::Builder::new()
                .name("dynalease-fake-worker".into())
                .spawn(move || work(&receiver, &waiting));
            if spawned.is_ok() {
                self.started.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Lets the workers end once the queue is empty.
    pub(super) fn close(&self) {
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
    }
}

/// A worker: takes connections from the queue until it is closed.
fn work(receiver: &Mutex<Receiver<Job>>, waiting: &AtomicUsize) {
    loop {
        waiting.fetch_add(1, Ordering::Relaxed);
        let job = receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recv();
        waiting.fetch_sub(1, Ordering::Relaxed);
        let Ok(Job { shared, mut stream, ticket }) = job else { return };
        if shared.stopping.load(Ordering::SeqCst) || stream.set_read_timeout(Some(LINGER)).is_err() {
            continue;
        }
        let Some(id) = shared.held.add(&stream) else { continue };
        // A shutdown that began before the connection was on the list did not end its reads.
        let ending = if shared.stopping.load(Ordering::SeqCst) {
            Ending::Closed
        } else {
            connection::run(&shared, &mut stream, LINGER)
        };
        shared.held.remove(id);
        if ending == Ending::Idle && !shared.stopping.load(Ordering::SeqCst) {
            parking::park(&shared, stream, ticket);
        }
    }
}
