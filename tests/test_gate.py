"""El reparto de «make test» entre procesos (tests/conftest.py): qué va junto y en qué
orden sale. No mide nada; que la tanda tarde poco depende de este orden."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import _costly_first, scope_of

FRESH = ("tests/test_cuadernos.py::test_each_learner_notebook_runs_on_a_fresh_kernel_"
         "and_prints_the_page_numbers")


def test_a_module_is_one_group_unless_split_by_view_page_or_notebook():
    assert scope_of("tests/test_gpt.py::test_tiny_gpt_is_causal[pre_ln]") == (
        "tests/test_gpt.py")
    assert scope_of("tests/test_site_view.py::test_x[tableta-claro-index.html]") == (
        "tests/test_site_view.py::tableta-claro")
    assert scope_of(f"{FRESH}[10_gpt_diminuto]") == f"{FRESH}[10_gpt_diminuto]"
    # Las páginas de test_site_quality.py, con las del portátil de test_site_view.py.
    assert scope_of("tests/test_site_quality.py::test_axe[index.html]") == (
        "tests/test_site_view.py::portatil-claro")
    # test_widgets_site.py lee las cargas del teléfono de test_site_view.py.
    assert scope_of("tests/test_widgets_site.py::test_each_widget_is_in_a_chapter"
                    "[rn-meanstd]") == "tests/test_site_view.py::telefono-claro"
    # Las demás pruebas del módulo de los cuadernos van juntas.
    assert scope_of("tests/test_cuadernos.py::test_sections_carry[04_layernorm]") == (
        "tests/test_cuadernos.py")


def test_the_longest_groups_go_first_and_each_group_stays_together():
    ids = [
        "tests/test_a.py::test_one",
        f"{FRESH}[01_problema_apilar]",
        "tests/test_b.py::test_one[x]",
        "tests/test_site_view.py::test_p[telefono-claro-index.html]",
        "tests/test_b.py::test_one[y]",
        f"{FRESH}[10_gpt_diminuto]",
        "tests/test_site_view.py::test_p[portatil-claro-index.html]",
        "tests/test_b.py::test_two",
        "tests/test_site_view.py::test_q[telefono-claro-index.html]",
    ]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    _costly_first(items)
    assert [i.nodeid for i in items] == [
        # El cuaderno del GPT, el más largo; después las vistas (las de más pruebas
        # primero) y los demás cuadernos.
        f"{FRESH}[10_gpt_diminuto]",
        "tests/test_site_view.py::test_p[telefono-claro-index.html]",
        "tests/test_site_view.py::test_q[telefono-claro-index.html]",
        "tests/test_site_view.py::test_p[portatil-claro-index.html]",
        f"{FRESH}[01_problema_apilar]",
        # Los demás, de más pruebas a menos, cada uno en el orden de pytest.
        "tests/test_b.py::test_one[x]",
        "tests/test_b.py::test_one[y]",
        "tests/test_b.py::test_two",
        "tests/test_a.py::test_one",
    ]


# --- «make check»: el bucle de trabajo deja fuera lo que entrena ----------------------

#: Lo que entrena o calcula un experimento de verdad: lo público de
#: resnorm.experiments y lo que entrena de resnorm.gpt y resnorm.identity.
def _costly_functions() -> set[str]:
    from resnorm import experiments

    return {n for n in experiments.__all__ if callable(getattr(experiments, n))} | {
        "train_gpt", "train_gpts", "gpt_comparison", "gpt_seeds", "lr_sensitivity",
        "postln_edge", "identity_learning"}


def _calls(node) -> set[str]:
    import ast

    return {getattr(n.func, "attr", getattr(n.func, "id", ""))
            for n in ast.walk(node) if isinstance(n, ast.Call)}


def _module_fixtures_calling(costly: set[str]):
    """(módulo, fixture, llamadas) de cada fixture de tests/ que llama a ``costly``."""
    import ast

    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef) or not any(
                    "fixture" in ast.unparse(d) for d in node.decorator_list):
                continue
            calls = _calls(node) & costly
            if calls:
                yield path.name, node.name, calls


def test_every_fixture_that_runs_an_experiment_is_classified_slow_or_cheap():
    from tests.conftest import CHEAP_FIXTURES, SLOW_FIXTURES

    found = list(_module_fixtures_calling(_costly_functions()))
    assert len(found) >= 10, found  # el detector ve las fixtures que hay
    loose = [f"{module}::{name} ({', '.join(sorted(calls))})"
             for module, name, calls in found
             if name not in SLOW_FIXTURES.get(module, {})
             and name not in CHEAP_FIXTURES.get(module, {})]
    assert not loose, (
        "Fixtures que calculan un experimento sin clasificar: ponlas en "
        "SLOW_FIXTURES (entrenan: «make check» las deja para «make test») o en "
        "CHEAP_FIXTURES (tamaño de juguete), en tests/conftest.py, con el porqué: "
        f"{loose}")
    listed = {(m, n) for table in (SLOW_FIXTURES, CHEAP_FIXTURES)
              for m, names in table.items() for n in names}
    stale = listed - {(m, n) for m, n, _ in found}
    assert not stale, f"En tests/conftest.py, fixtures que no existen: {stale}"


def test_the_detector_sees_a_fixture_that_trains():
    import ast

    source = ("import pytest\n@pytest.fixture(scope='module')\n"
              "def runs():\n    return gpt.train_gpt('pre_ln', steps=5)\n")
    assert _calls(ast.parse(source).body[1]) & _costly_functions() == {"train_gpt"}


def test_make_check_leaves_out_slow_build_and_browser_tests():
    makefile = (Path(__file__).parents[1] / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ncheck:", 1)[1].split("\n\n", 1)[0]
    assert '-m "not browser and not build and not slow"' in recipe
