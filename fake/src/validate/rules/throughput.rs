//! The bound on provisioned capacity that the constraints do not express.

use super::{Object, field, refuse};
use crate::error::DynamoError;
use crate::validate::constraints::integer_of;

/// The most capacity units a table or index may ask for.
const MAX_CAPACITY_UNITS: i128 = 1_000_000_000_000;

/// Checks the read, then the write capacity of a `ProvisionedThroughput`; `index` names the
/// index it belongs to, if any.
pub(crate) fn check_bounds(throughput: &Object<'_>, index: Option<&str>) -> Result<(), DynamoError> {
    for member in ["ReadCapacityUnits", "WriteCapacityUnits"] {
        let Some(units) = field(throughput, member).and_then(integer_of) else {
            continue;
        };
        if units > MAX_CAPACITY_UNITS {
            return match index {
                None => refuse(format!("Given value {units} for {member} is out of bounds")),
                Some(index) => refuse(format!("Given value {units} for {member} is out of bounds for index {index}")),
            };
        }
    }
    Ok(())
}
