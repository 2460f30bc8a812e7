//! [`Setup`]: what a service makes before the run: its tables, indexes, streams, time to live
//! and seed data, through a client of the fake without faults.

use std::fmt;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType};

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

    /// Creates the on-demand table `name` keyed by the string attribute `partition_key` and, if
    /// given, the string attribute `sort_key`: the table most services start from. Anything
    /// else (number keys, indexes, streams, a time to live) goes through [`client`](Self::client).
    ///
    /// # Examples
    ///
    /// ```
    /// # use dynalease_sim::{Setup, SetupFuture};
    /// fn setup(setup: Setup) -> SetupFuture {
    ///     Box::pin(async move {
    ///         setup.create_table("Orders", "pk", Some("sk")).await?;
    ///         setup.create_table("Ids", "pk", None).await
    ///     })
    /// }
    /// # let _ = setup;
    /// ```
    pub async fn create_table(
        &self,
        name: &str,
        partition_key: &str,
        sort_key: Option<&str>,
    ) -> Result<(), SetupError> {
        let string = |attribute: &str| {
            AttributeDefinition::builder().attribute_name(attribute).attribute_type(ScalarAttributeType::S).build()
        };
        let key = |attribute: &str, kind| KeySchemaElement::builder().attribute_name(attribute).key_type(kind).build();
        let mut request = self
            .client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(string(partition_key)?)
            .key_schema(key(partition_key, KeyType::Hash)?);
        if let Some(sort_key) = sort_key {
            request = request.attribute_definitions(string(sort_key)?).key_schema(key(sort_key, KeyType::Range)?);
        }
        request.send().await?;
        Ok(())
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
