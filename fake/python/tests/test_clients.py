"""boto3 reaching the server: the clients and the resource FakeServer builds, and code under test that builds
its own client from the environment."""

import boto3

from conftest import create_table


def test_the_resource_writes_and_reads_through_the_server(dynalease_fake, dynamodb):
    create_table(dynamodb, "Shop")
    table = dynalease_fake.resource().Table("Shop")
    table.put_item(Item={"pk": "sku#1", "stock": 3})
    assert table.get_item(Key={"pk": "sku#1"})["Item"] == {"pk": "sku#1", "stock": 3}


def test_client_arguments_go_to_boto3_and_win(dynalease_fake):
    client = dynalease_fake.client(region_name="eu-west-1")
    assert client.meta.region_name == "eu-west-1"
    assert client.meta.endpoint_url == dynalease_fake.endpoint_url
    assert dynalease_fake.streams_client().meta.service_model.service_name == "dynamodbstreams"


def test_code_that_builds_its_own_client_reaches_the_server_through_the_environment(
    dynalease_fake, monkeypatch, tmp_path
):
    for name, value in {
        "AWS_ENDPOINT_URL_DYNAMODB": dynalease_fake.endpoint_url,
        "AWS_ACCESS_KEY_ID": dynalease_fake.access_key_id,
        "AWS_SECRET_ACCESS_KEY": "fake",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)

    assert boto3.client("dynamodb").list_tables()["TableNames"] == []
    assert [request["Operation"] for request in dynalease_fake.requests()] == ["ListTables"]
