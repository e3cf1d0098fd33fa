"""Access use cases: who is calling, sign-in, users, roles, policies, permissions, the
e-mail flows, throttles and a fresh installation's first records. Draws on `domain/access`."""
