"""El reparto de «make test» entre procesos (tests/conftest.py): qué va junto y en qué
orden sale. No mide nada; que la tanda tarde poco depende de este orden."""

from __future__ import annotations

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
