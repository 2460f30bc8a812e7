//! Properties of the expression engine: random text never panics the fake, and generated
//! conditions evaluate as a small reference evaluator says they should.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::FakeDynamoDb;
use proptest::prelude::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap()
}

/// The item every generated condition is checked against: numbers a..c, strings x..z.
const NUMS: [(&str, i64); 3] = [("a", 1), ("b", 5), ("c", -3)];
const STRS: [(&str, &str); 3] = [("x", "apple"), ("y", "banana"), ("z", "")];

#[derive(Debug, Clone)]
enum Cond {
    NumCmp(&'static str, &'static str, i64),
    StrCmp(&'static str, &'static str, &'static str),
    Between(&'static str, i64, i64),
    Exists(&'static str),
    NotExists(&'static str),
    BeginsWith(&'static str, &'static str),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

fn cond() -> impl Strategy<Value = Cond> {
    let ops = prop::sample::select(vec!["=", "<>", "<", "<=", ">", ">="]);
    let num_attr = prop::sample::select(vec!["a", "b", "c", "gone"]);
    let str_attr = prop::sample::select(vec!["x", "y", "z", "gone"]);
    let words = prop::sample::select(vec!["", "a", "apple", "b", "banana", "c"]);
    let leaf = prop_oneof![
        (num_attr.clone(), ops.clone(), -5i64..6).prop_map(|(a, o, v)| Cond::NumCmp(a, o, v)),
        (str_attr.clone(), ops, words.clone()).prop_map(|(a, o, v)| Cond::StrCmp(a, o, v)),
        (num_attr.clone(), -5i64..6, -5i64..6).prop_map(|(a, lo, hi)| Cond::Between(a, lo.min(hi), lo.max(hi))),
        num_attr.clone().prop_map(Cond::Exists),
        str_attr.clone().prop_map(Cond::NotExists),
        (str_attr, words).prop_map(|(a, p)| Cond::BeginsWith(a, p)),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Cond::And(Box::new(l), Box::new(r))),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Cond::Or(Box::new(l), Box::new(r))),
            inner.prop_map(|c| Cond::Not(Box::new(c))),
        ]
    })
}

/// Renders the condition, collecting its values as placeholders.
fn render(c: &Cond, values: &mut Vec<AttributeValue>) -> String {
    let mut value = |v: AttributeValue| {
        values.push(v);
        format!(":v{}", values.len() - 1)
    };
    match c {
        Cond::NumCmp(a, o, v) => format!("{a} {o} {}", value(AttributeValue::N(v.to_string()))),
        Cond::StrCmp(a, o, v) => format!("{a} {o} {}", value(AttributeValue::S((*v).to_owned()))),
        Cond::Between(a, lo, hi) => {
            let lo = value(AttributeValue::N(lo.to_string()));
            let hi = value(AttributeValue::N(hi.to_string()));
            format!("{a} BETWEEN {lo} AND {hi}")
        }
        Cond::Exists(a) => format!("attribute_exists({a})"),
        Cond::NotExists(a) => format!("attribute_not_exists({a})"),
        Cond::BeginsWith(a, p) => format!("begins_with({a}, {})", value(AttributeValue::S((*p).to_owned()))),
        Cond::And(l, r) => format!("({}) AND ({})", render(l, values), render(r, values)),
        Cond::Or(l, r) => format!("({}) OR ({})", render(l, values), render(r, values)),
        Cond::Not(inner) => format!("NOT ({})", render(inner, values)),
    }
}

fn compare<T: Ord>(l: T, o: &str, r: T) -> bool {
    match o {
        "=" => l == r,
        "<>" => l != r,
        "<" => l < r,
        "<=" => l <= r,
        ">" => l > r,
        _ => l >= r,
    }
}

/// The reference: what DynamoDB's documentation says each condition means.
fn reference(c: &Cond) -> bool {
    let num = |a: &str| NUMS.iter().find(|(n, _)| *n == a).map(|(_, v)| *v);
    let text = |a: &str| STRS.iter().find(|(n, _)| *n == a).map(|(_, v)| *v);
    match c {
        Cond::NumCmp(a, o, v) => match num(a) {
            Some(x) => compare(x, o, *v),
            None => *o == "<>",
        },
        Cond::StrCmp(a, o, v) => match text(a) {
            Some(x) => compare(x.as_bytes(), o, v.as_bytes()),
            None => *o == "<>",
        },
        Cond::Between(a, lo, hi) => num(a).is_some_and(|x| *lo <= x && x <= *hi),
        Cond::Exists(a) => num(a).is_some() || text(a).is_some(),
        Cond::NotExists(a) => num(a).is_none() && text(a).is_none(),
        Cond::BeginsWith(a, p) => text(a).is_some_and(|x| x.starts_with(p)),
        Cond::And(l, r) => reference(l) && reference(r),
        Cond::Or(l, r) => reference(l) || reference(r),
        Cond::Not(inner) => !reference(inner),
    }
}

async fn setup() -> Client {
    let fake = FakeDynamoDb::new();
    fake.create_table("Props", "pk", None);
    let client = fake.client();
    let mut put = client.put_item().table_name("Props").item("pk", AttributeValue::S("k".into()));
    for (name, v) in NUMS {
        put = put.item(name, AttributeValue::N(v.to_string()));
    }
    for (name, v) in STRS {
        put = put.item(name, AttributeValue::S(v.to_owned()));
    }
    put.send().await.unwrap();
    client
}

async fn evaluate(client: &Client, text: &str, values: &[AttributeValue]) -> Result<bool, String> {
    let mut req =
        client.update_item().table_name("Props").key("pk", AttributeValue::S("k".into())).condition_expression(text);
    for (i, v) in values.iter().enumerate() {
        req = req.expression_attribute_values(format!(":v{i}"), v.clone());
    }
    match req.send().await {
        Ok(_) => Ok(true),
        Err(e) => {
            let e = e.into_service_error();
            if e.is_conditional_check_failed_exception() { Ok(false) } else { Err(format!("{e:?}")) }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_conditions_match_the_reference(c in cond()) {
        let rt = runtime();
        let outcome = rt.block_on(async {
            let client = setup().await;
            let mut values = Vec::new();
            let text = render(&c, &mut values);
            (text.clone(), evaluate(&client, &text, &values).await)
        });
        let (text, result) = outcome;
        prop_assert_eq!(result, Ok(reference(&c)), "condition: {}", text);
    }

    #[test]
    fn random_expression_text_never_panics(text in "[ -~]{0,80}", kind in 0usize..3) {
        let rt = runtime();
        rt.block_on(async {
            let client = setup().await;
            let base = client.update_item().table_name("Props").key("pk", AttributeValue::S("k".into()));
            let req = match kind {
                0 => base.condition_expression(text.clone()),
                1 => base.update_expression(text.clone()),
                _ => {
                    let get = client.get_item().table_name("Props").key("pk", AttributeValue::S("k".into())).projection_expression(text.clone());
                    let out = get.send().await;
                    if let Err(e) = out {
                        let e = e.into_service_error();
                        assert_eq!(e.meta().code(), Some("ValidationException"), "{e:?}");
                    }
                    return;
                }
            };
            if let Err(e) = req.send().await {
                let e = e.into_service_error();
                let code = e.meta().code().unwrap_or_default().to_owned();
                assert!(code == "ValidationException" || code == "ConditionalCheckFailedException", "{text:?}: {e:?}");
            }
        });
    }

    #[test]
    fn expression_like_token_soup_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "a", "#n", ":v", "(", ")", "[", "]", "0", "7", ".", ",", "=", "<>", "<", ">=", "+", "-", "AND", "OR", "NOT",
        "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE", "size", "contains", "if_not_exists", "list_append",
        "attribute_exists", "begins_with",
    ]), 0..40)) {
        let text = parts.join(" ");
        let rt = runtime();
        rt.block_on(async {
            let client = setup().await;
            for update in [true, false] {
                let mut req = client
                    .update_item()
                    .table_name("Props")
                    .key("pk", AttributeValue::S("k".into()))
                    .expression_attribute_names("#n", "a")
                    .expression_attribute_values(":v", AttributeValue::N("1".into()));
                req = if update { req.update_expression(text.clone()) } else { req.condition_expression(text.clone()) };
                if let Err(e) = req.send().await {
                    let e = e.into_service_error();
                    let code = e.meta().code().unwrap_or_default().to_owned();
                    assert!(code == "ValidationException" || code == "ConditionalCheckFailedException", "{text:?}: {e:?}");
                }
            }
        });
    }
}
