"""The installed wheel: the package, its type marker, the executable it carries, the pytest
plugin's registration, and boto3 as an optional dependency."""

import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

import dynalease_fake
from dynalease_fake import FakeServer

PACKAGE = Path(dynalease_fake.__file__).parent


def test_the_package_is_typed_and_imported_from_the_installation():
    assert (PACKAGE / "py.typed").is_file()
    assert "src" not in PACKAGE.parent.parts[-1:], "the installed package, not the source folder"
    assert metadata.distribution("dynalease-fake").read_text("RECORD") is not None


def test_the_wheel_carries_the_binary_of_its_own_version(monkeypatch):
    monkeypatch.delenv("DYNALEASE_FAKE_BIN", raising=False)
    binary = Path(dynalease_fake.binary_path())
    assert binary.parent == Path(sysconfig.get_path("scripts"))
    shown = subprocess.run([str(binary), "--version"], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert shown.strip() == f"dynalease-fake {metadata.version('dynalease-fake')}"


def test_the_pytest_plugin_is_registered_by_its_entry_point():
    points = metadata.entry_points()
    group = points.select(group="pytest11") if hasattr(points, "select") else points.get("pytest11", [])
    assert [(point.name, point.value) for point in group if point.name == "dynalease_fake"] == [
        ("dynalease_fake", "dynalease_fake.plugin")
    ]


def test_the_distribution_needs_nothing_but_offers_boto3():
    requirements = metadata.requires("dynalease-fake") or []
    assert all("extra ==" in requirement for requirement in requirements), requirements
    assert any(requirement.startswith("boto3") for requirement in requirements)


def test_client_says_what_to_install_when_boto3_is_missing(dynalease_fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "boto3", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install boto3 \(or dynalease-fake\[boto3\]\)"):
        dynalease_fake.client()
    assert dynalease_fake.now() is not None, "the control API needs the standard library only"


def test_serve_options_are_keyword_arguments(tmp_path):
    fake = FakeServer(data=tmp_path / "t.json", clock="manual", seed=3, request_log=5, stop_on_stdin_close=False)
    assert fake.command()[1:] == [
        "serve", "--host", "127.0.0.1", "--port", "0", "--stop-on-stdin-close",
        "--data", str(tmp_path / "t.json"), "--clock", "manual", "--seed", "3", "--request-log", "5",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="clock must be 'real' or 'manual'"):
        FakeServer(clock="frozen")
