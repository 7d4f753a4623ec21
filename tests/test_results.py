"""The answer types of queries/results.py: frozen dataclasses whose ==, hash and repr (Answer's, written once)
are what `dataclass(frozen=True)` generates for the same fields."""

from __future__ import annotations

import dataclasses

import pytest

from tg_index.indexer.facts import Location
from tg_index.queries import results

ANSWER_TYPES = [value for value in vars(results).values()
                if dataclasses.is_dataclass(value) and value.__module__ == results.__name__]


def _values(cls: type, salt: int) -> dict:
    """One distinct value per field (strings, numbers, tuples and a Location: hashable, each repr different)."""
    made = {}
    for i, f in enumerate(dataclasses.fields(cls)):
        made[f.name] = (f"{f.name}-{salt}", Location(f"f{salt}.cpp", i), (i, salt), i * 10 + salt)[i % 4]
    return made


def _twin(cls: type) -> type:
    """The same class as `dataclass(frozen=True)` makes it, with every method generated."""
    return dataclasses.make_dataclass(cls.__name__, [(f.name, object) for f in dataclasses.fields(cls)], frozen=True)


def test_every_answer_type_is_a_frozen_dataclass_of_answer():
    assert len(ANSWER_TYPES) == 28
    for cls in ANSWER_TYPES:
        assert issubclass(cls, results.Answer), cls
        assert cls.__dataclass_params__.frozen, cls
        assert "__eq__" not in cls.__dict__ and "__hash__" not in cls.__dict__ and "__repr__" not in cls.__dict__


@pytest.mark.parametrize("cls", ANSWER_TYPES, ids=lambda c: c.__name__)
def test_eq_hash_and_repr_are_the_generated_ones(cls):
    one, same, other = cls(**_values(cls, 1)), cls(**_values(cls, 1)), cls(**_values(cls, 2))
    twin = _twin(cls)
    assert repr(one) == repr(twin(**_values(cls, 1)))
    assert hash(one) == hash(twin(**_values(cls, 1)))
    assert one == same and not one != same and hash(one) == hash(same)
    assert one != other and not one == other
    assert one != twin(**_values(cls, 1))  # another class, even with the same fields, is not equal
    assert len({one, same, other}) == 2


def test_fields_stay_frozen_and_replace_makes_a_new_answer():
    step = results.Step("call", "at::native::add_kernel", Location("aten/src/ATen/native/BinaryOps.cpp", 57))
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'name'"):
        step.name = "other"
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'depth'"):
        del step.depth
    moved = dataclasses.replace(step, depth=2)
    assert (moved.depth, moved.name, step.depth) == (2, "at::native::add_kernel", 0)
    assert moved != step and moved == dataclasses.replace(step, depth=2)
    assert repr(results.Truncation("calls", 3)) == "Truncation(what='calls', limit=3, names=())"
    assert results.Truncation("calls", 3).__eq__(("calls", 3, ())) is NotImplemented


def _frozen_twin(cls: type) -> type:
    """dataclass(frozen=True) over the same fields, types and defaults (its generated __init__ to compare with)."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default) if f.default is not dataclasses.MISSING else
              dataclasses.field(default_factory=f.default_factory)
              if f.default_factory is not dataclasses.MISSING else dataclasses.field())
             for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True, eq=False, repr=False)


@pytest.mark.parametrize("cls", ANSWER_TYPES, ids=lambda c: c.__name__)
def test_init_takes_and_refuses_what_a_frozen_dataclass_s_takes_and_refuses(cls):
    """answer() compiles only an __init__ (no __setattr__ or __delattr__ per class: Answer's refuse every change)
    with the signature, annotations and errors of the one dataclass(frozen=True) generates."""
    import inspect

    assert "__setattr__" not in cls.__dict__ and "__delattr__" not in cls.__dict__
    twin = _frozen_twin(cls)
    assert inspect.signature(cls) == inspect.signature(twin)
    assert cls.__init__.__annotations__ == twin.__init__.__annotations__
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    values = _values(cls, 1)
    assert vars(cls(**values)) == vars(twin(**values)) == vars(cls(*values.values()))
    def refusal(call, made: type) -> str | None:
        try:
            call(made)
        except TypeError as exc:
            return str(exc)
        return None

    for call in (lambda c: c(), lambda c: c(*values.values(), 1), lambda c: c(**values, unknown=1)):
        assert refusal(call, cls) == refusal(call, twin) is not None
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'added'"):
        cls(**values).added = 1


def test_answer_makes_a_default_factory_s_value_per_instance_and_refuses_a_bad_order():
    @results.answer
    class Made(results.Answer):
        """made"""

        name: str
        seen: list = dataclasses.field(default_factory=list)

    one, two = Made("a"), Made("b")
    assert one.seen == [] and one.seen is not two.seen and Made("c", [1]).seen == [1]
    with pytest.raises(TypeError, match="non-default argument 'late' follows default argument"):
        @results.answer
        class Wrong(results.Answer):
            """wrong"""

            early: int = 0
            late: int
