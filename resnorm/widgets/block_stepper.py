"""Capítulo 8: el vector «perro» paso a paso por un bloque (``block_stepper.js``)."""

from __future__ import annotations

import traitlets

from resnorm.widgets._base import DEFAULT_EPS, CourseWidget, spanish_error
from resnorm.widgets.bundler import bundle


class BlockStepper(CourseWidget):
    """«Siguiente paso» / «Paso anterior»: el vector «perro» por un bloque.

    Capítulo 8: El vector «perro» paso a paso.

    Los pasos (vectores y estadísticas) los calcula ``resnorm.trace.block_trace`` en
    Python al construir el widget, para Post-LN y Pre-LN; el navegador solo los
    muestra (sin matemáticas en el JS). Un interruptor cambia de orden.
    """

    _esm = bundle("block_stepper.js")
    steps_post = traitlets.List(traitlets.Dict()).tag(sync=True)
    steps_pre = traitlets.List(traitlets.Dict()).tag(sync=True)
    order = traitlets.Unicode("post").tag(sync=True)
    index = traitlets.Int(0).tag(sync=True)

    def __init__(self, example=None, eps=DEFAULT_EPS, **kwargs):
        from resnorm.trace import block_trace, perro_example

        example = perro_example() if example is None else example
        kwargs.setdefault("steps_post", block_trace(example, order="post", eps=eps))
        kwargs.setdefault("steps_pre", block_trace(example, order="pre", eps=eps))
        super().__init__(**kwargs)

    @traitlets.validate("order")
    def _check_order(self, proposal):
        if proposal["value"] not in ("post", "pre"):
            raise spanish_error(
                f"order debe ser «post» o «pre», pero es {proposal['value']!r}"
            )
        return proposal["value"]

    @traitlets.validate("index")
    def _check_index(self, proposal):
        steps = self.steps_pre if self.order == "pre" else self.steps_post
        n = max(len(steps), 1)
        if not 0 <= proposal["value"] < n:
            raise spanish_error(
                f"index debe estar entre 0 y {n - 1}, pero es {proposal['value']}"
            )
        return proposal["value"]
