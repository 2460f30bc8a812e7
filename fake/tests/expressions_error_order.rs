//! Which mistake of a condition DynamoDB reports when it has several: the semantic checks of a
//! condition are reported for the first subexpression that fails, in reading order; functions
//! nested where they cannot stand and parentheses around a path that goes on are refused before
//! the table is looked up.

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::FakeDynamoDb;

/// The error a Scan of a table that does not exist answers for `filter`: expression mistakes are
/// found before the table is looked up.
async fn refusal(filter: &str, names: &[(&str, &str)], values: &[(&str, AttributeValue)]) -> (String, String) {
    let fake = FakeDynamoDb::new();
    let mut scan = fake.client().scan().table_name("abc").filter_expression(filter);
    for (placeholder, name) in names {
        scan = scan.expression_attribute_names(*placeholder, *name);
    }
    for (placeholder, value) in values {
        scan = scan.expression_attribute_values(*placeholder, value.clone());
    }
    let error = scan.send().await.expect_err("refused").into_service_error();
    (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned())
}

fn invalid(message: &str) -> (String, String) {
    ("ValidationException".to_owned(), format!("Invalid FilterExpression: {message}"))
}

#[tokio::test(start_paused = true)]
async fn a_condition_function_inside_size_is_refused() {
    assert_eq!(
        refusal("size(contains(a, b)) > a", &[], &[]).await,
        invalid("The function is not allowed to be used this way in an expression; function: contains")
    );
}

#[tokio::test(start_paused = true)]
async fn a_parenthesised_path_that_goes_on_is_one_path_in_redundant_parentheses() {
    assert_eq!(
        refusal("(a)between(((b.c)).d)and(c)", &[], &[]).await,
        invalid("The expression has redundant parentheses;")
    );
}

#[tokio::test(start_paused = true)]
async fn the_first_subexpression_that_fails_names_the_mistake() {
    let one = [(":a", AttributeValue::N("1".into()))];
    assert_eq!(
        refusal("attribute_type(a, size(a)) and a=a and a=:a", &[], &one).await,
        invalid(
            "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"
        ),
        "the function's operand before the later operands that are not distinct"
    );
    assert_eq!(
        refusal("attribute_exists(:a) and a=a", &[], &one).await,
        invalid("Operator or function requires a document path; operator or function: attribute_exists")
    );
    assert_eq!(
        refusal("a = a AND #a = b AND :views > a", &[("#a", "x")], &[]).await,
        invalid(
            "The first operand must be distinct from the remaining operands for this operator or function; \
             operator: =, first operand: [a]"
        ),
        "operands that are not distinct before a value defined nowhere"
    );
}

#[tokio::test(start_paused = true)]
async fn an_operand_repeated_in_the_list_of_in_is_refused() {
    let one = [(":a", AttributeValue::N("1".into()))];
    assert_eq!(
        refusal("a IN (b, :a, a)", &[], &one).await,
        invalid(
            "The first operand must be distinct from the remaining operands for this operator or function; \
             operator: IN, first operand: [a]"
        )
    );
    assert_eq!(
        refusal("a.b[1] IN (:a, #n)", &[("#n", "a.b[1]")], &one).await.0,
        "ResourceNotFoundException",
        "a name that holds the text of the path is another attribute"
    );
}
