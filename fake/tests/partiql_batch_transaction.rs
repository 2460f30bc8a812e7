//! BatchExecuteStatement (an answer or an error per statement) and ExecuteTransaction (all or
//! nothing, as TransactWriteItems and TransactGetItems are) through the SDK.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{BatchStatementErrorCodeEnum, BatchStatementRequest, ParameterizedStatement};
use dynalease_fake::FakeDynamoDb;
use support::{s, sdk_error};

async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Users", "username", None);
    let client = fake.client();
    for (name, first) in [("XXXX", "test1"), ("YYYY", "test3")] {
        client
            .put_item()
            .table_name("Users")
            .item("username", s(name))
            .item("first_name", s(first))
            .send()
            .await
            .unwrap();
    }
    (fake, client)
}

fn batch(statement: &str, params: &[&str]) -> BatchStatementRequest {
    let params = (!params.is_empty()).then(|| params.iter().map(|p| s(p)).collect());
    BatchStatementRequest::builder().statement(statement).set_parameters(params).build().unwrap()
}

fn transact(statement: &str, params: &[&str]) -> ParameterizedStatement {
    let params = (!params.is_empty()).then(|| params.iter().map(|p| s(p)).collect());
    ParameterizedStatement::builder().statement(statement).set_parameters(params).build().unwrap()
}

async fn names(client: &Client) -> Vec<String> {
    let scan = client.scan().table_name("Users").send().await.unwrap();
    let mut names: Vec<String> = scan.items().iter().map(|i| i["username"].as_s().unwrap().clone()).collect();
    names.sort();
    names
}

