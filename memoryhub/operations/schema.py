"""The JSON schema agents see, generated from an input model: plain, self-contained and honest.

Pydantic's output is adjusted where agents' tool-callers stumble: no `title` on every property, nested
models inlined instead of `$ref`/`$defs` (several clients cannot follow a reference), no `null` alternative
(a null argument is taken as absent, docs/api.md), and no empty default (`""`, `[]`) that says nothing.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

EMPTY = ("", None, [], {})


class AgentSchema(GenerateJsonSchema):
    def field_title_should_be_set(self, schema) -> bool:
        return False

    def nullable_schema(self, schema):
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema):
        generated = super().default_schema(schema)
        if generated.get("default") in EMPTY:
            generated.pop("default")
        return generated


def inline(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every `$ref` replaced by the definition it names (the models have no cycles)."""
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = resolve(dict(definitions[node["$ref"].rsplit("/", 1)[-1]]))
                return {**target, **{k: resolve(v) for k, v in node.items() if k != "$ref"}}
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


def strip_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop the `title` pydantic gives each model (not a property *named* title)."""
    schema.pop("title", None)
    for inner in schema.get("properties", {}).values():
        strip_titles(inner)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            strip_titles(schema[key])
    return schema


def parameters(model) -> dict[str, Any]:
    """An input model's arguments as a JSON schema object (the `parameters` of a tool)."""
    schema = strip_titles(inline(model.model_json_schema(schema_generator=AgentSchema)))
    schema.pop("description", None)  # the tool's description says what it is for
    schema.setdefault("required", [])
    return schema


def nested(model: type[BaseModel]) -> list[type[BaseModel]]:
    """The models inside a model's fields (a turn's Channel, a notebook's Change), depth first."""
    found: list[type[BaseModel]] = []

    def visit(annotation) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in found:
                found.append(annotation)
                for field in annotation.model_fields.values():
                    visit(field.annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    for field in model.model_fields.values():
        visit(field.annotation)
    return found
