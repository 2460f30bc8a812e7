"""The server process lives exactly as long as its FakeServer: started on a free loopback port,
stopped at the end of the block whatever ends it, and never left behind, even when the Python
process that started it is killed."""

import os
import signal
import subprocess
import textwrap

import pytest

from conftest import is_alive, run_python, wait_until_gone
from dynalease_fake import FakeServer, ServerStartError


def test_two_servers_listen_on_free_loopback_ports_of_their_own():
    with FakeServer() as one, FakeServer() as two:
        assert one.endpoint_url.startswith("http://127.0.0.1:")
        assert one.endpoint_url != two.endpoint_url
        assert one.client().list_tables()["TableNames"] == []
        pids = (one.pid, two.pid)
    assert not any(is_alive(pid) for pid in pids)


def test_a_block_that_fails_stops_the_server():
    with pytest.raises(ZeroDivisionError):
        with FakeServer() as fake:
            pid = fake.pid
            1 / 0
    assert not is_alive(pid)
    assert not fake.is_running()


def test_an_interrupted_block_stops_the_server():
    with pytest.raises(KeyboardInterrupt):
        with FakeServer() as fake:
            pid = fake.pid
            raise KeyboardInterrupt
    assert not is_alive(pid)


def test_a_server_stopped_writes_its_data_file_and_the_next_one_reads_it(tmp_path):
    data = tmp_path / "tables.json"
    with FakeServer(data=data) as fake:
        fake.client().create_table(
            TableName="Kept",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
    assert data.exists()
    with FakeServer(data=data) as fake:
        assert fake.client().list_tables()["TableNames"] == ["Kept"]


def test_a_killed_python_process_leaves_no_server_behind():
    program = textwrap.dedent(
        """
        import sys
        from dynalease_fake import FakeServer
        fake = FakeServer().start()
        print(fake.pid, flush=True)
        sys.stdin.read()  # until the test kills this process
        """
    )
    python = run_python("-c", program, stdin=subprocess.PIPE)
    server = int(python.stdout.readline())
    assert is_alive(server)
    python.send_signal(signal.SIGKILL)
    python.wait()
    python.stdout.close()
    python.stdin.close()
    wait_until_gone(server)


def test_a_crashed_test_leaves_no_server_behind(tmp_path):
    pid_file = tmp_path / "server.pid"
    (tmp_path / "test_crash.py").write_text(
        textwrap.dedent(
            f"""
            import os, signal
            def test_crashes(dynalease_fake):
                with open({str(pid_file)!r}, "w") as file:
                    file.write(str(dynalease_fake.pid))
                os.kill(os.getpid(), signal.SIGKILL)
            """
        )
    )
    run = run_python("-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path), cwd=tmp_path)
    run.communicate()
    assert run.returncode == -signal.SIGKILL
    wait_until_gone(int(pid_file.read_text()))


# The conftest.py of a test run of its own: at the very end of the run, it says whether each server
# a test saw still runs.
WATCHING_CONFTEST = """
import os

servers = []

def pytest_unconfigure(config):
    for pid in servers:
        try:
            os.kill(pid, 0)
            print("server", pid, "still runs at the end", flush=True)
        except ProcessLookupError:
            print("server", pid, "stopped before the end", flush=True)
"""


def run_ending_with(tmp_path, ending):
    """A pytest run of one test that ends with ``ending``: its exit code and what the watching
    conftest.py saw of the run's server."""
    (tmp_path / "conftest.py").write_text(WATCHING_CONFTEST)
    (tmp_path / "test_ending.py").write_text(
        textwrap.dedent(
            f"""
            import os, signal
            from conftest import servers
            def test_ending(dynalease_fake):
                servers.append(dynalease_fake.pid)
                {ending}
            """
        )
    )
    run = run_python("-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", str(tmp_path), cwd=tmp_path)
    out, _ = run.communicate()
    return run.returncode, [line for line in out.splitlines() if line.startswith("server ")]


def test_a_failed_test_run_stops_its_server_before_pytest_ends(tmp_path):
    code, seen = run_ending_with(tmp_path, 'assert False, "this test fails"')
    assert code == 1
    assert len(seen) == 1 and seen[0].endswith("stopped before the end"), seen


def test_an_interrupted_test_run_stops_its_server_before_pytest_ends(tmp_path):
    # Ctrl-C in a terminal. A run started in the background inherits SIGINT ignored, and Python
    # then leaves it so: the test puts back the handler Python installs in a terminal.
    ctrl_c = "signal.signal(signal.SIGINT, signal.default_int_handler); os.kill(os.getpid(), signal.SIGINT)"
    code, seen = run_ending_with(tmp_path, ctrl_c)
    assert code == 2  # pytest's exit code for an interrupted run
    assert len(seen) == 1 and seen[0].endswith("stopped before the end"), seen


def test_a_server_that_cannot_start_raises_with_what_it_printed(tmp_path):
    with pytest.raises(ServerStartError) as no_folder:
        FakeServer(data=tmp_path / "missing" / "tables.json").start()
    assert no_folder.value.returncode == 1
    assert f"{tmp_path / 'missing'} is not a folder" in no_folder.value.output
    assert "is not a folder" in str(no_folder.value)

    with pytest.raises(ServerStartError) as unknown:
        FakeServer(throttle_rate=2).start()
    assert "`2` is not a number from 0.0 to 1.0" in unknown.value.output
    assert unknown.value.command[-2:] == ["--throttle-rate", "2"]


def test_an_executable_that_is_not_the_server_is_named_in_the_error(tmp_path):
    impostor = tmp_path / "impostor"
    impostor.write_text("#!/bin/sh\necho hello from elsewhere\n")
    impostor.chmod(0o755)
    with pytest.raises(ServerStartError, match="its first line does not name an address") as wrong:
        FakeServer(binary=impostor).start()
    assert (wrong.value.output, wrong.value.returncode) == ("hello from elsewhere\n", 0)


def test_a_server_not_started_says_how_to_start_it():
    fake = FakeServer()
    with pytest.raises(RuntimeError, match="the server is not running: use `with FakeServer"):
        fake.now()
    assert fake.stop() == 0
    assert os.environ.get("DYNALEASE_FAKE_BIN") or fake.command()[1:3] == ["serve", "--host"]
