//! How [`serve_with`](super::serve_with) serves: the control API's access, the data file, the
//! idle timeout.

use std::path::PathBuf;
use std::time::Duration;

/// Who may use the control API (`/_dynalease/...`): the fake's clock, faults, state and request
/// log, steered over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ControlAccess {
    /// On when the server listens on a loopback address, off on any other (the default).
    #[default]
    Loopback,
    /// On, whatever the address.
    On,
    /// Off: the control paths answer 403.
    Off,
}

/// The options of [`serve_with`](super::serve_with).
///
/// ```
/// use std::time::Duration;
/// use dynalease_fake::{ControlAccess, ServeOptions};
///
/// let options = ServeOptions::default()
///     .control(ControlAccess::On)
///     .data_file("tables.json")
///     .idle_timeout(Duration::from_secs(30));
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub(crate) control: ControlAccess,
    pub(crate) data: Option<PathBuf>,
    pub(crate) idle_timeout: Duration,
}

/// How long an idle keep-alive connection stays open by default.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions { control: ControlAccess::Loopback, data: None, idle_timeout: IDLE_TIMEOUT }
    }
}

impl ServeOptions {
    /// Who may use the control API.
    pub fn control(mut self, access: ControlAccess) -> Self {
        self.control = access;
        self
    }

    /// The file the fake's tables are written to, as a [`Snapshot`](crate::Snapshot), on the
    /// control API's `POST /_dynalease/save` and once the server has stopped. Reading it at start
    /// is the caller's part ([`Snapshot::read_file`](crate::Snapshot::read_file)), so that a file
    /// that does not read is never overwritten.
    pub fn data_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.data = Some(path.into());
        self
    }

    /// How long a connection may stay idle, before its first request, between two or in the
    /// middle of one, before the server closes it (default 60 s, on real time).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }
}
