"""An in-memory DynamoDB for Python tests: ``dynalease-fake serve``, started and stopped by a
context manager or a pytest fixture, with its clock, faults, tables and request log in the
test's hands.

::

    from dynalease_fake import FakeServer

    with FakeServer(clock="manual") as fake:
        dynamodb = fake.client()     # boto3, dummy credentials
        ...
        fake.advance(days=2)         # time-to-live deletions made before it returns

With pytest, the ``dynalease_fake`` fixture hands each test the run's server, reset.
"""

from .binary import binary_path
from .control import ControlError
from .server import FAULT_KINDS, FakeServer, ServerError, ServerStartError

__all__ = ["FAULT_KINDS", "ControlError", "FakeServer", "ServerError", "ServerStartError", "binary_path"]
