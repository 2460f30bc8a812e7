//! The checks DynamoDB makes of a request's signature before it reads the request: that there is
//! one, in the `Authorization` header or in the query string (a presigned request) but not both,
//! that the header names SigV4, that it has the parts a signature needs, and that its credential
//! is scoped to a region. The signature itself is never verified: any credentials are welcome.
//! Its credential names the request's [`Place`]: the region of its scope, and the account of its
//! access key id.

use std::borrow::Cow;

use crate::error::DynamoError;
use crate::place::{Place, is_region};

/// What a transport saw of a request's signature.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Signature<'a> {
    /// Not checked: the in-process client (which signs with `noAuth`) and `handle_json`.
    Unchecked,
    /// Checked as DynamoDB checks it: the `Authorization` header, if any, whether an
    /// `X-Amz-Date` or `Date` header came with the request, and the query string of its path.
    Header { authorization: Option<&'a str>, dated: bool, query: &'a str },
}

/// The parameters of a presigned request, each required in its query string.
const QUERY_PARAMETERS: [&str; 5] =
    ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"];

impl<'a> Signature<'a> {
    /// `MissingAuthenticationTokenException` for a request with no SigV4 header or query,
    /// `InvalidSignatureException` for one with both, `IncompleteSignatureException` for one
    /// that lacks a part.
    pub(crate) fn check(self) -> Result<(), DynamoError> {
        let Signature::Header { authorization, dated, query } = self else { return Ok(()) };
        let presigned = query_parameter(query, "X-Amz-Algorithm").is_some();
        let mut missing = String::new();
        match authorization {
            Some(_) if presigned => {
                return Err(DynamoError::custom(
                    400,
                    "InvalidSignatureException",
                    "Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header.",
                ));
            }
            Some(authorization) if authorization.trim().starts_with("AWS4-") => {
                for part in ["Credential", "Signature", "SignedHeaders"] {
                    if header_parameter(authorization, part).is_none_or(str::is_empty) {
                        missing.push_str(&format!("Authorization header requires '{part}' parameter. "));
                    }
                }
                if !dated {
                    missing.push_str(
                        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ",
                    );
                }
                if !missing.is_empty() {
                    missing.push_str(&format!("Authorization={authorization}"));
                }
            }
            None if presigned => {
                for part in QUERY_PARAMETERS {
                    if query_parameter(query, part).is_none_or(str::is_empty) {
                        missing.push_str(&format!("AWS query-string parameters must include '{part}'. "));
                    }
                }
                if !missing.is_empty() {
                    missing.push_str("Re-examine the query-string parameters.");
                }
            }
            _ => {
                return Err(DynamoError::custom(
                    400,
                    "MissingAuthenticationTokenException",
                    "Request is missing Authentication Token",
                ));
            }
        }
        if !missing.is_empty() {
            return Err(DynamoError::custom(400, "IncompleteSignatureException", &missing));
        }
        match self.credential() {
            Some(credential) => check_credential(&credential),
            None => Ok(()),
        }
    }

    /// The credential the request was signed with: the `Credential` of its `Authorization`
    /// header, or the `X-Amz-Credential` of its presigned query (percent-decoded). `None` for an
    /// unchecked signature, or one without a credential.
    pub(crate) fn credential(self) -> Option<Cow<'a, str>> {
        let Signature::Header { authorization, query, .. } = self else { return None };
        if let Some(authorization) = authorization {
            return header_parameter(authorization, "Credential").map(Cow::Borrowed);
        }
        let encoded = query_parameter(query, "X-Amz-Credential")?;
        Some(percent_encoding::percent_decode_str(encoded).decode_utf8_lossy())
    }
}

/// The parts of a credential, `<access key id>/<date>/<region>/<service>/aws4_request`, if it
/// has five.
fn credential_parts(credential: &str) -> Option<[&str; 5]> {
    let mut parts = credential.split('/');
    let all = [parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?];
    parts.next().is_none().then_some(all)
}

/// The account and region a credential names, if it has five parts and a region the fake holds.
pub(crate) fn place_of(credential: &str) -> Option<Place<'_>> {
    let [access_key, _, region, _, _] = credential_parts(credential)?;
    is_region(region).then(|| Place::of_credential(access_key, region))
}

