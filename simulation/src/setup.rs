//! [`Setup`]: what a service makes before the run: its tables, indexes, streams, time to live
//! and seed data, through a client of the fake without faults.

use std::fmt;

use aws_sdk_dynamodb::Client;

/// The DynamoDB a service sets up before its processes start: a client of the fake with no
/// network and no faults, on the run's clock.
#[derive(Clone, Debug)]
pub struct Setup {
    pub(crate) client: Client,
}

impl Setup {
    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// Why a service's setup failed: a table definition DynamoDB refused, seed data it could not
/// write. The run does not start; the report names the service and the seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError(pub String);

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

impl From<aws_sdk_dynamodb::error::BuildError> for SetupError {
    /// A request the setup could not build: a table definition without a required field.
    fn from(err: aws_sdk_dynamodb::error::BuildError) -> Self {
        SetupError(err.to_string())
    }
}

impl<E, R> From<aws_sdk_dynamodb::error::SdkError<E, R>> for SetupError
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + 'static,
    R: fmt::Debug,
{
    fn from(err: aws_sdk_dynamodb::error::SdkError<E, R>) -> Self {
        match err.as_service_error() {
            Some(service) => SetupError(format!(
                "{}: {}",
                service.code().unwrap_or("error"),
                service.message().unwrap_or("(no message)")
            )),
            None => SetupError(format!("{err:?}")),
        }
    }
}
