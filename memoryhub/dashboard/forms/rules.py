"""Dashboard forms for actions agents also have: their input rules come from the operation's input model.

    class LinkForm(RuleForm):
        operation = "memory_link"
        rules = {"from": Rule(_("Memory")), "to": Rule(_("Link to")), "kind": Rule(_("Kind"), labels="link")}

Each `Rule` names one argument of an operation (operations/registry); the form field's cap, choices, bounds and
whether it is required are read from that argument's JSON schema, the one agents see, and what a person typed is
validated by the argument's own pydantic field (operations/fields.py), so a person and an agent are refused the
same value with the same sentence ("title is 412 characters; the limit is 300"), the person's in their language
with the field named by its label ("标题有 412 个字符，上限是 300"). The Django field itself checks
nothing of its own: it only carries the rule into the page (maxlength, required, the options of a select).

A form that names its `operation` (with `fixed` arguments, e.g. a fact form's action) is also validated as a
whole by that operation's model, for the rules between fields ("predicate is required to assert a fact"), and
keeps the result as `arguments`: what `perform()` runs the operation with, as the person.

Where a person may deliberately do more or less than an agent, the Rule says so (`required=False`), and the form's
docstring says why; tests/test_form_rules.py holds every rule field to its operation's schema.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from typing import Any

from django import forms
from pydantic import create_model

from memoryhub.access.call import Call
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError
from memoryhub.dashboard import labels
from memoryhub.operations import refusals, registry
from memoryhub.operations.base import Input, Operation, validate


@dataclass(frozen=True)
class Rule:
    """One form field that takes its rule from `argument` of `operation` (by default the form's and the field's
    own name). `required=False` lets a person leave out what an agent must send (the form's docstring says why);
    `labels` names the dashboard/labels kind that names a choice's options; `blank` is a select's empty option."""

    label: Any
    operation: str = ""
    argument: str = ""
    required: bool | None = None
    widget: Any = None
    help_text: Any = ""
    initial: Any = None
    labels: str = ""
    blank: Any = ""


def argument_schema(operation: str, argument: str) -> dict[str, Any]:
    """The JSON schema of one argument as agents see it (GET /api/v1/tools, MCP tools/list)."""
    parameters = _parameters(operation)
    return {**parameters["properties"][argument], "required": argument in parameters["required"]}


@cache
def _parameters(operation: str) -> dict[str, Any]:
    return registry.get(operation).parameters()


@cache
def argument_model(operation: str, argument: str) -> type[Input]:
    """A model of the one argument, with its pydantic field as the operation declares it (cap, choices,
    validators), so it refuses a value exactly as the whole operation would, in the same words."""
    model = registry.get(operation).input
    name, info = next((n, f) for n, f in model.model_fields.items() if (f.alias or n) == argument)
    return create_model(f"{model.__name__}_{name}", __base__=Input, **{name: (info.annotation, info)})


class _RuleChoice(forms.ChoiceField):
    """A select whose options are the operation's; the model, not Django, refuses a value outside them."""

    def validate(self, value: Any) -> None:
        forms.Field.validate(self, value)


def form_field(rule: Rule, operation: str, argument: str) -> forms.Field:
    """The Django field that carries one argument's rule into the page."""
    schema = argument_schema(operation, argument)
    required = schema["required"] if rule.required is None else rule.required
    attrs: dict[str, Any] = {"required": True} if required else {}
    common = {"label": rule.label, "help_text": rule.help_text, "initial": rule.initial, "required": False}
    text = {"strip": False}  # whitespace is the model's to judge ("must not be empty"), as for an agent

    def widget(default: type[forms.Widget]) -> forms.Widget:
        made = copy.deepcopy(rule.widget) if rule.widget is not None else default()
        made.attrs.update(attrs)
        return made

    if "enum" in schema:
        options = labels.choices(rule.labels, schema["enum"]) if rule.labels else [(v, v) for v in schema["enum"]]
        blank = [("", rule.blank)] if not required else []
        return _RuleChoice(choices=blank + options, widget=widget(forms.Select), **common)
    if schema.get("type") == "integer":  # the bounds are the model's to refuse, in its words
        attrs.update({k: schema[s] for k, s in (("min", "minimum"), ("max", "maximum")) if s in schema})
        return forms.IntegerField(widget=widget(forms.NumberInput), **common)
    if schema.get("type") == "boolean":
        return forms.BooleanField(widget=widget(forms.CheckboxInput), **common)
    if schema.get("type") != "array":  # a list is typed as "a, b": the operation's list rule splits and counts it
        attrs["maxlength"] = schema["maxLength"]
    return without_validators(forms.CharField(widget=widget(forms.TextInput), **text, **common))


def without_validators(field: forms.Field) -> forms.Field:
    """Django's NUL check goes: core/jsonin refuses NUL (and lone surrogates) in the agents' words."""
    field.validators = []
    return field


class RuleForm(forms.Form):
    """A form whose `rules` fields take their rules from operations; other fields are the dashboard's own."""

    operation: str = ""  # the operation the form's rule fields are arguments of (validated whole; `perform`)
    fixed: dict[str, Any] = {}  # arguments the page gives, not the person (a fact form's action)
    rules: dict[str, Rule] = {}
    arguments: Input | None = None

    def __init__(self, *args, fixed: dict[str, Any] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if fixed is not None:
            self.fixed = {**self.fixed, **fixed}
        for name, rule in self.rules.items():
            self.fields[name] = form_field(rule, *self.bound_to(name))
        self.order_fields([*self.rules, *(n for n in self.fields if n not in self.rules)])

    @classmethod
    def bound_to(cls, name: str) -> tuple[str, str]:
        """(operation, argument) whose rule the field `name` takes."""
        rule = cls.rules[name]
        return rule.operation or cls.operation, rule.argument or name

    @classmethod
    def required(cls, name: str) -> bool:
        rule = cls.rules[name]
        return argument_schema(*cls.bound_to(name))["required"] if rule.required is None else rule.required

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name in self.rules:
            if name not in data or self.has_error(name):
                continue
            operation, argument = self.bound_to(name)
            value = data[name]
            if value in ("", None) and self.rules[name].required is False:
                continue  # left out, as a person may here though an agent may not (the form's docstring says why)
            try:
                jsonin.check({argument: value})  # NUL, lone surrogates: what the operation reads first
                held = validate(argument_model(operation, argument), {argument: value})
            except ApiError as exc:
                self.add_error(name, refusals.said(exc, self.fields[name].label))
                continue
            data[name] = next(iter(held.model_dump().values()))
        if self.operation and not self.errors:
            self.arguments = self.validated()
        return data

    def validated(self) -> Input | None:
        """The whole operation's arguments (its rules between fields too), or None with the refusal shown."""
        given = {**self.fixed, **{self.bound_to(name)[1]: self.cleaned_data[name] for name in self.rules
                                  if self.bound_to(name)[0] == self.operation and self.cleaned_data[name] is not None}}
        try:
            return registry.get(self.operation).read(given)
        except ApiError as exc:
            field = next((n for n in self.rules if self.bound_to(n) == (self.operation, exc.field)), None)
            self.add_error(field, refusals.said(exc, self.fields[field].label if field else None))
            return None

    def refusal(self) -> str:
        """Every refusal of the form in one line, for a page that shows it in one place."""
        return " ".join(message for messages in self.errors.values() for message in messages)

    def perform(self, call: Call, permitted: Any = None) -> dict:
        """Run the form's operation as `call` with the arguments the form validated (see perform())."""
        return perform(call, self.operation, self.arguments, permitted)


def perform(call: Call, name: str, arguments: Input | dict, permitted: Any = None) -> dict:
    """Operation `name` as `call` (access/call.PersonCall for a person): its arguments read as any face reads them,
    its permission (the access policy, answering for the person) unless the page already resolved what it works
    on, then its run(), the code an agent's call runs. There is no agent session to see: a person has none.
    Raises the operation's ApiError, or a ProviderError for the page to show."""
    operation: Operation = registry.get(name)
    args = arguments if isinstance(arguments, Input) else operation.read(arguments)
    if permitted is None:
        permitted = operation.permission(call, "", args)
    answer = operation.run(call, "", args, permitted)
    return answer[0] if isinstance(answer, tuple) else answer
