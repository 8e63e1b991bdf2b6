"""Password login with a lockout after too many failed attempts."""

MAX_ATTEMPTS = 3


class AccountLocked(Exception):
    """Raised when a locked account tries to log in."""


class LoginService:
    def __init__(self, passwords, max_attempts=MAX_ATTEMPTS):
        self.passwords = dict(passwords)
        self.max_attempts = max_attempts
        self.failures = {}

    def login(self, user, password):
        """True on success, False on a wrong password; AccountLocked once locked."""
        if self.is_locked(user):
            raise AccountLocked(f"{user} is locked after {self.max_attempts} failed attempts")
        if self.passwords.get(user) == password:
            self.failures[user] = 0
            return True
        self.failures[user] = self.failures.get(user, 0) + 1
        return False

    def is_locked(self, user):
        return self.failures.get(user, 0) > self.max_attempts
