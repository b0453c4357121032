"""A real SMTP server (aiosmtpd) on a free loopback port, for the mail tests.

It records every message it accepts, refuses chosen recipients permanently
(550) and others temporarily (451) for their first ``temporary_failures``
attempts, as real servers do.
"""

from __future__ import annotations

import email
import email.policy
import socket
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller


@dataclass
class Recording:
    messages: list[email.message.EmailMessage] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)
    temporary: dict[str, int] = field(default_factory=dict)  # address → failures left

    def to(self, address: str) -> list[email.message.EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


class Handler:
    def __init__(self, recording: Recording) -> None:
        self.recording = recording

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.recording.refuse:
            return "550 5.1.1 No such mailbox here"
        left = self.recording.temporary.get(address, 0)
        if left > 0:
            self.recording.temporary[address] = left - 1
            return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.recording.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 Message accepted"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SmtpServer:
    """Started and stopped by the ``smtp`` fixture."""

    def __init__(self) -> None:
        self.recording = Recording()
        self.port = free_port()
        self.controller = Controller(
            Handler(self.recording), hostname="127.0.0.1", port=self.port
        )

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()
