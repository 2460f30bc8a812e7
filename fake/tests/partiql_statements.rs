//! ExecuteStatement through the SDK: SELECT as GetItem, Query or Scan, INSERT, UPDATE and DELETE
//! with parameters and RETURNING, and DynamoDB's refusals.

mod support;

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};
use dynalease_fake::FakeDynamoDb;
use support::{n, s, sdk_error};

type Item = HashMap<String, AttributeValue>;

async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let client = fake.client();
    for (pk, sk, price) in [("a", "1", "10"), ("a", "2", "20"), ("a", "3", "30"), ("b", "1", "5")] {
        client
            .put_item()
            .table_name("Shop")
            .item("pk", s(pk))
            .item("sk", s(sk))
            .item("price", n(price))
            .item("tags", AttributeValue::Ss(vec!["x".into()]))
            .send()
            .await
            .unwrap();
    }
    (fake, client)
}

async fn run(client: &Client, statement: &str, params: Vec<AttributeValue>) -> Result<Vec<Item>, (String, String)> {
    let params = (!params.is_empty()).then_some(params);
    match client.execute_statement().statement(statement).set_parameters(params).send().await {
        Ok(out) => Ok(out.items.unwrap_or_default()),
        Err(error) => Err(sdk_error(error)),
    }
}

