//! The account and region a request is for: from the scope of its signature over HTTP, or from
//! the in-process client that sent it.
//!
//! A request signed with an access key id of twelve digits is for that account (the convention
//! other emulators' users know); any other key is for [`DEFAULT_ACCOUNT`].

/// The account of a request whose access key id is not an account id, and of the fake's own
/// helpers (`create_table`, `read_item`, ...).
pub(crate) const DEFAULT_ACCOUNT: &str = "000000000000";
/// The region of the fake's own helpers and of a request without a signature.
pub(crate) const DEFAULT_REGION: &str = "us-east-1";

/// Whether `text` is an account id: twelve ASCII digits.
pub(crate) fn is_account_id(text: &str) -> bool {
    text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `text` can name a region: 1 to 64 lowercase ASCII letters, digits and hyphens, from a
/// letter to a letter or digit (`us-east-1`, `eu-central-2`, `us-gov-west-1`, or a name of your
/// own such as `local`). The fake holds any region a client names; DynamoDB's list of regions
/// grows, and an emulator's users name regions of their own.
pub(crate) fn is_region(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes[0].is_ascii_lowercase()
        && bytes.last().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

/// The account and region a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Place<'a> {
    pub(crate) account: &'a str,
    pub(crate) region: &'a str,
}

impl Place<'static> {
    /// The default account in the default region.
    pub(crate) const DEFAULT: Place<'static> = Place { account: DEFAULT_ACCOUNT, region: DEFAULT_REGION };
}

impl<'a> Place<'a> {
    /// The place of a request signed with `access_key` for `region`: the access key's account if
    /// it is an account id, else the default account.
    pub(crate) fn of_credential(access_key: &'a str, region: &'a str) -> Place<'a> {
        let account = if is_account_id(access_key) { access_key } else { DEFAULT_ACCOUNT };
        Place { account, region }
    }

    /// Owned.
    pub(crate) fn to_owned(self) -> OwnedPlace {
        OwnedPlace { account: self.account.to_owned(), region: self.region.to_owned() }
    }
}

/// A [`Place`] that owns its names: what an in-process client, a fault rule or a log record
/// keeps.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct OwnedPlace {
    pub(crate) account: String,
    pub(crate) region: String,
}

impl OwnedPlace {
    /// Borrowed.
    pub(crate) fn as_place(&self) -> Place<'_> {
        Place { account: &self.account, region: &self.region }
    }
}

/// The places a control request is about: those of one account, of one region, of one account
/// in one region, or every place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PlaceFilter {
    pub(crate) account: Option<String>,
    pub(crate) region: Option<String>,
}

impl PlaceFilter {
    /// Whether the filter is about `place`.
    pub(crate) fn covers(&self, place: Place<'_>) -> bool {
        self.account.as_deref().is_none_or(|account| account == place.account)
            && self.region.as_deref().is_none_or(|region| region == place.region)
    }

    /// The place the tables of a snapshot that names none go to: the filter's account and
    /// region, or the default ones.
    pub(crate) fn target(&self) -> Place<'_> {
        Place {
            account: self.account.as_deref().unwrap_or(DEFAULT_ACCOUNT),
            region: self.region.as_deref().unwrap_or(DEFAULT_REGION),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_id_is_twelve_digits() {
        assert!(is_account_id("111122223333"));
        assert!(is_account_id(DEFAULT_ACCOUNT));
        for text in
            ["11112222333", "1111222233334", "AKIAIOSFODNN7EXAMPLE", "11112222333a", "", "１１１１２２２２３３３３"]
        {
            assert!(!is_account_id(text), "{text:?}");
        }
    }

    #[test]
    fn a_region_is_lowercase_words_and_digits_joined_by_hyphens() {
        for text in ["us-east-1", "eu-central-2", "us-gov-west-1", "cn-north-1", "local", "ap-southeast-5"] {
            assert!(is_region(text), "{text:?}");
        }
        for text in ["", "US-EAST-1", "us_east_1", "-us", "us-", "1us", "us east 1", "us/east", &"a".repeat(65)] {
            assert!(!is_region(text), "{text:?}");
        }
    }

    #[test]
    fn a_credential_of_an_account_id_is_for_that_account_any_other_for_the_default() {
        assert_eq!(Place::of_credential("111122223333", "eu-west-1").account, "111122223333");
        assert_eq!(Place::of_credential("AKIAIOSFODNN7EXAMPLE", "eu-west-1").account, DEFAULT_ACCOUNT);
        assert_eq!(Place::of_credential("fake", "eu-west-1").region, "eu-west-1");
    }
}
