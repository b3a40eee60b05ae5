"""Reading human messages out of OpenAI, Anthropic and LangChain-shaped transcripts."""

from __future__ import annotations

from dataclasses import dataclass

from toolret.transcript import content_text, is_human_message, latest_human_text


@dataclass
class HumanMessage:
    content: str
    type: str = "human"


def test_content_text_reads_strings_and_text_blocks() -> None:
    assert content_text("plain") == "plain"
    blocks = [
        {"type": "text", "text": "first"},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": "input_text", "text": "second"},
    ]
    assert content_text(blocks) == "first\nsecond"
    assert content_text(None) == ""


def test_tool_results_in_user_messages_are_not_human() -> None:
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
    }
    assert not is_human_message(result)
    assert is_human_message({"role": "user", "content": "hello"})
    assert not is_human_message({"type": "function_call_output", "call_id": "c", "output": "x"})
    assert is_human_message(HumanMessage("hi"))


def test_latest_human_text_across_shapes() -> None:
    transcript = [
        {"role": "user", "content": "old"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "new"}]},
        {"type": "function_call_output", "call_id": "c", "output": "x"},
    ]
    assert latest_human_text(transcript) == "new"
    assert latest_human_text([HumanMessage("objects too")]) == "objects too"
    assert latest_human_text([]) == ""
