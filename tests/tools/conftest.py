import pytest


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    """Run the test in a fresh directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