/// DynamoDB's refusal of a credential without five parts, or scoped to no region.
fn check_credential(credential: &str) -> Result<(), DynamoError> {
    let Some([_, _, region, _, _]) = credential_parts(credential) else {
        return Err(DynamoError::custom(
            400,
            "IncompleteSignatureException",
            &format!(
                "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '{credential}'"
            ),
        ));
    };
    if !is_region(region) {
        return Err(DynamoError::custom(
            400,
            "InvalidSignatureException",
            &format!("Credential should be scoped to a valid region, not '{region}'. "),
        ));
    }
    Ok(())
}

/// The value of `name=value` among the parameters after the algorithm of an `Authorization`
/// header, separated by commas or spaces.
fn header_parameter<'a>(authorization: &'a str, name: &str) -> Option<&'a str> {
    // Split as bytes: every separator is ASCII, so each piece is still UTF-8.
    let mut tokens = authorization.as_bytes().split(|&b| b == b',' || b == b' ').filter(|token| !token.is_empty());
    tokens.next();
    let value = tokens.find_map(|token| match token.strip_prefix(name.as_bytes())? {
        [] => Some(&[][..]),
        [b'=', value @ ..] => Some(value.split(|&b| b == b'=').next().unwrap_or(value)),
        _ => None,
    })?;
    std::str::from_utf8(value).ok()
}

