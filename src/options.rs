//! [`LockTableOptions`]: holder label, item expiry, clock and ids of a [`LockTable`](crate::LockTable).

use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, TokioClock};
use crate::error::Error;
use crate::ids::{IdSource, RandomIds};
use crate::invalid::InvalidOption;
use crate::store::dynamodb as item;

/// The options of a [`LockTable`](crate::LockTable), built by chaining.
///
/// [`LockTable::new`](crate::LockTable::new) checks them and refuses options that cannot work
/// with [`Error::InvalidOptions`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let options = LockTableOptions::default()
///     .holder_label("pod-7")
///     .time_to_live("expiresAt", Duration::from_secs(7 * 24 * 3600));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = LockTable::new(table, options)?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct LockTableOptions {
    pub(crate) holder_label: Option<String>,
    pub(crate) time_to_live: Option<(String, Duration)>,
    pub(crate) clock: Option<Arc<dyn Clock>>,
    pub(crate) ids: Option<Arc<dyn IdSource>>,
}

impl LockTableOptions {
    /// The retention that the seed of this library recommends for lock items with expiry:
    /// 30 days after their last write.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::LockTableOptions;
    /// let options = LockTableOptions::default().time_to_live("expiresAt", LockTableOptions::DEFAULT_RETENTION);
    /// ```
    pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

    /// The shortest retention [`time_to_live`](Self::time_to_live) accepts: one day, so that
    /// the item of a held lock, renewed at least every 8 hours, is never due.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::LockTableOptions;
    /// assert!(LockTableOptions::DEFAULT_RETENTION >= LockTableOptions::MIN_RETENTION);
    /// ```
    pub const MIN_RETENTION: Duration = Duration::from_secs(24 * 3600);

    /// The longest holder label, in characters.
    ///
    /// # Examples
    ///
    /// ```
    /// let label: String = "pod-7".chars().take(dynalease::LockTableOptions::MAX_HOLDER_LABEL_CHARS).collect();
    /// ```
    pub const MAX_HOLDER_LABEL_CHARS: usize = 256;

    /// Names this process in the lock items it holds, as the attribute `holder`.
    ///
    /// An operator reads it in the table and in the logs. It is never part of a condition, so
    /// processes with and without labels contend as equals. From 1 to 256 characters; put a
    /// name of the process in it, such as the name of the pod, and no data.
    ///
    /// # Examples
    ///
    /// ```
    /// let options = dynalease::LockTableOptions::default().holder_label("pod-7");
    /// ```
    pub fn holder_label(mut self, label: impl Into<String>) -> Self {
        self.holder_label = Some(label.into());
        self
    }

    /// Writes `attribute` on every acquire, renewal and release as the wall clock plus
    /// `retention`, in seconds since the epoch, so that DynamoDB's time to live deletes lock
    /// items nobody wrote for `retention`.
    ///
    /// Turn on time to live for the table on that attribute yourself; this only writes it.
    /// The attribute must not be a key of the table nor an attribute of the lock, and the
    /// retention must be at least [`MIN_RETENTION`](Self::MIN_RETENTION);
    /// [`DEFAULT_RETENTION`](Self::DEFAULT_RETENTION) is a good start.
    ///
    /// A lock whose item was deleted starts its fencing token at 1 again, so keep locks whose
    /// tokens another system checks in a table without expiry.
    ///
    /// Over a SQL table the expiry goes to the column `expires_at` and `attribute` is not used;
    /// no database deletes rows by it on its own, so the deleting is a job of yours.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::LockTableOptions;
    ///
    /// let options = LockTableOptions::default()
    ///     .time_to_live("expiresAt", LockTableOptions::DEFAULT_RETENTION);
    /// ```
    pub fn time_to_live(mut self, attribute: impl Into<String>, retention: Duration) -> Self {
        self.time_to_live = Some((attribute.into(), retention));
        self
    }

    /// The clock that measures leases and waits. The default is [`TokioClock`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dynalease::{LockTableOptions, TokioClock};
    ///
    /// let options = LockTableOptions::default().clock(Arc::new(TokioClock::new()));
    /// ```
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The source of owner ids and record versions. The default is [`RandomIds`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dynalease::{LockTableOptions, SeededIds};
    ///
    /// let options = LockTableOptions::default().id_source(Arc::new(SeededIds::new(42)));
    /// ```
    pub fn id_source(mut self, ids: Arc<dyn IdSource>) -> Self {
        self.ids = Some(ids);
        self
    }

    /// Checks the options against the keys of the table, and fills in the defaults.
    pub(crate) fn resolve(self, partition_key: &str, sort_key: Option<&str>) -> Result<Resolved, Error> {
        let invalid = |reason: InvalidOption| Err(Error::InvalidOptions { reason });
        if let Some(label) = &self.holder_label {
            let chars = label.chars().count();
            if chars == 0 || chars > Self::MAX_HOLDER_LABEL_CHARS {
                return invalid(InvalidOption::HolderLabelLength { chars });
            }
        }
        if let Some((attribute, retention)) = &self.time_to_live {
            if attribute.is_empty() {
                return invalid(InvalidOption::EmptyTimeToLiveAttribute);
            }
            if attribute == partition_key || Some(attribute.as_str()) == sort_key {
                return invalid(InvalidOption::TimeToLiveIsKey { attribute: attribute.clone() });
            }
            if item::LOCK_ATTRIBUTES.contains(&attribute.as_str()) {
                return invalid(InvalidOption::TimeToLiveIsLockAttribute { attribute: attribute.clone() });
            }
            if *retention < Self::MIN_RETENTION {
                return invalid(InvalidOption::RetentionTooShort { retention: *retention });
            }
        }
        Ok(Resolved {
            holder_label: self.holder_label,
            time_to_live: self.time_to_live,
            clock: self.clock.unwrap_or_else(|| Arc::new(TokioClock::new())),
            ids: self.ids.unwrap_or_else(|| Arc::new(RandomIds)),
        })
    }
}

/// Options after [`LockTableOptions::resolve`]: checked, with the defaults filled in.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub(crate) holder_label: Option<String>,
    pub(crate) time_to_live: Option<(String, Duration)>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdSource>,
}
