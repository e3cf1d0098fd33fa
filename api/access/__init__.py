"""`/auth`, `/users`, `/roles`, `/policies`, `/permissions` and the caller's own views."""
