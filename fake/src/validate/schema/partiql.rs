//! The inputs of PartiQL: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.

use super::common::{RETURN_CONSUMED_CAPACITY, RETURN_VALUES_ON_CONDITION_CHECK_FAILURE};
use crate::validate::shape::{Len, ListShape, Member, NumberRules, Shape, StringRules, StructShape};

/// A statement's text.
const STATEMENT: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 8192) });

/// A statement's parameters: at least one, if given.
const PARAMETERS: Shape = Shape::List(&ListShape { member: Shape::AttrValue, len: Len::at_least(1) });

/// `ExecuteStatement`.
pub(crate) static EXECUTE_STATEMENT: StructShape = StructShape {
    name: "ExecuteStatementInput",
    members: &[
        Member::required("Statement", "statement", STATEMENT),
        Member::optional("Parameters", "parameters", PARAMETERS),
        Member::optional("ConsistentRead", "consistentRead", Shape::Boolean),
        Member::optional(
            "NextToken",
            "nextToken",
            Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 32768) }),
        ),
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::optional("Limit", "limit", Shape::Integer(&NumberRules { min: Some(1), max: None })),
        Member::optional(
            "ReturnValuesOnConditionCheckFailure",
            "returnValuesOnConditionCheckFailure",
            RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
        ),
    ],
};

/// `BatchExecuteStatement`.
pub(crate) static BATCH_EXECUTE_STATEMENT: StructShape = StructShape {
    name: "BatchExecuteStatementInput",
    members: &[
        Member::required(
            "Statements",
            "statements",
            Shape::List(&ListShape {
                member: Shape::Structure(&StructShape {
                    name: "BatchStatementRequest",
                    members: &[
                        Member::required("Statement", "statement", STATEMENT),
                        Member::optional("Parameters", "parameters", PARAMETERS),
                        Member::optional("ConsistentRead", "consistentRead", Shape::Boolean),
                        Member::optional(
                            "ReturnValuesOnConditionCheckFailure",
                            "returnValuesOnConditionCheckFailure",
                            RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
                        ),
                    ],
                }),
                len: Len::between(1, 25),
            }),
        ),
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
    ],
};

/// `ExecuteTransaction`.
pub(crate) static EXECUTE_TRANSACTION: StructShape = StructShape {
    name: "ExecuteTransactionInput",
    members: &[
        Member::required(
            "TransactStatements",
            "transactStatements",
            Shape::List(&ListShape {
                member: Shape::Structure(&StructShape {
                    name: "ParameterizedStatement",
                    members: &[
                        Member::required("Statement", "statement", STATEMENT),
                        Member::optional("Parameters", "parameters", PARAMETERS),
                        Member::optional(
                            "ReturnValuesOnConditionCheckFailure",
                            "returnValuesOnConditionCheckFailure",
                            RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
                        ),
                    ],
                }),
                len: Len::between(1, 100),
            }),
        ),
        Member::optional(
            "ClientRequestToken",
            "clientRequestToken",
            Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 36) }),
        ),
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
    ],
};