#[tokio::test(start_paused = true)]
async fn a_batch_answers_each_statement_with_its_table_item_or_error() {
    let (_fake, client) = setup().await;
    let writes = client
        .batch_execute_statement()
        .statements(batch(r#"UPDATE Users SET "first_name" = ? WHERE "username" = ?"#, &["test5", "XXXX"]))
        .statements(batch("DELETE FROM Users WHERE username = 'YYYY'", &[]))
        .statements(batch("INSERT INTO Users VALUE {'username': 'new'}", &[]))
        .statements(batch("INSERT INTO Users VALUE {'username': 'XXXX'}", &[]))
        .statements(batch(r#"UPDATE Users SET "first_name" = ? WHERE "username" = ?"#, &["only one"]))
        .send()
        .await
        .unwrap();
    let answers: Vec<_> = writes
        .responses()
        .iter()
        .map(|r| (r.table_name().map(str::to_owned), r.error().and_then(|e| e.code().cloned())))
        .collect();
    let users = Some("Users".to_owned());
    assert_eq!(
        answers,
        [
            (users.clone(), None),
            (users.clone(), None),
            (users.clone(), None),
            (users.clone(), Some(BatchStatementErrorCodeEnum::DuplicateItem)),
            (None, Some(BatchStatementErrorCodeEnum::ValidationError)),
        ]
    );
    assert_eq!(
        writes.responses()[4].error().and_then(|e| e.message()),
        Some("Number of parameters in request and statement don't match.")
    );
    assert_eq!(names(&client).await, ["XXXX", "new"]);

    let reads = client
        .batch_execute_statement()
        .statements(batch("SELECT first_name FROM Users WHERE username = ?", &["XXXX"]))
        .statements(batch("SELECT * FROM Users WHERE username = ?", &["nobody"]))
        .statements(batch("SELECT * FROM Users WHERE first_name = ?", &["test5"]))
        .statements(batch("SELECT * FROM Nowhere WHERE username = 'a'", &[]))
        .send()
        .await
        .unwrap();
    let responses = reads.responses();
    assert_eq!(responses[0].item().map(|i| i["first_name"].clone()), Some(s("test5")));
    assert!(responses[1].item().is_none() && responses[1].error().is_none());
    let error = responses[2].error().unwrap();
    assert_eq!(error.code(), Some(&BatchStatementErrorCodeEnum::ValidationError));
    assert_eq!(
        error.message(),
        Some("Select statements within BatchExecuteStatement must specify the primary key in the where clause.")
    );
    assert_eq!(responses[3].error().and_then(|e| e.code()), Some(&BatchStatementErrorCodeEnum::ResourceNotFound));

    let mixed = client
        .batch_execute_statement()
        .statements(batch("SELECT * FROM Users WHERE username = 'XXXX'", &[]))
        .statements(batch("DELETE FROM Users WHERE username = 'XXXX'", &[]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(mixed).0, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn a_transaction_applies_every_statement_or_none_and_names_a_duplicate() {
    let (_fake, client) = setup().await;
    client
        .execute_transaction()
        .transact_statements(transact("UPDATE Users SET first_name = 'z' WHERE username = ?", &["XXXX"]))
        .transact_statements(transact("INSERT INTO Users VALUE {'username': ?}", &["ZZZZ"]))
        .send()
        .await
        .unwrap();
    assert_eq!(names(&client).await, ["XXXX", "YYYY", "ZZZZ"]);

    let cancelled = client
        .execute_transaction()
        .transact_statements(transact("DELETE FROM Users WHERE username = 'YYYY'", &[]))
        .transact_statements(transact("INSERT INTO Users VALUE {'username': 'XXXX'}", &[]))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(
        cancelled,
    ) = cancelled
    else {
        panic!("a cancelled transaction: {cancelled:?}")
    };
    let codes: Vec<_> = cancelled.cancellation_reasons().iter().map(|r| r.code().unwrap_or_default()).collect();
    assert_eq!(codes, ["None", "DuplicateItem"]);
    assert_eq!(
        cancelled.message(),
        Some("Transaction cancelled, please refer cancellation reasons for specific reasons [None, DuplicateItem]")
    );
    assert_eq!(names(&client).await, ["XXXX", "YYYY", "ZZZZ"], "nothing was applied");

    let read = client
        .execute_transaction()
        .transact_statements(transact("SELECT first_name FROM Users WHERE username = ?", &["XXXX"]))
        .transact_statements(transact("SELECT * FROM Users WHERE username = ?", &["nobody"]))
        .send()
        .await
        .unwrap();
    let items: Vec<_> = read.responses().iter().map(|r| r.item().map(|i| i["first_name"].clone())).collect();
    assert_eq!(items, [Some(s("z")), None]);
    let scan = client
        .execute_transaction()
        .transact_statements(transact("SELECT * FROM Users", &[]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(scan).0, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn a_transaction_token_makes_a_retry_answer_as_the_first_did() {
    let (_fake, client) = setup().await;
    let send = || {
        client
            .execute_transaction()
            .client_request_token("token-1")
            .transact_statements(transact("UPDATE Users SET n = 1 WHERE username = 'XXXX'", &[]))
            .transact_statements(transact("DELETE FROM Users WHERE username = 'YYYY'", &[]))
            .send()
    };
    send().await.unwrap();
    client.put_item().table_name("Users").item("username", s("YYYY")).send().await.unwrap();
    send().await.unwrap();
    assert_eq!(names(&client).await, ["XXXX", "YYYY"], "the retry with the same token applied nothing");
    let changed = client
        .execute_transaction()
        .client_request_token("token-1")
        .transact_statements(transact("DELETE FROM Users WHERE username = 'XXXX'", &[]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(changed).0, "IdempotentParameterMismatchException");
}

#[tokio::test(start_paused = true)]
async fn exists_in_a_transaction_is_a_condition_check_on_the_item_it_names() {
    let (_fake, client) = setup().await;
    let attempt = |exists: &'static str| {
        client
            .execute_transaction()
            .transact_statements(transact(exists, &[]))
            .transact_statements(transact("INSERT INTO Users VALUE {'username': 'ZZZZ'}", &[]))
            .send()
    };
    let codes = |error: aws_sdk_dynamodb::error::SdkError<_, _>| -> Vec<String> {
        match aws_sdk_dynamodb::Error::from(error) {
            aws_sdk_dynamodb::Error::TransactionCanceledException(cancelled) => {
                cancelled.cancellation_reasons().iter().map(|r| r.code().unwrap_or_default().to_owned()).collect()
            }
            other => panic!("a cancelled transaction: {other:?}"),
        }
    };

    let missing = attempt("EXISTS(SELECT * FROM Users WHERE username = 'nobody')").await.unwrap_err();
    assert_eq!(codes(missing), ["ConditionalCheckFailed", "None"]);
    let unmet =
        attempt("EXISTS(SELECT * FROM Users WHERE username = 'XXXX' AND first_name = 'other')").await.unwrap_err();
    assert_eq!(codes(unmet), ["ConditionalCheckFailed", "None"]);
    assert_eq!(names(&client).await, ["XXXX", "YYYY"], "a failed check applies nothing");

    attempt("exists (select * from Users where username = 'XXXX' and first_name = 'test1')").await.unwrap();
    assert_eq!(names(&client).await, ["XXXX", "YYYY", "ZZZZ"]);

    let alone =
        client.execute_statement().statement("EXISTS(SELECT * FROM Users WHERE username = 'XXXX')").send().await;
    assert_eq!(sdk_error(alone.unwrap_err()).0, "ValidationException");
    let no_key = client
        .execute_transaction()
        .transact_statements(transact("EXISTS(SELECT * FROM Users WHERE first_name = 'test1')", &[]))
        .send()
        .await;
    assert_eq!(sdk_error(no_key.unwrap_err()).0, "ValidationException");
}
