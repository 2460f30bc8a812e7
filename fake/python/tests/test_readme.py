"""The pytest example at the top of the package's README passes, as it is written there."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_is_ten_lines_and_passes(dynalease_fake):
    example = re.search(r"```python\n(.*?)```", README.read_text(), re.DOTALL).group(1)
    assert len(example.splitlines()) == 10
    namespace = {}
    exec(compile(example, str(README), "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    tests[0](dynalease_fake)
