//! The errors the fake answers with, shaped as DynamoDB shapes them on the wire.

use serde_json::{Map, Value as Json};

/// A DynamoDB error: its `__type`, its message, and whatever else the response body carries
/// (`Item` on a failed condition, `CancellationReasons` on a cancelled transaction).
#[derive(Debug, Clone, PartialEq)]
pub struct DynamoError {
    /// The full `__type`, for example `com.amazon.coral.validate#ValidationException`.
    pub type_name: std::borrow::Cow<'static, str>,
    /// The message text, as DynamoDB words it.
    pub message: String,
    /// The HTTP status: 400 for client errors, 500 for server errors.
    pub status: u16,
    /// Extra members of the error body.
    pub extra: Option<Box<Map<String, Json>>>,
    /// Whether it refuses the request itself (its parameters, values and expressions), not the
    /// data it meets: PutItem, UpdateItem and DeleteItem report these inside DynamoDB's
    /// `1 validation error detected: ` envelope ([`DynamoError::enveloped`]).
    pub(crate) request_check: bool,
}

/// The envelope of a request check's message on the single-item writes.
const ENVELOPE: &str = "1 validation error detected: ";

// The constructors are cold: they run only on the way to an error, and marking them so keeps the
// code that builds each message out of the hot path of the functions that may call them.
impl DynamoError {
    #[cold]
    fn new(type_name: &'static str, message: impl Into<String>) -> Self {
        DynamoError {
            type_name: type_name.into(),
            message: message.into(),
            status: 400,
            extra: None,
            request_check: false,
        }
    }

    /// The same error, marked as a check of the request itself (see [`DynamoError::enveloped`]).
    #[cold]
    pub(crate) fn about_the_request(mut self) -> Self {
        self.request_check = true;
        self
    }

    /// The error as PutItem, UpdateItem and DeleteItem answer it: a check of the request inside
    /// `1 validation error detected: `, anything else as it is. DynamoDB words these checks so
    /// on the three single-item writes since its rollout of 2026, and not on the other
    /// operations, which share the checks (docs/fidelity.md).
    #[cold]
    pub(crate) fn enveloped(mut self) -> Self {
        if self.request_check && !self.message.starts_with(ENVELOPE) {
            self.message.insert_str(0, ENVELOPE);
        }
        self
    }

    /// `ValidationException` with the given message.
    #[cold]
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new("com.amazon.coral.validate#ValidationException", message)
    }

    /// `ValidationException` with DynamoDB's prefix for invalid parameter values.
    #[cold]
    pub fn invalid_parameter(detail: impl std::fmt::Display) -> Self {
        Self::validation(format!("One or more parameter values were invalid: {detail}"))
    }

    /// `SerializationException`: the body is not the JSON the operation expects.
    #[cold]
    pub fn serialization(message: impl Into<String>) -> Self {
        Self::new("com.amazon.coral.service#SerializationException", message)
    }

    /// `UnknownOperationException`: the target names no operation of DynamoDB.
    #[cold]
    pub fn unknown_operation() -> Self {
        Self::new("com.amazon.coral.service#UnknownOperationException", "")
    }

    /// `ResourceNotFoundException` for a table that does not exist.
    #[cold]
    pub fn resource_not_found() -> Self {
        Self::new("com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "Requested resource not found")
    }

    /// `ResourceNotFoundException` with a specific message.
    #[cold]
    pub fn resource_not_found_msg(message: impl Into<String>) -> Self {
        Self::new("com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", message)
    }

    /// `ResourceInUseException`.
    #[cold]
    pub fn resource_in_use(message: impl Into<String>) -> Self {
        Self::new("com.amazonaws.dynamodb.v20120810#ResourceInUseException", message)
    }

    /// `ConditionalCheckFailedException`.
    #[cold]
    pub fn conditional_check_failed() -> Self {
        Self::new("com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "The conditional request failed")
    }

    /// `TransactionCanceledException`, without its reasons yet.
    #[cold]
    pub fn transaction_canceled(message: impl Into<String>) -> Self {
        Self::new("com.amazonaws.dynamodb.v20120810#TransactionCanceledException", message)
    }

    /// `IdempotentParameterMismatchException`.
    #[cold]
    pub fn idempotent_parameter_mismatch() -> Self {
        Self::new(
            "com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException",
            "Request parameters have changed for the previously provided ClientRequestToken",
        )
    }

    /// `ProvisionedThroughputExceededException`, as a throttled table answers.
    #[cold]
    pub fn provisioned_throughput_exceeded() -> Self {
        Self::new(
            "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            "The level of configured provisioned throughput for the table was exceeded. \
             Consider increasing your provisioning level with the UpdateTable API.",
        )
    }

    /// `ThrottlingException`, as the control plane answers a request rate it will not take.
    #[cold]
    pub fn throttling() -> Self {
        Self::new(
            "com.amazon.coral.availability#ThrottlingException",
            "Rate of requests exceeds the allowed throughput.",
        )
    }

    /// `InternalServerError`, status 500.
    #[cold]
    pub fn internal_server_error() -> Self {
        let mut error = Self::new("com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error");
        error.status = 500;
        error
    }

    /// An error with any code: the namespace is the one DynamoDB uses for that code.
    #[cold]
    pub fn custom(status: u16, code: &str, message: &str) -> Self {
        let namespace = match code {
            "AccessDeniedException"
            | "UnrecognizedClientException"
            | "IncompleteSignatureException"
            | "MissingAuthenticationTokenException"
            | "InvalidSignatureException"
            | "SerializationException"
            | "UnknownOperationException" => "com.amazon.coral.service#",
            "ValidationException" => "com.amazon.coral.validate#",
            "ThrottlingException" => "com.amazon.coral.availability#",
            _ => "com.amazonaws.dynamodb.v20120810#",
        };
        DynamoError {
            type_name: format!("{namespace}{code}").into(),
            message: message.to_owned(),
            status,
            extra: None,
            request_check: false,
        }
    }

    /// The short error code, the text after `#`, as the SDK reports it.
    pub fn code(&self) -> &str {
        match self.type_name.rfind('#') {
            Some(at) => &self.type_name[at + 1..],
            None => &self.type_name,
        }
    }

    /// Whether the error refuses the request's signature or credentials.
    fn is_about_the_signature(&self) -> bool {
        matches!(
            self.code(),
            "MissingAuthenticationTokenException"
                | "IncompleteSignatureException"
                | "InvalidSignatureException"
                | "UnrecognizedClientException"
        )
    }

    /// Adds a member to the error body.
    pub fn with(mut self, key: &str, value: Json) -> Self {
        self.extra.get_or_insert_with(Default::default).insert(key.to_owned(), value);
        self
    }

    /// The JSON body DynamoDB sends for this error.
    pub fn to_body(&self) -> Json {
        let mut body = Map::new();
        body.insert("__type".into(), Json::String(self.type_name.to_string()));
        // DynamoDB spells the member `Message` for the coral service errors, except those about the
        // request's signature, and `message` elsewhere.
        let coral_service = self.type_name.starts_with("com.amazon.coral.service#");
        let key = if coral_service && !self.is_about_the_signature() { "Message" } else { "message" };
        if !self.message.is_empty() {
            body.insert(key.into(), Json::String(self.message.clone()));
        }
        for (k, v) in self.extra.iter().flat_map(|extra| extra.iter()) {
            body.insert(k.clone(), v.clone());
        }
        Json::Object(body)
    }
}

impl std::fmt::Display for DynamoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.message)
    }
}

impl std::error::Error for DynamoError {}
