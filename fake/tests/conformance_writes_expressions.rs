//! Where a syntax error in a write's expression is reported: `near` the token before the bad one
//! and the bad one, or at the very first token, the bad one and the token after it.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use dynalease_fake::FakeDynamoDb;
use support::s;

async fn update_refusal(client: &Client, expression: &str) -> String {
    let error = client
        .update_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .update_expression(expression)
        .expression_attribute_values(":v", s("x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some("ValidationException"));
    error.message().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_syntax_error_at_the_first_token_is_near_it_and_the_next_token() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    assert_eq!(
        update_refusal(&client, "INVALID SYNTAX HERE = :v").await,
        "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"INVALID\", near: \"INVALID SYNTAX\""
    );
    assert_eq!(
        update_refusal(&client, "= :v").await,
        "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"=\", near: \"= :v\""
    );
}

#[tokio::test]
async fn a_syntax_error_after_the_first_token_is_near_it_and_the_token_before() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    assert_eq!(
        update_refusal(&client, "SET a = = :v").await,
        "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"=\", near: \"= =\""
    );
    assert_eq!(
        update_refusal(&client, "SET a = :v b").await,
        "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"b\", near: \":v b\""
    );
    let error = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .condition_expression("attribute_exists")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        Some(
            "1 validation error detected: Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"attribute_exists\""
        )
    );
}
