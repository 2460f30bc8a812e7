//! The query string of a control request: `account=ID` and `region=NAME`, which narrow a request
//! to the places it is about (the clock's requests take `account` alone: a clock is an
//! account's), and `limit=N` of the request log.

use super::Refusal;
use crate::place::{PlaceFilter, is_account_id, is_region};

/// The parameters of a control request's query string, checked.
#[derive(Debug, Default)]
pub(super) struct Query {
    /// The places the request is about: `account` and `region`, each optional.
    pub(super) places: PlaceFilter,
    /// `limit`, where the endpoint takes it.
    pub(super) limit: Option<usize>,
}

/// What an endpoint takes in its query string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Takes {
    /// Nothing.
    Nothing,
    /// `account`.
    Account,
    /// `account` and `region`.
    Places,
    /// `account`, `region` and `limit`.
    PlacesAndLimit,
}

/// Reads the query string of a request to `endpoint`, which takes `takes`; a parameter it does
/// not take, or one given twice, is refused.
pub(super) fn parse(query: Option<&str>, endpoint: &str, takes: Takes) -> Result<Query, Refusal> {
    let mut out = Query::default();
    let names = match takes {
        Takes::Nothing => "no parameters",
        Takes::Account => "account=ID",
        Takes::Places => "account=ID and region=NAME",
        Takes::PlacesAndLimit => "account=ID, region=NAME and limit=N",
    };
    for pair in query.unwrap_or("").split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let twice = || Refusal::bad(format!("`{name}` is given twice"));
        match name {
            "account" if takes != Takes::Nothing => {
                if !is_account_id(value) {
                    return Err(Refusal::bad(format!("account `{value}` is not an account id of twelve digits")));
                }
                if out.places.account.replace(value.to_owned()).is_some() {
                    return Err(twice());
                }
            }
            "region" if matches!(takes, Takes::Places | Takes::PlacesAndLimit) => {
                if !is_region(value) {
                    return Err(Refusal::bad(format!("region `{value}` is not a region's name, such as eu-west-1")));
                }
                if out.places.region.replace(value.to_owned()).is_some() {
                    return Err(twice());
                }
            }
            "limit" if takes == Takes::PlacesAndLimit => {
                let limit =
                    value.parse().map_err(|_| Refusal::bad(format!("limit `{value}` is not a number of requests")))?;
                if out.limit.replace(limit).is_some() {
                    return Err(twice());
                }
            }
            _ => return Err(Refusal::bad(format!("`{pair}` is not a parameter of {endpoint}; it takes {names}"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(query: &str, takes: Takes) -> String {
        parse(Some(query), "reset", takes).unwrap_err().message
    }

    #[test]
    fn account_and_region_narrow_a_request_to_their_places() {
        let query = parse(Some("account=111122223333&region=eu-west-1"), "reset", Takes::Places).unwrap();
        assert_eq!(query.places.account.as_deref(), Some("111122223333"));
        assert_eq!(query.places.region.as_deref(), Some("eu-west-1"));
        assert_eq!(parse(None, "reset", Takes::Places).unwrap().places, PlaceFilter::default());
        assert_eq!(parse(Some("limit=3"), "requests", Takes::PlacesAndLimit).unwrap().limit, Some(3));
    }

    #[test]
    fn a_malformed_or_unknown_parameter_is_refused_with_what_the_endpoint_takes() {
        assert_eq!(message("account=12", Takes::Places), "account `12` is not an account id of twelve digits");
        assert_eq!(message("region=EU", Takes::Places), "region `EU` is not a region's name, such as eu-west-1");
        assert_eq!(
            message("limit=3", Takes::Places),
            "`limit=3` is not a parameter of reset; it takes account=ID and region=NAME"
        );
        assert_eq!(
            message("account=111122223333", Takes::Nothing),
            "`account=111122223333` is not a parameter of reset; it takes no parameters"
        );
        assert_eq!(message("region=a&region=b", Takes::Places), "`region` is given twice");
    }
}
