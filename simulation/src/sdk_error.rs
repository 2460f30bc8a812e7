//! An SDK error in the words a violation or a note should carry.

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

/// What went wrong with a request, in a few words: DynamoDB's error code and message when it
/// answered, `no answer: timed out` or `no answer: the connection was reset` when the network
/// lost the answer (the request may have been applied), `a bad answer` otherwise.
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// let err = fake.client().get_item().table_name("Nope").key("pk", AttributeValue::S("a".into()))
///     .send().await.unwrap_err();
/// assert_eq!(
///     dynalease_sim::sdk_error_words(&err),
///     "ResourceNotFoundException: Requested resource not found"
/// );
/// # }
/// ```
pub fn sdk_error_words<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> String {
    match err {
        SdkError::ServiceError(e) => {
            format!("{}: {}", e.err().code().unwrap_or("error"), e.err().message().unwrap_or("(no message)"))
        }
        SdkError::TimeoutError(_) => String::from("no answer: timed out"),
        SdkError::DispatchFailure(d) if d.is_timeout() => String::from("no answer: timed out"),
        SdkError::DispatchFailure(_) => String::from("no answer: the connection was reset"),
        _ => String::from("a bad answer"),
    }
}
