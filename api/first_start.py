"""What `tracepoint serve` prints once it listens: the bootstrap admin's credentials on
the start that created them, framed so that they stand out of the logs."""

from application.runtime import Tracepoint


def frame(lines: list[str]) -> str:
    """The lines in an ASCII box (plain characters: logs and every terminal show them)."""
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 2) + "+"
    return "\n".join([rule, *(f"| {line.ljust(width)} |" for line in lines), rule]) + "\n"


def first_start_notice(tracepoint: Tracepoint) -> str:
    """The framed credentials the start created, where they are kept, or nothing."""
    keeper = tracepoint.first_credentials
    credentials = tracepoint.bootstrap_credentials
    sign_in = f"Sign in: POST {tracepoint.settings.public_url.rstrip('/')}/auth/login"
    if credentials is not None and credentials.generated:
        shown = keeper.lines(credentials)
        width = max(len(name) for name in shown)
        error = tracepoint.first_credentials_error
        kept = (
            [
                "They are kept, readable by this user only, until the admin first",
                f"signs in with the password, in {keeper.path}",
            ]
            if error is None
            else [f"They could NOT be kept in a file ({error}):", "note them now."]
        )
        return frame(
            [
                "Tracepoint created the bootstrap admin:",
                "",
                *(f"  {name + ':':<{width + 1}} {value}" for name, value in shown.items()),
                "",
                *kept,
                sign_in,
            ]
        )
    if keeper.waiting():
        return frame(
            [
                "The bootstrap admin has not signed in yet. Its credentials are in",
                f"  {keeper.path}",
                "(deleted by the admin's first sign-in with the password).",
                sign_in,
            ]
        )
    return ""
