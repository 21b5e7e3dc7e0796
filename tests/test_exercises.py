"""Cada ejercicio tiene un comprobador: la solución del libro lo pasa (✅) y el stub
vacío falla con un mensaje amable en español (❌), sin excepción."""

from __future__ import annotations

import pytest

from resnorm.exercises import Feedback, check_function
from tests.helpers import notebook_paths

NOTEBOOKS = notebook_paths()


def _text(outputs) -> str:
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        for key in ("text/plain", "text/html"):
            parts.append(str(out.get("data", {}).get(key, "")))
    return "\n".join(parts)


def _tagged(nb, tag):
    return [
        c for c in nb.cells
        if c.cell_type == "code" and tag in c.metadata.get("tags", [])
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solutions_pass_and_stubs_fail_gracefully(path, executed_notebooks):
    nb = executed_notebooks(path)
    stubs, solutions = _tagged(nb, "ejercicio"), _tagged(nb, "solucion")
    assert len(stubs) >= 2, f"{path.name}: hacen falta al menos dos ejercicios"
    assert solutions, f"{path.name}: ejercicios sin solución ejecutable"
    for cell in solutions:
        text = _text(cell.outputs)
        assert "✅" in text and "❌" not in text, (
            f"{path.name}: solución que no pasa:\n{text}"
        )
    for cell in stubs:
        text = _text(cell.outputs)
        assert "❌" in text, f"{path.name}: el stub no muestra un fallo amable:\n{text}"
        assert not any(o.get("output_type") == "error" for o in cell.outputs)


def test_check_function_reports_a_stub_in_spanish():
    def stub(x):
        raise NotImplementedError

    case = [("media de [2, 4]", ([2, 4],), 3.0)]
    fb = check_function("Media", stub, case, "suma y divide")
    assert not fb and "Aún no has escrito la función" in str(fb)
    assert "Pista: suma y divide" in str(fb)


def test_check_function_reports_wrong_values_and_exceptions():
    case = [("media de [2, 4]", ([2, 4],), 3.0)]
    fb = check_function("Media", lambda x: sum(x), case, "")
    assert not fb and "obtuve 6" in str(fb) and "se esperaba 3" in str(fb)
    fb = check_function("Media", lambda x: 1 / 0, case, "")
    assert not fb and "ZeroDivisionError" in str(fb)
    fb = check_function("Media", lambda x: None, [("media", ([2, 4],), 3.0)], "")
    assert "return" in str(fb)


def test_feedback_renders_html_without_raw_markup():
    html = Feedback("Título <b>", True, ["✓ a < b"])._repr_html_()
    assert "&lt;b&gt;" in html and "✅" in html
