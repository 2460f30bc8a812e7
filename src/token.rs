//! [`ProcessLockToken`]: what a lock of the process-lock shape is held by, and
//! [`ParseTokenError`] for a string that is not one.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::lock_table::{LockTable, check};

/// The first part of every token, which names its format.
const TOKEN_PREFIX: &str = "dl1";

/// The token of a lock that [`ProcessLocks::create`](crate::ProcessLocks::create) took: the
/// lock's name, the id of that acquire, and its fencing token.
///
/// Any [`ProcessLocks`](crate::ProcessLocks) on the same table, in this process or another,
/// can [renew](crate::ProcessLocks::renew) or [release](crate::ProcessLocks::release) the
/// lock with it; nothing else can. To hand it to another process, write it as a string
/// (`Display`, `to_string`) and read it back there (`FromStr`, `parse`); with the feature
/// `serde` it is serialized as that string. Keep it as a secret of the processes that share
/// the lock: whoever has it can release the lock. `Debug` leaves the acquire's id out.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, ProcessLockToken, ProcessLocks, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
///
/// let token = locks.create("import", Duration::from_secs(15)).await?.expect("free");
/// assert_eq!((token.lock_name(), token.fencing_token()), ("import", 1));
///
/// let handed_over: String = token.to_string(); // to a queue, a file, another process
/// let received: ProcessLockToken = handed_over.parse()?;
/// assert_eq!(received, token);
/// assert!(locks.release(&received).await?);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ProcessLockToken {
    name: String,
    owner: String,
    fence: u64,
}

impl ProcessLockToken {
    pub(crate) fn new(name: String, owner: String, fence: u64) -> Self {
        Self { name, owner, fence }
    }

    /// The name of the lock.
    ///
    /// # Examples
    ///
    /// ```
    /// # fn f(token: dynalease::ProcessLockToken) {
    /// println!("holding {}", token.lock_name());
    /// # }
    /// ```
    pub fn lock_name(&self) -> &str {
        &self.name
    }

    /// The fencing token of the acquire that made this token: hand it to a system that refuses
    /// writes with a lower token than it has seen.
    ///
    /// # Examples
    ///
    /// ```
    /// # fn f(token: dynalease::ProcessLockToken) {
    /// let fence: u64 = token.fencing_token();
    /// # }
    /// ```
    pub fn fencing_token(&self) -> u64 {
        self.fence
    }

    /// The owner id of the acquire: what the lock item holds while the token holds the lock.
    pub(crate) fn owner(&self) -> &str {
        &self.owner
    }
}

/// `dl1:<fence>:<bytes of owner>:<owner>:<name>`: the owner is counted, so it may hold any
/// character, and the name, last, is the rest.
impl fmt::Display for ProcessLockToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{TOKEN_PREFIX}:{}:{}:{}:{}", self.fence, self.owner.len(), self.owner, self.name)
    }
}

impl fmt::Debug for ProcessLockToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessLockToken")
            .field("lock_name", &self.name)
            .field("fencing_token", &self.fence)
            .finish_non_exhaustive()
    }
}

impl FromStr for ProcessLockToken {
    type Err = ParseTokenError;

    fn from_str(token: &str) -> Result<Self, ParseTokenError> {
        let invalid = |reason: &'static str| ParseTokenError { reason: Cow::Borrowed(reason) };
        let rest = token
            .strip_prefix(TOKEN_PREFIX)
            .and_then(|rest| rest.strip_prefix(':'))
            .ok_or_else(|| invalid("it does not start with dl1:, so ProcessLocks::create did not make it"))?;
        let (fence, rest) = rest.split_once(':').ok_or_else(|| invalid("it has no fencing token"))?;
        let fence = fence.parse::<u64>().map_err(|_| invalid("its fencing token is not a whole number"))?;
        if fence == 0 {
            return Err(invalid("its fencing token is 0, and tokens start at 1"));
        }
        let (owner_len, rest) = rest.split_once(':').ok_or_else(|| invalid("it has no owner"))?;
        let owner_len = owner_len.parse::<usize>().map_err(|_| invalid("the length of its owner is not a number"))?;
        if owner_len == 0 {
            return Err(invalid("its owner is empty"));
        }
        let owner = rest.get(..owner_len).ok_or_else(|| invalid("its owner is cut short"))?;
        let name = rest[owner_len..].strip_prefix(':').ok_or_else(|| invalid("it has no lock name after its owner"))?;
        check(name, LockTable::MIN_LEASE)
            .map_err(|err| ParseTokenError { reason: Cow::Owned(format!("its lock name is not valid: {err}")) })?;
        Ok(ProcessLockToken { name: name.to_owned(), owner: owner.to_owned(), fence })
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ProcessLockToken {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ProcessLockToken {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let token = <Cow<'de, str>>::deserialize(deserializer)?;
        token.parse().map_err(serde::de::Error::custom)
    }
}

/// A string that is not a [`ProcessLockToken`]: not made by
/// [`ProcessLocks::create`](crate::ProcessLocks::create), cut short or edited. Its `Display`
/// says what is wrong.
///
/// # Examples
///
/// ```
/// let err = "nightly-report".parse::<dynalease::ProcessLockToken>().unwrap_err();
/// assert!(err.to_string().starts_with("invalid lock token"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTokenError {
    reason: Cow<'static, str>,
}

impl fmt::Display for ParseTokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid lock token: {}", self.reason)
    }
}

impl std::error::Error for ParseTokenError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(name: &str, owner: &str, fence: u64) -> ProcessLockToken {
        ProcessLockToken::new(name.to_owned(), owner.to_owned(), fence)
    }

    #[test]
    fn a_token_reads_back_as_written_whatever_its_owner_and_name_hold() {
        for written in [token("job", "6f1c", 1), token("a:b:c", "x:y", 42), token("報告", "ü", u64::MAX)] {
            assert_eq!(written.to_string().parse::<ProcessLockToken>(), Ok(written));
        }
    }

    #[test]
    fn a_malformed_token_is_refused_with_what_is_wrong() {
        let reason = |token: &str| match token.parse::<ProcessLockToken>() {
            Err(err) => err.to_string(),
            other => panic!("{token:?} parsed as {other:?}"),
        };
        assert!(reason("job").contains("dl1"));
        assert!(reason("dl1:x:4:abcd:job").contains("fencing token"));
        assert!(reason("dl1:0:4:abcd:job").contains("start at 1"));
        assert!(reason("dl1:3:9:abcd:job").contains("cut short"));
        assert!(reason("dl1:3:4:abcd").contains("no lock name"));
        assert!(reason("dl1:3:4:abcd:").contains("lock name"));
        assert!(reason("dl1:3:0::job").contains("owner is empty"));
        assert!(reason("dl1:3:1:ü:job").contains("cut short"), "a length inside a character");
    }

    #[test]
    fn debug_leaves_the_owner_out() {
        let shown = format!("{:?}", token("job", "secret-owner", 3));
        assert!(shown.contains("job") && shown.contains('3'), "{shown}");
        assert!(!shown.contains("secret-owner"), "{shown}");
    }
}
