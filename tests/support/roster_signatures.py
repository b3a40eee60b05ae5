"""The demo roster's 44 tools as Python functions, the way an app would declare them with
``@tool_def``: the signatures the schema compiler is judged on (tests/test_schema_compiler.py).

Each function's docstring is the roster tool's description. The parameters use what tool
authors write: plain types with defaults, ``Optional``, ``Literal`` choices, lists and dicts,
``Annotated[T, "what it is"]`` notes, and two nested models (a filter condition, a sort key).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel

from toolret.demo.roster import TOOLS

__all__ = ["FUNCTIONS", "Condition", "SortKey"]

Object = Annotated[str, "the object's API name, e.g. 'deals' or 'units'"]
RecordId = Annotated[str, "the record's id, from find_records"]
FieldName = Annotated[str, "the field's API name, from inspect_schema"]
Values = Annotated[dict[str, Any], "field values by field name"]
FieldType = Literal[
    "text", "number", "currency", "date", "checkbox", "email", "phone", "select", "multi_select"
]
ViewType = Literal["table", "kanban", "calendar"]


class Condition(BaseModel):
    """One filter condition on a field."""

    field: str
    operator: Literal["eq", "contains", "gt", "lt", "between", "empty", "not_empty"] = "eq"
    value: str | float | None = None


class SortKey(BaseModel):
    """One sort key."""

    field: str
    descending: bool = False


def find_records(
    object_name: Object,
    where: list[Condition] | None = None,
    sort: list[SortKey] | None = None,
    limit: int = 20,
    page: int = 1,
) -> None: ...
def get_record(object_name: Object, record_id: RecordId) -> None: ...
def create_record(object_name: Object, values: Values) -> None: ...
def update_record(object_name: Object, record_id: RecordId, values: Values) -> None: ...
def delete_record(object_name: Object, record_id: RecordId) -> None: ...
def bulk_update_records(
    object_name: Object, where: list[Condition], values: Values, dry_run: bool = True
) -> None: ...
def bulk_delete_records(object_name: Object, where: list[Condition], confirm: bool) -> None: ...
def import_records(
    object_name: Object,
    file_id: Annotated[str, "the uploaded file's id"],
    column_map: Annotated[dict[str, str], "the file's columns mapped to field names"],
    mode: Literal["create", "update", "upsert"] = "create",
    match_on: FieldName | None = None,
) -> None: ...
def export_records(
    object_name: Object,
    where: list[Condition] | None = None,
    view_id: str | None = None,
    file_format: Literal["csv", "xlsx"] = "csv",
) -> None: ...
def count_records(
    object_name: Object,
    aggregate: Literal["count", "sum", "avg", "min", "max"] = "count",
    field: FieldName | None = None,
    group_by: FieldName | None = None,
    where: list[Condition] | None = None,
) -> None: ...
def restore_record(object_name: Object, record_id: RecordId) -> None: ...
def merge_records(
    object_name: Object,
    record_ids: Annotated[list[str], "the duplicates, the one to keep first"],
    keep_values: Annotated[dict[str, str], "per field, the id of the record whose value wins"]
    | None = None,
) -> None: ...
def record_history(object_name: Object, record_id: RecordId, limit: int = 50) -> None: ...
def list_objects(include_system: bool = False) -> None: ...
def create_object(
    name: Annotated[str, "the API name, singular, snake_case"],
    label_singular: str,
    label_plural: str,
    icon: str | None = None,
) -> None: ...
def update_object(
    object_name: Object,
    label_singular: str | None = None,
    label_plural: str | None = None,
    description: str | None = None,
) -> None: ...
def delete_object(object_name: Object, confirm: bool) -> None: ...
def add_field(
    object_name: Object,
    label: str,
    field_type: FieldType,
    required: bool = False,
    options: list[str] | None = None,
) -> None: ...
def update_field(
    object_name: Object,
    field: FieldName,
    label: str | None = None,
    help_text: str | None = None,
    required: bool | None = None,
    unique: bool | None = None,
    default: str | None = None,
    position: int | None = None,
) -> None: ...
def delete_field(object_name: Object, field: FieldName, confirm: bool) -> None: ...
def change_field_type(object_name: Object, field: FieldName, to_type: FieldType) -> None: ...
def manage_field_options(
    object_name: Object,
    field: FieldName,
    action: Literal["add", "rename", "recolor", "reorder", "remove"],
    options: list[str],
    new_names: list[str] | None = None,
) -> None: ...
def list_relations(object_name: Object | None = None) -> None: ...
def create_relation(
    from_object: Object,
    to_object: Object,
    kind: Literal["one_to_one", "one_to_many", "many_to_many"] = "one_to_many",
    field_name: str | None = None,
) -> None: ...
def delete_relation(relation_id: str, confirm: bool) -> None: ...
def link_records(
    relation_id: str,
    from_record: RecordId,
    to_record: RecordId,
) -> None: ...
def unlink_records(relation_id: str, from_record: RecordId, to_record: RecordId) -> None: ...
def list_views(object_name: Object) -> None: ...
def get_view(view_id: str) -> None: ...
def create_view(
    object_name: Object,
    name: str,
    view_type: ViewType = "table",
    where: list[Condition] | None = None,
    sort: list[SortKey] | None = None,
    columns: list[str] | None = None,
    group_by: FieldName | None = None,
) -> None: ...
def update_view(
    view_id: str,
    name: str | None = None,
    where: list[Condition] | None = None,
    sort: list[SortKey] | None = None,
    columns: list[str] | None = None,
    group_by: FieldName | None = None,
) -> None: ...
def delete_view(view_id: str) -> None: ...
def list_comments(object_name: Object, record_id: RecordId, limit: int = 20) -> None: ...
def add_comment(
    object_name: Object,
    record_id: RecordId,
    text: str,
    mentions: Annotated[list[str], "member ids to notify"] | None = None,
) -> None: ...
def list_tasks(
    assignee: str | None = None,
    status: Literal["open", "done", "overdue"] | None = None,
    due_before: Annotated[str, "an ISO date"] | None = None,
    record_id: str | None = None,
) -> None: ...
def create_task(
    title: str,
    due: Annotated[str, "an ISO date or date-time"],
    assignee: str | None = None,
    record_id: str | None = None,
    notes: str = "",
) -> None: ...
def update_task(
    task_id: str,
    status: Literal["open", "done"] | None = None,
    due: str | None = None,
    assignee: str | None = None,
    title: str | None = None,
) -> None: ...
def delete_task(task_id: str) -> None: ...
def browse_catalog(industry: str | None = None) -> None: ...
def install_template(template_id: str) -> None: ...
def inspect_schema(object_name: Object | None = None) -> None: ...
def get_workspace_context() -> None: ...
def list_members(team: str | None = None) -> None: ...
def undo_last_change() -> None: ...


def _documented() -> dict[str, Callable[..., None]]:
    functions: dict[str, Callable[..., None]] = {}
    for tool in TOOLS:
        function = globals()[tool.name]
        function.__doc__ = tool.description
        functions[tool.name] = function
    return functions


FUNCTIONS: dict[str, Callable[..., None]] = _documented()
"""Every roster tool's function, by name, in roster order."""
