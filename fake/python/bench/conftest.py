"""The ``dynamodb`` client of the small test module, served by the ``dynalease_fake`` fixture
(``--backend dynalease-fake``) or by moto's ``mock_aws`` (``--backend moto``); and
``--timings FILE``, where each test's setup, call and teardown durations are written."""

import json

import pytest


def pytest_addoption(parser):
    parser.addoption("--backend", choices=["dynalease-fake", "moto"], default="dynalease-fake")
    parser.addoption("--timings", default=None, help="write each phase's duration (seconds) to this JSON file")


@pytest.fixture
def dynamodb(request):
    credentials = {"region_name": "us-east-1", "aws_access_key_id": "fake", "aws_secret_access_key": "fake"}
    if request.config.getoption("backend") == "moto":
        import boto3
        from moto import mock_aws

        with mock_aws():
            yield boto3.client("dynamodb", **credentials)
    else:
        yield request.getfixturevalue("dynalease_fake").client(**credentials)


_phases = []


def pytest_runtest_logreport(report):
    _phases.append({"test": report.nodeid, "phase": report.when, "seconds": report.duration})


def pytest_unconfigure(config):
    path = config.getoption("timings")
    if path:
        with open(path, "w") as file:
            json.dump(_phases, file)
