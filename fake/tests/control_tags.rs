//! Tags through the SDK: what a key and a value may hold, keys named twice, the `aws:` prefix,
//! and the limit of 50 tags a table, on TagResource, UntagResource and CreateTable.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, Tag};
use dynalease_fake::FakeDynamoDb;

async fn setup() -> (FakeDynamoDb, Client, String) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let arn = client.describe_table().table_name("Shop").send().await.unwrap().table.unwrap().table_arn.unwrap();
    (fake, client, arn)
}

fn tag(key: &str, value: &str) -> Tag {
    Tag::builder().key(key).value(value).build().unwrap()
}

/// The tags numbered `range`, each key and value its number.
fn numbered(range: std::ops::Range<usize>) -> Vec<Tag> {
    range.map(|i| tag(&i.to_string(), &i.to_string())).collect()
}

/// The code and message of TagResource with `tags`, or "ok".
async fn tag_resource(client: &Client, arn: &str, tags: Vec<Tag>) -> (String, String) {
    match client.tag_resource().resource_arn(arn).set_tags(Some(tags)).send().await {
        Ok(_) => ("ok".into(), String::new()),
        Err(error) => (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned()),
    }
}

async fn tag_keys(client: &Client, arn: &str) -> Vec<String> {
    let tags = client.list_tags_of_resource().resource_arn(arn).send().await.unwrap().tags.unwrap_or_default();
    tags.into_iter().map(|t| t.key).collect()
}

fn refused(message: &str) -> (String, String) {
    ("ValidationException".into(), message.into())
}

#[tokio::test]
async fn keys_and_values_hold_letters_digits_spaces_and_a_few_marks() {
    let (_fake, client, arn) = setup().await;
    let fine = vec![tag("Team name", "Ünïcode ёлка 42"), tag("a_b.c:d/e=f+g-h@i", " "), tag("7", "")];
    assert_eq!(tag_resource(&client, &arn, fine).await.0, "ok");
    assert_eq!(
        tag_resource(&client, &arn, vec![tag("->>;-)])", "ok")]).await,
        refused("The Tag Key provided is invalid, Key: ->>;-)])")
    );
    assert_eq!(
        tag_resource(&client, &arn, vec![tag("ok", "#!%^$&")]).await,
        refused("The Tag Value provided is invalid, Value: #!%^$&")
    );
    assert_eq!(
        tag_resource(&client, &arn, vec![tag("aws:owner", "me")]).await,
        refused("Tag Key cannot be prefixed with aws:, Key: aws:owner")
    );
    assert_eq!(
        tag_resource(&client, &arn, vec![tag("x", "1"), tag("y", "2"), tag("x", "3")]).await,
        refused("Duplicate Tag Keys provided as input: Duplicate Tag Key found x")
    );
    // A refused request changes nothing.
    assert_eq!(tag_keys(&client, &arn).await, ["7", "Team name", "a_b.c:d/e=f+g-h@i"]);
}

#[tokio::test]
async fn a_table_holds_at_most_fifty_tags() {
    let (_fake, client, arn) = setup().await;
    assert_eq!(tag_resource(&client, &arn, numbered(0..30)).await.0, "ok");
    // Ten of these keys are there already: the table then has 40.
    assert_eq!(tag_resource(&client, &arn, numbered(20..40)).await.0, "ok");
    assert_eq!(tag_resource(&client, &arn, numbered(40..50)).await.0, "ok");
    assert_eq!(
        tag_resource(&client, &arn, numbered(50..51)).await,
        refused("Number of Tags exceed the current limit for the provided ResourceArn")
    );
    assert_eq!(tag_keys(&client, &arn).await.len(), 50);
    // Replacing the value of a tag the table has adds none.
    assert_eq!(tag_resource(&client, &arn, vec![tag("0", "zero")]).await.0, "ok");
}

#[tokio::test]
async fn create_table_refuses_too_many_tags_and_creates_nothing() {
    let (_fake, client, _) = setup().await;
    let create = |tags: Vec<Tag>| {
        client
            .create_table()
            .table_name("Tagged")
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(KeySchemaElement::builder().attribute_name("p").key_type(KeyType::Hash).build().unwrap())
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("p")
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .set_tags(Some(tags))
            .send()
    };
    let error = create(numbered(0..51)).await.unwrap_err();
    assert_eq!(error.code(), Some("ValidationException"));
    assert_eq!(error.message(), Some("Number of Tags exceed the current limit for the provided ResourceArn"));
    let error = create(vec![tag("aws:x", "y")]).await.unwrap_err();
    assert_eq!(error.message(), Some("Tag Key cannot be prefixed with aws:, Key: aws:x"));
    let missing = client.describe_table().table_name("Tagged").send().await.unwrap_err();
    assert_eq!(missing.code(), Some("ResourceNotFoundException"));
    create(numbered(0..50)).await.unwrap();
}

#[tokio::test]
async fn untag_resource_checks_the_keys_it_is_given() {
    let (_fake, client, arn) = setup().await;
    assert_eq!(tag_resource(&client, &arn, vec![tag("k", "v")]).await.0, "ok");
    let error = client.untag_resource().resource_arn(&arn).tag_keys("k;").send().await.unwrap_err();
    assert_eq!(error.message(), Some("The Tag Key provided is invalid, Key: k;"));
    client.untag_resource().resource_arn(&arn).tag_keys("k").tag_keys("absent").send().await.unwrap();
    assert!(tag_keys(&client, &arn).await.is_empty());
}
