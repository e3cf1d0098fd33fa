"""What `tracepoint serve` prints once it listens: the bootstrap admin's credentials on
the start that created them, framed so that they stand out of the logs."""

from application.access.bootstrap import BootstrapCredentials
from application.access.first_credentials import FirstCredentials


def frame(lines: list[str]) -> str:
    """The lines in an ASCII box (plain characters: logs and every terminal show them)."""
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 2) + "+"
    return "\n".join([rule, *(f"| {line.ljust(width)} |" for line in lines), rule]) + "\n"


def first_start_notice(
    credentials: BootstrapCredentials | None,
    keeper: FirstCredentials,
    error: str | None,
    public_url: str,
) -> str:
    """The framed credentials this start created (`error`: why they could not be kept),
    where earlier ones wait for the first sign-in, or nothing."""
    sign_in = f"Sign in: POST {public_url.rstrip('/')}/auth/login"
    if credentials is not None and credentials.generated:
        shown = keeper.lines(credentials)
        width = max(len(name) for name in shown)
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
