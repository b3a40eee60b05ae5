"""A catalog built to hold one of each thing ``toolret lint`` finds, for the lint's tests.

``doctor_catalog`` is a catalog spec the CLI can load:
``tests.support.lint_catalogs:doctor_catalog``.
"""

from __future__ import annotations

from toolret import Catalog, Tool

SEND_EMAIL = (
    "Send an email message to a contact from the user's mailbox, with a subject and a body. "
    "Use it when the user asks to email someone."
)
SEND_MAIL = (
    "Send an email message to a contact from the user's mailbox, with a subject and a body. "
    "Use it when the user wants to email somebody."
)
"""Two descriptions that differ in two words: a look-alike pair by any threshold."""

DELETE_CONTACT = (
    "Permanently delete one contact person from the address book, with their phone numbers "
    "and email addresses. Use it when the user wants a contact removed for good."
)
CREATE_INVOICE = (
    "Create a new invoice for a customer with line items, quantities, prices and a due date. "
    "Use it when the user wants to bill a customer."
)
MISPLACED = "Erase this person from my address book for good, phone numbers and all"
"""An example given to create_invoice that plainly asks for delete_contact."""

_SENTENCE = (
    "Schedule a meeting in the shared calendar with the attendees, the room, the agenda, the "
    "video link and a reminder, and send every attendee an invitation they can accept. "
)
LONG = _SENTENCE * 30
"""A description far past the bundled model's 512-token window."""
THIN = "Check the API is up."
"""20 characters: under the 40-character minimum."""


def doctor_catalog() -> Catalog:
    """One look-alike pair, one misplaced example, one cut description, one thin description
    the application wrote, one thin third-party description; English examples only."""
    tools = [
        Tool("send_email", SEND_EMAIL, examples=("email Omar the contract",)),
        Tool("send_mail", SEND_MAIL, examples=("write to Layla about the lease",)),
        Tool("delete_contact", DELETE_CONTACT, examples=("remove Ahmed from my contacts",)),
        Tool(
            "create_invoice",
            CREATE_INVOICE,
            examples=("bill Acme for March", MISPLACED),
        ),
        Tool("schedule_meeting", LONG, examples=("set up a call with the tenants tomorrow",)),
        Tool("ping", THIN, examples=("is the service up",)),
        Tool("get_me", "Get details of the authenticated user.", third_party=True),
    ]
    return Catalog(tools, min_description_length=10)
