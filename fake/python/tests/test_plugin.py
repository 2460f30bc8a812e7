"""The plugin's options, in a pytest run of their own: the clock of the run's server comes
from the command line, else the configuration."""

import textwrap

import pytest

from conftest import run_python

def pytest_run(folder, *arguments):
    run = run_python("-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *arguments, str(folder), cwd=folder)
    out, _ = run.communicate()
    assert run.returncode == 0, out
    return out


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "test_suite.py").write_text(
        textwrap.dedent(
            """
            def test_reports_its_clock(dynalease_fake):
                print("frozen" if dynalease_fake.is_frozen() else "running")
            """
        )
    )
    return tmp_path


def test_the_servers_clock_is_real_by_default_and_manual_on_the_command_line(suite):
    assert "running" in pytest_run(suite)
    assert "frozen" in pytest_run(suite, "--dynalease-fake-clock=manual")


def test_the_configuration_makes_the_servers_clock_manual_and_the_command_line_wins(suite):
    (suite / "pytest.ini").write_text("[pytest]\ndynalease_fake_clock = manual\n")
    assert "frozen" in pytest_run(suite)
    assert "running" in pytest_run(suite, "--dynalease-fake-clock=real")