/// The value of `name` in a query string; empty if it has no `=`.
fn query_parameter<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key == name).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(authorization: Option<&str>, dated: bool) -> Result<(), (String, String)> {
        presigned(authorization, dated, "")
    }

    fn presigned(authorization: Option<&str>, dated: bool, query: &str) -> Result<(), (String, String)> {
        Signature::Header { authorization, dated, query }.check().map_err(|e| (e.code().to_owned(), e.message))
    }

    #[test]
    fn header_parameters_are_read_after_the_algorithm() {
        let header = "AWS4-HMAC-SHA256 Credential=a/b/us-east-1, SignedHeaders=host;x-amz-date,Signature=ff";
        assert_eq!(header_parameter(header, "Credential"), Some("a/b/us-east-1"));
        assert_eq!(header_parameter(header, "SignedHeaders"), Some("host;x-amz-date"));
        assert_eq!(header_parameter(header, "Signature"), Some("ff"));
        assert_eq!(header_parameter("AWS4-HMAC-SHA256 Credential", "Credential"), Some(""));
        assert_eq!(header_parameter("AWS4-HMAC-SHA256 Credential=a=b", "Credential"), Some("a"));
        assert_eq!(header_parameter("AWS4-HMAC-SHA256 CredentialX=1", "Credential"), None);
        assert_eq!(header_parameter("Credential=x", "Credential"), None, "the first word is the algorithm");
        assert_eq!(header_parameter("AWS4-HMAC-SHA256 Credential=é", "Credential"), Some("é"));
    }

    #[test]
    fn a_complete_sigv4_header_passes_whatever_its_credentials() {
        let header = "AWS4-HMAC-SHA256 Credential=anyone/20240101/us-east-1/dynamodb/aws4_request, \
                      SignedHeaders=host;x-amz-date, Signature=00";
        assert_eq!(answer(Some(header), true), Ok(()));
        assert_eq!(answer(Some("AWS4- Signature=b Credential=a/b/c/d/e,SignedHeaders=c"), true), Ok(()));
        assert_eq!(Signature::Unchecked.check(), Ok(()));
    }

    #[test]
    fn a_presigned_query_needs_every_parameter_and_no_header_beside_it() {
        let query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a%2Fb%2Fus-east-1%2Fd%2Fe&X-Amz-Signature=b\
                     &X-Amz-SignedHeaders=host&X-Amz-Date=20240101T000000Z";
        assert_eq!(presigned(None, false, query), Ok(()));
        let (code, message) = presigned(None, false, "X-Amz-Algorithm=a&X-Amz-Credential=b&X-Amz-Date=d").unwrap_err();
        assert_eq!(code, "IncompleteSignatureException");
        assert_eq!(
            message,
            "AWS query-string parameters must include 'X-Amz-Signature'. \
             AWS query-string parameters must include 'X-Amz-SignedHeaders'. \
             Re-examine the query-string parameters."
        );
        let (code, _) = presigned(Some("X"), true, "X-Amz-Algorithm").unwrap_err();
        assert_eq!(code, "InvalidSignatureException");
        let (code, _) = presigned(None, true, "X-Amz-Credential=a&X-Amz-Signature=b").unwrap_err();
        assert_eq!(code, "MissingAuthenticationTokenException");
    }

    #[test]
    fn the_credential_names_the_region_and_an_account_id_names_the_account() {
        let header = "AWS4-HMAC-SHA256 Credential=111122223333/20240101/eu-west-1/dynamodb/aws4_request, \
                      SignedHeaders=host;x-amz-date, Signature=00";
        let signature = Signature::Header { authorization: Some(header), dated: true, query: "" };
        assert_eq!(signature.check(), Ok(()));
        let credential = signature.credential().unwrap();
        assert_eq!(place_of(&credential), Some(Place { account: "111122223333", region: "eu-west-1" }));
        assert_eq!(
            place_of("AKIDEXAMPLE/20240101/ap-south-1/dynamodb/aws4_request"),
            Some(Place { account: crate::place::DEFAULT_ACCOUNT, region: "ap-south-1" })
        );
        let query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=222233334444%2F20240101%2Fus-west-2%2Fdynamodb%2Faws4_request\
                     &X-Amz-Signature=b&X-Amz-SignedHeaders=host&X-Amz-Date=20240101T000000Z";
        let presigned = Signature::Header { authorization: None, dated: false, query };
        assert_eq!(presigned.check(), Ok(()));
        let credential = presigned.credential().unwrap();
        assert_eq!(place_of(&credential), Some(Place { account: "222233334444", region: "us-west-2" }));
    }

    #[test]
    fn a_credential_without_five_parts_or_a_region_is_refused_as_dynamodb_refuses_it() {
        let signed = |credential: &str| {
            let header = format!("AWS4-HMAC-SHA256 Credential={credential}, SignedHeaders=host, Signature=00");
            answer(Some(&header), true)
        };
        let (code, message) = signed("AKID/20240101/dynamodb/aws4_request").unwrap_err();
        assert_eq!(code, "IncompleteSignatureException");
        assert_eq!(
            message,
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, \
             got 'AKID/20240101/dynamodb/aws4_request'"
        );
        let (code, message) = signed("AKID/20240101//dynamodb/aws4_request").unwrap_err();
        assert_eq!(code, "InvalidSignatureException");
        assert_eq!(message, "Credential should be scoped to a valid region, not ''. ");
        let (code, message) = signed("AKID/20240101/US_EAST_1/dynamodb/aws4_request").unwrap_err();
        assert_eq!(code, "InvalidSignatureException");
        assert_eq!(message, "Credential should be scoped to a valid region, not 'US_EAST_1'. ");
        assert_eq!(place_of("AKID/20240101//dynamodb/aws4_request"), None);
        let query = "X-Amz-Algorithm=A&X-Amz-Credential=AKID%2F20240101&X-Amz-Signature=b\
                     &X-Amz-SignedHeaders=host&X-Amz-Date=20240101T000000Z";
        let (code, _) = presigned(None, false, query).unwrap_err();
        assert_eq!(code, "IncompleteSignatureException");
    }

    #[test]
    fn no_header_or_another_scheme_is_a_missing_token() {
        for header in [None, Some(""), Some("AWS4"), Some("Basic dXNlcg==")] {
            let (code, message) = answer(header, true).unwrap_err();
            assert_eq!(code, "MissingAuthenticationTokenException");
            assert_eq!(message, "Request is missing Authentication Token");
        }
    }

    #[test]
    fn each_missing_part_is_named_and_the_header_quoted() {
        let (code, message) = answer(Some("AWS4-HMAC-SHA256 Credential=a/b, Signature="), false).unwrap_err();
        assert_eq!(code, "IncompleteSignatureException");
        assert_eq!(
            message,
            "Authorization header requires 'Signature' parameter. \
             Authorization header requires 'SignedHeaders' parameter. \
             Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. \
             Authorization=AWS4-HMAC-SHA256 Credential=a/b, Signature="
        );
    }
}