fn column(items: &[Item], name: &str) -> Vec<String> {
    items
        .iter()
        .map(|item| match item.get(name) {
            Some(AttributeValue::S(v) | AttributeValue::N(v)) => v.clone(),
            Some(other) => format!("{other:?}"),
            None => "-".into(),
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn select_reads_by_key_by_partition_or_by_scan_and_projects() {
    let (fake, client) = setup().await;
    let one = run(&client, r#"SELECT * FROM "Shop" WHERE pk = ? AND sk = ?"#, vec![s("a"), s("2")]).await.unwrap();
    assert_eq!(column(&one, "price"), ["20"]);
    let partition = run(&client, "select sk, price from Shop where pk = 'a' and sk > '1'", vec![]).await.unwrap();
    assert_eq!(column(&partition, "sk"), ["2", "3"]);
    assert!(partition.iter().all(|item| item.len() == 2), "only the projected attributes");
    let filtered =
        run(&client, "SELECT pk FROM Shop WHERE price BETWEEN 5 AND 15 AND contains(tags, 'x')", vec![]).await;
    let mut pks = column(&filtered.unwrap(), "pk");
    pks.sort();
    assert_eq!(pks, ["a", "b"]);
    let none = run(&client, "SELECT * FROM Shop WHERE pk = 'zz' AND sk = '1'", vec![]).await.unwrap();
    assert!(none.is_empty());
    let missing =
        run(&client, "SELECT * FROM Shop WHERE pk = 'a' AND nothing IS MISSING AND price <> 20", vec![]).await;
    assert_eq!(column(&missing.unwrap(), "sk"), ["1", "3"]);
    let operations: Vec<String> = fake.request_log().into_iter().map(|r| r.operation).collect();
    assert!(operations.iter().rev().take(5).all(|op| op == "ExecuteStatement"));
}

#[tokio::test(start_paused = true)]
async fn a_select_orders_by_the_sort_key_or_by_the_partition_key_first() {
    let (_fake, client) = setup().await;
    let rows = |items: &[Item]| column(items, "pk").into_iter().zip(column(items, "sk")).collect::<Vec<_>>();
    let down = run(&client, "SELECT * FROM Shop WHERE pk = 'a' ORDER BY sk DESC", vec![]).await.unwrap();
    assert_eq!(column(&down, "sk"), ["3", "2", "1"]);
    let up = run(&client, "SELECT sk FROM Shop WHERE pk = ? AND sk >= '2' ORDER BY sk ASC", vec![s("a")]).await;
    assert_eq!(column(&up.unwrap(), "sk"), ["2", "3"]);
    let both = run(&client, "SELECT * FROM Shop WHERE pk IN ['b', 'a'] ORDER BY pk DESC, sk DESC", vec![]).await;
    let expected = [("b", "1"), ("a", "3"), ("a", "2"), ("a", "1")].map(|(p, k)| (p.to_owned(), k.to_owned()));
    assert_eq!(rows(&both.unwrap()), expected);
    let or = run(&client, "SELECT * FROM Shop WHERE pk = 'a' OR pk = 'b' ORDER BY pk", vec![]).await.unwrap();
    assert_eq!(column(&or, "pk"), ["a", "a", "a", "b"]);

    let refused = |text: &str| ("ValidationException".to_owned(), text.to_owned());
    let no_where = run(&client, "SELECT * FROM Shop ORDER BY sk", vec![]).await;
    assert_eq!(no_where.unwrap_err(), refused("Must have WHERE clause in the statement when using ORDER BY clause."));
    let sort_first = run(&client, "SELECT * FROM Shop WHERE pk IN ['a', 'b'] ORDER BY sk", vec![]).await;
    assert_eq!(
        sort_first.unwrap_err(),
        refused(
            "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause."
        )
    );
    let not_a_key = run(&client, "SELECT * FROM Shop WHERE pk = 'a' ORDER BY price", vec![]).await;
    assert_eq!(not_a_key.unwrap_err().0, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn a_select_pages_with_limit_and_next_token() {
    let (_fake, client) = setup().await;
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = client
            .execute_statement()
            .statement("SELECT sk FROM Shop WHERE pk = 'a'")
            .limit(2)
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        seen.extend(column(page.items(), "sk"));
        match page.next_token() {
            Some(next) => token = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, ["1", "2", "3"]);
}

#[tokio::test(start_paused = true)]
async fn insert_refuses_a_key_that_exists() {
    let (_fake, client) = setup().await;
    let inserted = run(
        &client,
        "INSERT INTO Shop VALUE {'pk': 'c', 'sk': '1', 'attr': {'sth': ['other']}, 's': <<1, 2>>}",
        vec![],
    )
    .await;
    assert_eq!(inserted.unwrap(), Vec::<Item>::new());
    let item = run(&client, "SELECT * FROM Shop WHERE pk = 'c' AND sk = '1'", vec![]).await.unwrap().remove(0);
    assert_eq!(item["attr"], AttributeValue::M(HashMap::from([("sth".into(), AttributeValue::L(vec![s("other")]))])));
    assert_eq!(item["s"], AttributeValue::Ns(vec!["1".into(), "2".into()]));
    let again = run(&client, "INSERT INTO Shop VALUE {'pk': ?, 'sk': ?}", vec![s("c"), s("1")]).await.unwrap_err();
    assert_eq!(again, ("DuplicateItemException".to_owned(), "Duplicate primary key exists in table".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn update_sets_removes_and_returns_what_was_asked() {
    let (_fake, client) = setup().await;
    let returned = run(
        &client,
        "UPDATE Shop SET price = price + ?, note = 'sale' SET tags = set_add(tags, <<'y'>>) REMOVE gone WHERE pk = 'a' AND sk = '1' RETURNING ALL NEW *",
        vec![n("5")],
    )
    .await
    .unwrap();
    assert_eq!(column(&returned, "price"), ["15"]);
    assert_eq!(column(&returned, "note"), ["sale"]);
    assert_eq!(returned[0]["tags"], AttributeValue::Ss(vec!["x".into(), "y".into()]));
    let modified =
        run(&client, "UPDATE Shop SET price = 1 WHERE pk = 'a' AND sk = '1' RETURNING MODIFIED OLD *", vec![]).await;
    assert_eq!(modified.unwrap(), vec![HashMap::from([("price".to_owned(), n("15"))])]);
    let removed = run(&client, "UPDATE Shop REMOVE note WHERE pk = 'a' AND sk = '1'", vec![]).await.unwrap();
    assert!(removed.is_empty(), "no RETURNING, no items");
    // An UPDATE names one existing item by its whole key.
    let missing = run(&client, "UPDATE Shop SET price = 1 WHERE pk = 'zz' AND sk = '1'", vec![]).await.unwrap_err();
    assert_eq!(missing.0, "ConditionalCheckFailedException");
    let partial = run(&client, "UPDATE Shop SET price = 1 WHERE pk = 'a'", vec![]).await.unwrap_err();
    assert_eq!(
        partial,
        (
            "ValidationException".to_owned(),
            "Where clause does not contain a mandatory equality on all key attributes".to_owned()
        )
    );
    let guarded = client
        .execute_statement()
        .statement("UPDATE Shop SET price = 2 WHERE pk = 'a' AND sk = '2' AND price > 100")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let aws_sdk_dynamodb::operation::execute_statement::ExecuteStatementError::ConditionalCheckFailedException(guarded) =
        guarded
    else {
        panic!("the condition failed: {guarded:?}")
    };
    assert_eq!(guarded.item().map(|item| item["price"].clone()), Some(n("20")));
}

#[tokio::test(start_paused = true)]
async fn delete_removes_one_item_and_can_return_it() {
    let (_fake, client) = setup().await;
    let old = run(&client, "DELETE FROM Shop WHERE pk = ? AND sk = ? RETURNING ALL OLD *", vec![s("b"), s("1")]).await;
    assert_eq!(column(&old.unwrap(), "price"), ["5"]);
    assert!(run(&client, "SELECT * FROM Shop WHERE pk = 'b'", vec![]).await.unwrap().is_empty());
    let partial = run(&client, "DELETE FROM Shop WHERE pk = 'a'", vec![]).await.unwrap_err();
    assert_eq!(partial.0, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn statements_that_do_not_parse_or_bind_get_dynamodb_s_errors() {
    let (_fake, client) = setup().await;
    for (statement, params, message) in [
        ("SELEC * FROM Shop", vec![], "Statement wasn't well formed, can't be processed: Expected data manipulation"),
        ("SELECT * FROM Shop WHERE pk = ?", vec![], "Number of parameters in request and statement don't match."),
        (
            "SELECT * FROM Shop WHERE pk = ?",
            vec![s("a"), s("b")],
            "Number of parameters in request and statement don't match.",
        ),
    ] {
        let (code, got) = run(&client, statement, params).await.unwrap_err();
        assert_eq!((code.as_str(), got.as_str()), ("ValidationException", message), "{statement}");
    }
    let (code, message) = run(&client, "SELECT * FROM Shop WHERE", vec![]).await.unwrap_err();
    assert_eq!(code, "ValidationException");
    assert!(message.starts_with("Statement wasn't well formed, can't be processed: "), "{message}");
    let (code, _) = run(&client, "SELECT * FROM Nowhere", vec![]).await.unwrap_err();
    assert_eq!(code, "ResourceNotFoundException");
}

#[tokio::test(start_paused = true)]
async fn a_statement_s_writes_reach_the_table_s_stream_and_observers() {
    let (fake, client) = setup().await;
    let changes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = changes.clone();
    fake.observe_item_changes("Shop", move |change| seen.lock().unwrap().push(change.kind));
    run(&client, "INSERT INTO Shop VALUE {'pk': 'z', 'sk': '1'}", vec![]).await.unwrap();
    run(&client, "UPDATE Shop SET price = 1 WHERE pk = 'z' AND sk = '1'", vec![]).await.unwrap();
    run(&client, "UPDATE Shop SET price = 1 WHERE pk = 'z' AND sk = '1'", vec![]).await.unwrap();
    run(&client, "DELETE FROM Shop WHERE pk = 'z' AND sk = '1'", vec![]).await.unwrap();
    use dynalease_fake::ChangeKind::{Insert, Modify, Remove};
    assert_eq!(*changes.lock().unwrap(), [Insert, Modify, Remove], "setting what is there is no change");
}

#[tokio::test(start_paused = true)]
async fn a_select_reads_an_index_by_its_own_key() {
    let fake = FakeDynamoDb::new();
    support::suite_tables(&fake);
    let client = fake.client();
    for (a, b, c) in [("1", "x", "red"), ("2", "y", "red"), ("3", "z", "blue")] {
        client.put_item().table_name("range").item("a", s(a)).item("b", s(b)).item("c", s(c)).send().await.unwrap();
    }
    let red = run(&client, r#"SELECT a FROM "range"."index3" WHERE c = 'red'"#, vec![]).await.unwrap();
    let mut keys = column(&red, "a");
    keys.sort();
    assert_eq!(keys, ["1", "2"]);
    let log = fake.request_log();
    assert_eq!(log.last().map(|r| r.operation.as_str()), Some("ExecuteStatement"));
    let missing = run(&client, r#"SELECT * FROM "range"."nope" WHERE c = 'red'"#, vec![]).await.unwrap_err();
    assert_eq!(missing.0, "ValidationException");
    // A consistent read of a global index is refused, as a Query of it is.
    let consistent = client
        .execute_statement()
        .statement(r#"SELECT a FROM "range"."index3" WHERE c = 'red'"#)
        .consistent_read(true)
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(consistent).0, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn a_selected_nested_path_is_answered_under_its_last_name() {
    let (_fake, client) = setup().await;
    let nested = AttributeValue::M(
        [("nested".to_owned(), s("deep")), ("list".to_owned(), AttributeValue::L(vec![n("1"), n("2")]))].into(),
    );
    let put = client.put_item().table_name("Shop").item("pk", s("c")).item("sk", s("1")).item("mymap", nested);
    put.send().await.unwrap();
    let expected = |extra: &[(&str, AttributeValue)]| -> Item {
        let mut item: Item = [("nested".to_owned(), s("deep")), ("list[1]".to_owned(), n("2"))].into();
        item.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        item
    };
    // By the whole key (GetItem), by partition (Query), and by scan.
    for statement in [
        "SELECT mymap.nested, mymap.list[1], sk FROM Shop WHERE pk = 'c' AND sk = '1'",
        "SELECT mymap.nested, mymap.list[1], sk FROM Shop WHERE pk = 'c'",
        "SELECT mymap.nested, mymap.list[1], sk FROM Shop WHERE sk = '1' AND price IS MISSING",
    ] {
        assert_eq!(run(&client, statement, vec![]).await.unwrap(), [expected(&[("sk", s("1"))])], "{statement}");
    }
    // A path the item lacks answers nothing under its name.
    let absent = run(&client, "SELECT mymap.none, sk FROM Shop WHERE pk = 'c' AND sk = '1'", vec![]).await.unwrap();
    assert_eq!(absent, [Item::from([("sk".to_owned(), s("1"))])]);
    // In a batch and a transaction alike.
    let statement = aws_sdk_dynamodb::types::BatchStatementRequest::builder()
        .statement("SELECT mymap.nested FROM Shop WHERE pk = 'c' AND sk = '1'")
        .build()
        .unwrap();
    let batch = client.batch_execute_statement().statements(statement).send().await.unwrap();
    assert_eq!(batch.responses()[0].item(), Some(&Item::from([("nested".to_owned(), s("deep"))])));
    let statement = aws_sdk_dynamodb::types::ParameterizedStatement::builder()
        .statement("SELECT mymap.nested FROM Shop WHERE pk = 'c' AND sk = '1'")
        .build()
        .unwrap();
    let transaction = client.execute_transaction().transact_statements(statement).send().await.unwrap();
    assert_eq!(transaction.responses()[0].item(), Some(&Item::from([("nested".to_owned(), s("deep"))])));
}

#[tokio::test(start_paused = true)]
async fn a_select_of_an_index_the_table_lacks_is_refused_without_naming_it_and_one_of_no_table_finds_none() {
    let (_fake, client) = setup().await;
    let unknown_index = run(&client, r#"SELECT * FROM "Shop"."byPrice""#, vec![]).await.unwrap_err();
    assert_eq!(unknown_index, ("ValidationException".into(), "The table does not have the specified index".into()));
    let unknown_table = run(&client, r#"SELECT * FROM "Nowhere"."byPrice""#, vec![]).await.unwrap_err();
    assert_eq!(unknown_table, ("ResourceNotFoundException".into(), "Requested resource not found".into()));
}
