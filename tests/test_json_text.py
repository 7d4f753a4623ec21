"""queries/json_text.py writes json.dumps(data, indent=2) byte for byte, and leaves to json what it does not know."""

from __future__ import annotations

import json
from enum import IntEnum, StrEnum

import pytest

from tg_index.queries.json_text import indented


class Colour(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


class Ordered(dict):
    pass


CASES = [
    {"a": 1},
    [1, "two", None, True, False, 2.5],
    {"kind": Colour.RED, "level": Level.HIGH, "line": 575, "detail": None, "flag": True},
    {"empty list": [], "empty dict": {}, "empty tuple": (), "nested": [[], [{}], {"x": []}]},
    {"steps": [{"name": "at::native::add_kernel", "site": {"file": "a.cpp", "line": 3}, "depth": 0}] * 3},
    ("a tuple", ("inside", 1)),
    {"text": "quote \" backslash \\ tab \t newline \n nul \0 é 漢 \U0001f600 \x7f"},
    {"floats": [0.1, -0.0, 1e300, float("nan"), float("inf"), -float("inf")], "big": 10 ** 40, "neg": -7},
    {7: "int key", 2.5: "float key", True: "bool key", None: "none key", Level.HIGH: "intenum key",
     Colour.RED: "strenum key"},
    [[[[["deep"]]]]],
    {"subclass": Ordered(b=1, a=2)},
    [Ordered(z=0)],
]


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_same_text_as_json(data):
    assert indented(data) == json.dumps(data, indent=2)


@pytest.mark.parametrize("data", ["plain", 3, None, True, 1.5, [], {}, (), Ordered(a=1), Colour.RED])
def test_values_that_are_not_a_filled_dict_list_or_tuple(data):
    assert indented(data) == json.dumps(data, indent=2)


def test_a_type_json_refuses_is_json_own_error():
    with pytest.raises(TypeError, match="^Object of type set is not JSON serializable$"):
        indented({"a": [1, {2}]})
    with pytest.raises(TypeError, match="^keys must be str, int, float, bool or None, not tuple$"):
        indented({"a": {(1, 2): 3}})


def test_a_cycle_is_json_own_error():
    loop: list = [1]
    loop.append({"back": loop})
    with pytest.raises(ValueError, match="^Circular reference detected$"):
        indented(loop)
