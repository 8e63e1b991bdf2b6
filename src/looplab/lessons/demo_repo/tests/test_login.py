import pytest

from login import AccountLocked, LoginService


def make_service():
    return LoginService({"alice": "s3cret"})


def test_login_success():
    assert make_service().login("alice", "s3cret") is True


def test_wrong_password_returns_false():
    assert make_service().login("alice", "guess") is False


def test_login_lockout():
    service = make_service()
    for _ in range(3):
        assert service.login("alice", "guess") is False
    # three failures lock the account: even the right password is refused now
    with pytest.raises(AccountLocked):
        service.login("alice", "s3cret")
