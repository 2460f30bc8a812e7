//! The inputs of resource policies: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy.

use super::common::STRING;
use crate::validate::shape::{Len, Member, Shape, StringRules, StructShape};

/// The ARN of a table or a stream.
const RESOURCE_ARN: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 1283) });

/// A policy's revision id.
const REVISION_ID: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 255) });

/// `PutResourcePolicy`.
pub(crate) static PUT_RESOURCE_POLICY: StructShape = StructShape {
    name: "PutResourcePolicyInput",
    members: &[
        Member::required("ResourceArn", "resourceArn", RESOURCE_ARN),
        Member::required("Policy", "policy", STRING),
        Member::optional("ExpectedRevisionId", "expectedRevisionId", REVISION_ID),
        Member::optional("ConfirmRemoveSelfResourceAccess", "confirmRemoveSelfResourceAccess", Shape::Boolean),
    ],
};

/// `GetResourcePolicy`.
pub(crate) static GET_RESOURCE_POLICY: StructShape = StructShape {
    name: "GetResourcePolicyInput",
    members: &[Member::required("ResourceArn", "resourceArn", RESOURCE_ARN)],
};

/// `DeleteResourcePolicy`.
pub(crate) static DELETE_RESOURCE_POLICY: StructShape = StructShape {
    name: "DeleteResourcePolicyInput",
    members: &[
        Member::required("ResourceArn", "resourceArn", RESOURCE_ARN),
        Member::optional("ExpectedRevisionId", "expectedRevisionId", REVISION_ID),
    ],
};
